//===- ConvAlgorithm.h - Which cuDNN algorithm runs an f32 conv (internal) -*- C++ -*-===//
//
// ral_conv_cudnn computes in f32 like every other backend: the convolution descriptor asks for
// CUDNN_FMA_MATH, and the algorithm is the first of cudnnGetConvolutionForwardAlgorithm_v7's
// ranking that succeeded in FMA math. cuDNN's default math on Ampere and later allows TF32
// tensor cores (10-bit mantissa inputs), which the first GPU run caught: a 3x3 conv 8->16 was
// off by 4% relative (docs/ral.md, "cuDNN").
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_RAL_LIB_CUDA_CONVALGORITHM_H
#define LOUPE_RAL_LIB_CUDA_CONVALGORITHM_H

#include <vector>

namespace loupe::ral {

/// One entry of cuDNN's algorithm ranking (cudnnConvolutionFwdAlgoPerf_t, best first).
struct ConvAlgorithmCandidate {
  int algorithm;  ///< cudnnConvolutionFwdAlgo_t
  bool succeeded; ///< status == CUDNN_STATUS_SUCCESS
  bool fmaMath;   ///< mathType == CUDNN_FMA_MATH (no tensor-core TF32)
};

/// The first candidate that succeeded in FMA math, else `fallback` (implicit GEMM, which every
/// cuDNN supports in FMA math).
inline int pickFp32ConvAlgorithm(const std::vector<ConvAlgorithmCandidate> &ranking,
                                 int fallback) {
  for (const ConvAlgorithmCandidate &c : ranking)
    if (c.succeeded && c.fmaMath)
      return c.algorithm;
  return fallback;
}

} // namespace loupe::ral

#endif // LOUPE_RAL_LIB_CUDA_CONVALGORITHM_H
