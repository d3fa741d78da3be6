//===- GemmOpenBlas.cpp - GEMM on the CPU through OpenBLAS (plugin) ----------===//
//
// ral_gemm_openblas and ral_batch_gemm_openblas (Kernels.h), f32, through cblas_sgemm in
// row-major mode. Part of libloupe_ral_kernels_cpu.so. OpenBLAS runs its own threads.
//
//===----------------------------------------------------------------------===//
#include "GemmShapes.h"

#include "loupe/ral/Context.h"
#include "loupe/ral/Registry.h"

#include <cblas.h>
#include <cstring>

namespace loupe::ral {

namespace {

CBLAS_TRANSPOSE opOf(bool transposed) { return transposed ? CblasTrans : CblasNoTrans; }

void zeroRows(float *c, int64_t m, int64_t n, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i)
    std::memset(c + i * ldc, 0, sizeof(float) * n);
}

void sgemm(const detail::GemmProblem &p, const float *a, const float *b, float *c) {
  if (p.m == 0 || p.n == 0)
    return;
  if (p.k == 0)
    return zeroRows(c, p.m, p.n, p.c.ld);
  cblas_sgemm(CblasRowMajor, opOf(p.a.transposed), opOf(p.b.transposed), int(p.m), int(p.n),
              int(p.k), 1.0f, a, int(p.a.ld), b, int(p.b.ld), 0.0f, c, int(p.c.ld));
}

/// C = op(A) op(B), f32 (Kernels.h: GEMM).
void gemmOpenBlas(ExecutionContext *ctx, MemRef<float, 2> a, MemRef<float, 2> b,
                  MemRef<float, 2> c, bool transA, bool transB) {
  if (ctx->failed())
    return;
  detail::GemmProblem p;
  if (Status s = detail::planGemm("ral_gemm_openblas", a.sizes, a.strides, b.sizes, b.strides,
                                  c.sizes, c.strides, transA, transB, p);
      !s)
    return ctx->signalError(s);
  sgemm(p, a.data(), b.data(), c.data());
}

/// C[i] = op(A[i]) op(B[i]) over the batch, f32 (Kernels.h: batched GEMM).
void batchGemmOpenBlas(ExecutionContext *ctx, MemRef<float, 3> a, MemRef<float, 3> b,
                       MemRef<float, 3> c, bool transA, bool transB) {
  if (ctx->failed())
    return;
  detail::BatchGemmProblem bp;
  if (Status s = detail::planBatchGemm("ral_batch_gemm_openblas", a, b, c, transA, transB, bp); !s)
    return ctx->signalError(s);
  for (int64_t i = 0; i < bp.batch; ++i)
    sgemm(bp.gemm, a.data() + i * bp.strideA, b.data() + i * bp.strideB,
          c.data() + i * c.strides[0]);
}

} // namespace

LOUPE_RAL_API("ral_gemm_openblas", "cpu", gemmOpenBlas);
LOUPE_RAL_API("ral_gemm", "cpu", gemmOpenBlas);
LOUPE_RAL_API("ral_batch_gemm_openblas", "cpu", batchGemmOpenBlas);
LOUPE_RAL_API("ral_batch_gemm", "cpu", batchGemmOpenBlas);

} // namespace loupe::ral
