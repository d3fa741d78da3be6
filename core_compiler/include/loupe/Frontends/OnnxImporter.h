//===- OnnxImporter.h - ONNX model -> func + tosa ---------------*- C++ -*-===//
//
// Reads an ONNX model with the ONNX library (parse, checker, shape inference with data
// propagation) and builds a `func.func @main` of TOSA ops. Initializers become `tosa.const`
// (those of 1 KiB or more hold `dense_resource` blobs, so IR text never carries weights);
// every op carries `loc("<node name>")` (pytorch-converted models have empty names:
// "<OpType>_<index>").
//
// The signature is the graph inputs that are not initializers, in order, then the graph
// outputs; all shapes must be static: the caller's shapes bind symbolic input dims (an
// unbound one is an error naming the input and dim). Layout stays ONNX's (NCHW); convolutions
// and pools transpose to TOSA's NHWC around the op. The result verifies and lowers with the upstream pipeline
//   func.func(tosa-optional-decompositions), canonicalize, func.func(tosa-infer-shapes,
//   tosa-make-broadcastable, tosa-to-linalg-named, tosa-to-linalg, tosa-to-arith,
//   tosa-to-tensor), canonicalize
// Element types: f32, f64, f16, bf16, i64, i32, i16, i8, bool; unsigned types compute
// zero-extended in the next wider signless type, the entry keeping their N-bit storage
// (`loupe.unsigned`). Inputs read as shape tensors are specialized to the run's values
// (OnnxShapeTensorInputs.cpp). Ops TOSA lacks are `linalg.generic`s (OnnxOpsMath.cpp);
// RNN/GRU/LSTM and If/Loop/Scan are unrolled. docs/onnx-coverage.md lists every op.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_FRONTENDS_ONNXIMPORTER_H
#define LOUPE_FRONTENDS_ONNXIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include <map>
#include <string>
#include <vector>

namespace loupe::frontends {
/// What a compile knows about the graph inputs besides the model: shapes that bind their
/// symbolic dims, and the values of the inputs ops read as shape tensors.
struct InputBindings {
  /// Whole shapes by input name (`--input-shape NAME=D0,D1,...`).
  std::map<std::string, std::vector<int64_t>> byName;
  /// Shapes of the input tensors given to a run (`--inputs DIR`), in the order of the graph
  /// inputs that are not initializers; used for inputs with a symbolic dim not in byName.
  std::vector<std::vector<int64_t>> byPosition;
  /// Raw little-endian bytes of the input tensors a run feeds, in the same order (empty: not
  /// given). An input that an op reads as a shape tensor (Reshape's shape, Slice's starts,
  /// Pad's pads, Resize's scales, TopK's k, ...) is specialized to its value: it stays an
  /// entry argument, marked `loupe.specialized = <value>`, and every use sees the constant.
  std::vector<std::string> values;
};

/// A graph input as the model declares it: each dim's value, or its dim_param, or "?".
struct InputDeclaration {
  std::string name;
  std::vector<std::string> dims;
};

/// Imports the ONNX model at `path` into `context`. On failure returns null and sets `error`
/// to one message that starts with the file name:
///   "model.onnx: unsupported ONNX op 'Foo' (node 'Foo_3', opset 13)"
///   "model.onnx: node 'pool1' (MaxPool, opset 12): unsupported value 3 of attribute '...'"
///   "model.onnx: invalid ONNX model: <checker or shape-inference message>"
///   "model.onnx: not a valid ONNX model (protobuf parse failed)", "...: cannot open file"
/// Never throws; registers the dialects it needs (see registerOnnxImporterDialects).
/// `inputs` binds symbolic input dims and specializes shape-tensor inputs; a dim_param bound in one input binds it in all.
/// Errors: an unknown input name, a
/// rank or static dim that disagrees, one param bound to two values, and any input dim still
/// symbolic ("graph input 'x' [batch,3] has a symbolic dim 0 ('batch'): give its shape ...").
/// `declared`, when given, receives the graph inputs as the model declares them (also when
/// binding fails, so a caller can show the free dims).
mlir::OwningOpRef<mlir::ModuleOp> importOnnxFile(const std::string &path,
                                                 mlir::MLIRContext &context,
                                                 std::string &error,
                                                 const InputBindings &inputs = {},
                                                 std::vector<InputDeclaration> *declared = nullptr);

/// Same, from serialized ModelProto bytes; `name` stands for the file in messages.
mlir::OwningOpRef<mlir::ModuleOp> importOnnxBytes(const std::string &bytes,
                                                  const std::string &name,
                                                  mlir::MLIRContext &context,
                                                  std::string &error,
                                                  const InputBindings &inputs = {},
                                                  std::vector<InputDeclaration> *declared = nullptr);

/// How Loupe handles an op of ONNX's default domain (docs/onnx-coverage.md is generated from
/// this).
struct OnnxOpSupport {
  bool converted = false;   ///< A converter imports it.
  bool outOfScope = false;  ///< Not converted on purpose (strings, sequences, random ops).
  std::string why;          ///< Why it is not converted, when known.
};
OnnxOpSupport onnxOpSupport(const std::string &opType);

/// Loads every dialect the importer emits (func, tosa, tensor, arith) into `context`.
void registerOnnxImporterDialects(mlir::MLIRContext &context);

} // namespace loupe::frontends

#endif // LOUPE_FRONTENDS_ONNXIMPORTER_H
