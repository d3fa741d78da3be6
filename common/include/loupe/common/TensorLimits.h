//===- TensorLimits.h - The largest tensor Loupe compiles -------------*- C++ -*-===//
//
// One limit for the importer (node outputs, ConstantOfShape, OneHot) and the artifact's entry
// signature: beyond it no machine holds the tensor, and importing it would exhaust the
// compiler's memory first. Refused with exit 2, never an abort.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_COMMON_TENSORLIMITS_H
#define LOUPE_COMMON_TENSORLIMITS_H

#include <cstdint>

namespace loupe {

/// The most elements a tensor may have (2^37, 512 GiB of f32).
inline constexpr int64_t kMaxTensorElements = int64_t(1) << 37;

/// True when a tensor of `shape` (a range of non-negative int64 dims) has more than
/// kMaxTensorElements elements; no overflow on the way.
template <typename Shape> bool exceedsElementLimit(const Shape &shape) {
  int64_t elements = 1;
  for (int64_t d : shape) {
    if (d != 0 && elements > kMaxTensorElements / d)
      return true;
    elements *= d;
  }
  return elements > kMaxTensorElements;
}

} // namespace loupe

#endif // LOUPE_COMMON_TENSORLIMITS_H
