//===- OneDnnKernels.cpp - GEMM and convolution on the CPU through oneDNN (plugin) ----===//
//
// ral_gemm_onednn (also the CPU default ral_gemm), ral_batch_gemm_onednn,
// ral_gemm_epilogue_onednn (bias, residual and ReLU/GELU/hardswish/SiLU post-ops), ral_conv_onednn and
// ral_max_pool_onednn (Kernels.h), f32, and ral_qgemm_onednn / ral_qconv_onednn (int8 with
// zero points, int32 result), with oneDNN 2.x's matmul, convolution_forward and
// pooling_v2_forward primitives. Memory descriptors carry the
// memrefs' strides, so transposed and column-major views need no copy. Primitives are built
// once per shape and kept in a per-context cache (the oneDNN engine is one per process);
// executing one primitive from several threads at once is allowed by oneDNN.
//
// Debian's oneDNN runs its primitives on an OpenMP team. A team as wide as the machine costs
// milliseconds per call on small problems when its threads are descheduled (measured by
// bench_ral: 8x64x128 GEMM 3.4 ms with 2 threads on a loaded 2-core machine, 8 us with one),
// so each call gets one thread per kFlopsPerThread of work, set before the primitive is built
// (oneDNN fixes a primitive's thread count then; the team size is part of the cache key).
//
//===----------------------------------------------------------------------===//
#include "GemmShapes.h"

#include "loupe/ral/Context.h"
#include "loupe/ral/CpuDriver.h"
#include "loupe/ral/Kernels.h"
#include "loupe/ral/Registry.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <cmath>
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#if LOUPE_ONEDNN_OPENMP
#include <omp.h>
#endif

namespace loupe::ral {

namespace {

using dnnl::memory;

/// Work per OpenMP thread below which a oneDNN call does not add one (~10-20 us of one core's
/// f32 FMAs). At 2^23 MobileNetV3-small's 1x1-conv GEMMs (2-5 MFLOP each) ran on one core; at
/// 2^20 they take both: the model 2.23 -> 1.96 ms, its GEMMs 1.41 -> 1.14 ms (medians of 8
/// interleaved rounds of `loupe run --reps 500`, another tenant's load 1.1-1.7).
constexpr double kFlopsPerThread = 1 << 20;
/// The same for memory-bound calls (a classifier's GEMV streams its weights once): bytes per
/// thread, ~25-50 us of one core's bandwidth, well above a team's fork and join.
constexpr double kBytesPerThread = 1 << 19;

#if LOUPE_ONEDNN_OPENMP
/// The processors OpenMP may use, read once: omp_get_num_procs() asks the kernel for the
/// affinity mask on every call (a system call, 8% of a small GEMM's time in `perf`).
int processors() {
  static const int count = omp_get_num_procs();
  return count;
}
#endif

/// Sizes the calling thread's OpenMP team for a call of `flops` that moves `bytes` (its
/// operands' sizes), by whichever asks for more threads, rounded up, at most the context's
/// CPU threads (`LOUPE_NUM_THREADS`, as for generated kernels) and the processors OpenMP may
/// use (restored on scope exit).
/// Rounded down, MobileNetV3's squeeze-excitation GEMVs (1x960 by 960x240: 0.9 MB, 1.8
/// threads' worth) ran on one core: MobileNetV3-large 4.47-5.27 -> 4.25-5.06 ms, faster in each
/// of 5 alternations of `loupe run --reps 200` (load 1.4-1.6).
class ScopedTeamSize {
public:
  ScopedTeamSize(ExecutionContext *ctx, double flops, double bytes) {
#if LOUPE_ONEDNN_OPENMP
    previous_ = omp_get_max_threads();
    int limit = std::min(processors(), ctx->context().cpu().threadPool().activeThreads());
    int wanted = static_cast<int>(std::min<double>(
        limit, std::ceil(std::max(flops / kFlopsPerThread, bytes / kBytesPerThread))));
    threads_ = std::max(1, wanted);
    omp_set_num_threads(threads_);
#endif
  }
  /// Part of a primitive's cache key: a primitive runs with the team it was built for.
  std::string key() const { return "t" + std::to_string(threads_) + ":"; }
  ~ScopedTeamSize() {
#if LOUPE_ONEDNN_OPENMP
    omp_set_num_threads(previous_);
#endif
  }

private:
  int previous_ = 1, threads_ = 1;
};

struct OneDnnEngine : Context::Resource {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
};

/// The calling thread's stream on the process's one CPU engine (a CPU stream only orders the
/// primitives a thread runs; making one per call cost about 0.5 us of a 5 us small GEMM). Never
/// destroyed: a thread may end after the engine, at exit.
dnnl::stream &streamOf(dnnl::engine &engine) {
  thread_local dnnl::stream *stream = new dnnl::stream(engine);
  return *stream;
}

/// A built primitive, the layouts it chose, and the memory objects its calls bind.
struct CachedPrimitive {
  dnnl::primitive primitive;
  memory::desc weights; ///< The weights layout it chose (convolutions pick a blocked one).
  /// The layout it writes when not the caller's, and the reorder into the caller's layout.
  memory::desc dst;
  dnnl::primitive toDst;
  /// The layout it reads when not the caller's (a dense copy of a strided input, Winograd's
  /// blocked layout), and the reorder into it.
  memory::desc src;
  dnnl::primitive fromSrc;
  /// The buffers a call binds, by slot (each kernel numbers its own): their descriptors are
  /// fixed by the cache key, so the memory objects are made once and re-pointed per call
  /// (CallMemories).
  std::vector<memory::desc> slots;
  std::vector<memory> memories;
  std::atomic<bool> busy{false}; ///< A call holds `memories`.
  /// The scratchpad it needs (threadScratchpad: each call passes its thread's buffer), bound
  /// through the last slot.
  memory::desc scratchpad;
  /// Its fastest call so far (ns): a call on a team of several that took much longer waited
  /// for a descheduled thread (run, ContentionGovernor).
  std::atomic<int64_t> fastestNs{INT64_MAX};
};

/// Attributes whose scratchpad the caller gives. oneDNN's own is one global buffer unless the
/// library is built for concurrent execution, which Debian's is not: two threads' GEMMs of
/// one shape overwrote each other's packed panels (RalKernels test of three threads).
dnnl::primitive_attr threadScratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

/// Makes `built` run the primitive of `pd`, with the weights layout (none for a pooling) and
/// scratchpad it chose.
template <typename Primitive, typename PrimitiveDesc>
void adopt(CachedPrimitive &built, const PrimitiveDesc &pd) {
  built.primitive = Primitive(pd);
  built.weights = pd.weights_desc();
  built.scratchpad = pd.scratchpad_desc();
}

/// A forward-inference convolution of `src` by `weights` into `dst`, with `bias` unless it is
/// the empty descriptor.
dnnl::convolution_forward::primitive_desc
convolutionPrimitive(dnnl::algorithm algorithm, const memory::desc &src,
                     const memory::desc &weights, const memory::desc &bias,
                     const memory::desc &dst, const memory::dims &strides,
                     const memory::dims &dilates, const memory::dims &padL,
                     const memory::dims &padR, const dnnl::primitive_attr &attr,
                     const dnnl::engine &engine) {
  using dnnl::convolution_forward;
  auto kind = dnnl::prop_kind::forward_inference;
  auto desc = bias.is_zero() ? convolution_forward::desc(kind, algorithm, src, weights, dst,
                                                         strides, dilates, padL, padR)
                             : convolution_forward::desc(kind, algorithm, src, weights, bias,
                                                         dst, strides, dilates, padL, padR);
  return convolution_forward::primitive_desc(desc, attr, engine);
}

/// The memory objects of one call of `p`: the entry's own, re-pointed at this call's buffers,
/// or new ones while another thread's call holds those. Making a dnnl::memory costs an aligned
/// allocation of about 1 KB and its free, which consolidates malloc's bins: 10-15% of an LSTM's
/// time in `perf`, and most of the 4 us of an 8x64x128 GEMM.
class CallMemories {
public:
  CallMemories(CachedPrimitive &p, dnnl::engine &engine)
      : p_(p), engine_(engine), own_(!p.busy.exchange(true, std::memory_order_acquire)) {
    if (!own_)
      local_.resize(p.slots.size());
  }
  ~CallMemories() {
    if (own_)
      p_.busy.store(false, std::memory_order_release);
  }
  CallMemories(const CallMemories &) = delete;
  CallMemories &operator=(const CallMemories &) = delete;

  /// Slot `slot`'s memory, pointing at `data`.
  const memory &at(int slot, const void *data) {
    memory &m = own_ ? p_.memories[slot] : local_[slot];
    void *handle = const_cast<void *>(data);
    if (m)
      m.set_data_handle(handle);
    else
      m = memory(p_.slots[slot], engine_, handle);
    return m;
  }

private:
  CachedPrimitive &p_;
  dnnl::engine &engine_;
  bool own_;
  std::vector<memory> local_;
};

/// One execution's arguments, handed to oneDNN's C API as they are (dnnl::primitive::execute
/// takes a std::unordered_map and copies it into a vector on every call).
class Arguments {
public:
  Arguments &add(int arg, const memory &m) {
    args_[count_++] = {arg, m.get()};
    return *this;
  }
  void execute(const dnnl::primitive &primitive, dnnl::stream &stream) const {
    dnnl::error::wrap_c_api(
        dnnl_primitive_execute(primitive.get(), stream.get(), count_, args_.data()),
        "could not execute a primitive");
  }

private:
  std::array<dnnl_exec_arg_t, 8> args_{};
  int count_ = 0;
};

/// The calling thread's buffer `slot` of at least `bytes` (convolutions' reordered inputs and
/// outputs, primitives' scratchpads): kept and grown, so a repetition allocates nothing and
/// takes no page faults.
enum ScratchSlot { kReorderedOutput, kReorderedInput, kScratchpad, kScratchSlots };
void *scratch(ScratchSlot slot, size_t bytes) {
  thread_local std::vector<char> buffers[kScratchSlots];
  std::vector<char> &buffer = buffers[slot];
  if (buffer.size() < bytes)
    buffer.resize(bytes);
  return buffer.data();
}

/// Runs `p` on `args` and, when it needs one, the calling thread's scratchpad. A call on a
/// team of several threads reports to the pool's governor how much longer than the
/// primitive's fastest call it took: a primitive splits its work statically, so a thread the
/// scheduler does not run holds the whole call (ResNet-50 with a busy loop on one of two
/// cores: 55 -> 130 ms, its convolutions being one region each).
void run(ExecutionContext *ctx, CachedPrimitive &p, CallMemories &memories, Arguments &args,
         dnnl::stream &stream) {
  if (size_t bytes = p.scratchpad.get_size())
    args.add(DNNL_ARG_SCRATCHPAD,
             memories.at(int(p.slots.size()) - 1, scratch(kScratchpad, bytes)));
  int64_t start = steadyNowNs();
  args.execute(p.primitive, stream);
  int64_t took = steadyNowNs() - start;
  int64_t fastest = p.fastestNs.load(std::memory_order_relaxed);
  if (took < fastest)
    p.fastestNs.store(took, std::memory_order_relaxed);
#if LOUPE_ONEDNN_OPENMP
  if (omp_get_max_threads() > 1 && fastest != INT64_MAX)
    ctx->context().cpu().threadPool().regionEnded(fastest, took - fastest);
#endif
}

/// Primitives of one context keyed by their shapes and attributes, and the weights reordered
/// into a primitive's layout, keyed by primitive and weights address (weight-blob weights
/// only: Context::inWeights).
struct OneDnnPrimitives : Context::Resource {
  std::mutex mutex;
  std::unordered_map<std::string, std::unique_ptr<CachedPrimitive>> primitives;
  std::unordered_map<std::string, memory> packedWeights;
};

OneDnnPrimitives &primitivesOf(ExecutionContext *ctx) {
  return *static_cast<OneDnnPrimitives *>(ctx->getOrCreateResource(
      "ral.onednn.primitives", Context::Lifetime::kPerContext,
      [] { return std::make_unique<OneDnnPrimitives>(); }));
}

dnnl::engine &engineOf(ExecutionContext *ctx) {
  return static_cast<OneDnnEngine *>(
             ctx->getOrCreateResource("ral.onednn.engine", Context::Lifetime::kGlobal,
                                      [] { return std::make_unique<OneDnnEngine>(); }))
      ->engine;
}

/// The cached primitive for `key`, built with `build(CachedPrimitive &)` on a miss (which
/// sets its primitive, layouts, slots and scratchpad, its attributes from threadScratchpad).
/// Entries live as long as the context.
template <typename Build>
CachedPrimitive &primitiveFor(ExecutionContext *ctx, const std::string &key, Build build) {
  OneDnnPrimitives *cache = &primitivesOf(ctx);
  {
    std::lock_guard<std::mutex> lock(cache->mutex);
    auto it = cache->primitives.find(key);
    if (it != cache->primitives.end())
      return *it->second;
  }
  auto built = std::make_unique<CachedPrimitive>();
  build(*built);
  built->slots.push_back(built->scratchpad);
  built->memories.resize(built->slots.size());
  std::lock_guard<std::mutex> lock(cache->mutex);
  return *cache->primitives.emplace(key, std::move(built)).first->second;
}

/// `filter` (in `user` layout) in the primitive's layout `packed` (`user` itself when they are
/// the same). Weights of the weight blob never change: reordered once per primitive (`key`) and
/// kept, since a ResNet reorders megabytes per call otherwise. Any other filter (computed at
/// run time) every call.
memory packedWeights(ExecutionContext *ctx, const std::string &key, memory user,
                     const memory::desc &packed, dnnl::engine &engine, dnnl::stream &stream) {
  if (user.get_desc() == packed)
    return user;
  void *data = user.get_data_handle();
  auto reorder = [&] {
    memory out(packed, engine);
    memory from = user;
    // oneDNN reorders into Winograd's weights format from plain layouts only: a strided view
    // (OHWI seen as OIHW) is first copied into its dims' plain row-major layout.
    if (packed.data.format_kind == dnnl_format_kind_wino) {
      static constexpr memory::format_tag kPlain[] = {
          memory::format_tag::undef, memory::format_tag::a,    memory::format_tag::ab,
          memory::format_tag::abc,   memory::format_tag::abcd, memory::format_tag::abcde};
      memory::desc plain(user.get_desc().dims(), user.get_desc().data_type(),
                         kPlain[user.get_desc().data.ndims]);
      from = memory(plain, engine);
      dnnl::reorder(user, from).execute(stream, user, from);
    }
    dnnl::reorder(from, out).execute(stream, from, out);
    stream.wait();
    return out;
  };
  if (!ctx->context().inWeights(data, user.get_desc().get_size()))
    return reorder();
  OneDnnPrimitives &cache = primitivesOf(ctx);
  std::string id = key + "@" + std::to_string(reinterpret_cast<uintptr_t>(data));
  {
    std::lock_guard<std::mutex> lock(cache.mutex);
    if (auto it = cache.packedWeights.find(id); it != cache.packedWeights.end())
      return it->second;
  }
  memory out = reorder();
  std::lock_guard<std::mutex> lock(cache.mutex);
  return cache.packedWeights.emplace(id, out).first->second;
}

/// Why `activation` is not an Activation code, or empty when it is one.
std::string activationError(int32_t activation) {
  if (activation >= 0 && activation <= int32_t(Activation::kSilu))
    return {};
  return "activation " + std::to_string(activation) +
         " is not one of 0 none, 1 relu, 2 gelu_tanh, 3 gelu_erf, 4 hardswish, 5 silu";
}

/// Appends the eltwise post-op of `activation` (an Activation code: activationError is empty).
void appendActivation(int32_t activation, dnnl::post_ops &ops) {
  switch (static_cast<Activation>(activation)) {
  case Activation::kNone:
    return;
  case Activation::kRelu:
    return ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
  case Activation::kGeluTanh:
    return ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_gelu_tanh, 0.0f, 0.0f);
  case Activation::kGeluErf:
    return ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_gelu_erf, 0.0f, 0.0f);
  case Activation::kHardSwish: // oneDNN 2.x fixes alpha = 1/6, beta = 1/2.
    return ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_hardswish, 1.0f / 6, 0.5f);
  case Activation::kSilu: // x * sigmoid(alpha x)
    return ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_swish, 1.0f, 0.0f);
  }
}

/// Strides of the math operand [rows, cols] stored as `op` (row-major storage + ld).
memory::dims operandStrides(const detail::GemmOperand &op) {
  return op.transposed ? memory::dims{1, op.ld} : memory::dims{op.ld, 1};
}

/// NCHW dims stored NHWC, outermost first.
constexpr std::array<int, 4> kNhwc = {0, 2, 3, 1};

/// Dense strides of NCHW `dims` stored NHWC.
memory::dims nhwcStrides(const memory::dims &dims) {
  memory::dims strides(4);
  int64_t stride = 1;
  for (int i = 3; i >= 0; --i) {
    strides[kNhwc[i]] = stride;
    stride *= dims[kNhwc[i]];
  }
  return strides;
}

/// True when the NCHW-indexed memref is a dense NHWC buffer (the stride of a dimension of
/// size 1 does not matter).
bool isDenseNhwc(const int64_t *sizes, const int64_t *strides) {
  int64_t stride = 1;
  for (int i = 3; i >= 0; --i) {
    int d = kNhwc[i];
    if (sizes[d] != 1 && strides[d] != stride)
      return false;
    stride *= sizes[d];
  }
  return true;
}

/// The four sizes or strides of a rank-4 memref as oneDNN dims.
memory::dims dims4(const int64_t *s) { return {s[0], s[1], s[2], s[3]}; }

/// "[AxBxCxD]", for error messages.
std::string shape4(const int64_t *s) {
  return "[" + std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" + std::to_string(s[2]) +
         "x" + std::to_string(s[3]) + "]";
}

/// A cache key of `values`: their bytes (no formatting; keys are only compared).
std::string keyOf(std::initializer_list<int64_t> values) {
  return std::string(reinterpret_cast<const char *>(values.begin()), values.size() * sizeof(int64_t));
}

/// What a 2-D f32 matmul adds to its product before storing C: `act(AB + bias + residual)`.
struct MatmulEpilogue {
  const float *bias = nullptr;     ///< [N], or none.
  const float *residual = nullptr; ///< [M, N] with rows residualLd apart, or none.
  int64_t residualLd = 0;
  int32_t activation = 0;          ///< An Activation code.
};

/// The products by a weight that run as a 1x1 convolution: rows of A, and B's size (twice
/// as large for the few rows of a 7x7 image).
constexpr int64_t kMinConvolutionRows = 16, kMaxConvolutionRows = 256, kFewConvolutionRows = 64;
constexpr int64_t kMaxConvolutionWeightBytes = 1 << 20;

/// True when `p` (f32, B a weight) is best run as oneDNN's 1x1 convolution (brgconv_1x1)
/// rather than its matmul (brg): A's M rows of K and C's of N dense (an NHWC image of 1 x M
/// pixels), a residual read separately too, 16-256 rows and B under 1 MiB (2 MiB up to 64
/// rows): the 1x1 convolutions over 14x14 and 7x7 of MobileNetV3 and EfficientNet. Per
/// dispatch in MobileNetV3-large (2 threads, best of 2 runs, us): 196 rows of 240 into 80,
/// 44 -> 26; 196x184 into 80 with a residual, 36 -> 26; 196x672 into 112, 112 -> 89; 49x960
/// into 160, 78 -> 54; 784 rows within 5% either way; 3136 and 12544 rows up to 31% slower.
/// EfficientNet-B0's 49x1152 into 320 (1.4 MiB of B): 133 -> 98 (best of 4). ResNet-50's
/// were slower: 784x128 into 512 with a residual +20%, 196x1024 into 256 (1 MiB) +4%, 49x2048
/// into 512 (4 MiB) +5%.
bool asConvolution(const detail::GemmProblem &p, bool separateResidual, int64_t residualLd) {
  int64_t maxWeightBytes = kMaxConvolutionWeightBytes * (p.m <= kFewConvolutionRows ? 2 : 1);
  return p.m >= kMinConvolutionRows && p.m <= kMaxConvolutionRows &&
         4 * p.k * p.n < maxWeightBytes && !p.a.transposed && p.a.ld == p.k &&
         p.c.ld == p.n && (!separateResidual || residualLd == p.n);
}

/// The element types of a matmul's operands and, for int8, its zero points.
struct MatmulTypes {
  memory::data_type in = memory::data_type::f32, out = memory::data_type::f32;
  /// A's and B's zero points (int8 only; oneDNN subtracts them before multiplying).
  const int32_t *zeroPoints = nullptr;
};

/// C = act(op(A) op(B) + bias + residual) for a batch (batch 0 means plain 2-D; only that
/// takes an epilogue).
void matmul(ExecutionContext *ctx, const char *api, const detail::GemmProblem &p, int64_t batch,
            int64_t batchA, int64_t batchB, int64_t strideA, int64_t strideB, int64_t strideC,
            const void *a, const void *b, void *c, const MatmulEpilogue &epilogue = {},
            MatmulTypes types = {}) {
  if (p.m == 0 || p.n == 0 || (batch == 0 && batchA != 0))
    return;
  // A batch of one is one 2-D product: as such a constant B is packed once (oneDNN 2.6 keeps
  // a 3-D B plain and repacks it on every call: 50 us of an LSTM step's 1x256x1024 GEMV).
  if (batch == 1)
    batch = batchA = batchB = 0;
  const float *bias = epilogue.bias;
  bool residualInC = epilogue.residual == c && epilogue.residualLd == p.c.ld;
  if (std::string error = activationError(epilogue.activation); !error.empty())
    return ctx->signalError(invalidArgument(std::string(api) + ": " + error));
  try {
    dnnl::engine &engine = engineOf(ctx);
    // Before the primitive is built: oneDNN fixes a primitive's thread count when it is made.
    ScopedTeamSize team(ctx, 2.0 * p.m * p.n * p.k * std::max<int64_t>(batch, 1),
                        4.0 * (p.m * p.k + p.k * p.n + p.m * p.n) * std::max<int64_t>(batch, 1));
    std::string key = std::string(api) + team.key() + keyOf({p.m, p.n, p.k, p.a.ld, p.a.transposed, p.b.ld,
                                                p.b.transposed, p.c.ld, batch, batchA, batchB,
                                                strideA, strideB, strideC, bias != nullptr,
                                                epilogue.activation, epilogue.residual != nullptr,
                                                epilogue.residualLd, residualInC});
    memory::dims sb = operandStrides(p.b);
    memory::desc bDesc = batch == 0 ? memory::desc({p.k, p.n}, types.in, sb)
                                    : memory::desc({batchB, p.k, p.n}, types.in,
                                                   {std::max<int64_t>(strideB, 1), sb[0], sb[1]});
    // A weight of the artifact (a 1x1 convolution's, a Linear's) is B: the primitive picks its
    // layout and B is packed into it once (packedWeights), instead of oneDNN copying B into
    // that layout on every call.
    bool constantB = ctx->context().inWeights(b, bDesc.get_size());
    if (constantB)
      key += "packed";
    // Dense f32 rows by a weight are a 1x1 convolution of a 1 x M NHWC image of K channels into
    // N (asConvolution): oneDNN's 1x1 convolution then runs them.
    bool conv = batch == 0 && constantB && !types.zeroPoints &&
                asConvolution(p, epilogue.residual && !residualInC, epilogue.residualLd);
    if (conv)
      key += "conv";
    enum Slot { kA, kB, kC, kBias, kResidual, kAZeroPoint, kBZeroPoint };
    CachedPrimitive &cached = primitiveFor(ctx, key, [&](CachedPrimitive &built) {
      memory::desc aDesc, cDesc, biasDesc, residualDesc, bUser = bDesc;
      if (conv) {
        auto image = [&](int64_t channels) {
          return memory::desc({1, channels, 1, p.m}, types.in, memory::format_tag::nhwc);
        };
        aDesc = image(p.k);
        cDesc = image(p.n);
        biasDesc = memory::desc({p.n}, memory::data_type::f32, memory::format_tag::x);
        if (epilogue.residual)
          residualDesc = cDesc;
        // B [K, N] as OIHW weights: O is B's column, I its row.
        bUser = memory::desc({p.n, p.k, 1, 1}, types.in, {sb[1], sb[0], 1, 1});
      } else if (batch == 0) {
        aDesc = memory::desc({p.m, p.k}, types.in, operandStrides(p.a));
        cDesc = memory::desc({p.m, p.n}, types.out, memory::dims{p.c.ld, 1});
        biasDesc = memory::desc({1, p.n}, memory::data_type::f32, memory::dims{p.n, 1});
      } else {
        memory::dims sa = operandStrides(p.a);
        aDesc = memory::desc({batchA, p.m, p.k}, types.in,
                             {std::max<int64_t>(strideA, 1), sa[0], sa[1]});
        cDesc = memory::desc({batch, p.m, p.n}, types.out,
                             {std::max<int64_t>(strideC, 1), p.c.ld, 1});
        biasDesc = memory::desc({1, 1, p.n}, memory::data_type::f32, memory::dims{p.n, p.n, 1});
      }
      // The residual first, then the activation of the sum. A residual in C itself (bufferized
      // in place) is oneDNN's sum post-op, which reads C before writing it; any other is a
      // binary add of its own buffer.
      dnnl::post_ops ops;
      if (epilogue.residual && !conv)
        residualDesc = memory::desc({p.m, p.n}, memory::data_type::f32,
                                    memory::dims{epilogue.residualLd, 1});
      if (residualInC)
        ops.append_sum(1.0f);
      else if (epilogue.residual)
        ops.append_binary(dnnl::algorithm::binary_add, residualDesc);
      appendActivation(epilogue.activation, ops);
      dnnl::primitive_attr attr = threadScratchpad();
      attr.set_post_ops(ops);
      if (types.zeroPoints) { // Given at execution: one primitive for every zero point.
        attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
        attr.set_zero_points(DNNL_ARG_WEIGHTS, 0, {DNNL_RUNTIME_S32_VAL});
      }
      memory::desc weights =
          constantB ? memory::desc(bUser.dims(), types.in, memory::format_tag::any) : bUser;
      if (conv) {
        memory::dims one{1, 1}, zero{0, 0};
        adopt<dnnl::convolution_forward>(
            built, convolutionPrimitive(dnnl::algorithm::convolution_direct, aDesc, weights,
                                        bias ? biasDesc : memory::desc(), cDesc, one, zero, zero,
                                        zero, attr, engine));
      } else {
        dnnl::matmul::desc desc = bias ? dnnl::matmul::desc(aDesc, weights, biasDesc, cDesc)
                                       : dnnl::matmul::desc(aDesc, weights, cDesc);
        adopt<dnnl::matmul>(built, dnnl::matmul::primitive_desc(desc, attr, engine));
      }
      memory::desc scalar({1}, memory::data_type::s32, memory::format_tag::x);
      built.slots = {aDesc, bUser, cDesc, biasDesc, residualDesc, scalar, scalar};
    });
    dnnl::stream &stream = streamOf(engine);
    CallMemories memories(cached, engine);
    memory weights = packedWeights(ctx, key, memories.at(kB, b), cached.weights, engine, stream);
    Arguments args;
    args.add(DNNL_ARG_SRC, memories.at(kA, a))
        .add(DNNL_ARG_WEIGHTS, weights)
        .add(DNNL_ARG_DST, memories.at(kC, c));
    if (bias)
      args.add(DNNL_ARG_BIAS, memories.at(kBias, bias));
    if (epilogue.residual && !residualInC)
      args.add(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1,
               memories.at(kResidual, epilogue.residual));
    if (types.zeroPoints) {
      args.add(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC,
               memories.at(kAZeroPoint, types.zeroPoints));
      args.add(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_WEIGHTS,
               memories.at(kBZeroPoint, types.zeroPoints + 1));
    }
    run(ctx, cached, memories, args, stream);
    stream.wait();
  } catch (const dnnl::error &e) {
    ctx->signalError(internalError(std::string(api) + ": oneDNN: " + e.what() + " (status " +
                                   std::to_string(int(e.status)) + ")"));
  }
}

void gemmOneDnn(ExecutionContext *ctx, MemRef<float, 2> a, MemRef<float, 2> b, MemRef<float, 2> c,
                bool transA, bool transB) {
  if (ctx->failed())
    return;
  detail::GemmProblem p;
  if (Status s = detail::planGemm("ral_gemm_onednn", a.sizes, a.strides, b.sizes, b.strides,
                                  c.sizes, c.strides, transA, transB, p);
      !s)
    return ctx->signalError(s);
  matmul(ctx, "ral_gemm_onednn", p, 0, 0, 0, 0, 0, 0, a.data(), b.data(), c.data());
}

void batchGemmOneDnn(ExecutionContext *ctx, MemRef<float, 3> a, MemRef<float, 3> b,
                     MemRef<float, 3> c, bool transA, bool transB) {
  if (ctx->failed())
    return;
  detail::BatchGemmProblem bp;
  if (Status s = detail::planBatchGemm("ral_batch_gemm_onednn", a, b, c, transA, transB, bp); !s)
    return ctx->signalError(s);
  if (bp.batch == 0)
    return;
  matmul(ctx, "ral_batch_gemm_onednn", bp.gemm, bp.batch, a.sizes[0], b.sizes[0], a.strides[0],
         b.strides[0], c.strides[0], a.data(), b.data(), c.data());
}

void quantizedBatchGemmOneDnn(ExecutionContext *ctx, MemRef<int8_t, 3> a, MemRef<int8_t, 3> b,
                              MemRef<int32_t, 3> c, int32_t aZeroPoint, int32_t bZeroPoint) {
  if (ctx->failed())
    return;
  detail::BatchGemmProblem bp;
  if (Status s = detail::planBatchGemm("ral_qgemm_onednn", a, b, c, false, false, bp); !s)
    return ctx->signalError(s);
  if (bp.batch == 0)
    return;
  int32_t zeroPoints[2] = {aZeroPoint, bZeroPoint};
  matmul(ctx, "ral_qgemm_onednn", bp.gemm, bp.batch, a.sizes[0], b.sizes[0], a.strides[0],
         b.strides[0], c.strides[0], a.data(), b.data(), c.data(), {},
         {memory::data_type::s8, memory::data_type::s32, zeroPoints});
}

void gemmEpilogueOneDnn(ExecutionContext *ctx, MemRef<float, 2> a, MemRef<float, 2> b,
                        MemRef<float, 1> bias, MemRef<float, 2> residual, MemRef<float, 2> c,
                        bool transA, bool transB, int32_t activation) {
  if (ctx->failed())
    return;
  detail::GemmProblem p;
  if (Status s = detail::planGemm("ral_gemm_epilogue_onednn", a.sizes, a.strides, b.sizes,
                                  b.strides, c.sizes, c.strides, transA, transB, p);
      !s)
    return ctx->signalError(s);
  bool hasBias = bias.sizes[0] != 0;
  if (hasBias && (bias.sizes[0] != p.n || (bias.strides[0] != 1 && p.n > 1)))
    return ctx->signalError(invalidArgument("ral_gemm_epilogue_onednn: bias has " +
                                            std::to_string(bias.sizes[0]) + " entries, C has " +
                                            std::to_string(p.n) + " columns"));
  bool hasResidual = residual.sizes[0] * residual.sizes[1] != 0;
  if (Status s = detail::checkResidual("ral_gemm_epilogue_onednn", residual.sizes,
                                       residual.strides, p);
      !s)
    return ctx->signalError(s);
  matmul(ctx, "ral_gemm_epilogue_onednn", p, 0, 0, 0, 0, 0, 0, a.data(), b.data(), c.data(),
         {hasBias ? bias.data() : nullptr, hasResidual ? residual.data() : nullptr,
          residual.strides[0], activation});
}

template <typename T> constexpr memory::data_type kDataType = memory::data_type::f32;
template <> constexpr memory::data_type kDataType<int8_t> = memory::data_type::s8;
template <> constexpr memory::data_type kDataType<int32_t> = memory::data_type::s32;

/// A convolution of `In` input and filter into `Out` bias and output (f32 -> f32, or int8 ->
/// int32 with `inputZeroPoint` subtracted from the input), as `api`.
template <typename In, typename Out>
void convolution(ExecutionContext *ctx, const char *api, MemRef<In, 4> input,
                 MemRef<In, 4> filter, MemRef<Out, 1> bias, MemRef<Out, 4> output,
                 MemRef<int64_t, 1> params, const int32_t *inputZeroPoint) {
  if (ctx->failed())
    return;
  const std::string name = api;
  const memory::data_type in = kDataType<In>, out = kDataType<Out>;
  int64_t np = params.sizes[0];
  if (np != kConvParams && np != kConvParamsWithActivation)
    return ctx->signalError(invalidArgument(name + ": params has " + std::to_string(np) +
                                            " entries (want 9 or 10)"));
  auto param = [&](int i) { return params.data()[i * params.strides[0]]; };
  int64_t sh = param(kConvStrideH), sw = param(kConvStrideW), pt = param(kConvPadTop),
          pl = param(kConvPadLeft), pb = param(kConvPadBottom), pr = param(kConvPadRight),
          dh = param(kConvDilationH), dw = param(kConvDilationW), groups = param(kConvGroups);
  int32_t activation = np == kConvParamsWithActivation ? int32_t(param(kConvActivation)) : 0;
  int64_t n = input.sizes[0], c = input.sizes[1], h = input.sizes[2], w = input.sizes[3];
  int64_t o = filter.sizes[0], kh = filter.sizes[2], kw = filter.sizes[3];
  std::string shapes = " (input " + shape4(input.sizes) + ", filter " + shape4(filter.sizes) +
                       ", output " + shape4(output.sizes) + ")";
  if (sh <= 0 || sw <= 0 || dh <= 0 || dw <= 0 || groups <= 0 || pt < 0 || pl < 0 || pb < 0 ||
      pr < 0)
    return ctx->signalError(invalidArgument(name + ": strides, dilations and groups must "
                                            "be positive, paddings non-negative"));
  int64_t oh = (h + pt + pb - dh * (kh - 1) - 1) / sh + 1;
  int64_t ow = (w + pl + pr - dw * (kw - 1) - 1) / sw + 1;
  if (c % groups != 0 || o % groups != 0 || filter.sizes[1] != c / groups ||
      output.sizes[0] != n || output.sizes[1] != o || output.sizes[2] != oh ||
      output.sizes[3] != ow)
    return ctx->signalError(invalidArgument(
        name + ": shapes do not match the convolution (groups " + std::to_string(groups) +
        ", expected output [" + std::to_string(n) + "x" + std::to_string(o) + "x" +
        std::to_string(oh) + "x" + std::to_string(ow) + "])" + shapes));
  bool hasBias = bias.sizes[0] != 0;
  if (hasBias && bias.sizes[0] != o)
    return ctx->signalError(invalidArgument(name + ": bias has " +
                                            std::to_string(bias.sizes[0]) + " entries, want " +
                                            std::to_string(o)));
  if (std::string error = activationError(activation); !error.empty())
    return ctx->signalError(invalidArgument(name + ": " + error));
  try {
    dnnl::engine &engine = engineOf(ctx);
    const int64_t *fs = filter.strides;
    ScopedTeamSize team(ctx, 2.0 * n * o * oh * ow * (c / groups) * kh * kw, // Before building.
                        4.0 * (n * c * h * w + o * (c / groups) * kh * kw + n * o * oh * ow));
    std::string key = name + team.key() + keyOf({n, c, h, w, o, kh, kw, sh, sw, pt, pl, pb, pr, dh, dw,
                                      groups, hasBias, activation}) +
                      keyOf({input.strides[0], input.strides[1], input.strides[2],
                             input.strides[3], fs[0], fs[1], fs[2], fs[3], output.strides[0],
                             output.strides[1], output.strides[2], output.strides[3]});
    enum Slot { kInput, kSource, kFilter, kOutput, kComputed, kBias, kZeroPoint };
    CachedPrimitive &cached = primitiveFor(ctx, key, [&](CachedPrimitive &built) {
      // Logical NCHW / OIHW dims with the memrefs' strides: NHWC buffers seen through a
      // transposed view (what the compiler passes) need no copy.
      // Any other input layout (a strided slice of an NHWC buffer) is first copied into a
      // dense NHWC buffer: oneDNN's fast convolutions read plain layouts only.
      memory::desc userSrc({n, c, h, w}, in, dims4(input.strides));
      memory::desc src = isDenseNhwc(input.sizes, input.strides)
                             ? userSrc
                             : memory::desc(userSrc.dims(), in, nhwcStrides(userSrc.dims()));
      memory::desc dst({n, o, oh, ow}, out, dims4(output.strides));
      // An output laid out otherwise (the compiler's fused ReLU writing ONNX's NCHW result)
      // sends oneDNN to its reference convolution (~35x slower on
      // examples/models/conv_relu.onnx): such a call computes into a dense NHWC buffer and
      // reorders that into the output.
      memory::desc computed = isDenseNhwc(output.sizes, output.strides)
                                  ? dst
                                  : memory::desc(dst.dims(), out, nhwcStrides(dst.dims()));
      memory::desc wei =
          groups == 1
              ? memory::desc({o, c, kh, kw}, in, dims4(fs))
              : memory::desc({groups, o / groups, c / groups, kh, kw}, in,
                             memory::dims{fs[0] * (o / groups), fs[0], fs[1], fs[2], fs[3]});
      memory::desc biasDesc({o}, out, memory::format_tag::x);
      // Weights in the layout the primitive prefers (`any`): with strided user weights oneDNN
      // falls back to its reference convolution (20 ms instead of microseconds on the CNN).
      memory::desc weiAny(wei.dims(), in, memory::format_tag::any);
      dnnl::post_ops ops;
      appendActivation(activation, ops);
      dnnl::primitive_attr attr = threadScratchpad();
      attr.set_post_ops(ops);
      if (inputZeroPoint) // Given at execution: one primitive for every zero point.
        attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
      memory::dims strides{sh, sw}, dilates{dh - 1, dw - 1}, padL{pt, pl}, padR{pb, pr};
      auto build = [&](dnnl::algorithm algorithm, const memory::desc &source,
                       const memory::desc &result) {
        return convolutionPrimitive(algorithm, source, weiAny,
                                    hasBias ? biasDesc : memory::desc(), result, strides,
                                    dilates, padL, padR, attr, engine);
      };
      // A stride-1 3x3 f32 conv with at least 14x14 outputs runs as Winograd (oneDNN's
      // F(2x2,3x3) / F(4x4,3x3) in its blocked layout, a reorder on each side, within 3e-6 of
      // the direct conv). ResNet-50's, in the model (ONEDNN_VERBOSE): 64 channels at 56x56
      // 0.6 ms + 0.1 ms of reorders instead of 1.1 ms, 128 at 28x28 0.5 instead of 1.2, 256
      // at 14x14 0.6 instead of 1.1; 512 at 7x7 1.0 either way, so smaller outputs stay
      // direct. Fewer than 16 input channels stay direct too: the transform computes a whole
      // 16-channel block (workload f's 3->32 stem, 224x224: 2.1 ms Winograd, 0.37 ms direct;
      // its 32->64 conv 5.1 ms Winograd, 5.7 direct). Where oneDNN has no Winograd kernel, direct.
      std::optional<dnnl::convolution_forward::primitive_desc> pd;
      bool winograd = in == memory::data_type::f32 && groups == 1 && kh == 3 && kw == 3 &&
                      sh == 1 && sw == 1 && dh == 1 && dw == 1 && oh * ow >= 14 * 14 && c >= 16;
      if (winograd) {
        try {
          memory::desc any(src.dims(), in, memory::format_tag::any);
          pd = build(dnnl::algorithm::convolution_winograd, any,
                     memory::desc(dst.dims(), out, memory::format_tag::any));
        } catch (const dnnl::error &) {
        }
      }
      if (!pd)
        pd = build(dnnl::algorithm::convolution_direct, src, computed);
      adopt<dnnl::convolution_forward>(built, *pd);
      if (pd->dst_desc() != dst) {
        built.dst = pd->dst_desc();
        built.toDst = dnnl::reorder(dnnl::reorder::primitive_desc(engine, built.dst, engine, dst));
      }
      if (pd->src_desc() != userSrc) {
        built.src = pd->src_desc();
        built.fromSrc =
            dnnl::reorder(dnnl::reorder::primitive_desc(engine, userSrc, engine, built.src));
      }
      memory::desc scalar({1}, memory::data_type::s32, memory::format_tag::x);
      built.slots = {userSrc, built.src, wei, dst, built.dst, biasDesc, scalar};
    });
    dnnl::stream &stream = streamOf(engine);
    CallMemories memories(cached, engine);
    const memory &userWeights = memories.at(kFilter, filter.data());
    memory weights = packedWeights(ctx, key, userWeights, cached.weights, engine, stream);
    const memory &userDst = memories.at(kOutput, output.data());
    const memory &computedDst =
        cached.toDst ? memories.at(kComputed, scratch(kReorderedOutput, cached.dst.get_size())) : userDst;
    const memory &userInput = memories.at(kInput, input.data());
    const memory &source =
        cached.fromSrc ? memories.at(kSource, scratch(kReorderedInput, cached.src.get_size())) : userInput;
    if (cached.fromSrc)
      Arguments()
          .add(DNNL_ARG_FROM, userInput)
          .add(DNNL_ARG_TO, source)
          .execute(cached.fromSrc, stream);
    Arguments args;
    args.add(DNNL_ARG_SRC, source).add(DNNL_ARG_WEIGHTS, weights).add(DNNL_ARG_DST, computedDst);
    if (hasBias)
      args.add(DNNL_ARG_BIAS, memories.at(kBias, bias.data()));
    if (inputZeroPoint)
      args.add(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, memories.at(kZeroPoint, inputZeroPoint));
    run(ctx, cached, memories, args, stream);
    if (cached.toDst)
      Arguments()
          .add(DNNL_ARG_FROM, computedDst)
          .add(DNNL_ARG_TO, userDst)
          .execute(cached.toDst, stream);
    stream.wait();
  } catch (const dnnl::error &e) {
    ctx->signalError(internalError(name + ": oneDNN: " + e.what() +
                                   " (status " + std::to_string(int(e.status)) + ")" + shapes));
  }
}

void convOneDnn(ExecutionContext *ctx, MemRef<float, 4> input, MemRef<float, 4> filter,
                MemRef<float, 1> bias, MemRef<float, 4> output, MemRef<int64_t, 1> params) {
  convolution(ctx, "ral_conv_onednn", input, filter, bias, output, params, nullptr);
}

void quantizedConvOneDnn(ExecutionContext *ctx, MemRef<int8_t, 4> input, MemRef<int8_t, 4> filter,
                         MemRef<int32_t, 1> bias, MemRef<int32_t, 4> output,
                         MemRef<int64_t, 1> params, int32_t inputZeroPoint) {
  convolution(ctx, "ral_qconv_onednn", input, filter, bias, output, params, &inputZeroPoint);
}

/// Max pooling with oneDNN's pooling_v2_forward (padding excluded from the maximum), on
/// NCHW-indexed memrefs of any strides: the compiler passes views of NHWC buffers, which
/// oneDNN pools in its plain nhwc kernel.
void maxPoolOneDnn(ExecutionContext *ctx, MemRef<float, 4> input, MemRef<float, 4> output,
                   MemRef<int64_t, 1> params) {
  if (ctx->failed())
    return;
  const std::string name = "ral_max_pool_onednn";
  if (params.sizes[0] != kPoolParams)
    return ctx->signalError(invalidArgument(name + ": params has " +
                                            std::to_string(params.sizes[0]) + " entries (want " +
                                            std::to_string(kPoolParams) + ")"));
  auto param = [&](int i) { return params.data()[i * params.strides[0]]; };
  int64_t kh = param(kPoolWindowH), kw = param(kPoolWindowW),
          sh = param(kPoolStrideH), sw = param(kPoolStrideW),
          pt = param(kPoolPadTop), pl = param(kPoolPadLeft),
          pb = param(kPoolPadBottom), pr = param(kPoolPadRight),
          dh = param(kPoolDilationH), dw = param(kPoolDilationW);
  const int64_t *in = input.sizes, *out = output.sizes;
  if (kh <= 0 || kw <= 0 || sh <= 0 || sw <= 0 || dh <= 0 || dw <= 0 || pt < 0 || pl < 0 ||
      pb < 0 || pr < 0 || pt >= dh * (kh - 1) + 1 || pb >= dh * (kh - 1) + 1 ||
      pl >= dw * (kw - 1) + 1 || pr >= dw * (kw - 1) + 1)
    return ctx->signalError(invalidArgument(
        name + ": window, strides and dilations must be positive, paddings non-negative and "
               "smaller than the window"));
  int64_t oh = (in[2] + pt + pb - dh * (kh - 1) - 1) / sh + 1;
  int64_t ow = (in[3] + pl + pr - dw * (kw - 1) - 1) / sw + 1;
  const int64_t want[4] = {in[0], in[1], oh, ow};
  if (out[0] != in[0] || out[1] != in[1] || out[2] != oh || out[3] != ow)
    return ctx->signalError(invalidArgument(name + ": output " + shape4(out) + " for input " +
                                            shape4(in) + ", want " + shape4(want)));
  try {
    dnnl::engine &engine = engineOf(ctx);
    ScopedTeamSize team(ctx, double(out[0]) * out[1] * oh * ow * kh * kw,
                        4.0 * (in[0] * in[1] * in[2] * in[3] + out[0] * out[1] * oh * ow));
    std::string key = name + team.key() +
                      keyOf({in[0], in[1], in[2], in[3], kh, kw, sh, sw, pt, pl, pb, pr, dh, dw}) +
                      keyOf({input.strides[0], input.strides[1], input.strides[2],
                             input.strides[3], output.strides[0], output.strides[1],
                             output.strides[2], output.strides[3]});
    enum Slot { kInput, kOutput };
    CachedPrimitive &cached = primitiveFor(ctx, key, [&](CachedPrimitive &built) {
      memory::desc src(dims4(in), memory::data_type::f32, dims4(input.strides));
      memory::desc dst(dims4(want), memory::data_type::f32, dims4(output.strides));
      dnnl::pooling_v2_forward::desc desc(dnnl::prop_kind::forward_inference,
                                          dnnl::algorithm::pooling_max, src, dst, {sh, sw},
                                          {kh, kw}, {dh - 1, dw - 1}, {pt, pl}, {pb, pr});
      dnnl::pooling_v2_forward::primitive_desc pd(desc, threadScratchpad(), engine);
      adopt<dnnl::pooling_v2_forward>(built, pd);
      built.slots = {src, dst};
    });
    dnnl::stream &stream = streamOf(engine);
    CallMemories memories(cached, engine);
    Arguments args;
    args.add(DNNL_ARG_SRC, memories.at(kInput, input.data()))
        .add(DNNL_ARG_DST, memories.at(kOutput, output.data()));
    run(ctx, cached, memories, args, stream);
    stream.wait();
  } catch (const dnnl::error &e) {
    ctx->signalError(internalError(name + ": oneDNN: " + e.what() + " (status " +
                                   std::to_string(int(e.status)) + "; input " + shape4(in) +
                                   ", output " + shape4(out) + ")"));
  }
}

} // namespace

LOUPE_RAL_API("ral_gemm_onednn", "cpu", gemmOneDnn);
LOUPE_RAL_API("ral_batch_gemm_onednn", "cpu", batchGemmOneDnn);
LOUPE_RAL_API("ral_gemm_epilogue_onednn", "cpu", gemmEpilogueOneDnn);
LOUPE_RAL_API("ral_qgemm_onednn", "cpu", quantizedBatchGemmOneDnn);
LOUPE_RAL_API("ral_conv_onednn", "cpu", convOneDnn);
LOUPE_RAL_API("ral_qconv_onednn", "cpu", quantizedConvOneDnn);
LOUPE_RAL_API("ral_max_pool_onednn", "cpu", maxPoolOneDnn);

} // namespace loupe::ral
