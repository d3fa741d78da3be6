//===- StridedCopy.h - Copy a strided array (internal) ----------*- C++ -*-===//
#ifndef LOUPE_RAL_LIB_CORE_STRIDEDCOPY_H
#define LOUPE_RAL_LIB_CORE_STRIDEDCOPY_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace loupe::ral::detail {

/// Copies the `rank`-dimensional array at `src` (strides in elements) into `dst` with its own
/// strides (nullptr: row-major contiguous). Rank 0 copies one element.
inline void copyStrided(size_t elementSize, const void *src, int rank, const int64_t *sizes,
                        const int64_t *srcStrides, void *dst, const int64_t *dstStrides = nullptr) {
  std::vector<int64_t> rowMajor(rank > 0 ? rank : 1);
  if (!dstStrides) {
    int64_t s = 1;
    for (int i = rank - 1; i >= 0; --i) {
      rowMajor[i] = s;
      s *= sizes[i];
    }
    dstStrides = rowMajor.data();
  }
  for (int i = 0; i < rank; ++i)
    if (sizes[i] == 0)
      return;
  auto *from = static_cast<const char *>(src);
  auto *to = static_cast<char *>(dst);
  if (rank == 0) {
    std::memcpy(to, from, elementSize);
    return;
  }
  bool contiguous = true;
  int64_t expected = 1;
  for (int i = rank - 1; i >= 0; --i) {
    if (sizes[i] != 1 && (srcStrides[i] != expected || dstStrides[i] != expected))
      contiguous = false;
    expected *= sizes[i];
  }
  if (contiguous) {
    int64_t n = 1;
    for (int i = 0; i < rank; ++i)
      n *= sizes[i];
    std::memcpy(to, from, static_cast<size_t>(n) * elementSize);
    return;
  }
  int inner = rank - 1;
  std::vector<int64_t> index(rank, 0);
  while (true) {
    int64_t s = 0, d = 0;
    for (int i = 0; i < inner; ++i) {
      s += index[i] * srcStrides[i];
      d += index[i] * dstStrides[i];
    }
    if (srcStrides[inner] == 1 && dstStrides[inner] == 1) {
      std::memcpy(to + d * elementSize, from + s * elementSize, sizes[inner] * elementSize);
    } else {
      for (int64_t j = 0; j < sizes[inner]; ++j)
        std::memcpy(to + (d + j * dstStrides[inner]) * elementSize,
                    from + (s + j * srcStrides[inner]) * elementSize, elementSize);
    }
    int dim = inner - 1;
    while (dim >= 0 && ++index[dim] == sizes[dim])
      index[dim--] = 0;
    if (dim < 0)
      return;
  }
}

} // namespace loupe::ral::detail

#endif // LOUPE_RAL_LIB_CORE_STRIDEDCOPY_H
