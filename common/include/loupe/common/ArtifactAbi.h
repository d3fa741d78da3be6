/*===- ArtifactAbi.h - The contract between compiled artifacts and the RAL -----*- C -*-===*
 *
 * What the compiler emits and the runtime reads, defined once (docs/artifact-abi.md): the ABI
 * name and manifest version, the exported symbols, and the parameter layouts of the library
 * kernels (Kernels.h documents their shapes and dtypes). C-compatible macros; the C++ part
 * holds the kernel parameter codes.
 *
 *===----------------------------------------------------------------------===*/
#ifndef LOUPE_COMMON_ARTIFACTABI_H
#define LOUPE_COMMON_ARTIFACTABI_H

/* The artifact ABI (the manifest's "abi" field) and the manifest's "version". */
#define LOUPE_RAL_ABI "loupe-ral-v1"
#define LOUPE_MANIFEST_VERSION 1
/* The artifact's entry point: `void loupe_ral_entry(void *ctx)`, ctx an ExecutionContext*.
 * Inputs come from recv_input, outputs go out through send_output. */
#define LOUPE_RAL_ENTRY_SYMBOL "loupe_ral_entry"
/* The manifest: a NUL-terminated JSON string (entry signature, dispatch table, RAL APIs). */
#define LOUPE_MANIFEST_SYMBOL "loupe_manifest"
/* The artifact's weight blob (optional; manifest "weights": {"bytes": N}): N bytes of constants,
 * each at a 64-byte aligned offset, that ral_constant hands out. */
#define LOUPE_RAL_WEIGHTS_SYMBOL "loupe_weights"

#ifdef __cplusplus
#include <cstdint>

namespace loupe::abi {

/// Activation of the GEMM/convolution epilogues (their int32 argument, params[kConvActivation]).
enum class Activation : int32_t {
  kNone = 0,
  kRelu = 1,
  kGeluTanh = 2, ///< 0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3)))
  kGeluErf = 3,  ///< 0.5x(1 + erf(x/sqrt(2)))
  kHardSwish = 4, ///< x * clamp(x/6 + 1/2, 0, 1) (MobileNetV3; ONNX HardSwish)
  kSilu = 5,      ///< x * sigmoid(x), a.k.a. swish (EfficientNet; torch's SiLU as Sigmoid, Mul)
};

/// Entries of the convolution params memref (i64).
enum ConvParam : int {
  kConvStrideH = 0,
  kConvStrideW,
  kConvPadTop,
  kConvPadLeft,
  kConvPadBottom,
  kConvPadRight,
  kConvDilationH,
  kConvDilationW,
  kConvGroups,
  kConvActivation, ///< Optional (an Activation code).
};
inline constexpr int kConvParams = 9;
inline constexpr int kConvParamsWithActivation = 10;

/// Entries of the pooling params memref (i64).
enum PoolParam : int {
  kPoolWindowH = 0,
  kPoolWindowW,
  kPoolStrideH,
  kPoolStrideW,
  kPoolPadTop,
  kPoolPadLeft,
  kPoolPadBottom,
  kPoolPadRight,
  kPoolDilationH,
  kPoolDilationW,
};
inline constexpr int kPoolParams = 10;
// Both list the padding as top, left, bottom, right (the compiler writes them so).
static_assert(kConvPadRight - kConvPadTop == 3 && kPoolPadRight - kPoolPadTop == 3 &&
              kConvPadLeft == kConvPadTop + 1 && kPoolPadLeft == kPoolPadTop + 1 &&
              kConvPadBottom == kConvPadTop + 2 && kPoolPadBottom == kPoolPadTop + 2);

} // namespace loupe::abi
#endif

#endif /* LOUPE_COMMON_ARTIFACTABI_H */
