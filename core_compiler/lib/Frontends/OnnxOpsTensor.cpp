//===- OnnxOpsTensor.cpp - Shape, data-movement and reduction ops ---------===//
//
// Constants, reshapes (Reshape/Flatten/Squeeze/Unsqueeze), Transpose, Concat,
// Split, Slice, Pad, Tile/Expand, shape queries folded to constants,
// reductions and ArgMax/ArgMin. Shape-like inputs (Reshape's shape, Pad's
// pads, Slice's starts, ...) must be constants; where ONNX shape inference
// already knows a static output shape, pure reshapes use it instead.
//
//===----------------------------------------------------------------------===//

#include "OnnxOps.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include <cmath>

using namespace mlir;

namespace loupe::frontends::onnx_import {
namespace {

/// Normalizes every axis in `axes` against `rank`; fails (reporting) on an
/// out-of-range one.
FailureOr<SmallVector<int64_t>> normalizeAxes(NodeContext &ctx,
                                              ArrayRef<int64_t> axes,
                                              int64_t rank) {
  SmallVector<int64_t> result;
  for (int64_t axis : axes) {
    auto normalized = normalizeAxis(axis, rank);
    if (!normalized)
      return ctx.fail("axis " + Twine(axis) + " is out of range for rank " +
                      Twine(rank));
    result.push_back(*normalized);
  }
  llvm::sort(result);
  result.erase(std::unique(result.begin(), result.end()), result.end());
  return result;
}

/// Axes from the `axes` attribute (older opsets) or from input `index`
/// (newer ones); `present` tells whether either was given.
FailureOr<SmallVector<int64_t>> getAxes(NodeContext &ctx, bool fromInput,
                                        unsigned index, bool &present) {
  if (fromInput) {
    present = ctx.hasInput(index);
    if (!present)
      return SmallVector<int64_t>();
    return ctx.constantIntsInput(index);
  }
  present = ctx.hasAttr("axes");
  return ctx.getInts("axes");
}

//===----------------------------------------------------------------------===//
// Constants and identities
//===----------------------------------------------------------------------===//

LogicalResult convertConstant(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  if (ctx.hasAttr("value")) {
    auto value = ctx.getTensor("value");
    if (failed(value))
      return failure();
    ctx.setOutput(0, createConst(b, *value));
  } else if (ctx.hasAttr("value_float")) {
    ctx.setOutput(0, createSplat(b, b.getF32Type(), {},
                                 ctx.getFloat("value_float", 0)));
  } else if (ctx.hasAttr("value_int")) {
    ctx.setOutput(0, createI64Const(b, {ctx.getInt("value_int", 0)}, {}));
  } else if (ctx.hasAttr("value_floats")) {
    SmallVector<float> values = ctx.getFloats("value_floats");
    auto type =
        getTensorType({static_cast<int64_t>(values.size())}, b.getF32Type());
    ctx.setOutput(0, createConst(b, DenseElementsAttr::get(
                                        type, ArrayRef<float>(values))));
  } else if (ctx.hasAttr("value_ints")) {
    SmallVector<int64_t> values = ctx.getInts("value_ints");
    ctx.setOutput(0, createI64Const(b, values,
                                    {static_cast<int64_t>(values.size())}));
  } else {
    return ctx.fail("only tensor, float(s) and int(s) values are supported");
  }
  return success();
}

LogicalResult convertIdentity(NodeContext &ctx) {
  ctx.setOutput(0, ctx.input(0));
  return success();
}

/// Dropout: identity with an all-true mask, in inference mode and in training mode with a
/// ratio of 0 (opset 12+: the constant inputs training_mode and ratio, default 0.5). Any other
/// training-mode ratio drops random elements and stays an error.
LogicalResult convertDropout(NodeContext &ctx) {
  if (ctx.hasInput(2)) {
    DenseElementsAttr training = ctx.constantInput(2);
    if (!training)
      return ctx.fail("training_mode must be a constant");
    if (training.getSplatValue<bool>()) {
      FailureOr<double> ratio = ctx.hasInput(1) ? ctx.constantScalarInput(1) : 0.5;
      if (failed(ratio))
        return failure();
      if (*ratio != 0)
        return ctx.fail("training mode with a nonzero ratio drops random elements (no "
                        "reference to check against): only ratio 0 is supported");
    }
  }
  Value x = ctx.input(0);
  ctx.setOutput(0, x);
  if (ctx.hasOutput(1))
    ctx.setOutput(1, createSplat(ctx.b, ctx.b.getI1Type(), getShape(x), 1));
  return success();
}

LogicalResult convertShape(NodeContext &ctx) {
  ArrayRef<int64_t> shape = getShape(ctx.input(0));
  int64_t rank = shape.size();
  auto clampIndex = [&](int64_t i) {
    if (i < 0)
      i += rank;
    return std::clamp<int64_t>(i, 0, rank);
  };
  int64_t start = clampIndex(ctx.getInt("start", 0));
  int64_t end = clampIndex(ctx.getInt("end", rank));
  SmallVector<int64_t> dims(shape.begin() + start,
                            shape.begin() + std::max(start, end));
  ctx.setOutput(0, createI64Const(ctx.b, dims,
                                  {static_cast<int64_t>(dims.size())}));
  return success();
}

LogicalResult convertSize(NodeContext &ctx) {
  ctx.setOutput(0, createI64Const(
                       ctx.b, {getNumElements(getShape(ctx.input(0)))}, {}));
  return success();
}

LogicalResult convertConstantOfShape(NodeContext &ctx) {
  auto shape = ctx.constantIntsInput(0);
  if (failed(shape))
    return failure();
  if (llvm::any_of(*shape, [](int64_t d) { return d < 0; }) || exceedsElementLimit(*shape))
    return ctx.fail("the shape must be non-negative and hold at most 2^37 elements");
  DenseElementsAttr value;
  if (ctx.hasAttr("value")) {
    auto tensor = ctx.getTensor("value");
    if (failed(tensor))
      return failure();
    value = *tensor;
  } else {
    value = DenseElementsAttr::get(getTensorType({1}, ctx.b.getF32Type()),
                                   0.0f);
  }
  if (value.getNumElements() != 1)
    return ctx.unsupportedAttr("value", "with more than one element");
  if (llvm::any_of(*shape, [](int64_t d) { return d <= 0; }))
    return ctx.fail("shape must have positive dims (empty tensors are not "
                    "supported)");
  auto type = getTensorType(*shape, value.getElementType());
  ctx.setOutput(0, createConst(ctx.b, DenseElementsAttr::get(
                                          type, *value.value_begin<Attribute>())));
  return success();
}

/// Range with constant inputs, folded.
LogicalResult convertRange(NodeContext &ctx) {
  auto start = ctx.constantScalarInput(0), limit = ctx.constantScalarInput(1),
       delta = ctx.constantScalarInput(2);
  if (failed(start) || failed(limit) || failed(delta))
    return failure();
  if (*delta == 0)
    return ctx.fail("delta is zero");
  int64_t count = std::max<int64_t>(
      0, static_cast<int64_t>(std::ceil((*limit - *start) / *delta)));
  if (count == 0)
    return ctx.fail("empty tensors are not supported");
  if (count > (int64_t(1) << 24))
    return ctx.fail("more than 2^24 elements");
  Type elementType = getElementType(ctx.input(0));
  SmallVector<Attribute> values;
  for (int64_t i = 0; i < count; ++i) {
    double v = *start + i * *delta;
    values.push_back(isa<FloatType>(elementType)
                         ? Attribute(ctx.b.getFloatAttr(elementType, v))
                         : Attribute(ctx.b.getIntegerAttr(
                               elementType, static_cast<int64_t>(v))));
  }
  ctx.setOutput(0, createConst(ctx.b, DenseElementsAttr::get(
                                          getTensorType({count}, elementType),
                                          values)));
  return success();
}

//===----------------------------------------------------------------------===//
// Reshapes
//===----------------------------------------------------------------------===//

/// Reshape to `shape` when known, else to the static output type.
LogicalResult reshapeTo(NodeContext &ctx, std::optional<SmallVector<int64_t>> shape) {
  Value x = ctx.input(0);
  if (!shape) {
    auto type = ctx.outputType(0);
    if (failed(type))
      return failure();
    shape = llvm::to_vector(type->getShape());
  }
  if (getNumElements(*shape) != getNumElements(getShape(x)))
    return ctx.fail("cannot reshape " + Twine(getNumElements(getShape(x))) +
                    " elements to " + Twine(getNumElements(*shape)));
  ctx.setOutput(0, createReshape(ctx.b, x, *shape));
  return success();
}

LogicalResult convertReshape(NodeContext &ctx) {
  ArrayRef<int64_t> inShape = getShape(ctx.input(0));
  SmallVector<int64_t> target;
  if (ctx.opset() < 5) {
    target = ctx.getInts("shape");
  } else if (ctx.constantInput(1)) {
    target = *ctx.constantIntsInput(1);
  } else {
    return reshapeTo(ctx, std::nullopt);
  }
  // 0 copies the input dim (unless allowzero), -1 takes what is left.
  bool allowZero = ctx.getInt("allowzero", 0);
  int64_t inferred = -1, known = 1;
  for (auto [i, dim] : llvm::enumerate(target)) {
    if (dim == 0 && !allowZero) {
      if (i >= inShape.size())
        return ctx.fail("shape copies dim " + Twine(i) + " the input lacks");
      dim = inShape[i];
    }
    if (dim == -1) {
      if (inferred >= 0)
        return ctx.fail("shape has more than one -1");
      inferred = i;
    } else if (dim < 0) {
      return ctx.fail("shape has a negative dim");
    } else {
      known *= dim;
    }
  }
  if (inferred >= 0)
    target[inferred] = known ? getNumElements(inShape) / known : 0;
  return reshapeTo(ctx, target);
}

LogicalResult convertFlatten(NodeContext &ctx) {
  ArrayRef<int64_t> shape = getShape(ctx.input(0));
  int64_t rank = shape.size();
  int64_t axis = ctx.getInt("axis", 1);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis > rank)
    return ctx.unsupportedAttr("axis", Twine(ctx.getInt("axis", 1)));
  return reshapeTo(ctx, SmallVector<int64_t>{
                            getNumElements(shape.take_front(axis)),
                            getNumElements(shape.drop_front(axis))});
}

LogicalResult convertSqueeze(NodeContext &ctx) {
  ArrayRef<int64_t> shape = getShape(ctx.input(0));
  bool fromInput = ctx.opset() >= 13, present;
  if (fromInput && ctx.hasInput(1) && !ctx.constantInput(1))
    return reshapeTo(ctx, std::nullopt);
  auto raw = getAxes(ctx, fromInput, 1, present);
  if (failed(raw))
    return failure();
  auto axes = normalizeAxes(ctx, *raw, shape.size());
  if (failed(axes))
    return failure();
  SmallVector<int64_t> result;
  for (auto [i, dim] : llvm::enumerate(shape)) {
    bool listed = llvm::is_contained(*axes, static_cast<int64_t>(i));
    if (listed && dim != 1)
      return ctx.fail("cannot squeeze dim " + Twine(i) + " of size " +
                      Twine(dim));
    if (!(listed || (axes->empty() && dim == 1)))
      result.push_back(dim);
  }
  return reshapeTo(ctx, result);
}

LogicalResult convertUnsqueeze(NodeContext &ctx) {
  ArrayRef<int64_t> shape = getShape(ctx.input(0));
  bool fromInput = ctx.opset() >= 13, present;
  if (fromInput && !ctx.constantInput(1))
    return reshapeTo(ctx, std::nullopt);
  auto raw = getAxes(ctx, fromInput, 1, present);
  if (failed(raw))
    return failure();
  int64_t rank = shape.size() + raw->size();
  auto axes = normalizeAxes(ctx, *raw, rank);
  if (failed(axes))
    return failure();
  SmallVector<int64_t> result;
  const int64_t *next = shape.begin();
  for (int64_t d = 0; d < rank; ++d)
    result.push_back(llvm::is_contained(*axes, d) ? 1 : *next++);
  return reshapeTo(ctx, result);
}

LogicalResult convertTranspose(NodeContext &ctx) {
  Value x = ctx.input(0);
  int64_t rank = getShape(x).size();
  SmallVector<int64_t> perm = ctx.getInts("perm");
  if (perm.empty())
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  SmallVector<int64_t> sorted(perm);
  llvm::sort(sorted);
  for (int64_t d = 0; d < rank; ++d)
    if (static_cast<int64_t>(sorted.size()) != rank || sorted[d] != d)
      return ctx.unsupportedAttr("perm", "that is not a permutation");
  ctx.setOutput(0, createTranspose(ctx.b, x, perm));
  return success();
}

/// DepthToSpace (DCR/CRD) and SpaceToDepth as reshape-transpose-reshape.
LogicalResult convertDepthToSpace(NodeContext &ctx) {
  Value x = ctx.input(0);
  ArrayRef<int64_t> s = getShape(x);
  int64_t bs = ctx.getInt("blocksize", 0);
  if (s.size() != 4 || bs <= 0 || s[1] % (bs * bs))
    return ctx.fail("needs a 4-D input with channels divisible by blocksize^2");
  int64_t n = s[0], c = s[1] / (bs * bs), h = s[2], w = s[3];
  bool crd = ctx.getString("mode", "DCR") == "CRD";
  Value t = crd ? createReshape(ctx.b, x, {n, c, bs, bs, h, w})
                : createReshape(ctx.b, x, {n, bs, bs, c, h, w});
  t = createTranspose(ctx.b, t,
                      crd ? SmallVector<int64_t>{0, 1, 4, 2, 5, 3}
                          : SmallVector<int64_t>{0, 3, 4, 1, 5, 2});
  ctx.setOutput(0, createReshape(ctx.b, t, {n, c, h * bs, w * bs}));
  return success();
}

LogicalResult convertSpaceToDepth(NodeContext &ctx) {
  Value x = ctx.input(0);
  ArrayRef<int64_t> s = getShape(x);
  int64_t bs = ctx.getInt("blocksize", 0);
  if (s.size() != 4 || bs <= 0 || s[2] % bs || s[3] % bs)
    return ctx.fail("needs a 4-D input with H and W divisible by blocksize");
  int64_t n = s[0], c = s[1], h = s[2] / bs, w = s[3] / bs;
  Value t = createReshape(ctx.b, x, {n, c, h, bs, w, bs});
  t = createTranspose(ctx.b, t, {0, 3, 5, 1, 2, 4});
  ctx.setOutput(0, createReshape(ctx.b, t, {n, c * bs * bs, h, w}));
  return success();
}

//===----------------------------------------------------------------------===//
// Concat, Split, Slice
//===----------------------------------------------------------------------===//

LogicalResult convertConcat(NodeContext &ctx) {
  SmallVector<Value> inputs;
  for (unsigned i = 0; i < ctx.numInputs(); ++i)
    if (ctx.hasInput(i) && getNumElements(getShape(ctx.input(i))) != 0)
      inputs.push_back(ctx.input(i));
  if (inputs.empty())
    return ctx.fail("empty tensors are not supported");
  int64_t rank = getShape(inputs.front()).size();
  auto axis = normalizeAxis(ctx.getInt("axis", 0), rank);
  if (!axis)
    return ctx.unsupportedAttr("axis", Twine(ctx.getInt("axis", 0)));
  ctx.setOutput(0, createConcat(ctx.b, inputs, *axis));
  return success();
}

LogicalResult convertSplit(NodeContext &ctx) {
  Value x = ctx.input(0);
  ArrayRef<int64_t> shape = getShape(x);
  auto axis = normalizeAxis(ctx.getInt("axis", 0), shape.size());
  if (!axis)
    return ctx.unsupportedAttr("axis", Twine(ctx.getInt("axis", 0)));
  int64_t dim = shape[*axis], parts = ctx.numOutputs();
  SmallVector<int64_t> sizes;
  if (ctx.opset() >= 13 && ctx.hasInput(1)) {
    auto split = ctx.constantIntsInput(1);
    if (failed(split))
      return failure();
    sizes = *split;
  } else if (ctx.opset() < 13 && ctx.hasAttr("split")) {
    sizes = ctx.getInts("split");
  } else {
    int64_t chunk = (dim + parts - 1) / parts;
    for (int64_t i = 0; i < parts; ++i)
      sizes.push_back(std::min(chunk, dim - i * chunk));
  }
  if (static_cast<int64_t>(sizes.size()) != parts ||
      llvm::any_of(sizes, [](int64_t s) { return s < 0; }))
    return ctx.fail("split sizes do not match the outputs");
  int64_t offset = 0;
  for (auto [i, size] : llvm::enumerate(sizes)) {
    if (offset + size > dim)
      return ctx.fail("split sizes exceed the dimension");
    ctx.setOutput(i, createSliceAxis(ctx.b, x, *axis, offset, size));
    offset += size;
  }
  return success();
}

LogicalResult convertSlice(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value x = ctx.input(0);
  ArrayRef<int64_t> shape = getShape(x);
  int64_t rank = shape.size();
  SmallVector<int64_t> starts, ends, axes, steps;
  if (ctx.opset() < 10) {
    starts = ctx.getInts("starts");
    ends = ctx.getInts("ends");
    axes = ctx.getInts("axes");
  } else {
    for (auto [i, list] : llvm::enumerate(
             SmallVector<SmallVector<int64_t> *>{&starts, &ends, &axes, &steps})) {
      if (!ctx.hasInput(i + 1))
        continue;
      auto values = ctx.constantIntsInput(i + 1);
      if (failed(values))
        return failure();
      *list = *values;
    }
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(i);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size())
    return ctx.fail("starts/ends/axes/steps differ in length");

  for (size_t i = 0; i < starts.size(); ++i) {
    auto axis = normalizeAxis(axes[i], rank);
    if (!axis)
      return ctx.fail("axis " + Twine(axes[i]) + " is out of range");
    int64_t dim = shape[*axis], step = steps[i];
    if (step == 0)
      return ctx.fail("step is zero");
    auto clampIndex = [&](int64_t v, int64_t lo, int64_t hi) {
      if (v < 0)
        v += dim;
      return std::clamp(v, lo, hi);
    };
    int64_t start, end, count;
    if (step > 0) {
      start = clampIndex(starts[i], 0, dim);
      end = clampIndex(ends[i], 0, dim);
      count = std::max<int64_t>(0, (end - start + step - 1) / step);
    } else {
      start = clampIndex(starts[i], 0, dim - 1);
      end = clampIndex(ends[i], -1, dim - 1);
      // An end that was very negative means "through index 0".
      if (ends[i] < -dim)
        end = -1;
      count = std::max<int64_t>(0, (start - end - step - 1) / -step);
    }
    if (count == 0)
      return ctx.fail("empty slices are not supported");
    int64_t absStep = std::abs(step);
    int64_t first = step > 0 ? start : start - (count - 1) * absStep;
    x = createSliceAxis(b, x, *axis, first, (count - 1) * absStep + 1);
    x = subsample(b, x, *axis, absStep);
    if (step < 0)
      x = b.create<tosa::ReverseOp>(getType(x), x, b.getI32IntegerAttr(*axis));
  }
  ctx.setOutput(0, x);
  return success();
}

//===----------------------------------------------------------------------===//
// Pad, Tile, Expand
//===----------------------------------------------------------------------===//

/// Reflect/edge padding along one axis by concatenating slices.
Value padAxis(ImplicitLocOpBuilder &b, Value x, int64_t axis, int64_t lo,
              int64_t hi, bool reflect) {
  int64_t dim = getShape(x)[axis];
  SmallVector<Value> parts;
  auto side = [&](int64_t count, bool front) {
    if (count == 0)
      return;
    if (reflect) {
      Value part = createSliceAxis(b, x, axis, front ? 1 : dim - 1 - count,
                                   count);
      parts.push_back(b.create<tosa::ReverseOp>(getType(part), part,
                                                b.getI32IntegerAttr(axis)));
    } else {
      SmallVector<int64_t> multiples(getShape(x).size(), 1);
      multiples[axis] = count;
      parts.push_back(createTile(
          b, createSliceAxis(b, x, axis, front ? 0 : dim - 1, 1), multiples));
    }
  };
  side(lo, true);
  parts.push_back(x);
  side(hi, false);
  return createConcat(b, parts, axis);
}

LogicalResult convertPad(NodeContext &ctx) {
  Value x = ctx.input(0);
  ArrayRef<int64_t> shape = getShape(x);
  int64_t rank = shape.size();
  SmallVector<int64_t> pads;
  double value = 0;
  if (ctx.opset() < 11) {
    pads = ctx.getInts(ctx.opset() < 2 ? "paddings" : "pads");
    value = ctx.getFloat("value", 0);
  } else {
    auto p = ctx.constantIntsInput(1);
    if (failed(p))
      return failure();
    pads = *p;
    if (ctx.hasInput(2)) {
      auto v = ctx.constantScalarInput(2);
      if (failed(v))
        return failure();
      value = *v;
    }
    if (ctx.hasInput(3)) {
      auto rawAxes = ctx.constantIntsInput(3);
      if (failed(rawAxes))
        return failure();
      SmallVector<int64_t> full(2 * rank, 0);
      for (auto [i, a] : llvm::enumerate(*rawAxes)) {
        auto axis = normalizeAxis(a, rank);
        if (!axis || 2 * rawAxes->size() != pads.size())
          return ctx.fail("axes do not match pads");
        full[*axis] = pads[i];
        full[rank + *axis] = pads[rawAxes->size() + i];
      }
      pads = full;
    }
  }
  if (static_cast<int64_t>(pads.size()) != 2 * rank)
    return ctx.fail("pads must have 2 * rank entries");
  std::string mode = ctx.getString("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge")
    return ctx.unsupportedAttr("mode", "'" + mode + "'");

  // Negative pads crop.
  SmallVector<int64_t> start(rank, 0), size(shape), interleaved;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t lo = pads[d], hi = pads[rank + d];
    start[d] = std::max<int64_t>(-lo, 0);
    size[d] -= start[d] + std::max<int64_t>(-hi, 0);
    if (size[d] <= 0)
      return ctx.fail("pads crop away a whole dimension");
    interleaved.append({std::max<int64_t>(lo, 0), std::max<int64_t>(hi, 0)});
  }
  x = createSlice(ctx.b, x, start, size);
  if (mode == "constant") {
    x = createPad(ctx.b, x, interleaved, value);
  } else {
    for (int64_t d = 0; d < rank; ++d) {
      int64_t lo = interleaved[2 * d], hi = interleaved[2 * d + 1];
      if (mode == "reflect" && (lo >= size[d] || hi >= size[d]))
        return ctx.fail("reflect pads must be smaller than the dimension");
      x = padAxis(ctx.b, x, d, lo, hi, mode == "reflect");
    }
  }
  ctx.setOutput(0, x);
  return success();
}

LogicalResult convertTile(NodeContext &ctx) {
  auto repeats = ctx.constantIntsInput(1);
  if (failed(repeats))
    return failure();
  if (repeats->size() != getShape(ctx.input(0)).size() ||
      llvm::any_of(*repeats, [](int64_t r) { return r <= 0; }))
    return ctx.fail("repeats must be positive, one per dimension");
  ctx.setOutput(0, createTile(ctx.b, ctx.input(0), *repeats));
  return success();
}

LogicalResult convertExpand(NodeContext &ctx) {
  Value x = ctx.input(0);
  SmallVector<int64_t> target;
  if (ctx.constantInput(1)) {
    target = *ctx.constantIntsInput(1);
  } else {
    auto type = ctx.outputType(0);
    if (failed(type))
      return failure();
    target = llvm::to_vector(type->getShape());
  }
  if (llvm::any_of(target, [](int64_t d) { return d <= 0; }))
    return ctx.fail("shape must have positive dims");
  // Broadcasting against a splat of the target shape gives the result shape.
  Value shapeLike = createSplat(ctx.b, getElementType(x), target, 0);
  auto shape = matchRanks(ctx.b, x, shapeLike);
  if (failed(shape))
    return ctx.fail("input does not broadcast to the shape");
  SmallVector<int64_t> multiples;
  for (auto [in, out] : llvm::zip(getShape(x), *shape))
    multiples.push_back(in == out ? 1 : out);
  ctx.setOutput(0, createTile(ctx.b, x, multiples));
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

template <typename OpTy>
Value reduceAxes(ImplicitLocOpBuilder &b, ArrayRef<int64_t> axes, Value v) {
  for (int64_t axis : axes)
    v = createReduce<OpTy>(b, v, axis);
  return v;
}

enum class Reduction { Sum, Mean, Max, Min, Prod, L1, L2, SumSquare, LogSum, LogSumExp };

template <Reduction kind>
LogicalResult convertReduce(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value x = ctx.input(0);
  ArrayRef<int64_t> shape = getShape(x);
  int64_t rank = shape.size();
  bool fromInput =
      ctx.opset() >= 18 || (kind == Reduction::Sum && ctx.opset() >= 13);
  bool present;
  auto raw = getAxes(ctx, fromInput, 1, present);
  if (failed(raw))
    return failure();
  auto axes = normalizeAxes(ctx, *raw, rank);
  if (failed(axes))
    return failure();
  if (axes->empty()) {
    if (ctx.getInt("noop_with_empty_axes", 0)) {
      ctx.setOutput(0, x);
      return success();
    }
    for (int64_t d = 0; d < rank; ++d)
      axes->push_back(d);
  }
  bool needsFloat = kind == Reduction::Mean || kind == Reduction::L2 ||
                    kind == Reduction::LogSum || kind == Reduction::LogSumExp;
  if (needsFloat && !isFloat(x))
    return ctx.fail("only floating-point inputs are supported");

  Value result;
  switch (kind) {
  case Reduction::Sum:
    result = reduceAxes<tosa::ReduceSumOp>(b, *axes, x);
    break;
  case Reduction::Mean:
    result = createMean(b, x, *axes);
    break;
  case Reduction::Max:
    result = reduceAxes<tosa::ReduceMaxOp>(b, *axes, x);
    break;
  case Reduction::Min:
    result = reduceAxes<tosa::ReduceMinOp>(b, *axes, x);
    break;
  case Reduction::Prod:
    result = reduceAxes<tosa::ReduceProdOp>(b, *axes, x);
    break;
  case Reduction::L1:
    result = reduceAxes<tosa::ReduceSumOp>(b, *axes, 
        createUnary<tosa::AbsOp>(b, x));
    break;
  case Reduction::L2:
  case Reduction::SumSquare:
    result = reduceAxes<tosa::ReduceSumOp>(b, *axes, createMul(b, x, x));
    if (kind == Reduction::L2)
      result = createUnary<tosa::ReciprocalOp>(
          b, createUnary<tosa::RsqrtOp>(b, result));
    break;
  case Reduction::LogSum:
    result = createUnary<tosa::LogOp>(
        b, reduceAxes<tosa::ReduceSumOp>(b, *axes, x));
    break;
  case Reduction::LogSumExp: {
    Value max = reduceAxes<tosa::ReduceMaxOp>(b, *axes, x);
    Value exp = createUnary<tosa::ExpOp>(b, createBinary<tosa::SubOp>(b, x, max));
    result = createBinary<tosa::AddOp>(
        b,
        createUnary<tosa::LogOp>(
            b, reduceAxes<tosa::ReduceSumOp>(b, *axes, exp)),
        max);
    break;
  }
  }
  if (!ctx.getInt("keepdims", 1)) {
    SmallVector<int64_t> kept;
    for (int64_t d = 0; d < rank; ++d)
      if (!llvm::is_contained(*axes, d))
        kept.push_back(shape[d]);
    result = createReshape(b, result, kept);
  }
  ctx.setOutput(0, result);
  return success();
}

/// ArgMax/ArgMin (i64 result); ArgMin is ArgMax of the negation, and
/// select_last_index runs on the reversed axis.
template <bool isMin>
LogicalResult convertArgMax(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value x = ctx.input(0);
  ArrayRef<int64_t> shape = getShape(x);
  auto axis = normalizeAxis(ctx.getInt("axis", 0), shape.size());
  if (!axis)
    return ctx.unsupportedAttr("axis", Twine(ctx.getInt("axis", 0)));
  if (isMin)
    x = createUnary<tosa::NegateOp>(b, x);
  bool last = ctx.getInt("select_last_index", 0);
  if (last)
    x = b.create<tosa::ReverseOp>(getType(x), x, b.getI32IntegerAttr(*axis));
  SmallVector<int64_t> reduced(shape);
  reduced.erase(reduced.begin() + *axis);
  Value index = b.create<tosa::ArgMaxOp>(
      getTensorType(reduced, b.getI32Type()), x, b.getI32IntegerAttr(*axis));
  index = createCast(b, index, b.getI64Type());
  if (last)
    index = createBinary<tosa::SubOp>(b, scalarLike(b, index, shape[*axis] - 1),
                                      index);
  if (ctx.getInt("keepdims", 1)) {
    SmallVector<int64_t> kept(shape);
    kept[*axis] = 1;
    index = createReshape(b, index, kept);
  }
  ctx.setOutput(0, index);
  return success();
}

} // namespace

void registerTensorOps(ConverterMap &map) {
  map["Constant"] = convertConstant;
  map["Identity"] = convertIdentity;
  map["Dropout"] = convertDropout;
  map["Shape"] = convertShape;
  map["Size"] = convertSize;
  map["ConstantOfShape"] = convertConstantOfShape;
  map["Range"] = convertRange;
  map["Reshape"] = convertReshape;
  map["Flatten"] = convertFlatten;
  map["Squeeze"] = convertSqueeze;
  map["Unsqueeze"] = convertUnsqueeze;
  map["Transpose"] = convertTranspose;
  map["DepthToSpace"] = convertDepthToSpace;
  map["SpaceToDepth"] = convertSpaceToDepth;
  map["Concat"] = convertConcat;
  map["Split"] = convertSplit;
  map["Slice"] = convertSlice;
  map["Pad"] = convertPad;
  map["Tile"] = convertTile;
  map["Expand"] = convertExpand;
  map["ReduceSum"] = convertReduce<Reduction::Sum>;
  map["ReduceMean"] = convertReduce<Reduction::Mean>;
  map["ReduceMax"] = convertReduce<Reduction::Max>;
  map["ReduceMin"] = convertReduce<Reduction::Min>;
  map["ReduceProd"] = convertReduce<Reduction::Prod>;
  map["ReduceL1"] = convertReduce<Reduction::L1>;
  map["ReduceL2"] = convertReduce<Reduction::L2>;
  map["ReduceSumSquare"] = convertReduce<Reduction::SumSquare>;
  map["ReduceLogSum"] = convertReduce<Reduction::LogSum>;
  map["ReduceLogSumExp"] = convertReduce<Reduction::LogSumExp>;
  map["ArgMax"] = convertArgMax<false>;
  map["ArgMin"] = convertArgMax<true>;
}

} // namespace loupe::frontends::onnx_import
