//===- Tensor.h - Host tensors bound to artifact inputs/outputs --*- C++ -*-===//
#ifndef LOUPE_RAL_TENSOR_H
#define LOUPE_RAL_TENSOR_H

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

/// A dense row-major tensor in host memory, 64-byte aligned. Copies share the buffer (an
/// immutable snapshot once a run has produced it); clone() makes a deep copy.
class Tensor {
public:
  Tensor() = default;
  /// A zero-filled tensor. Shape entries must be >= 0.
  Tensor(DType dtype, std::vector<int64_t> shape);

  DType dtype() const { return dtype_; }
  const std::vector<int64_t> &shape() const { return shape_; }
  int64_t numElements() const;
  size_t byteSize() const { return static_cast<size_t>(numElements()) * dtypeSize(dtype_); }
  void *data() { return data_.get(); }
  const void *data() const { return data_.get(); }
  template <typename T> T *dataAs() { return static_cast<T *>(data()); }
  template <typename T> const T *dataAs() const { return static_cast<const T *>(data()); }

  /// Element `i` (row-major) converted to double, for comparisons and reports.
  double elementAsDouble(int64_t i) const;
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
