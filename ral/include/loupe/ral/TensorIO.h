//===- TensorIO.h - Test-data tensors: ONNX TensorProto .pb and .npy --*- C++ -*-===//
//
// Reads the ONNX backend test layout (test_data_set_0/input_0.pb, output_0.pb, ...) and NumPy
// .npy files. The TensorProto reader is a small protobuf wire-format decoder of our own, so the
// runtime and `loupe-run` need no protobuf/ONNX library on a bare GPU machine; its results are
// cross-checked against the ONNX library in tests/unit/ral/TensorIOTest.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_RAL_TENSORIO_H
#define LOUPE_RAL_TENSORIO_H

#include "loupe/ral/Status.h"
#include "loupe/ral/Tensor.h"

#include <string>
#include <vector>

namespace loupe::ral {

/// Reads a serialized onnx.TensorProto (raw_data or the typed *_data fields; dims; data_type).
/// Errors name the file and the byte offset of a malformed field.
StatusOr<Tensor> readTensorProto(const std::string &path);
/// Decodes TensorProto bytes; `name` is used in messages.
StatusOr<Tensor> parseTensorProto(const std::string &bytes, const std::string &name);

/// Serializes `tensor` as an onnx.TensorProto (dims, data_type, name, raw_data little-endian):
/// the files readTensorProto reads and the ONNX backend test layout uses.
std::string serializeTensorProto(const Tensor &tensor, const std::string &name = "");
/// Writes serializeTensorProto(tensor, name) to `path`.
Status writeTensorProto(const std::string &path, const Tensor &tensor, const std::string &name = "");

/// Reads a .npy file (format 1.0/2.0/3.0, little-endian, C order; dtypes of Tensor.h but bf16,
/// which NumPy lacks).
StatusOr<Tensor> readNpy(const std::string &path);
/// Writes `tensor` as a .npy file (format 1.0; 2.0 for a header over 64 KiB). bf16 tensors are
/// an error: NumPy has no such dtype.
Status writeNpy(const std::string &path, const Tensor &tensor);

/// Reads the tensors of one test-data folder matched by position: `<prefix>_0.pb|.npy`,
/// `<prefix>_1...`, until the next index is missing. `prefix` is "input" or "output".
/// An empty folder or a missing `<prefix>_0` is an error naming the folder. When both
/// `<prefix>_N.pb` and `<prefix>_N.npy` exist, the .pb is read.
StatusOr<std::vector<Tensor>> readTensorDir(const std::string &dir, const std::string &prefix);

} // namespace loupe::ral

#endif // LOUPE_RAL_TENSORIO_H
