//===- Tensor.h - Host tensors bound to artifact inputs/outputs --*- C++ -*-===//
#ifndef LOUPE_RAL_TENSOR_H
#define LOUPE_RAL_TENSOR_H

#include "loupe/ral/Status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace loupe::ral {

/// Element types, named as MLIR names them ("f32", "i64", "i1", ...).
enum class DType : uint8_t { F32, F64, F16, BF16, I1, I8, I16, I32, I64, U8, U16, U32, U64 };

/// Size of one element in bytes (i1 is stored as one byte, as MLIR's memrefs of i1 are).
size_t dtypeSize(DType dtype);
/// MLIR spelling: "f32", "i1", "ui8", ...
const char *dtypeName(DType dtype);
/// Inverse of dtypeName; nullopt for an unknown name.
std::optional<DType> parseDType(std::string_view name);

/// Product of the shape entries (1 for the empty shape of a scalar); nullopt when an entry is
/// negative or the product overflows int64. Readers check shapes from files with it.
std::optional<int64_t> checkedNumElements(const std::vector<int64_t> &shape);

/// IEEE half <-> float. halfToFloat is exact (subnormals, inf and NaN included); floatToHalf
/// rounds to nearest even and saturates to inf.
float halfToFloat(uint16_t bits);
uint16_t floatToHalf(float value);
/// bfloat16 (the top 16 bits of a float) <-> float; floatToBFloat16 rounds to nearest even.
float bfloat16ToFloat(uint16_t bits);
uint16_t floatToBFloat16(float value);

/// True when a buffer of `a` can be read as `b`: the same dtype, or integers of one width that
/// differ only in signedness (compiled code is signless: an i8 memref carries ui8 data too).
bool sameStorage(DType a, DType b);

/// The alignment of every Tensor's data, in bytes (a cache line; what AVX-512 aligned and
/// non-temporal stores need).
constexpr size_t kTensorAlignment = 64;

/// A dense row-major tensor in host memory, kTensorAlignment aligned. Copies share the buffer (an
/// immutable snapshot once a run has produced it); clone() makes a deep copy.
/// A default-constructed Tensor holds no buffer: data() is null and numElements() is 0.
class Tensor {
public:
  Tensor() = default;
  /// A zero-filled tensor. Shape entries must be >= 0 (a negative entry is stored as 0); the
  /// buffer is never null, even for zero elements. kInvalidArgument naming the type and its
  /// bytes when the size overflows or memory runs out: the runtime allocates through this.
  static StatusOr<Tensor> allocate(DType dtype, std::vector<int64_t> shape);
  /// allocate() for callers that know the size fits (tests, small tensors): throws
  /// std::bad_alloc where allocate() returns an error.
  Tensor(DType dtype, std::vector<int64_t> shape);

  DType dtype() const { return dtype_; }
  const std::vector<int64_t> &shape() const { return shape_; }
  int64_t numElements() const;
  size_t byteSize() const { return static_cast<size_t>(numElements()) * dtypeSize(dtype_); }
  void *data() { return data_.get(); }
  const void *data() const { return data_.get(); }
  template <typename T> T *dataAs() { return static_cast<T *>(data()); }
  template <typename T> const T *dataAs() const { return static_cast<const T *>(data()); }

  /// Element `i` (row-major) converted to double, for comparisons and reports (f16/bf16
  /// decoded, i1 as 0/1); NaN when `i` is out of range.
  double elementAsDouble(int64_t i) const;
  /// Sets element `i` to `value` converted to the dtype (rounded to nearest for f16/bf16,
  /// truncated toward zero for integers, nonzero as true for i1); ignores an out-of-range `i`.
  void setElementFromDouble(int64_t i, double value);
  Tensor clone() const;
  /// "f32[1x3x224x224]".
  std::string typeString() const;

private:
  DType dtype_ = DType::F32;
  std::vector<int64_t> shape_;
  std::shared_ptr<uint8_t> data_;
};

} // namespace loupe::ral

#endif // LOUPE_RAL_TENSOR_H
