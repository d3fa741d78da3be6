//===- OnnxOpsUnique.cpp - Unique -> static-size TOSA comparisons ---------===//
//
// ONNX Unique (opset 11; onnx/defs/tensor/defs.cc, reference
// onnx/backend/test/case/node/unique.py, i.e. numpy.unique): the distinct values of the
// flattened input, or the distinct slices along `axis`, with the index of each one's first
// occurrence, each element's slot (inverse_indices) and each value's count. `sorted` = 1
// orders them ascending (slices lexicographically, as numpy compares the flattened slices);
// `sorted` = 0 keeps the order of first occurrence.
//
// How many values are distinct depends on the data, and Loupe compiles static shapes: the
// converter takes that number K from the shapes the model declares for Y, indices or
// counts, computes exactly K, and checks at run time that the data hold K distinct values.
//
// Over n slices of m elements it builds, with static shapes only:
//   firstDiff [n, n]  first position where slices i and j differ (m when equal),
//   firstOcc  [n]     no equal slice comes before i,
//   slot      [n]     the slot of i's value: sorted, how many distinct values are smaller;
//                     unsorted, how many first occurrences come before i's first occurrence,
// then a one-hot [K, n] of (firstOcc, slot) picks the index of each slot, which gathers Y
// and counts (row sums of equality). The comparison holds n*n*m elements and is refused
// beyond kMaxComparisonElements. NaN equals nothing, not even itself (numpy before 1.21);
// sorted output with NaNs is left undefined.
//
//===----------------------------------------------------------------------===//

#include "OnnxOps.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"

using namespace mlir;

namespace loupe::frontends::onnx_import {
namespace {

/// Most elements of the [n, n, m] slice comparison (n = 4096 single values).
constexpr int64_t kMaxComparisonElements = int64_t(1) << 24;

/// The number of distinct values the model declares: dim `axis` of Y (dim 0 when
/// flattened), else dim 0 of indices or counts; fails (reporting) when none is static.
FailureOr<int64_t> declaredUniqueCount(NodeContext &ctx, int64_t rank,
                                       std::optional<int64_t> axis) {
  if (RankedTensorType y = ctx.knownOutputType(0)) {
    if (y.getRank() != (axis ? rank : 1))
      return ctx.fail("output Y must have rank " + Twine(axis ? rank : 1));
    return y.getDimSize(axis.value_or(0));
  }
  for (unsigned i : {1u, 3u})
    if (RankedTensorType type = ctx.knownOutputType(i); type && type.getRank() == 1)
      return type.getDimSize(0);
  return ctx.fail("the number of unique values depends on the data: the model must declare "
                  "a static shape for output Y, indices or counts");
}

/// For `rows` [n, m]: the first position p where rows i and j differ, m when they are
/// equal, as [n, n] i32; and, when `order`, whether row i > row j lexicographically, [n, n]
/// i1 (else null).
std::pair<Value, Value> compareRows(ImplicitLocOpBuilder &b, Value rows, bool order) {
  int64_t n = getShape(rows)[0], m = getShape(rows)[1];
  Type i1 = b.getI1Type(), i32 = b.getI32Type();
  Value lhs = createReshape(b, rows, {n, 1, m}), rhs = createReshape(b, rows, {1, n, m});
  Value positions = createIota(b, m, 2, 3);
  Value equal = createBinary<tosa::EqualOp>(b, lhs, rhs, i1);
  Value firstDiff = createReduce<tosa::ReduceMinOp>(
      b, createSelect(b, equal, createScalar(b, i32, m, 3), positions), 2);
  if (!order)
    return {createReshape(b, firstDiff, {n, n}), nullptr};
  Value greater = createBinary<tosa::GreaterOp>(b, lhs, rhs, i1);
  if (m > 1)
    greater = createReduce<tosa::ReduceAnyOp>(
        b,
        createBinary<tosa::LogicalAndOp>(
            b, greater, createBinary<tosa::EqualOp>(b, positions, firstDiff, i1)),
        2);
  return {createReshape(b, firstDiff, {n, n}), createReshape(b, greater, {n, n})};
}

/// Sum over dim 1 of `mask` [a, n] i1 counted as 1, as [a, 1] i32.
Value countTrue(ImplicitLocOpBuilder &b, Value mask) {
  Type i32 = b.getI32Type();
  return createReduce<tosa::ReduceSumOp>(
      b, createSelect(b, mask, createScalar(b, i32, 1, 2), createScalar(b, i32, 0, 2)), 1);
}

LogicalResult convertUnique(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value x = ctx.input(0);
  ArrayRef<int64_t> shape = getShape(x);
  int64_t rank = shape.size();
  std::optional<int64_t> axis;
  if (ctx.hasAttr("axis")) {
    axis = normalizeAxis(ctx.getInt("axis", 0), rank);
    if (!axis)
      return ctx.unsupportedAttr("axis", Twine(ctx.getInt("axis", 0)));
  }
  if (getNumElements(shape) == 0)
    return ctx.fail("empty input is not supported");
  auto k = declaredUniqueCount(ctx, rank, axis);
  if (failed(k))
    return failure();

  // The input as n slices of m elements, `axis` moved first.
  SmallVector<int64_t> perm, inverse(rank);
  if (axis) {
    perm.push_back(*axis);
    for (int64_t d = 0; d < rank; ++d)
      if (d != *axis)
        perm.push_back(d);
    for (int64_t d = 0; d < rank; ++d)
      inverse[perm[d]] = d;
  }
  Value moved = axis ? createTranspose(b, x, perm) : x;
  int64_t n = axis ? shape[*axis] : getNumElements(shape);
  int64_t m = getNumElements(shape) / n;
  if (*k < 1 || *k > n)
    return ctx.fail("the model declares " + Twine(*k) + " unique values, outside [1, " +
                    Twine(n) + "]");
  if (n * n * m > kMaxComparisonElements)
    return ctx.fail(Twine(n) + " slices of " + Twine(m) + " elements: their pairwise "
                    "comparison of n*n*m = " + Twine(n * n * m) +
                    " elements is above the supported " + Twine(kMaxComparisonElements));
  Type elementType = getElementType(x);
  Value rows = createReshape(b, moved, {n, m});
  if (elementType.isInteger(1)) // TOSA orders no booleans
    rows = createCast(b, rows, b.getIntegerType(8));

  Type i1 = b.getI1Type(), i32 = b.getI32Type(), i64 = b.getI64Type();
  bool sorted = ctx.getInt("sorted", 1);
  auto [firstDiff, greater] = compareRows(b, rows, sorted);
  Value equal = createBinary<tosa::EqualOp>(b, firstDiff, createScalar(b, i32, m, 2), i1);
  Value column = createIota(b, n, 1, 2), row = createIota(b, n, 0, 2);
  Value earlier = createBinary<tosa::GreaterOp>(b, row, column, i1); // [i, j]: j < i
  Value firstOcc = createUnary<tosa::LogicalNotOp>(
      b, createReduce<tosa::ReduceAnyOp>(
             b, createBinary<tosa::LogicalAndOp>(b, equal, earlier), 1)); // [n, 1]
  // precedes[i, j]: the value of j (a first occurrence) takes a slot before i's.
  Value precedes = greater;
  if (!sorted) {
    Value firstIndex = createReduce<tosa::ReduceMinOp>(
        b, createSelect(b, equal, column, createScalar(b, i32, n, 2)), 1);
    precedes = createBinary<tosa::GreaterOp>(b, firstIndex, column, i1);
  }
  Value firstOccRow = createReshape(b, firstOcc, {1, n});
  Value slot = countTrue(b, createBinary<tosa::LogicalAndOp>(b, precedes, firstOccRow));

  Value distinct = createReshape(b, countTrue(b, firstOccRow), {1});
  createRuntimeCheck(
      b, createBinary<tosa::EqualOp>(b, distinct, createI32Const(b, {int32_t(*k)}, {1}), i1),
      "the input holds a number of distinct " + std::string(axis ? "slices" : "values") +
          " other than the " + std::to_string(*k) + " the model declares");

  // indices: the first occurrence filling each slot.
  Value slotIsK = createBinary<tosa::EqualOp>(b, createReshape(b, slot, {1, n}),
                                              createIota(b, *k, 0, 2), i1); // [K, n]
  Value pick = createBinary<tosa::LogicalAndOp>(b, slotIsK, firstOccRow);
  Value indices = createReduce<tosa::ReduceSumOp>(
      b, createSelect(b, pick, column, createScalar(b, i32, 0, 2)), 1); // [K, 1]

  SmallVector<int64_t> yShape{*k};
  if (axis) {
    yShape.assign(getShape(moved).begin(), getShape(moved).end());
    yShape.front() = *k;
  }
  Value y = gatherRows(b, createReshape(b, rows, {1, n, m}), indices, yShape);
  y = createCast(b, y, elementType);
  ctx.setOutput(0, axis ? createTranspose(b, y, inverse) : createReshape(b, y, {*k}));
  ctx.setOutput(1, createCast(b, createReshape(b, indices, {*k}), i64));
  ctx.setOutput(2, createCast(b, createReshape(b, slot, {n}), i64));
  Value counts = gatherRows(b, createReshape(b, countTrue(b, equal), {1, n, 1}), indices, {*k});
  ctx.setOutput(3, createCast(b, counts, i64));
  return success();
}

} // namespace

void registerUniqueOps(ConverterMap &map) { map["Unique"] = convertUnique; }

} // namespace loupe::frontends::onnx_import
