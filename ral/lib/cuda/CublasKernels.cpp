//===- CublasKernels.cpp - GEMM on the GPU through cuBLAS and cuBLASLt -------===//
//
// ral_gemm_cublas / ral_gemm (gpu default), ral_batch_gemm_cublas, ral_gemm_epilogue_cublaslt
// (Kernels.h). Row-major operands are handed to the column-major libraries as their transposes:
// C = op(A) op(B) is computed as C^T = op(B)^T op(A)^T (m = N, n = M), so no copy is made.
// cuBLAS handles are pooled per Context (a handle is used by one thread at a time, with the
// execution's stream set on it), and cuBLASLt's heuristic is asked once per problem and Context.
//
//===----------------------------------------------------------------------===//
#include "CudaSymbols.h"

#include "../kernels/GemmShapes.h"

#include "loupe/ral/Context.h"
#include "loupe/ral/Kernels.h"
#include "loupe/ral/Registry.h"

#include <map>
#include <mutex>
#include <optional>

namespace loupe::ral {

namespace {

#if LOUPE_RAL_HAVE_CUBLAS

/// Created cuBLAS / cuBLASLt handles of a context, reused across executions, and the cuBLASLt
/// algorithm of each epilogue GEMM problem (transposes, M, N, K, leading dims, epilogue).
struct CublasHandles : Context::Resource {
  ~CublasHandles() override {
    if (const CublasSymbols *s = cublasLibrary().symbols)
      for (cublasHandle_t h : free)
        s->cublasDestroy(h);
    if (const CublasLtSymbols *s = cublasLtLibrary().symbols)
      for (cublasLtHandle_t h : freeLt)
        s->cublasLtDestroy(h);
  }
  std::mutex mutex;
  std::vector<cublasHandle_t> free;
  std::vector<cublasLtHandle_t> freeLt;
  std::map<std::vector<int64_t>, cublasLtMatmulAlgo_t> ltAlgorithms;
};

CublasHandles *handlesOf(ExecutionContext *ctx) {
  return static_cast<CublasHandles *>(ctx->context().getOrCreateResource(
      "ral.gpu.cublas_handles", [] { return std::make_unique<CublasHandles>(); }));
}

std::string cublasError(const CublasSymbols &s, cublasStatus_t status, const char *call) {
  return std::string(call) + ": " + s.cublasGetStatusString(status);
}

/// Shared prologue: the library, the driver current on this thread, the stream.
template <typename Symbols>
const Symbols *prepare(ExecutionContext *ctx, const LoadedLibrary<Symbols> &lib, void *&stream) {
  if (ctx->failed())
    return nullptr;
  if (!lib.symbols) {
    ctx->signalError(lib.status);
    return nullptr;
  }
  auto cuda = ctx->context().cuda();
  if (!cuda) {
    ctx->signalError(cuda.status());
    return nullptr;
  }
  stream = ctx->cudaStream();
  if (!stream || !(*cuda)->makeCurrent().isOk())
    return nullptr;
  return lib.symbols;
}

/// Runs fn(handle) with a pooled cuBLAS handle bound to `stream`.
template <typename Fn>
void withCublas(ExecutionContext *ctx, const CublasSymbols &s, void *stream, Fn fn) {
  CublasHandles *pool = handlesOf(ctx);
  cublasHandle_t handle = nullptr;
  {
    std::lock_guard<std::mutex> lock(pool->mutex);
    if (!pool->free.empty()) {
      handle = pool->free.back();
      pool->free.pop_back();
    }
  }
  if (!handle) {
    if (cublasStatus_t st = s.cublasCreate(&handle); st != CUBLAS_STATUS_SUCCESS) {
      ctx->signalError(unavailable(cublasError(s, st, "cublasCreate")));
      return;
    }
  }
  cublasStatus_t st = s.cublasSetStream(handle, static_cast<cudaStream_t>(stream));
  if (st == CUBLAS_STATUS_SUCCESS)
    st = fn(handle);
  if (st != CUBLAS_STATUS_SUCCESS)
    ctx->signalError(internalError(cublasError(s, st, "cuBLAS GEMM")));
  std::lock_guard<std::mutex> lock(pool->mutex);
  pool->free.push_back(handle);
}

cublasOperation_t opOf(bool transposed) { return transposed ? CUBLAS_OP_T : CUBLAS_OP_N; }

/// C = op(A) op(B) in f32 through cublasSgemm.
void gemmCublas(ExecutionContext *ctx, MemRef<float, 2> a, MemRef<float, 2> b, MemRef<float, 2> c,
                bool transA, bool transB) {
  void *stream = nullptr;
  const CublasSymbols *s = prepare(ctx, cublasLibrary(), stream);
  if (!s)
    return;
  detail::GemmProblem p;
  if (Status st = detail::planGemm("ral_gemm_cublas", a.sizes, a.strides, b.sizes, b.strides,
                                   c.sizes, c.strides, transA, transB, p);
      !st) {
    ctx->signalError(st);
    return;
  }
  if (p.m == 0 || p.n == 0)
    return;
  const float alpha = 1, beta = 0;
  withCublas(ctx, *s, stream, [&](cublasHandle_t h) {
    return s->cublasSgemm(h, opOf(p.b.transposed), opOf(p.a.transposed), int(p.n), int(p.m),
                          int(p.k), &alpha, b.data(), int(p.b.ld), a.data(), int(p.a.ld), &beta,
                          c.data(), int(p.c.ld));
  });
}

/// Batched C[i] = op(A[i]) op(B[i]) through cublasSgemmStridedBatched (broadcast: stride 0).
void batchGemmCublas(ExecutionContext *ctx, MemRef<float, 3> a, MemRef<float, 3> b,
                     MemRef<float, 3> c, bool transA, bool transB) {
  void *stream = nullptr;
  const CublasSymbols *s = prepare(ctx, cublasLibrary(), stream);
  if (!s)
    return;
  detail::GemmProblem p;
  if (Status st = detail::planGemm("ral_batch_gemm_cublas", a.sizes + 1, a.strides + 1,
                                   b.sizes + 1, b.strides + 1, c.sizes + 1, c.strides + 1, transA,
                                   transB, p);
      !st) {
    ctx->signalError(st);
    return;
  }
  int64_t batch = c.sizes[0], strideA = 0, strideB = 0;
  if (!detail::batchStride(a.sizes[0], a.strides[0], batch, strideA) ||
      !detail::batchStride(b.sizes[0], b.strides[0], batch, strideB)) {
    ctx->signalError(invalidArgument("ral_batch_gemm_cublas: batch sizes " +
                                     std::to_string(a.sizes[0]) + ", " + std::to_string(b.sizes[0]) +
                                     " do not broadcast to " + std::to_string(batch)));
    return;
  }
  if (batch == 0 || p.m == 0 || p.n == 0)
    return;
  const float alpha = 1, beta = 0;
  withCublas(ctx, *s, stream, [&](cublasHandle_t h) {
    return s->cublasSgemmStridedBatched(
        h, opOf(p.b.transposed), opOf(p.a.transposed), int(p.n), int(p.m), int(p.k), &alpha,
        b.data(), int(p.b.ld), strideB, a.data(), int(p.a.ld), strideA, &beta, c.data(),
        int(p.c.ld), c.strides[0], int(batch));
  });
}

/// C = act(op(A) op(B) + bias + residual) through cublasLtMatmul with a bias/ReLU/GELU
/// epilogue; the residual is cuBLASLt's C input (beta 1), C its D output.
void gemmEpilogueCublasLt(ExecutionContext *ctx, MemRef<float, 2> a, MemRef<float, 2> b,
                          MemRef<float, 1> bias, MemRef<float, 2> residual, MemRef<float, 2> c,
                          bool transA, bool transB, int32_t activation) {
  void *stream = nullptr;
  const CublasLtSymbols *s = prepare(ctx, cublasLtLibrary(), stream);
  if (!s)
    return;
  detail::GemmProblem p;
  if (Status st = detail::planGemm("ral_gemm_epilogue_cublaslt", a.sizes, a.strides, b.sizes,
                                   b.strides, c.sizes, c.strides, transA, transB, p);
      !st) {
    ctx->signalError(st);
    return;
  }
  bool hasBias = bias.sizes[0] != 0;
  if (hasBias && (bias.sizes[0] != p.n || bias.strides[0] != 1)) {
    ctx->signalError(invalidArgument("ral_gemm_epilogue_cublaslt: bias has " +
                                     std::to_string(bias.sizes[0]) + " entries, C has " +
                                     std::to_string(p.n) + " columns"));
    return;
  }
  if (Status st = detail::checkResidual("ral_gemm_epilogue_cublaslt", residual.sizes,
                                        residual.strides, p);
      !st) {
    ctx->signalError(st);
    return;
  }
  bool hasResidual = residual.sizes[0] * residual.sizes[1] != 0;
  int64_t residualLd = hasResidual ? std::max<int64_t>(residual.strides[0], p.n) : p.c.ld;
  cublasLtEpilogue_t epilogue;
  switch (static_cast<Activation>(activation)) {
  case Activation::kNone:
    epilogue = hasBias ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT;
    break;
  case Activation::kRelu:
    epilogue = hasBias ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_RELU;
    break;
  case Activation::kGeluTanh:
    epilogue = hasBias ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_GELU;
    break;
  default:
    ctx->signalError(invalidArgument("ral_gemm_epilogue_cublaslt: activation " +
                                     std::to_string(activation) +
                                     " has no cuBLASLt epilogue (none, relu, gelu_tanh)"));
    return;
  }
  if (p.m == 0 || p.n == 0)
    return;
  CublasHandles *pool = handlesOf(ctx);
  const std::vector<int64_t> problem = {p.a.transposed, p.b.transposed, p.m,      p.n,
                                        p.k,            p.a.ld,         p.b.ld,   p.c.ld,
                                        epilogue,       hasResidual,    residualLd};
  cublasLtHandle_t handle = nullptr;
  std::optional<cublasLtMatmulAlgo_t> algorithm;
  {
    std::lock_guard<std::mutex> lock(pool->mutex);
    if (!pool->freeLt.empty()) {
      handle = pool->freeLt.back();
      pool->freeLt.pop_back();
    }
    if (auto it = pool->ltAlgorithms.find(problem); it != pool->ltAlgorithms.end())
      algorithm = it->second;
  }
  auto fail = [&](cublasStatus_t st, const char *call) {
    ctx->signalError(internalError(std::string(call) + ": " + s->cublasLtGetStatusString(st)));
  };
  if (!handle) {
    if (cublasStatus_t st = s->cublasLtCreate(&handle); st != CUBLAS_STATUS_SUCCESS)
      return fail(st, "cublasLtCreate");
  }
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t layA = nullptr, layB = nullptr, layC = nullptr, layR = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  // Column-major view: D[N,M] = op(B)^T[N,K] * op(A)^T[K,M].
  cublasOperation_t opFirst = opOf(p.b.transposed), opSecond = opOf(p.a.transposed);
  cublasStatus_t st = s->cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  if (st == CUBLAS_STATUS_SUCCESS)
    st = s->cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &opFirst, sizeof opFirst);
  if (st == CUBLAS_STATUS_SUCCESS)
    st = s->cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &opSecond, sizeof opSecond);
  if (st == CUBLAS_STATUS_SUCCESS)
    st = s->cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue);
  const float *biasPtr = bias.data();
  if (st == CUBLAS_STATUS_SUCCESS && hasBias)
    st = s->cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &biasPtr, sizeof biasPtr);
  // Stored (column-major) shapes of the operands.
  auto rowsOf = [](bool op, int64_t r, int64_t c) { return op ? c : r; };
  if (st == CUBLAS_STATUS_SUCCESS)
    st = s->cublasLtMatrixLayoutCreate(&layB, CUDA_R_32F, rowsOf(p.b.transposed, p.n, p.k),
                                       rowsOf(p.b.transposed, p.k, p.n), p.b.ld);
  if (st == CUBLAS_STATUS_SUCCESS)
    st = s->cublasLtMatrixLayoutCreate(&layA, CUDA_R_32F, rowsOf(p.a.transposed, p.k, p.m),
                                       rowsOf(p.a.transposed, p.m, p.k), p.a.ld);
  if (st == CUBLAS_STATUS_SUCCESS)
    st = s->cublasLtMatrixLayoutCreate(&layC, CUDA_R_32F, p.n, p.m, p.c.ld);
  if (st == CUBLAS_STATUS_SUCCESS)
    st = s->cublasLtMatrixLayoutCreate(&layR, CUDA_R_32F, p.n, p.m, residualLd);
  size_t workspaceBytes = size_t(4) << 20;
  if (st == CUBLAS_STATUS_SUCCESS)
    st = s->cublasLtMatmulPreferenceCreate(&pref);
  if (st == CUBLAS_STATUS_SUCCESS)
    st = s->cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                 &workspaceBytes, sizeof workspaceBytes);
  if (st == CUBLAS_STATUS_SUCCESS && !algorithm) {
    cublasLtMatmulHeuristicResult_t heuristic = {};
    int found = 0;
    st = s->cublasLtMatmulAlgoGetHeuristic(handle, desc, layB, layA, layR, layC, pref, 1,
                                           &heuristic, &found);
    if (st == CUBLAS_STATUS_SUCCESS && found == 0)
      st = CUBLAS_STATUS_NOT_SUPPORTED;
    if (st == CUBLAS_STATUS_SUCCESS) {
      algorithm = heuristic.algo;
      std::lock_guard<std::mutex> lock(pool->mutex);
      pool->ltAlgorithms.emplace(problem, heuristic.algo);
    }
  }
  if (st == CUBLAS_STATUS_SUCCESS) {
    void *workspace = ctx->allocateDevice(workspaceBytes);
    const float alpha = 1, beta = hasResidual ? 1 : 0;
    const float *input = hasResidual ? residual.data() : c.data(); // Not read when beta is 0.
    st = s->cublasLtMatmul(handle, desc, &alpha, b.data(), layB, a.data(), layA, &beta, input,
                           layR, c.data(), layC, &*algorithm, workspace, workspaceBytes,
                           static_cast<cudaStream_t>(stream));
    ctx->deallocateDevice(workspace);
  }
  if (st != CUBLAS_STATUS_SUCCESS)
    fail(st, "cublasLtMatmul (epilogue GEMM)");
  if (pref)
    s->cublasLtMatmulPreferenceDestroy(pref);
  for (cublasLtMatrixLayout_t l : {layA, layB, layC, layR})
    if (l)
      s->cublasLtMatrixLayoutDestroy(l);
  if (desc)
    s->cublasLtMatmulDescDestroy(desc);
  std::lock_guard<std::mutex> lock(pool->mutex);
  pool->freeLt.push_back(handle);
}

#else // !LOUPE_RAL_HAVE_CUBLAS

void noCublas(ExecutionContext *ctx, const char *api) {
  ctx->signalError(unavailable(std::string(api) + ": built without cuBLAS headers"));
}
void gemmCublas(ExecutionContext *ctx, MemRef<float, 2>, MemRef<float, 2>, MemRef<float, 2>, bool,
                bool) {
  noCublas(ctx, "ral_gemm_cublas");
}
void batchGemmCublas(ExecutionContext *ctx, MemRef<float, 3>, MemRef<float, 3>, MemRef<float, 3>,
                     bool, bool) {
  noCublas(ctx, "ral_batch_gemm_cublas");
}
void gemmEpilogueCublasLt(ExecutionContext *ctx, MemRef<float, 2>, MemRef<float, 2>,
                          MemRef<float, 1>, MemRef<float, 2>, MemRef<float, 2>, bool, bool,
                          int32_t) {
  noCublas(ctx, "ral_gemm_epilogue_cublaslt");
}

#endif

} // namespace

LOUPE_RAL_API("ral_gemm_cublas", "gpu", gemmCublas);
LOUPE_RAL_API("ral_gemm", "gpu", gemmCublas);
LOUPE_RAL_API("ral_batch_gemm_cublas", "gpu", batchGemmCublas);
LOUPE_RAL_API("ral_gemm_epilogue_cublaslt", "gpu", gemmEpilogueCublasLt);

} // namespace loupe::ral
