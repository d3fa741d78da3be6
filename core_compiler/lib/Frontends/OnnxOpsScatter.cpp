//===- OnnxOpsScatter.cpp - TopK and the Scatter family -> TOSA -----------===//
//
// TopK: k rounds of tosa.argmax, each masking out the element it chose. The
// selection is stable: ties come out lowest index first, as the ONNX TopK
// spec requires (onnx/defs/math/defs.cc). The backend-test reference
// (onnx/backend/test/case/node/topk.py) flips an ascending np.argsort for
// `largest`, which would put the highest index first; its tests have no ties.
//
// ScatterElements, Scatter and ScatterND (reduction none/add/mul/max/min;
// references onnx/backend/test/case/node/scatterelements.py, scatternd.py)
// all become one batched scatter of W update rows into K data rows,
// [B, K, C] <- [B, W, C], written with a [B, K, W] one-hot comparison of row
// ids against the indices instead of tosa.scatter: the TOSA spec forbids
// duplicate indices in tosa.scatter, and our pipeline does not lower it (it
// needs tosa-to-scf). Duplicates get the reference's meaning: for `none` the
// last update wins (numpy fancy assignment), `add` on floats is one
// tosa.matmul of the one-hot matrix by the updates, the other reductions
// reduce a [B, K, W, C] select over W. The comparison costs O(B*K*W)
// elements, O(B*K*W*C) where expanded, and is refused beyond
// kMaxScatterElements.
//
//===----------------------------------------------------------------------===//

#include "OnnxOps.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

namespace loupe::frontends::onnx_import {

namespace {

/// Most rounds of TopK: each is a few ops over the whole input.
constexpr int64_t kMaxTopK = 256;
/// Most elements of the one-hot comparison (times C where it is expanded).
constexpr int64_t kMaxScatterElements = int64_t(1) << 24;

enum class Extreme { Lowest, LowestFinite, Highest };

/// An extreme value of `elementType` as a splat with `rank` unit dims: for
/// floats -inf, the most negative finite value or +inf; for integers the
/// signed minimum (also for LowestFinite) or maximum.
Value createExtreme(ImplicitLocOpBuilder &b, Type elementType, int64_t rank,
                    Extreme which) {
  auto type = getTensorType(SmallVector<int64_t>(rank, 1), elementType);
  if (auto floatType = dyn_cast<FloatType>(elementType)) {
    const llvm::fltSemantics &sem = floatType.getFloatSemantics();
    APFloat value = which == Extreme::LowestFinite
                        ? APFloat::getLargest(sem, /*Negative=*/true)
                        : APFloat::getInf(sem, which == Extreme::Lowest);
    return createConst(b, DenseElementsAttr::get(type, ArrayRef<APFloat>(value)));
  }
  unsigned width = elementType.getIntOrFloatBitWidth();
  APInt value = which == Extreme::Highest ? APInt::getSignedMaxValue(width)
                                          : APInt::getSignedMinValue(width);
  return createConst(b, DenseElementsAttr::get(type, ArrayRef<APInt>(value)));
}

/// The permutation moving `axis` last, and its inverse.
std::pair<SmallVector<int64_t>, SmallVector<int64_t>> axisLastPerm(int64_t axis,
                                                                    int64_t rank) {
  SmallVector<int64_t> perm, inverse(rank);
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis)
      perm.push_back(d);
  perm.push_back(axis);
  for (int64_t d = 0; d < rank; ++d)
    inverse[perm[d]] = d;
  return {perm, inverse};
}

//===----------------------------------------------------------------------===//
// TopK
//===----------------------------------------------------------------------===//

/// TopK on the input viewed as [rows, n] (axis last). Each round takes the
/// first maximum of the keys with the chosen elements masked to the lowest
/// value. MLIR 19 lowers tosa.argmax as a strict `>` scan from the lowest
/// finite value (INT_MIN for integers), which never finds keys at or
/// below it; rows with only such keys left take the first unchosen key equal
/// to that value, else the first unchosen one, so nothing is chosen twice.
/// `smallest` selects on an order-reversing key: -x for floats, ~x (= -x - 1,
/// which cannot overflow) for integers.
LogicalResult convertTopK(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value x = ctx.input(0);
  ArrayRef<int64_t> shape = getShape(x);
  int64_t rank = shape.size();
  auto axis = normalizeAxis(ctx.getInt("axis", -1), rank);
  if (!axis)
    return ctx.unsupportedAttr("axis", Twine(ctx.getInt("axis", -1)));
  Type elementType = getElementType(x);
  if (elementType.isInteger(1))
    return ctx.fail("boolean input is not supported");

  // k: an attribute before opset 10, then an input; a non-constant input
  // takes k from the output's static shape.
  int64_t k;
  if (ctx.opset() < 10) {
    k = ctx.getInt("k", 0);
  } else if (ctx.constantInput(1)) {
    auto values = ctx.constantIntsInput(1);
    if (failed(values))
      return failure();
    if (values->size() != 1)
      return ctx.fail("k must hold one value");
    k = values->front();
  } else {
    auto type = ctx.outputType(0);
    if (failed(type))
      return failure();
    if (type->getRank() != rank)
      return ctx.fail("output 0 must have the input's rank");
    k = type->getDimSize(*axis);
  }
  int64_t n = shape[*axis];
  if (k < 1 || k > n)
    return ctx.fail("k = " + Twine(k) + " must be in [1, " + Twine(n) + "]");
  if (k > kMaxTopK)
    return ctx.fail("k = " + Twine(k) + " is above the supported " +
                    Twine(kMaxTopK) + " (one argmax round per element)");

  auto [perm, inverse] = axisLastPerm(*axis, rank);
  Value moved = createTranspose(b, x, perm);
  SmallVector<int64_t> movedShape(getShape(moved));
  int64_t rows = getNumElements(shape) / n;
  Value values = createReshape(b, moved, {rows, n});
  Value keys = values;
  if (!ctx.getInt("largest", 1))
    keys = isa<FloatType>(elementType)
               ? createUnary<tosa::NegateOp>(b, values)
               : createUnary<tosa::BitwiseNotOp>(b, values);

  Type i32 = b.getI32Type(), i1 = b.getI1Type();
  auto argmax = [&](Value v) {
    Value index = b.create<tosa::ArgMaxOp>(getTensorType({rows}, i32), v,
                                           b.getI32IntegerAttr(1));
    return createReshape(b, index, {rows, 1});
  };
  Value lowest = createExtreme(b, elementType, 2, Extreme::Lowest);
  Value lowestFinite = createExtreme(b, elementType, 2, Extreme::LowestFinite);
  Value positions = createIota(b, n, 1, 2);
  // Fallback priority of each key: 2 at `lowestFinite`, 1 below, 0 once chosen.
  Value priority = createSelect(
      b, createBinary<tosa::GreaterEqualOp>(b, keys, lowestFinite, i1),
      createScalar(b, i32, 2, 2), createScalar(b, i32, 1, 2));
  Value taken; // [rows, n] i1: chosen in an earlier round
  SmallVector<Value> chosen;
  for (int64_t round = 0; round < k; ++round) {
    Value masked = taken ? createSelect(b, taken, lowest, keys) : keys;
    Value live = createReduce<tosa::ReduceAnyOp>(
        b, createBinary<tosa::GreaterOp>(b, masked, lowestFinite, i1), 1);
    Value fallback =
        taken ? createSelect(b, taken, createScalar(b, i32, 0, 2), priority)
              : priority;
    Value index = createSelect(b, live, argmax(masked), argmax(fallback));
    Value hit = createBinary<tosa::EqualOp>(b, positions, index, i1);
    taken = taken ? createBinary<tosa::LogicalOrOp>(b, taken, hit) : hit;
    chosen.push_back(index);
  }
  Value indices = createConcat(b, chosen, 1); // [rows, k] i32
  Value gathered = b.create<tosa::GatherOp>(
      getTensorType({rows, k, 1}, elementType),
      createReshape(b, values, {rows, n, 1}), indices);

  movedShape.back() = k;
  auto restore = [&](Value v) {
    return createTranspose(b, createReshape(b, v, movedShape), inverse);
  };
  ctx.setOutput(0, restore(gathered));
  ctx.setOutput(1, restore(createCast(b, indices, b.getI64Type())));
  return success();
}

//===----------------------------------------------------------------------===//
// Scatter family
//===----------------------------------------------------------------------===//

enum class Reduction { None, Add, Mul, Max, Min };

FailureOr<Reduction> getReduction(NodeContext &ctx) {
  std::string name = ctx.getString("reduction", "none");
  auto reduction = llvm::StringSwitch<std::optional<Reduction>>(name)
                       .Case("none", Reduction::None)
                       .Case("add", Reduction::Add)
                       .Case("mul", Reduction::Mul)
                       .Case("max", Reduction::Max)
                       .Case("min", Reduction::Min)
                       .Default(std::nullopt);
  if (!reduction)
    return ctx.unsupportedAttr("reduction", "'" + name + "'");
  return *reduction;
}

/// Writes the rows of `updates` [B, W, C] into `data` [B, K, C] at the i32
/// row indices `indices` [B, W], each in [0, K], where K drops the update.
/// Duplicate indices combine by `reduction`; for `none` the last one wins.
FailureOr<Value> scatterRows(NodeContext &ctx, Value data, Value indices,
                             Value updates, Reduction reduction) {
  ImplicitLocOpBuilder &b = ctx.b;
  ArrayRef<int64_t> shape = getShape(data);
  int64_t batch = shape[0], k = shape[1], c = shape[2];
  int64_t w = getShape(indices)[1];
  Type elementType = getElementType(data), i32 = b.getI32Type();
  bool matmul = reduction == Reduction::Add && isFloat(data);
  bool expanded = reduction != Reduction::None && !matmul;
  int64_t cost = batch * k * w * (expanded ? c : 1);
  if (cost > kMaxScatterElements)
    return ctx.fail("the scatter compares every index with every row, " +
                    Twine(cost) + " elements; at most " +
                    Twine(kMaxScatterElements) + " are supported");

  // hit[b, k, w]: update w writes row k.
  Value hit = createBinary<tosa::EqualOp>(
      b, createIota(b, k, 1, 3), createReshape(b, indices, {batch, 1, w}),
      b.getI1Type());
  if (reduction == Reduction::None) {
    // Per row, the last update writing it (-1 if none), gathered.
    Value none = createScalar(b, i32, -1, 3), zero = createScalar(b, i32, 0, 3);
    Value last = createReduce<tosa::ReduceMaxOp>(
        b, createSelect(b, hit, createIota(b, w, 2, 3), none), 2);
    Value rows = createReshape(
        b, createBinary<tosa::MaximumOp>(b, last, zero), {batch, k});
    Value picked = b.create<tosa::GatherOp>(
        getTensorType({batch, k, c}, elementType), updates, rows);
    Value written =
        createBinary<tosa::GreaterEqualOp>(b, last, zero, b.getI1Type());
    return createSelect(b, written, picked, data);
  }
  if (matmul) {
    Value sums = b.create<tosa::MatMulOp>(
        getTensorType({batch, k, c}, elementType),
        createCast(b, hit, elementType), updates);
    return createBinary<tosa::AddOp>(b, data, sums);
  }
  // The updates of each row, others replaced by the reduction's identity,
  // reduced over W and combined with the data.
  Value identity;
  switch (reduction) {
  case Reduction::Add:
    identity = createScalar(b, elementType, 0, 4);
    break;
  case Reduction::Mul:
    identity = createScalar(b, elementType, 1, 4);
    break;
  case Reduction::Max:
    identity = createExtreme(b, elementType, 4, Extreme::Lowest);
    break;
  default:
    identity = createExtreme(b, elementType, 4, Extreme::Highest);
  }
  Value spread = createSelect(b, createReshape(b, hit, {batch, k, w, 1}),
                              createReshape(b, updates, {batch, 1, w, c}),
                              identity);
  Value reduced;
  switch (reduction) {
  case Reduction::Add:
    reduced = createReduce<tosa::ReduceSumOp>(b, spread, 2);
    return createBinary<tosa::AddOp>(b, data, createReshape(b, reduced, shape));
  case Reduction::Mul:
    reduced = createReduce<tosa::ReduceProdOp>(b, spread, 2);
    return createMul(b, data, createReshape(b, reduced, shape));
  case Reduction::Max:
    reduced = createReshape(
        b, createReduce<tosa::ReduceMaxOp>(b, spread, 2), shape);
    reduced = createBinary<tosa::MaximumOp>(b, data, reduced);
    break;
  default:
    reduced = createReshape(
        b, createReduce<tosa::ReduceMinOp>(b, spread, 2), shape);
    reduced = createBinary<tosa::MinimumOp>(b, data, reduced);
  }
  // MLIR 19 lowers tosa.reduce_max/min from the largest finite value, not
  // from inf, so rows no update writes keep their data as it is.
  Value written = createReduce<tosa::ReduceAnyOp>(b, hit, 2);
  return createSelect(b, written, reduced, data);
}

/// ScatterElements (and Scatter): update (.., i, ..) goes to data position
/// (.., indices[.., i, ..], ..) along `axis`. With the axis moved last, each
/// position off the axis is one batch of the row scatter (C = 1); indices
/// smaller than the data off the axis are padded with updates that write the
/// missing row n.
LogicalResult convertScatterElements(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value data = ctx.input(0), indices = ctx.input(1), updates = ctx.input(2);
  ArrayRef<int64_t> shape = getShape(data), idxShape = getShape(indices);
  int64_t rank = shape.size();
  auto axis = normalizeAxis(ctx.getInt("axis", 0), rank);
  if (!axis)
    return ctx.unsupportedAttr("axis", Twine(ctx.getInt("axis", 0)));
  if (idxShape != getShape(updates) ||
      static_cast<int64_t>(idxShape.size()) != rank)
    return ctx.fail("indices and updates must have one shape, of the data's "
                    "rank");
  auto reduction = getReduction(ctx);
  if (failed(reduction))
    return failure();
  if (getNumElements(idxShape) == 0) {
    ctx.setOutput(0, data);
    return success();
  }
  int64_t n = shape[*axis], m = idxShape[*axis];
  SmallVector<int64_t> pads(2 * rank, 0);
  for (int64_t d = 0; d < rank; ++d) {
    if (d == *axis)
      continue;
    if (idxShape[d] > shape[d])
      return ctx.fail("indices dim " + Twine(d) + " is larger than the data's");
    pads[2 * d + 1] = shape[d] - idxShape[d];
  }
  Value idx = normalizeIndices(b, indices,
                               createScalar(b, b.getI32Type(), n, rank));
  idx = createPad(b, idx, pads, n);
  updates = createPad(b, updates, pads, 0);

  auto [perm, inverse] = axisLastPerm(*axis, rank);
  Value moved = createTranspose(b, data, perm);
  SmallVector<int64_t> movedShape(getShape(moved));
  int64_t batch = getNumElements(shape) / n;
  auto result = scatterRows(
      ctx, createReshape(b, moved, {batch, n, 1}),
      createReshape(b, createTranspose(b, idx, perm), {batch, m}),
      createReshape(b, createTranspose(b, updates, perm), {batch, m, 1}),
      *reduction);
  if (failed(result))
    return failure();
  ctx.setOutput(0, createTranspose(b, createReshape(b, *result, movedShape),
                                   inverse));
  return success();
}

/// ScatterND: each index tuple (the last indices dim, `depth` long) names a
/// row of the data viewed as [prod(dims[:depth]), prod(dims[depth:])], and
/// the matching updates slice is written there.
LogicalResult convertScatterND(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value data = ctx.input(0), indices = ctx.input(1), updates = ctx.input(2);
  ArrayRef<int64_t> shape = getShape(data), idxShape = getShape(indices);
  int64_t rank = shape.size(), q = idxShape.size();
  int64_t depth = q ? idxShape.back() : 0;
  if (depth < 1 || depth > rank)
    return ctx.fail("the last indices dim must be in [1, data rank]");
  SmallVector<int64_t> expected(idxShape.drop_back());
  llvm::append_range(expected, shape.drop_front(depth));
  if (getShape(updates) != ArrayRef<int64_t>(expected))
    return ctx.fail("updates must have shape indices.shape[:-1] + "
                    "data.shape[indices.shape[-1]:]");
  auto reduction = getReduction(ctx);
  if (failed(reduction))
    return failure();
  int64_t w = getNumElements(idxShape.drop_back());
  if (w == 0) {
    ctx.setOutput(0, data);
    return success();
  }
  ArrayRef<int64_t> sliced = shape.take_front(depth);
  int64_t k = getNumElements(sliced);
  int64_t c = getNumElements(shape.drop_front(depth));

  // Row of each tuple: the normalized coordinates dotted with the strides.
  SmallVector<int64_t> lastDim(q, 1);
  lastDim.back() = depth;
  SmallVector<int32_t> dims(sliced.begin(), sliced.end()), strides;
  for (int64_t s : getStrides(sliced))
    strides.push_back(s);
  Value idx = normalizeIndices(b, indices, createI32Const(b, dims, lastDim));
  idx = createMul(b, idx, createI32Const(b, strides, lastDim));
  idx = createReduce<tosa::ReduceSumOp>(b, idx, q - 1);

  auto result = scatterRows(ctx, createReshape(b, data, {1, k, c}),
                            createReshape(b, idx, {1, w}),
                            createReshape(b, updates, {1, w, c}), *reduction);
  if (failed(result))
    return failure();
  ctx.setOutput(0, createReshape(b, *result, shape));
  return success();
}

} // namespace

void registerScatterOps(ConverterMap &map) {
  map["TopK"] = convertTopK;
  map["ScatterElements"] = convertScatterElements;
  map["Scatter"] = convertScatterElements;
  map["ScatterND"] = convertScatterND;
}

} // namespace loupe::frontends::onnx_import
