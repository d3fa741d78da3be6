//===- Check.h - Compare outputs with expected values -----------*- C++ -*-===//
#ifndef LOUPE_PROFILER_CHECK_H
#define LOUPE_PROFILER_CHECK_H

#include "loupe/profiler/Records.h"
#include "loupe/ral/Tensor.h"

#include <string>
#include <vector>

namespace loupe::profiler {

/// The check of one output: numpy.allclose semantics, element-wise
/// |actual - expected| <= atol + rtol * |expected|; NaN equals NaN only in the same place.
struct OutputCheck {
  CheckRecord record; ///< Worst element = largest |a - e| - (atol + rtol |e|).
  std::string message;          ///< Empty when passed; else says which element and by how much.
};

/// Checks every output against `expected` by position. A count, shape or dtype mismatch is a
/// failed check whose message names the output and both types. bf16 outputs are checked with
/// rtol >= 2^-7 (one unit in their last place) and accept uint16 expected tensors as their
/// bits, the way ONNX's backend test data stores bfloat16.
std::vector<OutputCheck> checkOutputs(const std::vector<ral::Tensor> &actual,
                                      const std::vector<ral::Tensor> &expected, double rtol,
                                      double atol);

} // namespace loupe::profiler

#endif // LOUPE_PROFILER_CHECK_H
