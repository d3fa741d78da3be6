//===- GemmShapes.h - Normalize GEMM operands to row-major + ld (internal) -*- C++ -*-===//
//
// Shared by the OpenBLAS, oneDNN and cuBLAS(Lt) kernels: checks the shapes of
// C[M,N] = op(A) * op(B) (Kernels.h) and expresses every operand as a row-major matrix with a
// leading dimension, turning column-major views into transposes.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_RAL_LIB_KERNELS_GEMMSHAPES_H
#define LOUPE_RAL_LIB_KERNELS_GEMMSHAPES_H

#include "loupe/ral/MemRef.h"
#include "loupe/ral/Status.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace loupe::ral::detail {

/// One operand as row-major storage: `rows` x `cols` with leading dimension `ld` (elements),
/// `transposed` when the math operand is the transpose of that storage.
struct GemmOperand {
  int64_t rows = 0, cols = 0, ld = 0;
  bool transposed = false;
};

/// A [rows, cols] matrix with strides s0, s1 as row-major storage (possibly transposed).
/// False when neither dimension is unit-stride.
inline bool asRowMajor(int64_t rows, int64_t cols, int64_t s0, int64_t s1, bool trans,
                       GemmOperand &out) {
  if (cols == 1)
    s1 = 1;
  if (rows == 1)
    s0 = std::max<int64_t>(cols, 1);
  if (s1 == 1 && s0 >= std::max<int64_t>(cols, 1)) {
    out = {rows, cols, s0, trans};
    return true;
  }
  if (s0 == 1 && s1 >= std::max<int64_t>(rows, 1)) { // column-major: row-major of the transpose
    out = {cols, rows, s1, !trans};
    return true;
  }
  return false;
}

struct GemmProblem {
  int64_t m = 0, n = 0, k = 0;
  GemmOperand a, b, c;
};

inline std::string dims2(int64_t a, int64_t b) {
  return "[" + std::to_string(a) + "x" + std::to_string(b) + "]";
}

/// Checks C[M,N] = op(A) * op(B) for [a0,a1], [b0,b1], [c0,c1] memrefs with strides.
inline Status planGemm(const char *api, const int64_t *aSizes, const int64_t *aStrides,
                       const int64_t *bSizes, const int64_t *bStrides, const int64_t *cSizes,
                       const int64_t *cStrides, bool transA, bool transB, GemmProblem &p) {
  p.m = transA ? aSizes[1] : aSizes[0];
  p.k = transA ? aSizes[0] : aSizes[1];
  int64_t kb = transB ? bSizes[1] : bSizes[0];
  p.n = transB ? bSizes[0] : bSizes[1];
  // Formatted only on an error: this runs on every call of every GEMM.
  auto error = [&](const char *what) {
    return invalidArgument(std::string(api) + ": " + what + " (A " + dims2(aSizes[0], aSizes[1]) +
                           (transA ? "^T" : "") + ", B " + dims2(bSizes[0], bSizes[1]) +
                           (transB ? "^T" : "") + ", C " + dims2(cSizes[0], cSizes[1]) + ")");
  };
  if (kb != p.k || cSizes[0] != p.m || cSizes[1] != p.n)
    return error("shapes do not match C[M,N] = op(A)[M,K] * op(B)[K,N]");
  if (!asRowMajor(aSizes[0], aSizes[1], aStrides[0], aStrides[1], transA, p.a) ||
      !asRowMajor(bSizes[0], bSizes[1], bStrides[0], bStrides[1], transB, p.b))
    return error("A and B need one unit-stride dimension");
  if (!asRowMajor(cSizes[0], cSizes[1], cStrides[0], cStrides[1], false, p.c) || p.c.transposed)
    return error("C must be row-major (unit inner stride)");
  return Status::ok();
}

/// Checks an epilogue's residual R: none ([0x0] or any empty shape), or C's [M,N] shape,
/// row-major (unit inner stride; rows `strides[0]` apart).
inline Status checkResidual(const char *api, const int64_t *sizes, const int64_t *strides,
                            const GemmProblem &p) {
  if (sizes[0] * sizes[1] == 0)
    return Status::ok();
  if (sizes[0] != p.m || sizes[1] != p.n || (strides[1] != 1 && p.n > 1) ||
      (strides[0] < p.n && p.m > 1))
    return invalidArgument(std::string(api) + ": the residual is " + dims2(sizes[0], sizes[1]) +
                           " with strides " + dims2(strides[0], strides[1]) + ", C is " +
                           dims2(p.m, p.n) + " (want C's shape, row-major)");
  return Status::ok();
}

/// Batch strides of a rank-3 operand against C's batch: 0 when broadcast (size 1).
inline bool batchStride(int64_t size, int64_t stride, int64_t batch, int64_t &out) {
  if (size == batch) {
    out = batch == 1 ? 0 : stride;
    return true;
  }
  if (size == 1) {
    out = 0;
    return true;
  }
  return false;
}

/// A batched GEMM's per-matrix problem and batch strides (elements) of A and B; a batch of
/// size 1 in A or B is broadcast (stride 0) to C's batch. Errors name `api` and the shapes.
struct BatchGemmProblem {
  GemmProblem gemm;
  int64_t batch = 0, strideA = 0, strideB = 0;
};
template <typename TA, typename TB, typename TC>
Status planBatchGemm(const char *api, const MemRef<TA, 3> &a, const MemRef<TB, 3> &b,
                     const MemRef<TC, 3> &c, bool transA, bool transB, BatchGemmProblem &p) {
  if (Status s = planGemm(api, a.sizes + 1, a.strides + 1, b.sizes + 1, b.strides + 1,
                          c.sizes + 1, c.strides + 1, transA, transB, p.gemm);
      !s)
    return s;
  p.batch = c.sizes[0];
  if (!batchStride(a.sizes[0], a.strides[0], p.batch, p.strideA) ||
      !batchStride(b.sizes[0], b.strides[0], p.batch, p.strideB))
    return invalidArgument(std::string(api) + ": batch sizes " + std::to_string(a.sizes[0]) +
                           ", " + std::to_string(b.sizes[0]) + " do not broadcast to " +
                           std::to_string(p.batch));
  return Status::ok();
}

} // namespace loupe::ral::detail

#endif // LOUPE_RAL_LIB_KERNELS_GEMMSHAPES_H
