//===- CudnnKernels.cpp - Convolution on the GPU through cuDNN ----------------===//
//
// ral_conv_cudnn___gpu (Kernels.h): NCHW f32 convolution with cudnnConvolutionForward, the
// algorithm from cudnnGetConvolutionForwardAlgorithm_v7 (asked once per problem and context:
// cuDNN 9 answers it in about 0.6 ms of host time), bias with cudnnAddTensor and ReLU with
// cudnnActivationForward, all in f32 FMA math (ConvAlgorithm.h: no TF32). The legacy
// descriptors take symmetric padding only; asymmetric padding or a GELU epilogue is reported as
// unsupported.
//
//===----------------------------------------------------------------------===//
#include "ConvAlgorithm.h"
#include "CudaSymbols.h"

#include "loupe/ral/Context.h"
#include "loupe/ral/Kernels.h"
#include "loupe/ral/Registry.h"

#include <map>
#include <mutex>
#include <optional>

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace loupe::ral {

namespace {

#if LOUPE_RAL_HAVE_CUDNN

/// The algorithm and workspace chosen for one convolution problem.
struct ConvPlan {
  cudnnConvolutionFwdAlgo_t algorithm;
  size_t workspaceBytes;
};

/// A context's cuDNN handles (one thread at a time each) and its plans, keyed by the problem:
/// the params, the input's and output's sizes and strides, the filter's sizes and layout.
struct CudnnState : Context::Resource {
  ~CudnnState() override {
    if (const CudnnSymbols *s = cudnnLibrary().symbols)
      for (cudnnHandle_t h : free)
        s->cudnnDestroy(h);
  }
  std::mutex mutex;
  std::vector<cudnnHandle_t> free;
  std::map<std::vector<int64_t>, ConvPlan> plans;
};

void convCudnn(ExecutionContext *ctx, MemRef<float, 4> input, MemRef<float, 4> filter,
               MemRef<float, 1> bias, MemRef<float, 4> output, MemRef<int64_t, 1> params) {
  if (ctx->failed())
    return;
  const LoadedLibrary<CudnnSymbols> &lib = cudnnLibrary();
  if (!lib.symbols)
    return ctx->signalError(lib.status);
  const CudnnSymbols &s = *lib.symbols;
  auto cuda = ctx->context().cuda();
  if (!cuda)
    return ctx->signalError(cuda.status());
  void *stream = ctx->cudaStream();
  if (!stream || !(*cuda)->makeCurrent().isOk())
    return;
  int64_t np = params.sizes[0];
  if (np != kConvParams && np != kConvParamsWithActivation)
    return ctx->signalError(invalidArgument("ral_conv_cudnn: params has " + std::to_string(np) +
                                            " entries (want 9 or 10)"));
  auto param = [&](int i) { return params.data()[i * params.strides[0]]; };
  int64_t act = np == kConvParamsWithActivation ? param(kConvActivation) : 0;
  if (param(kConvPadTop) != param(kConvPadBottom) || param(kConvPadLeft) != param(kConvPadRight))
    return ctx->signalError(invalidArgument("ral_conv_cudnn: asymmetric padding is not supported "
                                            "by cuDNN's legacy API (use ral_conv_onednn)"));
  if (act != 0 && act != static_cast<int64_t>(Activation::kRelu))
    return ctx->signalError(invalidArgument("ral_conv_cudnn: activation " + std::to_string(act) +
                                            " is not supported (none, relu)"));
  // Input and output may be any strided NCHW views (the compiler passes views of NHWC
  // buffers); the filter is OIHW, contiguous or a view of an OHWI (cuDNN's NHWC) buffer.
  const int64_t *fs = filter.sizes, *ft = filter.strides;
  bool filterNhwc = ft[1] == 1 && ft[3] == fs[1] && ft[2] == fs[3] * fs[1] &&
                    ft[0] == fs[2] * fs[3] * fs[1];
  if (!filter.isContiguous() && !filterNhwc)
    return ctx->signalError(invalidArgument(
        "ral_conv_cudnn: the filter must be a contiguous OIHW or OHWI buffer"));

  auto *pool = static_cast<CudnnState *>(ctx->context().getOrCreateResource(
      "ral.gpu.cudnn", [] { return std::make_unique<CudnnState>(); }));
  std::vector<int64_t> problem;
  for (int i = 0; i < np; ++i)
    problem.push_back(param(i));
  for (const MemRef<float, 4> *m : {&input, &output})
    problem.insert(problem.end(), {m->sizes[0], m->sizes[1], m->sizes[2], m->sizes[3],
                                   m->strides[0], m->strides[1], m->strides[2], m->strides[3]});
  problem.insert(problem.end(), {fs[0], fs[1], fs[2], fs[3], filterNhwc});
  cudnnHandle_t handle = nullptr;
  std::optional<ConvPlan> plan;
  {
    std::lock_guard<std::mutex> lock(pool->mutex);
    if (!pool->free.empty()) {
      handle = pool->free.back();
      pool->free.pop_back();
    }
    if (auto it = pool->plans.find(problem); it != pool->plans.end())
      plan = it->second;
  }
  cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
  if (!handle)
    st = s.cudnnCreate(&handle);
  cudnnTensorDescriptor_t x = nullptr, y = nullptr, b = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnActivationDescriptor_t relu = nullptr;
  const char *call = "cudnnCreate";
  auto step = [&](cudnnStatus_t result, const char *what) {
    if (st == CUDNN_STATUS_SUCCESS) {
      st = result;
      call = what;
    }
  };
  if (st == CUDNN_STATUS_SUCCESS) {
    step(s.cudnnSetStream(handle, static_cast<cudaStream_t>(stream)), "cudnnSetStream");
    step(s.cudnnCreateTensorDescriptor(&x), "cudnnCreateTensorDescriptor");
    step(s.cudnnCreateTensorDescriptor(&y), "cudnnCreateTensorDescriptor");
    step(s.cudnnCreateFilterDescriptor(&w), "cudnnCreateFilterDescriptor");
    step(s.cudnnCreateConvolutionDescriptor(&conv), "cudnnCreateConvolutionDescriptor");
  }
  if (st == CUDNN_STATUS_SUCCESS) {
    auto strided = [&](cudnnTensorDescriptor_t d, const MemRef<float, 4> &m) {
      return s.cudnnSetTensor4dDescriptorEx(
          d, CUDNN_DATA_FLOAT, int(m.sizes[0]), int(m.sizes[1]), int(m.sizes[2]), int(m.sizes[3]),
          int(m.strides[0]), int(m.strides[1]), int(m.strides[2]), int(m.strides[3]));
    };
    step(strided(x, input), "cudnnSetTensor4dDescriptorEx (input)");
    step(strided(y, output), "cudnnSetTensor4dDescriptorEx (output)");
    step(s.cudnnSetFilter4dDescriptor(w, CUDNN_DATA_FLOAT,
                                      filter.isContiguous() ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC,
                                      int(filter.sizes[0]),
                                      int(filter.sizes[1]), int(filter.sizes[2]),
                                      int(filter.sizes[3])),
         "cudnnSetFilter4dDescriptor");
    step(s.cudnnSetConvolution2dDescriptor(conv, int(param(kConvPadTop)), int(param(kConvPadLeft)),
                                           int(param(kConvStrideH)), int(param(kConvStrideW)),
                                           int(param(kConvDilationH)), int(param(kConvDilationW)),
                                           CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
         "cudnnSetConvolution2dDescriptor");
    step(s.cudnnSetConvolutionGroupCount(conv, int(param(kConvGroups))),
         "cudnnSetConvolutionGroupCount");
    step(s.cudnnSetConvolutionMathType(conv, CUDNN_FMA_MATH), "cudnnSetConvolutionMathType");
  }
  if (st == CUDNN_STATUS_SUCCESS && !plan) {
    cudnnConvolutionFwdAlgoPerf_t perf[8];
    int returned = 0;
    step(s.cudnnGetConvolutionForwardAlgorithm_v7(handle, x, w, conv, y, 8, &returned, perf),
         "cudnnGetConvolutionForwardAlgorithm_v7 (shapes do not match the convolution?)");
    std::vector<ConvAlgorithmCandidate> ranking;
    for (int i = 0; i < returned; ++i)
      ranking.push_back({perf[i].algo, perf[i].status == CUDNN_STATUS_SUCCESS,
                         perf[i].mathType == CUDNN_FMA_MATH});
    ConvPlan chosen{static_cast<cudnnConvolutionFwdAlgo_t>(pickFp32ConvAlgorithm(
                        ranking, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM)),
                    0};
    step(s.cudnnGetConvolutionForwardWorkspaceSize(handle, x, w, conv, y, chosen.algorithm,
                                                   &chosen.workspaceBytes),
         "cudnnGetConvolutionForwardWorkspaceSize");
    if (st == CUDNN_STATUS_SUCCESS) {
      plan = chosen;
      std::lock_guard<std::mutex> lock(pool->mutex);
      pool->plans.emplace(problem, chosen);
    }
  }
  if (st == CUDNN_STATUS_SUCCESS) {
    auto [algo, workspaceBytes] = *plan;
    void *workspace = workspaceBytes ? ctx->allocateDevice(workspaceBytes) : nullptr;
    const float one = 1, zero = 0;
    step(s.cudnnConvolutionForward(handle, &one, x, input.data(), w, filter.data(), conv, algo,
                                   workspace, workspaceBytes, &zero, y, output.data()),
         "cudnnConvolutionForward");
    if (bias.sizes[0] != 0) {
      step(s.cudnnCreateTensorDescriptor(&b), "cudnnCreateTensorDescriptor");
      step(s.cudnnSetTensor4dDescriptor(b, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1,
                                        int(bias.sizes[0]), 1, 1),
           "cudnnSetTensor4dDescriptor (bias)");
      step(s.cudnnAddTensor(handle, &one, b, bias.data(), &one, y, output.data()), "cudnnAddTensor");
    }
    if (act == static_cast<int64_t>(Activation::kRelu)) {
      step(s.cudnnCreateActivationDescriptor(&relu), "cudnnCreateActivationDescriptor");
      step(s.cudnnSetActivationDescriptor(relu, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0),
           "cudnnSetActivationDescriptor");
      step(s.cudnnActivationForward(handle, relu, &one, y, output.data(), &zero, y, output.data()),
           "cudnnActivationForward");
    }
    if (workspace)
      ctx->deallocateDevice(workspace);
  }
  if (st != CUDNN_STATUS_SUCCESS)
    ctx->signalError(internalError(std::string("ral_conv_cudnn: ") + call + ": " +
                                   s.cudnnGetErrorString(st)));
  if (relu)
    s.cudnnDestroyActivationDescriptor(relu);
  for (cudnnTensorDescriptor_t d : {x, y, b})
    if (d)
      s.cudnnDestroyTensorDescriptor(d);
  if (w)
    s.cudnnDestroyFilterDescriptor(w);
  if (conv)
    s.cudnnDestroyConvolutionDescriptor(conv);
  if (handle) {
    std::lock_guard<std::mutex> lock(pool->mutex);
    pool->free.push_back(handle);
  }
}

#else

void convCudnn(ExecutionContext *ctx, MemRef<float, 4>, MemRef<float, 4>, MemRef<float, 1>,
               MemRef<float, 4>, MemRef<int64_t, 1>) {
  ctx->signalError(unavailable("ral_conv_cudnn: built without cuDNN headers"));
}

#endif

} // namespace

LOUPE_RAL_API("ral_conv_cudnn", "gpu", convCudnn);

} // namespace loupe::ral
