//===- LibraryCallPatterns.h - linalg ops -> RAL library kernels ----*- C++ -*-===//
//
// The rewrites ral-lower-to-library-call applies once a backend is chosen. Each checks its
// pattern, and on success replaces the ops with one `ral.dispatch` of `kernel` (its `abi`
// encoded) and returns it; on failure nothing changes and `why` names the rule that refused.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_TRANSFORMS_LIBRARYCALLPATTERNS_H
#define LOUPE_TRANSFORMS_LIBRARYCALLPATTERNS_H

#include "loupe/Backends/BackendRegistry.h"
#include "loupe/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace loupe {

/// matmul / batch_matmul on a zero-filled C (a zero fill, or a copy from a buffer that holds
/// zeros) -> kernel(ctx, A, B, C, false, false); quantized_batch_matmul (int8 A and B, int32
/// C, i32 zero points) -> kernel(ctx, A, B, C, aZeroPoint, bZeroPoint). The initialisation
/// goes away; `op` remains for the caller to erase.
mlir::FailureOr<ralir::DispatchOp> lowerGemm(mlir::Operation *op, mlir::Value ctx,
                                             llvm::StringRef kernel, llvm::StringRef device,
                                             std::string &why);

/// A batch-1 matmul whose only reader computes `act(C + bias[j] + R)` — the bias, the residual R
/// (a buffer of the reader's output shape read in place) and the activation (ReLU, the exact
/// GELU, hardswish) each optional — into a buffer D (C may be seen through one reshape) ->
/// kernel(ctx, A, B, bias, residual, D, false, false, act) at that
/// reader, no bias or residual being an empty memref (epilogue kernels, e.g.
/// ral_gemm_epilogue_onednn); the fill and the reader go away. When the matmul has a
/// `loupe.cluster`, the reader must be in the same cluster. The kernel is `pattern`'s, and its
/// ops must name the activation ("relu", "gelu_erf", "hardswish"). `what` names the fused ops
/// for the dispatch's reason ("bias and activation", "residual add and activation").
mlir::FailureOr<ralir::DispatchOp> lowerGemmEpilogue(mlir::Operation *op, mlir::Value ctx,
                                                     const backends::FusePattern &pattern,
                                                     llvm::StringRef device, std::string &what);

/// NHWC conv on an output holding zeros or a broadcast per-channel bias -> kernel(ctx, input,
/// filter, bias, output, params) on NCHW / OIHW `memref.transpose` views; params = strides,
/// padding, dilations, groups 1 (a private i64 global). An f32 input that is a zero-padded copy
/// (tensor.pad bufferized: a zero fill, then the source copied into its interior, read by the
/// conv alone) is replaced by its source and the padding passed to the kernel: fill, copy and
/// buffer go. Pattern fusion (conv_bias_act):
/// when `pattern` is given, its ops name the activation and the output's first reader
/// computes its ReLU (isReluOf) or hardswish (isHardSwishOf) elementwise into an NHWC buffer D
/// (the output itself, or another one when nothing else reads the output), in the same
/// `loupe.cluster` when the conv has one, the dispatch is `pattern`'s kernel at that reader,
/// writing D with
/// params[kConvActivation] = the activation; the reader goes away and `fused` names it
/// ("ReLU", "hardswish"; empty when nothing was fused). `conv` remains for the caller. An int8 conv_2d_nhwc_fhwc_q
/// (int32 output and bias, weight zero point 0) -> kernel(ctx, input, filter, bias, output,
/// params, input zero point). A depthwise_conv_2d_nhwc_hwcm (filter KH x KW x C x M, output
/// N x OH x OW x C x M) -> the same kernel with C groups, the filter viewed as OIHW
/// (C*M) x 1 x KH x KW and the output as N x (C*M) x OH x OW; no activation fusion.
mlir::FailureOr<ralir::DispatchOp> lowerConv(mlir::linalg::LinalgOp conv, mlir::Value ctx,
                                             llvm::StringRef kernel,
                                             const backends::FusePattern *pattern,
                                             llvm::StringRef device, std::string &why,
                                             std::string &fused);

/// pooling_nhwc_max (f32, static shapes) on an output filled with -inf or the lowest f32 ->
/// kernel(ctx, input, output, params) with NCHW views of the NHWC buffers and params the
/// abi::PoolParam vector (a host-read constant); a padded copy of the input holding the same
/// value (TOSA's max_pool2d padding) is folded into the params' padding. The fill and the copy
/// go away; `pool` remains for the caller. On failure `why` says what did not match.
mlir::FailureOr<ralir::DispatchOp> lowerMaxPool(mlir::linalg::PoolingNhwcMaxOp pool,
                                                mlir::Value ctx, llvm::StringRef kernel,
                                                llvm::StringRef device, std::string &why);

} // namespace loupe

#endif // LOUPE_TRANSFORMS_LIBRARYCALLPATTERNS_H
