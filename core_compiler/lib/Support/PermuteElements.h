//===- PermuteElements.h - Transpose row-major element bytes ----*- C++ -*-===//
//
// Constant work done once (a weight transposed at import or at compile time, never per call)
// needs one thing: the bytes of a row-major array, permuted. Used by the ONNX importer and by
// loupe-fold-constant-transposes.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_SUPPORT_PERMUTEELEMENTS_H
#define LOUPE_SUPPORT_PERMUTEELEMENTS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstring>
#include <vector>

namespace loupe {

/// `raw` holds a row-major array of `shape` with `width`-byte elements; returns the bytes of
/// its transpose, whose dim d is input dim perm[d] (linalg.transpose's convention).
inline std::vector<char> permuteElements(llvm::ArrayRef<char> raw, llvm::ArrayRef<int64_t> shape,
                                         llvm::ArrayRef<int64_t> perm, size_t width) {
  int64_t rank = static_cast<int64_t>(shape.size());
  llvm::SmallVector<int64_t> strides(rank, 1), outShape;
  for (int64_t d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  for (int64_t p : perm)
    outShape.push_back(shape[p]);
  std::vector<char> out(raw.size());
  llvm::SmallVector<int64_t> index(rank, 0);
  int64_t count = static_cast<int64_t>(raw.size() / width);
  for (int64_t at = 0; at < count; ++at) {
    int64_t in = 0;
    for (int64_t d = 0; d < rank; ++d)
      in += index[d] * strides[perm[d]];
    std::memcpy(&out[at * width], &raw[in * width], width);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < outShape[d])
        break;
      index[d] = 0;
    }
  }
  return out;
}

} // namespace loupe

#endif // LOUPE_SUPPORT_PERMUTEELEMENTS_H
