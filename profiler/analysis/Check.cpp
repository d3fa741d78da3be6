//===- Check.cpp - Compare outputs with expected values -----------------------===//
#include "loupe/profiler/Check.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

namespace loupe::profiler {

/// ONNX's backend test data stores bfloat16 tensors as uint16 bits (onnx/backend/test/case/
/// node/cast.py): such an expected tensor stands for the bf16 output.
static ral::Tensor asBFloat16Bits(const ral::Tensor &t) {
  ral::Tensor bits(ral::DType::BF16, t.shape());
  std::memcpy(bits.data(), t.data(), t.byteSize());
  return bits;
}

static OutputCheck checkOne(size_t index, const ral::Tensor &actual, const ral::Tensor &given,
                            double rtol, double atol) {
  bool bf16 = actual.dtype() == ral::DType::BF16;
  const ral::Tensor expected =
      bf16 && given.dtype() == ral::DType::U16 ? asBFloat16Bits(given) : given;
  // bf16 keeps 8 significant bits: a rounding difference is one unit in the last place.
  if (bf16)
    rtol = std::max(rtol, 1.0 / 128);
  OutputCheck check;
  check.record.outputIdx = static_cast<int64_t>(index);
  std::ostringstream msg;
  msg << "output " << index << ": ";
  if (actual.dtype() != expected.dtype() || actual.shape() != expected.shape()) {
    msg << "is " << actual.typeString() << ", expected " << expected.typeString();
    check.message = msg.str();
    return check;
  }
  double worstExcess = -INFINITY;
  int64_t worst = -1;
  for (int64_t i = 0, n = actual.numElements(); i < n; ++i) {
    double a = actual.elementAsDouble(i), e = expected.elementAsDouble(i);
    double diff = std::fabs(a - e);
    double excess;
    if (std::isnan(a) || std::isnan(e))
      excess = std::isnan(a) && std::isnan(e) ? -INFINITY : INFINITY;
    else
      excess = diff - (atol + rtol * std::fabs(e));
    if (!std::isnan(diff)) {
      check.record.maxAbsErr = std::max(check.record.maxAbsErr, diff);
      if (e != 0)
        check.record.maxRelErr = std::max(check.record.maxRelErr, diff / std::fabs(e));
    }
    if (excess > worstExcess) {
      worstExcess = excess;
      worst = i;
    }
  }
  check.record.worstIndex = worst;
  if (worst >= 0) {
    check.record.actual = actual.elementAsDouble(worst);
    check.record.expected = expected.elementAsDouble(worst);
  }
  check.record.passed = worstExcess <= 0;
  if (!check.record.passed) {
    msg.precision(9);
    msg << "mismatch at flat index " << worst << ": actual " << check.record.actual
        << ", expected " << check.record.expected << " (|diff| " << 
        std::fabs(check.record.actual - check.record.expected) << " > atol " << atol
        << " + rtol " << rtol << " * |expected|); max abs err " << check.record.maxAbsErr;
    check.message = msg.str();
  }
  return check;
}

std::vector<OutputCheck> checkOutputs(const std::vector<ral::Tensor> &actual,
                                      const std::vector<ral::Tensor> &expected, double rtol,
                                      double atol) {
  std::vector<OutputCheck> checks;
  size_t n = std::max(actual.size(), expected.size());
  for (size_t i = 0; i < n; ++i) {
    if (i >= actual.size() || i >= expected.size()) {
      OutputCheck missing;
      missing.record.outputIdx = static_cast<int64_t>(i);
      missing.message = "output " + std::to_string(i) + ": " +
                        (i >= actual.size() ? "the model has no such output"
                                            : "no expected value (output_" +
                                                  std::to_string(i) + ".pb missing)");
      checks.push_back(missing);
      continue;
    }
    checks.push_back(checkOne(i, actual[i], expected[i], rtol, atol));
  }
  return checks;
}

} // namespace loupe::profiler
