//===- OnnxOpsControlFlow.cpp - If, Loop and Scan, resolved at import -----===//
//
// Control flow whose path is known at import (ONNX operator spec, onnx/defs/controlflow;
// references onnx/backend/test/case/node/{if,loop,scan}.py):
//
// - If: a constant condition inlines the chosen branch. Otherwise both branches are inlined
//   and each output selected by the condition (branches have no side effects), which needs
//   both branches to give it the same type.
// - Loop: unrolled, the body inlined once per iteration with the loop-carried values passed
//   on and the scan outputs stacked along a new leading axis. The iterations are M when M
//   and every condition are constants (stopping at the first constant false); when they are
//   not, a scan output whose length ONNX knows statically (declared by the model) fixes the
//   count, as a static-shape compile promises the run keeps that shape.
// - Scan: unrolled over the scan axis of each scan input (opset 9+: scan_input_axes,
//   scan_input_directions, scan_output_axes, scan_output_directions; opset 8: a leading
//   batch axis, `directions`, and sequence_lens only when it is the full length).
//
// Every op of an inlined body is located "<node>/iter<i>/<inner node>" (Scan 8:
// "<node>/batch<b>/iter<i>/<inner node>", If: "<node>/then/<inner node>"), so the dispatch
// table names the iteration each kernel comes from. Unrolling is bounded by the importer
// (100,000 subgraph nodes in all).
//
//===----------------------------------------------------------------------===//

#include "OnnxOps.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"

using namespace mlir;

namespace loupe::frontends::onnx_import {

namespace {

/// The value of a one-element constant i1 tensor; nullopt when `value` is not one.
std::optional<bool> getConstantBool(Value value) {
  DenseElementsAttr attr = value ? getConstant(value) : DenseElementsAttr();
  if (!attr || attr.getNumElements() != 1 || !attr.getElementType().isInteger(1))
    return std::nullopt;
  return *attr.getValues<bool>().begin();
}

std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// Stacks equally shaped `values` along a new axis `axis` (in [0, rank]): [..., n, ...].
/// Fails (reporting `what`) when the shapes differ.
FailureOr<Value> stack(NodeContext &ctx, ArrayRef<Value> values, int64_t axis,
                       const Twine &what) {
  RankedTensorType type = getType(values.front());
  SmallVector<Value> parts;
  for (Value value : values) {
    if (getType(value) != type)
      return ctx.fail(what + " differs between iterations (" + typeText(type) + ", then " +
                      typeText(getType(value)) + ")");
    SmallVector<int64_t> shape(type.getShape());
    shape.insert(shape.begin() + axis, 1);
    parts.push_back(createReshape(ctx.b, value, shape));
  }
  return createConcat(ctx.b, parts, axis);
}

/// `value` without its size-1 dim `axis`.
Value dropAxis(ImplicitLocOpBuilder &b, Value value, int64_t axis) {
  SmallVector<int64_t> shape(getShape(value));
  shape.erase(shape.begin() + axis);
  return createReshape(b, value, shape);
}

//===----------------------------------------------------------------------===//
// If
//===----------------------------------------------------------------------===//

LogicalResult convertIf(NodeContext &ctx) {
  std::optional<bool> cond = getConstantBool(ctx.input(0));
  if (cond) {
    auto outputs = *cond ? ctx.inlineGraphAttr("then_branch", {}, "then")
                         : ctx.inlineGraphAttr("else_branch", {}, "else");
    if (failed(outputs))
      return failure();
    for (auto [i, value] : llvm::enumerate(*outputs))
      ctx.setOutput(i, value);
    return success();
  }
  // A run-time condition: both branches, each output selected.
  auto thenOutputs = ctx.inlineGraphAttr("then_branch", {}, "then");
  if (failed(thenOutputs))
    return failure();
  auto elseOutputs = ctx.inlineGraphAttr("else_branch", {}, "else");
  if (failed(elseOutputs))
    return failure();
  if (thenOutputs->size() != elseOutputs->size())
    return ctx.fail("the branches have different numbers of outputs");
  for (auto [i, onTrue, onFalse] : llvm::enumerate(*thenOutputs, *elseOutputs)) {
    if (onTrue.getType() != onFalse.getType())
      return ctx.fail("the condition is not a constant and the branches give output " +
                      Twine(i) + " different types (" + typeText(onTrue.getType()) + ", " +
                      typeText(onFalse.getType()) + ")");
    ctx.setOutput(i, createSelect(ctx.b, ctx.input(0), onTrue, onFalse));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Loop
//===----------------------------------------------------------------------===//

/// The static length ONNX knows for the Loop's scan outputs (node outputs from
/// `firstScanOutput` on): a Loop runs once per element of them.
std::optional<int64_t> knownScanLength(NodeContext &ctx, unsigned firstScanOutput) {
  for (unsigned i = firstScanOutput; i < ctx.numOutputs(); ++i)
    if (RankedTensorType type = ctx.knownOutputType(i); type && type.getRank() > 0)
      return type.getDimSize(0);
  return std::nullopt;
}

/// Loop (opset 1-21, tensors only): inputs M, cond, v_initial...; body (i, cond, v...) ->
/// (cond, v..., scan...); outputs v_final..., scan outputs stacked [iterations, ...].
LogicalResult convertLoop(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  if (ctx.numInputs() < 2)
    return ctx.fail("expects the inputs M and cond");
  unsigned numCarried = ctx.numInputs() - 2;
  SmallVector<Value> carried;
  for (unsigned i = 2; i < ctx.numInputs(); ++i) {
    if (!ctx.hasInput(i))
      return ctx.fail("loop-carried input " + Twine(i) + " is missing");
    carried.push_back(ctx.input(i));
  }

  // The trip count: the scan outputs' static length, else M and the conditions.
  std::optional<int64_t> length = knownScanLength(ctx, numCarried);
  std::optional<int64_t> tripCount;
  if (ctx.constantInput(0)) {
    auto m = ctx.constantIntsInput(0);
    if (failed(m))
      return failure();
    if (m->size() != 1)
      return ctx.fail("M must hold one value");
    tripCount = std::max<int64_t>(m->front(), 0);
  } else if (ctx.hasInput(0) && !length) {
    return ctx.fail("trip count '" + ctx.inputName(0) +
                    "' must be a constant (or the scan outputs' length be static)");
  }
  if (length && tripCount && *length > *tripCount)
    return ctx.fail("scan outputs of length " + Twine(*length) + " need more iterations than M = " +
                    Twine(*tripCount));
  int64_t limit = length ? *length : tripCount ? *tripCount : INT64_MAX;

  Value cond = ctx.hasInput(1) ? ctx.input(1) : createSplat(b, b.getI1Type(), {}, 1);
  SmallVector<SmallVector<Value>> scans;
  int64_t iterations = 0;
  for (; iterations < limit; ++iterations) {
    std::optional<bool> goOn = getConstantBool(cond);
    if (!goOn && !length)
      return ctx.fail("the loop condition is not a constant at iteration " +
                      Twine(iterations) + " (and the scan outputs' length is not static)");
    if (goOn && !*goOn) {
      if (length)
        return ctx.fail("stops after " + Twine(iterations) +
                        " iterations, but its scan outputs have length " + Twine(*length));
      break;
    }
    SmallVector<Value> inputs = {createI64Const(b, {iterations}, {}), cond};
    inputs.append(carried);
    auto outputs = ctx.inlineGraphAttr("body", inputs, "iter" + Twine(iterations));
    if (failed(outputs))
      return failure();
    if (outputs->size() < 1 + numCarried)
      return ctx.fail("the body has " + Twine(outputs->size()) + " outputs, expected cond and " +
                      Twine(numCarried) + " loop-carried values at least");
    cond = outputs->front();
    carried.assign(outputs->begin() + 1, outputs->begin() + 1 + numCarried);
    scans.resize(outputs->size() - 1 - numCarried);
    for (auto [k, value] : llvm::enumerate(llvm::drop_begin(*outputs, 1 + numCarried)))
      scans[k].push_back(value);
  }

  for (auto [i, value] : llvm::enumerate(carried))
    ctx.setOutput(i, value);
  if (iterations == 0 && ctx.numOutputs() > numCarried)
    return ctx.fail("runs no iteration; its scan outputs would be empty");
  for (auto [k, values] : llvm::enumerate(scans)) {
    auto stacked = stack(ctx, values, 0, "scan output " + Twine(k));
    if (failed(stacked))
      return failure();
    ctx.setOutput(numCarried + k, *stacked);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Scan
//===----------------------------------------------------------------------===//

/// Where and in which direction a Scan reads its scan inputs and writes its scan outputs.
struct ScanLayout {
  SmallVector<int64_t> inputAxes, inputDirections, outputAxes, outputDirections;
};

/// Attribute `attr` with `count` entries (0 when absent).
FailureOr<SmallVector<int64_t>> getScanAttr(NodeContext &ctx, StringRef attr, size_t count) {
  SmallVector<int64_t> values = ctx.getInts(attr);
  if (values.empty())
    values.assign(count, 0);
  if (values.size() != count)
    return ctx.fail("'" + attr + "' has " + Twine(values.size()) + " entries, expected " +
                    Twine(count));
  return values;
}

/// Unrolls one Scan over `scanInputs` (opset 9 semantics): the body maps (states...,
/// one slice of each scan input...) to (states..., one slice of each scan output...).
/// Returns the final states followed by the stacked scan outputs. `scope` prefixes the
/// iterations' names ("batch0/" or "").
FailureOr<SmallVector<Value>> unrollScan(NodeContext &ctx, SmallVector<Value> states,
                                         ArrayRef<Value> scanInputs, const ScanLayout &layout,
                                         StringRef scope) {
  ImplicitLocOpBuilder &b = ctx.b;
  int64_t length = -1;
  SmallVector<int64_t> inputAxes;
  for (auto [j, x] : llvm::enumerate(scanInputs)) {
    auto axis = normalizeAxis(layout.inputAxes[j], getShape(x).size());
    if (!axis)
      return ctx.unsupportedAttr("scan_input_axes", Twine(layout.inputAxes[j]));
    inputAxes.push_back(*axis);
    int64_t size = getShape(x)[*axis];
    if (length >= 0 && size != length)
      return ctx.fail("scan inputs have different lengths (" + Twine(length) + ", " +
                      Twine(size) + ")");
    length = size;
  }
  if (length <= 0)
    return ctx.fail("needs scan inputs of positive length");

  size_t numStates = states.size();
  SmallVector<SmallVector<Value>> scans;
  for (int64_t t = 0; t < length; ++t) {
    SmallVector<Value> inputs(states);
    for (auto [j, x] : llvm::enumerate(scanInputs)) {
      int64_t index = layout.inputDirections[j] ? length - 1 - t : t;
      inputs.push_back(dropAxis(b, createSliceAxis(b, x, inputAxes[j], index, 1), inputAxes[j]));
    }
    auto outputs = ctx.inlineGraphAttr("body", inputs, scope + "iter" + Twine(t));
    if (failed(outputs))
      return failure();
    if (outputs->size() < numStates)
      return ctx.fail("the body has fewer outputs than states");
    states.assign(outputs->begin(), outputs->begin() + numStates);
    scans.resize(outputs->size() - numStates);
    for (auto [k, value] : llvm::enumerate(llvm::drop_begin(*outputs, numStates)))
      scans[k].push_back(value);
  }

  SmallVector<Value> results(states);
  if (!layout.outputAxes.empty() && layout.outputAxes.size() != scans.size())
    return ctx.fail("'scan_output_axes' has " + Twine(layout.outputAxes.size()) +
                    " entries for " + Twine(scans.size()) + " scan outputs");
  if (!layout.outputDirections.empty() && layout.outputDirections.size() != scans.size())
    return ctx.fail("'scan_output_directions' has " + Twine(layout.outputDirections.size()) +
                    " entries for " + Twine(scans.size()) + " scan outputs");
  for (auto [k, values] : llvm::enumerate(scans)) {
    int64_t rank = getShape(values.front()).size() + 1;
    int64_t given = layout.outputAxes.empty() ? 0 : layout.outputAxes[k];
    auto axis = normalizeAxis(given, rank);
    if (!axis)
      return ctx.unsupportedAttr("scan_output_axes", Twine(given));
    // Reverse: each iteration prepends its slice.
    if (!layout.outputDirections.empty() && layout.outputDirections[k])
      std::reverse(values.begin(), values.end());
    auto stacked = stack(ctx, values, *axis, "scan output " + Twine(k));
    if (failed(stacked))
      return failure();
    results.push_back(*stacked);
  }
  return results;
}

/// Scan 9+: inputs states..., scan inputs... (`num_scan_inputs`); outputs final states...,
/// scan outputs....
LogicalResult convertScan9(NodeContext &ctx) {
  int64_t numScanInputs = ctx.getInt("num_scan_inputs", 0);
  if (numScanInputs < 1 || numScanInputs > ctx.numInputs())
    return ctx.unsupportedAttr("num_scan_inputs", Twine(numScanInputs));
  unsigned numStates = ctx.numInputs() - numScanInputs;
  SmallVector<Value> states, scanInputs;
  for (unsigned i = 0; i < ctx.numInputs(); ++i) {
    if (!ctx.hasInput(i))
      return ctx.fail("input " + Twine(i) + " is missing");
    (i < numStates ? states : scanInputs).push_back(ctx.input(i));
  }
  ScanLayout layout;
  auto inputAxes = getScanAttr(ctx, "scan_input_axes", numScanInputs);
  auto inputDirections = getScanAttr(ctx, "scan_input_directions", numScanInputs);
  if (failed(inputAxes) || failed(inputDirections))
    return failure();
  layout.inputAxes = *inputAxes;
  layout.inputDirections = *inputDirections;
  layout.outputAxes = ctx.getInts("scan_output_axes");
  layout.outputDirections = ctx.getInts("scan_output_directions");
  auto results = unrollScan(ctx, states, scanInputs, layout, "");
  if (failed(results))
    return failure();
  for (auto [i, value] : llvm::enumerate(*results))
    ctx.setOutput(i, value);
  return success();
}

/// Scan 8: inputs sequence_lens (optional), states..., scan inputs..., each with a leading
/// batch axis (scan inputs scanned along axis 1); every batch entry scanned on its own and
/// the results stacked along axis 0.
LogicalResult convertScan8(NodeContext &ctx) {
  int64_t numScanInputs = ctx.getInt("num_scan_inputs", 0);
  if (numScanInputs < 1 || numScanInputs + 1 > ctx.numInputs())
    return ctx.unsupportedAttr("num_scan_inputs", Twine(numScanInputs));
  unsigned numStates = ctx.numInputs() - 1 - numScanInputs;
  SmallVector<Value> inputs;
  for (unsigned i = 1; i < ctx.numInputs(); ++i) {
    if (!ctx.hasInput(i))
      return ctx.fail("input " + Twine(i) + " is missing");
    inputs.push_back(ctx.input(i));
  }
  int64_t batch = getShape(inputs.front()).empty() ? 0 : getShape(inputs.front())[0];
  if (batch <= 0)
    return ctx.fail("needs inputs with a leading batch axis of positive size");
  int64_t length = getShape(inputs[numStates]).size() > 1 ? getShape(inputs[numStates])[1] : 0;
  if (ctx.hasInput(0)) {
    auto lens = ctx.constantIntsInput(0);
    if (failed(lens))
      return failure();
    if (llvm::any_of(*lens, [&](int64_t n) { return n != length; }))
      return ctx.fail("sequence_lens shorter than the scan inputs are not supported");
  }
  ScanLayout layout;
  auto directions = getScanAttr(ctx, "directions", numScanInputs);
  if (failed(directions))
    return failure();
  layout.inputAxes.assign(numScanInputs, 0);
  layout.inputDirections = *directions;

  SmallVector<SmallVector<Value>> perBatch;
  for (int64_t n = 0; n < batch; ++n) {
    SmallVector<Value> slices;
    for (Value x : inputs)
      slices.push_back(dropAxis(ctx.b, createSliceAxis(ctx.b, x, 0, n, 1), 0));
    ArrayRef<Value> all(slices);
    auto results = unrollScan(ctx, SmallVector<Value>(all.take_front(numStates)),
                              all.drop_front(numStates), layout,
                              ("batch" + Twine(n) + "/").str());
    if (failed(results))
      return failure();
    perBatch.push_back(std::move(*results));
  }
  for (size_t i = 0; i < perBatch.front().size(); ++i) {
    SmallVector<Value> values;
    for (const auto &results : perBatch)
      values.push_back(results[i]);
    auto stacked = stack(ctx, values, 0, "output " + Twine(i));
    if (failed(stacked))
      return failure();
    ctx.setOutput(i, *stacked);
  }
  return success();
}

LogicalResult convertScan(NodeContext &ctx) {
  return ctx.opset() >= 9 ? convertScan9(ctx) : convertScan8(ctx);
}

} // namespace

void registerControlFlowOps(ConverterMap &map) {
  map["If"] = convertIf;
  map["Loop"] = convertLoop;
  map["Scan"] = convertScan;
}

} // namespace loupe::frontends::onnx_import
