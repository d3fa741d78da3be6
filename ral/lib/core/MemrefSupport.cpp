//===- MemrefSupport.cpp - Runtime support symbols of lowered memref code ------===//
//
// finalize-memref-to-llvm lowers a memref.copy between non-contiguous (strided) memrefs to a
// call of `memrefCopy(elementSize, UnrankedMemRef *src, UnrankedMemRef *dst)`, the same symbol
// MLIR's own runner utilities export (mlir/lib/ExecutionEngine/CRunnerUtils.cpp). Artifacts
// resolve it here, so they need no MLIR library at run time.
//
//===----------------------------------------------------------------------===//
#include <cstdint>
#include <cstring>
#include <vector>

namespace {
/// An unranked memref as lowered code passes it: rank and a pointer to the ranked descriptor
/// {allocated, aligned, offset, sizes[rank], strides[rank]}.
struct UnrankedMemRef {
  int64_t rank;
  void *descriptor;
};

struct StridedView {
  char *base;
  const int64_t *sizes;
  const int64_t *strides;
};

StridedView view(const UnrankedMemRef &m, int64_t elementSize) {
  auto *slots = static_cast<int64_t *>(m.descriptor);
  auto *aligned = reinterpret_cast<char *>(slots[1]);
  return {aligned + slots[2] * elementSize, slots + 3, slots + 3 + m.rank};
}
} // namespace

extern "C" __attribute__((visibility("default"))) void
memrefCopy(int64_t elementSize, UnrankedMemRef *src, UnrankedMemRef *dst) {
  int64_t rank = src->rank;
  StridedView s = view(*src, elementSize), d = view(*dst, elementSize);
  for (int64_t i = 0; i < rank; ++i)
    if (s.sizes[i] == 0)
      return;
  if (rank == 0) {
    std::memcpy(d.base, s.base, elementSize);
    return;
  }
  // Odometer over all but the innermost dimension; the innermost is copied element-wise (or in
  // one memcpy when both sides are unit-stride there).
  std::vector<int64_t> index(rank, 0);
  int64_t inner = rank - 1;
  bool contiguousInner = s.strides[inner] == 1 && d.strides[inner] == 1;
  while (true) {
    int64_t srcOffset = 0, dstOffset = 0;
    for (int64_t i = 0; i < inner; ++i) {
      srcOffset += index[i] * s.strides[i];
      dstOffset += index[i] * d.strides[i];
    }
    char *from = s.base + srcOffset * elementSize;
    char *to = d.base + dstOffset * elementSize;
    if (contiguousInner)
      std::memcpy(to, from, s.sizes[inner] * elementSize);
    else
      for (int64_t j = 0; j < s.sizes[inner]; ++j)
        std::memcpy(to + j * d.strides[inner] * elementSize,
                    from + j * s.strides[inner] * elementSize, elementSize);
    int64_t dim = inner - 1;
    while (dim >= 0 && ++index[dim] == s.sizes[dim])
      index[dim--] = 0;
    if (dim < 0)
      return;
  }
}
