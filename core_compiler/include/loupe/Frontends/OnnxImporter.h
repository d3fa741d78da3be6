//===- OnnxImporter.h - ONNX model -> func + tosa ---------------*- C++ -*-===//
//
// Reads an ONNX model with the ONNX library (parse, checker, shape inference) and builds a
// `func.func @main` of TOSA ops. Initializers become `tosa.const`; every op carries
// `loc("<node name>")` (pytorch-converted models have empty names: "<OpType>_<index>").
//
// The signature is the graph inputs that are not initializers, in order, then the graph
// outputs; all shapes must be static (a dynamic or unknown input shape is an error naming the
// tensor). Layout stays ONNX's (NCHW); convolutions and pools transpose to TOSA's NHWC around
// the op. The result verifies and lowers with the upstream pipeline
//   func.func(tosa-optional-decompositions), canonicalize, func.func(tosa-infer-shapes,
//   tosa-make-broadcastable, tosa-to-linalg-named, tosa-to-linalg, tosa-to-arith,
//   tosa-to-tensor), canonicalize
// Element types: f32, f64, f16, bf16, i64, i32, i16, i8, bool (unsigned types are rejected).
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_FRONTENDS_ONNXIMPORTER_H
#define LOUPE_FRONTENDS_ONNXIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include <string>

namespace loupe::frontends {

/// Imports the ONNX model at `path` into `context`. On failure returns null and sets `error`
/// to one message that starts with the file name:
///   "model.onnx: unsupported ONNX op 'Foo' (node 'Foo_3', opset 13)"
///   "model.onnx: node 'pool1' (MaxPool, opset 12): unsupported value 3 of attribute '...'"
///   "model.onnx: invalid ONNX model: <checker or shape-inference message>"
///   "model.onnx: not a valid ONNX model (protobuf parse failed)", "...: cannot open file"
/// Never throws; registers the dialects it needs (see registerOnnxImporterDialects).
mlir::OwningOpRef<mlir::ModuleOp> importOnnxFile(const std::string &path,
                                                 mlir::MLIRContext &context,
                                                 std::string &error);

/// Same, from serialized ModelProto bytes; `name` stands for the file in messages.
mlir::OwningOpRef<mlir::ModuleOp> importOnnxBytes(const std::string &bytes,
                                                  const std::string &name,
                                                  mlir::MLIRContext &context,
                                                  std::string &error);

/// Loads every dialect the importer emits (func, tosa, tensor, arith) into `context`.
void registerOnnxImporterDialects(mlir::MLIRContext &context);

} // namespace loupe::frontends

#endif // LOUPE_FRONTENDS_ONNXIMPORTER_H
