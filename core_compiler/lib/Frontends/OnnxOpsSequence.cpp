//===- OnnxOpsSequence.cpp - ONNX sequence ops as compile-time lists ------===//
//
// ONNX sequences (operator spec, "Sequence" ops, opsets 11-17) inside a graph: with static
// shapes and constant positions a sequence is a list of imported tensors whose length is known
// at import (NodeContext::sequenceInput / setSequenceOutput), so every sequence op is list
// manipulation; only ConcatFromSequence and SplitToSequence emit TOSA (concat, slice,
// reshape), and SequenceMap inlines its body once per element. Graph inputs and outputs stay
// tensors (the artifact ABI); the importer rejects sequence-typed ones.
//
//===----------------------------------------------------------------------===//
#include "OnnxOps.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"

using namespace mlir;

namespace loupe::frontends::onnx_import {
namespace {

/// The constant position of input `i` (a scalar), wrapped when negative, checked to lie in
/// [0, size) or, when `inclusiveEnd` (insertion), in [0, size]; `defaultValue` when absent.
FailureOr<int64_t> positionInput(NodeContext &ctx, unsigned i, int64_t size,
                                 bool inclusiveEnd, int64_t defaultValue) {
  if (!ctx.hasInput(i))
    return defaultValue;
  auto position = ctx.constantIntsInput(i);
  if (failed(position))
    return failure();
  if (position->size() != 1)
    return ctx.fail("position must be a scalar");
  int64_t p = position->front(), wrapped = p < 0 ? p + size : p;
  if (wrapped < 0 || wrapped > size || (wrapped == size && !inclusiveEnd))
    return ctx.fail("position " + Twine(p) + " is out of range for a sequence of " +
                    Twine(size) + " tensors");
  return wrapped;
}

LogicalResult convertSequenceConstruct(NodeContext &ctx) {
  SmallVector<Value> tensors;
  for (unsigned i = 0; i < ctx.numInputs(); ++i)
    tensors.push_back(ctx.input(i));
  ctx.setSequenceOutput(0, tensors);
  return success();
}

LogicalResult convertSequenceEmpty(NodeContext &ctx) {
  ctx.setSequenceOutput(0, {});
  return success();
}

LogicalResult convertSequenceInsert(NodeContext &ctx) {
  auto sequence = ctx.sequenceInput(0);
  if (failed(sequence))
    return failure();
  int64_t size = sequence->size();
  auto position = positionInput(ctx, 2, size, /*inclusiveEnd=*/true, size);
  if (failed(position))
    return failure();
  sequence->insert(sequence->begin() + *position, ctx.input(1));
  ctx.setSequenceOutput(0, *sequence);
  return success();
}

LogicalResult convertSequenceErase(NodeContext &ctx) {
  auto sequence = ctx.sequenceInput(0);
  if (failed(sequence))
    return failure();
  int64_t size = sequence->size();
  auto position = positionInput(ctx, 1, size, /*inclusiveEnd=*/false, size - 1);
  if (failed(position))
    return failure();
  if (size == 0)
    return ctx.fail("cannot erase from an empty sequence");
  sequence->erase(sequence->begin() + *position);
  ctx.setSequenceOutput(0, *sequence);
  return success();
}

LogicalResult convertSequenceAt(NodeContext &ctx) {
  auto sequence = ctx.sequenceInput(0);
  if (failed(sequence))
    return failure();
  if (!ctx.hasInput(1))
    return ctx.fail("missing position");
  auto position = positionInput(ctx, 1, sequence->size(), /*inclusiveEnd=*/false, 0);
  if (failed(position))
    return failure();
  ctx.setOutput(0, (*sequence)[*position]);
  return success();
}

/// The length, as an int64 scalar constant.
LogicalResult convertSequenceLength(NodeContext &ctx) {
  auto sequence = ctx.sequenceInput(0);
  if (failed(sequence))
    return failure();
  ctx.setOutput(0, createI64Const(ctx.b, {static_cast<int64_t>(sequence->size())}, {}));
  return success();
}

/// Identity of a sequence forwards its list; of a tensor, the tensor converter runs.
OpConverter tensorIdentity = nullptr;
LogicalResult convertIdentity(NodeContext &ctx) {
  if (!ctx.isSequenceInput(0))
    return tensorIdentity(ctx);
  ctx.setSequenceOutput(0, *ctx.sequenceInput(0));
  return success();
}

/// The tensors concatenated along `axis` or, with `new_axis`, stacked along a new one.
LogicalResult convertConcatFromSequence(NodeContext &ctx) {
  auto sequence = ctx.sequenceInput(0);
  if (failed(sequence))
    return failure();
  if (sequence->empty())
    return ctx.fail("cannot concatenate an empty sequence");
  int64_t rank = getShape(sequence->front()).size();
  bool newAxis = ctx.getInt("new_axis", 0) != 0;
  auto axis = normalizeAxis(ctx.getInt("axis", 0), rank + (newAxis ? 1 : 0));
  if (!axis)
    return ctx.unsupportedAttr("axis", Twine(ctx.getInt("axis", 0)));
  SmallVector<Value> parts;
  SmallVector<int64_t> resultShape;
  for (Value tensor : *sequence) {
    if (getShape(tensor).size() != static_cast<size_t>(rank))
      return ctx.fail("the tensors of the sequence differ in rank");
    if (newAxis) {
      SmallVector<int64_t> shape(getShape(tensor));
      shape.insert(shape.begin() + *axis, 1);
      tensor = createReshape(ctx.b, tensor, shape);
    }
    if (resultShape.empty())
      resultShape.assign(getShape(tensor).begin(), getShape(tensor).end());
    else
      resultShape[*axis] += getShape(tensor)[*axis];
    if (getNumElements(getShape(tensor)) != 0) // empty parts add nothing
      parts.push_back(tensor);
  }
  Type elementType = getElementType(sequence->front());
  if (parts.empty()) // so is the result
    ctx.setOutput(0, createConst(ctx.b, DenseElementsAttr::get(
                                            getTensorType(resultShape, elementType),
                                            ArrayRef<Attribute>{})));
  else
    ctx.setOutput(0, parts.size() == 1 ? parts.front() : createConcat(ctx.b, parts, *axis));
  return success();
}

/// Slices of `split` sizes (constant: a scalar chunk size, the last chunk smaller, or one
/// size per part) along `axis`; without `split`, one slice per element, squeezed unless
/// `keepdims`.
LogicalResult convertSplitToSequence(NodeContext &ctx) {
  Value x = ctx.input(0);
  ArrayRef<int64_t> shape = getShape(x);
  auto axis = normalizeAxis(ctx.getInt("axis", 0), shape.size());
  if (!axis)
    return ctx.unsupportedAttr("axis", Twine(ctx.getInt("axis", 0)));
  int64_t dim = shape[*axis];
  SmallVector<int64_t> sizes;
  bool squeeze = false;
  if (!ctx.hasInput(1)) {
    sizes.assign(dim, 1);
    squeeze = ctx.getInt("keepdims", 1) == 0;
  } else {
    auto split = ctx.constantIntsInput(1);
    if (failed(split))
      return failure();
    if (ctx.inputType(1).getRank() == 0) {
      int64_t chunk = split->front();
      if (chunk <= 0)
        return ctx.fail("split must be positive");
      for (int64_t offset = 0; offset < dim; offset += chunk)
        sizes.push_back(std::min(chunk, dim - offset));
    } else {
      sizes = *split;
    }
  }
  int64_t offset = 0;
  SmallVector<Value> parts;
  for (int64_t size : sizes) {
    if (size < 0 || offset + size > dim)
      return ctx.fail("split sizes must be non-negative and add up to the dimension");
    Value part = createSliceAxis(ctx.b, x, *axis, offset, size);
    if (squeeze) {
      SmallVector<int64_t> squeezed(getShape(part));
      squeezed.erase(squeezed.begin() + *axis);
      part = createReshape(ctx.b, part, squeezed);
    }
    parts.push_back(part);
    offset += size;
  }
  if (offset != dim)
    return ctx.fail("split sizes add up to " + Twine(offset) + ", not the dimension " +
                    Twine(dim));
  ctx.setSequenceOutput(0, parts);
  return success();
}

/// The body applied to each element: the i-th call gets the i-th tensor of every sequence
/// input and the tensor inputs whole; output k is the sequence of the calls' k-th outputs.
LogicalResult convertSequenceMap(NodeContext &ctx) {
  auto first = ctx.sequenceInput(0);
  if (failed(first))
    return failure();
  size_t count = first->size();
  SmallVector<SmallVector<Value>> sequences(ctx.numInputs());
  for (unsigned i = 0; i < ctx.numInputs(); ++i) {
    if (!ctx.isSequenceInput(i))
      continue;
    sequences[i] = *ctx.sequenceInput(i);
    if (sequences[i].size() != count)
      return ctx.fail("the sequences have different lengths");
  }
  SmallVector<SmallVector<Value>> outputs(ctx.numOutputs());
  for (size_t n = 0; n < count; ++n) {
    SmallVector<Value> args;
    for (unsigned i = 0; i < ctx.numInputs(); ++i)
      args.push_back(ctx.isSequenceInput(i) ? sequences[i][n] : ctx.input(i));
    auto results = ctx.inlineGraphAttr("body", args, "iter" + Twine(n));
    if (failed(results))
      return failure();
    if (results->size() != outputs.size())
      return ctx.fail("the body has " + Twine(results->size()) + " outputs, the node " +
                      Twine(outputs.size()));
    for (auto [output, result] : llvm::zip(outputs, *results))
      output.push_back(result);
  }
  for (auto [i, output] : llvm::enumerate(outputs))
    ctx.setSequenceOutput(i, output);
  return success();
}

} // namespace

void registerSequenceOps(ConverterMap &map) {
  map["SequenceConstruct"] = convertSequenceConstruct;
  map["SequenceEmpty"] = convertSequenceEmpty;
  map["SequenceInsert"] = convertSequenceInsert;
  map["SequenceErase"] = convertSequenceErase;
  map["SequenceAt"] = convertSequenceAt;
  map["SequenceLength"] = convertSequenceLength;
  map["ConcatFromSequence"] = convertConcatFromSequence;
  map["SplitToSequence"] = convertSplitToSequence;
  map["SequenceMap"] = convertSequenceMap;
  tensorIdentity = map.lookup("Identity");
  if (tensorIdentity)
    map["Identity"] = convertIdentity;
}

} // namespace loupe::frontends::onnx_import
