/*===- ral_api.h - The C ABI between compiled artifacts and the RAL ---------*- C -*-===//
 *
 * After BladeDISC's runtime abstraction layer (docs/ral.md, ../shared/seeds/000_*.txt): a
 * compiled artifact talks to the runtime through exactly one function,
 *
 *   void ral_api_call(void *ctx, const char *api_name, void **args);
 *
 * `ctx` is the ExecutionContext* the entry received. `api_name` is the full encoded name of a
 * registered RAL function (below); the compiler passes string literals, so the runtime caches
 * the lookup per thread by the pointer. `args[i]` points to the i-th argument value: args[0]
 * points to the context pointer itself, scalars and pointers take one slot each, a rank-N memref
 * takes 3+2N slots (allocated, aligned, offset, sizes[N], strides[N]), and each result takes
 * one slot pointing to storage the caller provides for the whole value (a memref result: the
 * descriptor struct, laid out as MLIR lowers memref<...> to LLVM; a tuple: one slot per
 * element). A call never aborts: failures are recorded on the execution context and returned
 * to the host after the entry returns.
 *
 * Encoded names: `api___device___in1_in2___out` (`___` between the parts, `_` between types,
 * `void` when there is no result). Type codes: i1 i8 i16 i32 i64 ui8 ui16 ui32 ui64 f16 bf16
 * f32 f64 pvoid ppvoid; a memref of rank N and element T is `m{N}d{T}`; index/size_t = i64.
 * The context is an argument like any other, so every name starts with `pvoid`.
 *
 *===----------------------------------------------------------------------===*/
#ifndef LOUPE_RAL_RAL_API_H
#define LOUPE_RAL_RAL_API_H

/* The artifact ABI, its symbols and the kernels' parameter layouts: one header the compiler
 * shares (LOUPE_RAL_ABI, LOUPE_RAL_ENTRY_SYMBOL, LOUPE_RAL_WEIGHTS_SYMBOL...). */
#include "loupe/common/ArtifactAbi.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*loupe_ral_entry_fn)(void *ctx);

/* Dispatches one call of a registered RAL function (see the file comment). Unknown names set
 * a kNotFound status naming `api_name` on the execution context and return. */
__attribute__((visibility("default"))) void ral_api_call(void *ctx, const char *api_name,
                                                         void **args);

/* ---- The runtime API names the compiler emits (registered in ral/lib; `loupe ral list`). ----
 * Per dtype/rank families, with T in {i1 i8 i16 i32 i64 ui8 ui16 ui32 ui64 f16 bf16 f32 f64} and
 * N in 0..8, on device cpu and gpu:
 *   ral_recv_input___cpu___pvoid_i64___m{N}d{T}        MemRef<T,N> (ctx, int64 input index)
 *   ral_send_output___cpu___pvoid_i64_m{N}d{T}___void  (ctx, int64 output index, MemRef<T,N>)
 * e.g. "ral_recv_input___cpu___pvoid_i64___m2df32", "ral_send_output___cpu___pvoid_i64_m2df32___void".
 */
#define LOUPE_RAL_ALLOC_CPU "ral_alloc___cpu___pvoid_i64___pvoid"
#define LOUPE_RAL_DEALLOC_CPU "ral_dealloc___cpu___pvoid_pvoid___void"
#define LOUPE_RAL_ALLOC_PERSISTENT_CPU "ral_alloc_persistent___cpu___pvoid_i64___pvoid"
/* (ctx, offset, bytes): the host address of the constant at `offset` of the weight blob. */
#define LOUPE_RAL_CONSTANT_CPU "ral_constant___cpu___pvoid_i64_i64___pvoid"
#define LOUPE_RAL_MEMCPY_CPU "ral_memcpy___cpu___pvoid_pvoid_pvoid_i64___void"
#define LOUPE_RAL_MEMSET_CPU "ral_memset___cpu___pvoid_pvoid_i32_i64___void"
#define LOUPE_RAL_DISPATCH_BEGIN_CPU "ral_dispatch_begin___cpu___pvoid_i64_pvoid_pvoid_pvoid___void"
#define LOUPE_RAL_DISPATCH_END_CPU "ral_dispatch_end___cpu___pvoid_i64___void"
/* (ctx, kernel name, lower, upper, step: memref<?xi64>, unit workload hint, kernel, params):
 * kernel is void(const int64_t *lower, const int64_t *upper, const int64_t *step, void **params)
 * and runs one box (workgroup) of the N-D iteration space (BladeDISC's CPU launch). */
#define LOUPE_RAL_CPU_LAUNCH \
  "ral_cpu_launch___cpu___pvoid_pvoid_m1di64_m1di64_m1di64_i64_pvoid_ppvoid___void"
/* (ctx, kernel name, size, block, kernel, params): kernel is
 * void(void *ctx, int64_t begin, int64_t end, void **params) over [begin, end) of [0, size),
 * workgroups of `block` iterations (block <= 0: the runtime picks). */
#define LOUPE_RAL_CPU_LAUNCH_1D "ral_cpu_launch_1d___cpu___pvoid_pvoid_i64_i64_pvoid_ppvoid___void"

#define LOUPE_RAL_ALLOC_GPU "ral_alloc___gpu___pvoid_i64___pvoid"
#define LOUPE_RAL_DEALLOC_GPU "ral_dealloc___gpu___pvoid_pvoid___void"
#define LOUPE_RAL_CONSTANT_GPU "ral_constant___gpu___pvoid_pvoid_i64___pvoid"
#define LOUPE_RAL_MEMCPY_GPU "ral_memcpy___gpu___pvoid_pvoid_pvoid_i64___void"
#define LOUPE_RAL_MEMSET_GPU "ral_memset___gpu___pvoid_pvoid_i32_i64___void"
#define LOUPE_RAL_DISPATCH_BEGIN_GPU "ral_dispatch_begin___gpu___pvoid_i64_pvoid_pvoid_pvoid___void"
#define LOUPE_RAL_DISPATCH_END_GPU "ral_dispatch_end___gpu___pvoid_i64___void"
#define LOUPE_RAL_KERNEL_LAUNCH_GPU \
  "ral_kernel_launch___gpu___pvoid_pvoid_i64_pvoid_i64_i64_i64_i64_i64_i64_i32_ppvoid___void"

/* Library kernels (shapes, dtypes and layouts: Kernels.h and docs/ral.md). */
#define LOUPE_RAL_GEMM_CPU_F32 "ral_gemm___cpu___pvoid_m2df32_m2df32_m2df32_i1_i1___void"
#define LOUPE_RAL_GEMM_OPENBLAS_F32 \
  "ral_gemm_openblas___cpu___pvoid_m2df32_m2df32_m2df32_i1_i1___void"
#define LOUPE_RAL_GEMM_ONEDNN_F32 "ral_gemm_onednn___cpu___pvoid_m2df32_m2df32_m2df32_i1_i1___void"
#define LOUPE_RAL_BATCH_GEMM_OPENBLAS_F32 \
  "ral_batch_gemm_openblas___cpu___pvoid_m3df32_m3df32_m3df32_i1_i1___void"
#define LOUPE_RAL_BATCH_GEMM_ONEDNN_F32 \
  "ral_batch_gemm_onednn___cpu___pvoid_m3df32_m3df32_m3df32_i1_i1___void"
#define LOUPE_RAL_QGEMM_ONEDNN_I8 \
  "ral_qgemm_onednn___cpu___pvoid_m3di8_m3di8_m3di32_i32_i32___void"
#define LOUPE_RAL_GEMM_EPILOGUE_ONEDNN_F32 \
  "ral_gemm_epilogue_onednn___cpu___pvoid_m2df32_m2df32_m1df32_m2df32_m2df32_i1_i1_i32___void"
#define LOUPE_RAL_CONV_ONEDNN_F32 \
  "ral_conv_onednn___cpu___pvoid_m4df32_m4df32_m1df32_m4df32_m1di64___void"
#define LOUPE_RAL_QCONV_ONEDNN_I8 \
  "ral_qconv_onednn___cpu___pvoid_m4di8_m4di8_m1di32_m4di32_m1di64_i32___void"
#define LOUPE_RAL_MAX_POOL_ONEDNN_F32 \
  "ral_max_pool_onednn___cpu___pvoid_m4df32_m4df32_m1di64___void"
#define LOUPE_RAL_TOPK_CPU_F32 "ral_topk___cpu___pvoid_m2df32_m2df32_m2di64_i1___void"
#define LOUPE_RAL_SORT_CPU_F32 "ral_sort___cpu___pvoid_m2df32_m2df32_m2di64_i1___void"
#define LOUPE_RAL_GEMM_CUBLAS_F32 "ral_gemm_cublas___gpu___pvoid_m2df32_m2df32_m2df32_i1_i1___void"
#define LOUPE_RAL_GEMM_GPU_F32 "ral_gemm___gpu___pvoid_m2df32_m2df32_m2df32_i1_i1___void"
#define LOUPE_RAL_BATCH_GEMM_CUBLAS_F32 \
  "ral_batch_gemm_cublas___gpu___pvoid_m3df32_m3df32_m3df32_i1_i1___void"
#define LOUPE_RAL_GEMM_EPILOGUE_CUBLASLT_F32 \
  "ral_gemm_epilogue_cublaslt___gpu___pvoid_m2df32_m2df32_m1df32_m2df32_m2df32_i1_i1_i32___void"
#define LOUPE_RAL_CONV_CUDNN_F32 \
  "ral_conv_cudnn___gpu___pvoid_m4df32_m4df32_m1df32_m4df32_m1di64___void"

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LOUPE_RAL_RAL_API_H */
