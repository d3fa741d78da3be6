//===- OnnxImporter.h - ONNX model -> func + tosa ---------------*- C++ -*-===//
//
// Reads an ONNX model with the ONNX library (parse, checker, shape inference) and builds a
// `func.func @main` of TOSA ops. Initializers become `tosa.const`; every op carries
// `loc("<node name>")` (pytorch-converted models have empty names: "<OpType>_<index>").
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_FRONTENDS_ONNXIMPORTER_H
#define LOUPE_FRONTENDS_ONNXIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include <string>

namespace loupe::frontends {

/// Imports the ONNX model at `path` into `context`. On failure returns null and sets `error`
/// to a message naming the file and, for unsupported or malformed nodes, the op type, the node
/// name and the opset ("model.onnx: unsupported op 'Foo' (node 'Foo_3', opset 13)").
mlir::OwningOpRef<mlir::ModuleOp> importOnnxFile(const std::string &path,
                                                 mlir::MLIRContext &context,
                                                 std::string &error);

/// Same, from serialized ModelProto bytes; `name` is used in messages.
mlir::OwningOpRef<mlir::ModuleOp> importOnnxBytes(const std::string &bytes,
                                                  const std::string &name,
                                                  mlir::MLIRContext &context,
                                                  std::string &error);

/// Registers every dialect the importer emits (func, tosa, tensor, arith).
void registerOnnxImporterDialects(mlir::MLIRContext &context);

} // namespace loupe::frontends

#endif // LOUPE_FRONTENDS_ONNXIMPORTER_H
