//===- MemRef.h - MLIR memref descriptors as RAL functions see them -*- C++ -*-===//
//
// A ranked memref as MLIR's LLVM lowering lays it out (mlir/lib/Conversion/LLVMCommon/
// MemRefBuilder.cpp; BladeDISC's MemRefType in tao_compiler/mlir/ral/ral_helper.h):
//   { T *allocated; T *aligned; int64_t offset; int64_t sizes[N]; int64_t strides[N]; }
// Element (i0, ..., iN-1) lives at aligned[offset + sum_k ik * strides[k]]; sizes and strides
// are in elements, not bytes. As an argument of `ral_api_call` a rank-N memref occupies 3+2N
// argument slots (one per field, sizes and strides one slot per dimension); as a result it
// occupies one slot pointing to storage for the whole struct (docs/ral.md).
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_RAL_MEMREF_H
#define LOUPE_RAL_MEMREF_H

#include <cstdint>

namespace loupe::ral {

/// IEEE binary16, as stored (type code f16). Arithmetic goes through halfToFloat (Tensor.h).
struct half {
  uint16_t bits;
};
/// bfloat16, as stored (type code bf16).
struct bfloat16 {
  uint16_t bits;
};
/// The C++ type of the type code `ui64`. uint64_t (= size_t, `unsigned long` on LP64) encodes as
/// `i64`, as DESIGN.md maps `index`/`size_t`; a ui64 element or scalar is spelled ui64_t.
using ui64_t = unsigned long long;

/// Largest memref rank the runtime registers recv_input/send_output for.
inline constexpr int kMaxRank = 8;

template <typename T, int N> struct MemRef {
  static_assert(N >= 0, "memref rank must be >= 0");
  T *allocated;
  T *aligned;
  int64_t offset;
  int64_t sizes[N];
  int64_t strides[N];

  static constexpr int rank() { return N; }
  /// Pointer to the first element (aligned + offset).
  T *data() const { return aligned + offset; }
  int64_t numElements() const {
    int64_t n = 1;
    for (int i = 0; i < N; ++i)
      n *= sizes[i];
    return n;
  }
  /// True when the layout is the identity (row-major, unit innermost stride, no gaps).
  bool isContiguous() const {
    int64_t expected = 1;
    for (int i = N - 1; i >= 0; --i) {
      if (sizes[i] != 1 && strides[i] != expected)
        return false;
      expected *= sizes[i];
    }
    return true;
  }
};

/// A rank-0 memref: no sizes or strides (3 slots).
template <typename T> struct MemRef<T, 0> {
  T *allocated;
  T *aligned;
  int64_t offset;

  static constexpr int rank() { return 0; }
  T *data() const { return aligned + offset; }
  int64_t numElements() const { return 1; }
  bool isContiguous() const { return true; }
};

/// A row-major memref over `data` with the given sizes (allocated == aligned, offset 0).
template <typename T, int N> MemRef<T, N> makeMemRef(T *data, const int64_t (&sizes)[N]) {
  MemRef<T, N> m;
  m.allocated = m.aligned = data;
  m.offset = 0;
  int64_t stride = 1;
  for (int i = N - 1; i >= 0; --i) {
    m.sizes[i] = sizes[i];
    m.strides[i] = stride;
    stride *= sizes[i];
  }
  return m;
}
template <typename T> MemRef<T, 0> makeMemRef(T *data) { return {data, data, 0}; }

} // namespace loupe::ral

#endif // LOUPE_RAL_MEMREF_H
