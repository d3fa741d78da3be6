//===- OnnxGraphRewrites.h - ONNX graph rewrites before import ---*- C++ -*-===//
//
// Rewrites of the ModelProto that the importer runs before converting it: constant work done
// once (BatchNormalization into its convolution, weight computations and shape computations
// evaluated).
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_FRONTENDS_ONNXGRAPHREWRITES_H
#define LOUPE_FRONTENDS_ONNXGRAPHREWRITES_H

#include "onnx/onnx_pb.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace loupe::frontends::onnx_import {

/// The values ONNX data propagation computed for small integer tensors, by tensor name.
using ShapeDataMap = std::unordered_map<std::string, onnx::TensorShapeProto>;

/// The attribute `name` of `node`, or null.
const onnx::AttributeProto *findAttribute(const onnx::NodeProto &node, const char *name);
/// The int attribute `name` of `node`, or `fallback` when it has none.
int64_t intAttribute(const onnx::NodeProto &node, const char *name, int64_t fallback);

/// The numpy (multidirectional) broadcast of operands of `shapes`, or nullopt when they do not
/// broadcast.
std::optional<std::vector<int64_t>> broadcastDims(const std::vector<std::vector<int64_t>> &shapes);
/// Calls `visit` once per element of the broadcast result `dims` of `shapes` (broadcastDims), in
/// row-major order, with each operand's row-major element index.
void forEachBroadcast(const std::vector<std::vector<int64_t>> &shapes,
                      const std::vector<int64_t> &dims,
                      llvm::function_ref<void(llvm::ArrayRef<int64_t>)> visit);

/// Runs ONNX shape inference (with data propagation) and replaces every node that computes a
/// small integer tensor from known values (Shape of a static tensor, Gather, Slice, Concat,
/// Unsqueeze, Squeeze, Cast, Reshape, arithmetic, Equal/Where, Range, ConstantOfShape,
/// Expand, ...) by an initializer, until nothing more folds; the last inference's shapes and
/// data stay in `model` and `shapeData`. Values computed from run-time data stay nodes.
/// Returns false with `error` set when inference fails.
bool foldShapeComputations(onnx::ModelProto &model, ShapeDataMap &shapeData,
                           std::string &error);

/// Names every unnamed node `<OpType>_<index>` (pytorch-converted models have none), so that
/// names stay those of the file's node order when rewrites remove nodes.
void nameUnnamedNodes(onnx::GraphProto &graph);

/// Folds every inference BatchNormalization whose input is the only use of a Conv with float
/// initializer weights (and bias) into that Conv: new initializers `<conv>.weight_bn_folded`
/// and `<conv>.bias_bn_folded`, the BatchNormalization node removed (its name leaves the IR, as
/// when an exporter folds it). Returns how many folded.
int foldBatchNormIntoConv(onnx::GraphProto &graph);

/// Evaluates every node whose inputs are all initializers or Constant nodes and that computes
/// a weight (Add, Sub, Mul, Div, Abs, Neg, Clip, ReduceMax, ReduceMin on f32; QuantizeLinear;
/// DequantizeLinear of int8, uint8 or int32): a quantization export's weight scales and
/// fake-quantized weights. Each folded node goes; what remaining nodes read of the results
/// becomes an initializer named as its output. Returns how many nodes folded.
int foldConstantNodes(onnx::GraphProto &graph);

/// Specializes the graph inputs that an op reads as a shape tensor (Reshape's shape, Slice's
/// starts, Pad's pads, Resize's scales, TopK's k, ...) and whose value the run gives:
/// `values` holds raw little-endian bytes by position of the non-initializer inputs (empty:
/// not given). Each such input gets an initializer of the same name holding its value; the
/// input stays in graph.input. Returns the specialized input names.
std::vector<std::string> specializeShapeTensorInputs(onnx::GraphProto &graph,
                                                     const std::vector<std::string> &values);

/// Replaces ONNX 1.12 shape-inference functions known to be wrong (STFT-17, fixed upstream:
/// OnnxStftInference.cpp) by the spec's; idempotent, call before the first inference.
void fixOnnxShapeInference();

} // namespace loupe::frontends::onnx_import

#endif // LOUPE_FRONTENDS_ONNXGRAPHREWRITES_H
