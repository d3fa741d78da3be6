//===- OnnxShapeFolding.h - Evaluate shape computations at import -*- C++ -*-===//
#ifndef LOUPE_FRONTENDS_ONNXSHAPEFOLDING_H
#define LOUPE_FRONTENDS_ONNXSHAPEFOLDING_H

#include "onnx/onnx_pb.h"

#include <string>
#include <unordered_map>

namespace loupe::frontends::onnx_import {

/// The values ONNX data propagation computed for small integer tensors, by tensor name.
using ShapeDataMap = std::unordered_map<std::string, onnx::TensorShapeProto>;

/// Runs ONNX shape inference (with data propagation) and replaces every node that computes a
/// small integer tensor from known values (Shape of a static tensor, Gather, Slice, Concat,
/// Unsqueeze, Squeeze, Cast, Reshape, arithmetic, Equal/Where, Range, ConstantOfShape,
/// Expand, ...) by an initializer, until nothing more folds; the last inference's shapes and
/// data stay in `model` and `shapeData`. Values computed from run-time data stay nodes.
/// Returns false with `error` set when inference fails.
bool foldShapeComputations(onnx::ModelProto &model, ShapeDataMap &shapeData,
                           std::string &error);

} // namespace loupe::frontends::onnx_import

#endif // LOUPE_FRONTENDS_ONNXSHAPEFOLDING_H
