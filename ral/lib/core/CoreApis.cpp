//===- CoreApis.cpp - recv_input, send_output, alloc, dealloc, dispatch tracing ----===//
//
// The RAL functions every artifact uses, registered for every element type and rank 0..8:
//   ral_recv_input___{cpu,gpu}___pvoid_i64___m{N}d{T}
//   ral_send_output___{cpu,gpu}___pvoid_i64_m{N}d{T}___void
// and the host-side allocation, copy and tracing calls (ral_api.h lists their names).
//
//===----------------------------------------------------------------------===//
#include "loupe/ral/Context.h"
#include "loupe/ral/CpuDriver.h"
#include "loupe/ral/Registry.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace loupe::ral {

template <typename T> constexpr DType dtypeOf();
template <> constexpr DType dtypeOf<bool>() { return DType::I1; }
template <> constexpr DType dtypeOf<int8_t>() { return DType::I8; }
template <> constexpr DType dtypeOf<int16_t>() { return DType::I16; }
template <> constexpr DType dtypeOf<int32_t>() { return DType::I32; }
template <> constexpr DType dtypeOf<int64_t>() { return DType::I64; }
template <> constexpr DType dtypeOf<uint8_t>() { return DType::U8; }
template <> constexpr DType dtypeOf<uint16_t>() { return DType::U16; }
template <> constexpr DType dtypeOf<uint32_t>() { return DType::U32; }
template <> constexpr DType dtypeOf<ui64_t>() { return DType::U64; }
template <> constexpr DType dtypeOf<half>() { return DType::F16; }
template <> constexpr DType dtypeOf<bfloat16>() { return DType::BF16; }
template <> constexpr DType dtypeOf<float>() { return DType::F32; }
template <> constexpr DType dtypeOf<double>() { return DType::F64; }

namespace {

/// MemRef<T, N> recv_input(ctx, index): the bound input as a memref. On a mismatch (unbound,
/// dtype, rank, device) the error names the input and the result is an empty memref.
template <typename T, int N, DeviceKind D>
MemRef<T, N> recvInput(ExecutionContext *ctx, int64_t index) {
  MemRef<T, N> m;
  std::memset(&m, 0, sizeof m);
  const BufferView *view = ctx->input(index);
  if (!view)
    return m;
  if (!sameStorage(view->dtype, dtypeOf<T>()) || view->shape.size() != static_cast<size_t>(N) ||
      view->device != D) {
    std::string bound = std::string(dtypeName(view->dtype)) + "[";
    for (size_t i = 0; i < view->shape.size(); ++i)
      bound += (i ? "x" : "") + std::to_string(view->shape[i]);
    ctx->signalError(invalidArgument(
        "ral_recv_input: input " + std::to_string(index) + " is " + bound + "] on the " +
        deviceKindName(view->device) + ", the artifact receives a rank-" + std::to_string(N) +
        " memref of " + dtypeName(dtypeOf<T>()) + " on the " + deviceKindName(D)));
    return m;
  }
  m.allocated = m.aligned = static_cast<T *>(view->data);
  m.offset = 0;
  if constexpr (N > 0) {
    for (int i = 0; i < N; ++i) {
      m.sizes[i] = view->shape[i];
      m.strides[i] = view->strides[i];
    }
  }
  return m;
}

/// recv_output(ctx, index, d0, ..., dN-1): the CPU buffer output `index` is computed in (the
/// caller's), checked against the compiled shape the N i64s give.
template <typename T, typename Dims> struct RecvOutput;
template <typename T, size_t... I> struct RecvOutput<T, std::index_sequence<I...>> {
  static constexpr int N = static_cast<int>(sizeof...(I));
  static MemRef<T, N> call(ExecutionContext *ctx, int64_t index,
                           decltype(I, int64_t())... dims) {
    const int64_t sizes[N + 1] = {dims..., 0};
    T *data = static_cast<T *>(ctx->outputBuffer(index, dtypeOf<T>(), N, sizes));
    MemRef<T, N> m;
    std::memset(&m, 0, sizeof m);
    if (!data)
      return m;
    if constexpr (N == 0)
      return makeMemRef(data);
    else
      return makeMemRef<T, N>(data, {dims...});
  }
};

/// send_output(ctx, index, memref): hands output `index` to the host (copied out now, so the
/// artifact may free or reuse the buffer afterwards).
template <typename T, int N, DeviceKind D>
void sendOutput(ExecutionContext *ctx, int64_t index, MemRef<T, N> m) {
  if constexpr (N > 0)
    ctx->sendOutput(index, dtypeOf<T>(), m.data(), N, m.sizes, m.strides, D);
  else
    ctx->sendOutput(index, dtypeOf<T>(), m.data(), 0, nullptr, nullptr, D);
}

} // namespace

#define LOUPE_RAL_IO_RANK(T, N)                                                                    \
  LOUPE_RAL_API("ral_recv_input", "cpu", recvInput<T, N, DeviceKind::kCpu>);                       \
  LOUPE_RAL_API("ral_send_output", "cpu", sendOutput<T, N, DeviceKind::kCpu>);                     \
  LOUPE_RAL_API("ral_recv_output", "cpu", RecvOutput<T, std::make_index_sequence<N>>::call);       \
  LOUPE_RAL_API("ral_recv_input", "gpu", recvInput<T, N, DeviceKind::kGpu>);                       \
  LOUPE_RAL_API("ral_send_output", "gpu", sendOutput<T, N, DeviceKind::kGpu>)
#define LOUPE_RAL_IO(T)                                                                            \
  LOUPE_RAL_IO_RANK(T, 0);                                                                         \
  LOUPE_RAL_IO_RANK(T, 1);                                                                         \
  LOUPE_RAL_IO_RANK(T, 2);                                                                         \
  LOUPE_RAL_IO_RANK(T, 3);                                                                         \
  LOUPE_RAL_IO_RANK(T, 4);                                                                         \
  LOUPE_RAL_IO_RANK(T, 5);                                                                         \
  LOUPE_RAL_IO_RANK(T, 6);                                                                         \
  LOUPE_RAL_IO_RANK(T, 7);                                                                         \
  LOUPE_RAL_IO_RANK(T, 8)

LOUPE_RAL_IO(bool);
LOUPE_RAL_IO(int8_t);
LOUPE_RAL_IO(int16_t);
LOUPE_RAL_IO(int32_t);
LOUPE_RAL_IO(int64_t);
LOUPE_RAL_IO(uint8_t);
LOUPE_RAL_IO(uint16_t);
LOUPE_RAL_IO(uint32_t);
LOUPE_RAL_IO(ui64_t);
LOUPE_RAL_IO(half);
LOUPE_RAL_IO(bfloat16);
LOUPE_RAL_IO(float);
LOUPE_RAL_IO(double);

namespace {

/// void *ral_alloc(ctx, bytes): a 64-byte aligned CPU temporary of the execution.
void *cpuAlloc(ExecutionContext *ctx, int64_t bytes) {
  return ctx->allocate(bytes > 0 ? static_cast<size_t>(bytes) : 0);
}
/// ral_dealloc(ctx, ptr): returns a temporary early (else it is freed at the end).
void cpuDealloc(ExecutionContext *ctx, void *ptr) { ctx->deallocate(ptr); }
/// void *ral_alloc_persistent(ctx, bytes): a CPU buffer that lives as long as the Context.
void *cpuAllocPersistent(ExecutionContext *ctx, int64_t bytes) {
  return ctx->allocatePersistent(bytes > 0 ? static_cast<size_t>(bytes) : 0);
}
/// void *ral_constant(ctx, offset, bytes): the constant at `offset` of the artifact's weight
/// blob, mapped once when the artifact was loaded (seed 000, "Constant Loading").
void *cpuConstant(ExecutionContext *ctx, int64_t offset, int64_t bytes) {
  const void *data = ctx->context().weightAt(offset, bytes);
  if (!data)
    ctx->signalError(invalidArgument(
        "ral_constant: bytes [" + std::to_string(offset) + ", " + std::to_string(offset) + "+" +
        std::to_string(bytes) + ") lie outside the artifact's weight blob of " +
        std::to_string(ctx->context().weightBytes()) + " bytes"));
  return const_cast<void *>(data); // Compiled code only reads constants.
}
/// ral_check(ctx, condition, message): a run-time condition of the compiled model (ral.check);
/// when it fails, the execution fails with `message` (an invalid argument: the data broke what
/// the compile assumed, e.g. the declared size of a data-dependent output).
void cpuCheck(ExecutionContext *ctx, int8_t condition, const char *message) {
  if (!condition)
    ctx->signalError(invalidArgument(std::string("run-time check failed: ") + message));
}
/// ral_memcpy(ctx, dst, src, bytes), ral_memset(ctx, dst, byte value, bytes).
void cpuMemcpy(ExecutionContext *ctx, void *dst, void *src, int64_t bytes) {
  if (bytes > 0)
    std::memmove(dst, src, static_cast<size_t>(bytes));
}
void cpuMemset(ExecutionContext *ctx, void *dst, int32_t value, int64_t bytes) {
  if (bytes > 0)
    std::memset(dst, value, static_cast<size_t>(bytes));
}

/// ral_dispatch_begin(ctx, dispatch id, kernel name, backend, loc) / ral_dispatch_end(ctx, id):
/// the tracer events around one dispatch. Null strings come from the manifest's table.
template <DeviceKind D>
void dispatchBegin(ExecutionContext *ctx, int64_t id, const char *name, const char *backend,
                   const char *loc) {
  ctx->dispatchBegin(id, name, backend, loc, deviceKindName(D));
}
template <DeviceKind D> void dispatchEnd(ExecutionContext *ctx, int64_t id) {
  ctx->dispatchEnd(id, deviceKindName(D));
}

/// ral_cpu_launch(ctx, kernel name, lower, upper, step, unit workload hint, kernel, params):
/// runs `kernel` (CpuKernelFn) over the box [lower, upper) with `step` (memref<?xi64>, one entry
/// per dimension, rank <= 8) as workgroups on the thread pool; returns when all are done.
void cpuLaunch(ExecutionContext *ctx, const char *kernelName, MemRef<int64_t, 1> lower,
               MemRef<int64_t, 1> upper, MemRef<int64_t, 1> step, int64_t unitWorkloadSizeHint,
               void *kernel, void **params) {
  if (ctx->failed())
    return;
  CpuLaunchDims dims;
  dims.rank = static_cast<int>(lower.sizes[0]);
  if (dims.rank < 0 || dims.rank > CpuLaunchDims::kMaxRank || upper.sizes[0] != lower.sizes[0] ||
      step.sizes[0] != lower.sizes[0]) {
    ctx->signalError(invalidArgument(std::string("ral_cpu_launch of '") +
                                     (kernelName ? kernelName : "") + "': bounds of rank " +
                                     std::to_string(lower.sizes[0]) + "/" +
                                     std::to_string(upper.sizes[0]) + "/" +
                                     std::to_string(step.sizes[0]) + " (at most 8, all equal)"));
    return;
  }
  for (int d = 0; d < dims.rank; ++d) {
    dims.lower[d] = lower.data()[d * lower.strides[0]];
    dims.upper[d] = upper.data()[d * upper.strides[0]];
    dims.step[d] = step.data()[d * step.strides[0]];
  }
  Status s = ctx->context().cpu().launch(dims, unitWorkloadSizeHint,
                                         reinterpret_cast<CpuKernelFn>(kernel), params);
  if (!s)
    ctx->signalError(Status(s.code(), s.message() + " (kernel '" +
                                          (kernelName ? kernelName : "") + "')"));
}

/// A 1-D kernel as the compiler's ral.cpu_launch outlines it: iterations [begin, end).
using CpuKernel1D = void (*)(void *ctx, int64_t begin, int64_t end, void **params);

/// ral_cpu_launch_1d(ctx, kernel name, size, block, kernel, params): runs `kernel` (CpuKernel1D)
/// over [0, size) in workgroups of `block` iterations (the last may be shorter; block <= 0: the
/// runtime picks, ~4 workgroups per thread) on the thread pool; returns when all are done.
void cpuLaunch1D(ExecutionContext *ctx, const char *kernelName, int64_t size, int64_t block,
                 void *kernel, void **params) {
  if (ctx->failed() || size <= 0)
    return;
  if (!kernel) {
    ctx->signalError(invalidArgument(std::string("ral_cpu_launch_1d of '") +
                                     (kernelName ? kernelName : "") + "': null kernel"));
    return;
  }
  auto fn = reinterpret_cast<CpuKernel1D>(kernel);
  ThreadPool &pool = ctx->context().cpu().threadPool();
  if (block <= 0)
    block = std::max<int64_t>(1, (size + 4 * pool.numThreads() - 1) / (4 * pool.numThreads()));
  int64_t count = (size + block - 1) / block;
  if (count == 1) {
    fn(ctx, 0, size, params);
    return;
  }
  pool.parallelFor(count, [&](int64_t id, int) {
    fn(ctx, id * block, std::min(size, (id + 1) * block), params);
  });
}

} // namespace

LOUPE_RAL_API("ral_alloc", "cpu", cpuAlloc);
LOUPE_RAL_API("ral_dealloc", "cpu", cpuDealloc);
LOUPE_RAL_API("ral_alloc_persistent", "cpu", cpuAllocPersistent);
LOUPE_RAL_API("ral_constant", "cpu", cpuConstant);
LOUPE_RAL_API("ral_memcpy", "cpu", cpuMemcpy);
LOUPE_RAL_API("ral_memset", "cpu", cpuMemset);
LOUPE_RAL_API("ral_check", "cpu", cpuCheck);
LOUPE_RAL_API("ral_dispatch_begin", "cpu", dispatchBegin<DeviceKind::kCpu>);
LOUPE_RAL_API("ral_dispatch_end", "cpu", dispatchEnd<DeviceKind::kCpu>);
LOUPE_RAL_API("ral_dispatch_begin", "gpu", dispatchBegin<DeviceKind::kGpu>);
LOUPE_RAL_API("ral_dispatch_end", "gpu", dispatchEnd<DeviceKind::kGpu>);
LOUPE_RAL_API("ral_cpu_launch", "cpu", cpuLaunch);
LOUPE_RAL_API("ral_cpu_launch_1d", "cpu", cpuLaunch1D);

} // namespace loupe::ral
