//===- DefaultBackends.cpp - Loupe's backends and their plevels ----------------------===//
//
// CPU: matmul/conv onednn 15 > openblas 12 > codegen 10; depthwise conv and max pooling onednn
// 15 > codegen 10; int8 matmul and conv onednn 15 >
// codegen 10. GPU: matmul cublas 15 > codegen 10,
// conv cudnn 15 > codegen 10. Everything else: codegen. Fuse patterns: onednn matmul_bias_act,
// onednn and cudnn conv_bias_act. Kernels are the RAL APIs in ral/lib/kernels and ral/lib/cuda.
//
//===----------------------------------------------------------------------===//
#include "loupe/Backends/BackendRegistry.h"

namespace loupe::backends {

BackendRegistry &BackendRegistry::global() {
  static BackendRegistry registry;
  return registry;
}

LOUPE_REGISTER_BACKEND(kCodegen).set_enable("cpu").set_enable("gpu");
LOUPE_REGISTER_BACKEND("onednn").set_enable("cpu");
LOUPE_REGISTER_BACKEND("openblas").set_enable("cpu");
LOUPE_REGISTER_BACKEND("cublas").set_enable("gpu");
LOUPE_REGISTER_BACKEND("cudnn").set_enable("gpu");

LOUPE_REGISTER_BACKEND_OP("onednn", "matmul", 15).set_kernel("ral_gemm_onednn");
LOUPE_REGISTER_BACKEND_OP("onednn", "batch_matmul", 15).set_kernel("ral_batch_gemm_onednn");
LOUPE_REGISTER_BACKEND_OP("onednn", "conv2d", 15).set_kernel("ral_conv_onednn");
// Depthwise: the same kernel with one group per channel (cuDNN's filter descriptors take no
// strides, so the GPU keeps the generated kernel).
LOUPE_REGISTER_BACKEND_OP("onednn", "depthwise_conv2d", 15).set_kernel("ral_conv_onednn");
LOUPE_REGISTER_BACKEND_OP("onednn", "quantized_batch_matmul", 15).set_kernel("ral_qgemm_onednn");
LOUPE_REGISTER_BACKEND_OP("onednn", "quantized_conv2d", 15).set_kernel("ral_qconv_onednn");
// Max pooling: the generated loops took 0.8 ms for ResNet-50's stem pool (a padded copy of the
// input, then the window reduction), oneDNN's nhwc pooling 77 us.
LOUPE_REGISTER_BACKEND_OP("onednn", "max_pool2d", 15).set_kernel("ral_max_pool_onednn");
LOUPE_REGISTER_BACKEND_OP("openblas", "matmul", 12).set_kernel("ral_gemm_openblas");
LOUPE_REGISTER_BACKEND_OP("openblas", "batch_matmul", 12).set_kernel("ral_batch_gemm_openblas");
LOUPE_REGISTER_BACKEND_OP("cublas", "matmul", 15).set_kernel("ral_gemm_cublas");
LOUPE_REGISTER_BACKEND_OP("cublas", "batch_matmul", 15).set_kernel("ral_batch_gemm_cublas");
LOUPE_REGISTER_BACKEND_OP("cudnn", "conv2d", 15).set_kernel("ral_conv_cudnn");

// C = act(A * B + bias) as one oneDNN matmul with post-ops (ral-lower-to-library-call); the
// activation is ReLU, the exact (erf) GELU, hardswish or SiLU (eltwise_swish).
LOUPE_REGISTER_FUSE_PATTERN("onednn", "matmul_bias_act", 15)
    .set_ops({"matmul", "add", "relu", "gelu_erf", "hardswish", "silu"})
    .set_kernel("ral_gemm_epilogue_onednn");
// The same as one cuBLASLt matmul with an epilogue (CUBLASLT_EPILOGUE_RELU_BIAS): cuBLASLt's
// GELU is the tanh approximation, so the exact GELU stays a code-generated kernel.
LOUPE_REGISTER_FUSE_PATTERN("cublas", "matmul_bias_act", 15)
    .set_ops({"matmul", "add", "relu"})
    .set_kernel("ral_gemm_epilogue_cublaslt");
// output = act(conv(input, filter) + bias): the conv kernel with params[kConvActivation], the
// activation ReLU or (oneDNN) hardswish or SiLU; oneDNN's also for depthwise convs (their
// bias comes after them in TOSA, through the channel view).
LOUPE_REGISTER_FUSE_PATTERN("onednn", "conv_bias_act", 15)
    .set_ops({"conv2d", "depthwise_conv2d", "add", "relu", "hardswish", "silu"})
    .set_kernel("ral_conv_onednn");
LOUPE_REGISTER_FUSE_PATTERN("cudnn", "conv_bias_act", 15)
    .set_ops({"conv2d", "add", "relu"})
    .set_kernel("ral_conv_cudnn");

} // namespace loupe::backends
