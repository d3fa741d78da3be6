//===- OnnxOpsDetection.cpp - NonMaxSuppression -> TOSA ---------------------===//
//
// NonMaxSuppression, opset 10 and 11 (ONNX operator spec, onnx/defs/object_detection/defs.cc;
// tests onnx/backend/test/case/node/nonmaxsuppression.py, whose expected outputs come from
// onnxruntime: the IoU test and its treatment of empty boxes follow its SuppressByIOU in
// onnxruntime/core/providers/cpu/object_detection/nms_helper.h). Per batch and class the boxes
// are taken greedily by descending score, ties lower index first: a box is selected when its
// score is above score_threshold (when given), its IoU with each box already selected for
// that batch and class is at most iou_threshold (default 0), and fewer than
// max_output_boxes_per_class (default 0: none) are selected. The output rows
// [batch, class, box] run by batch, then class, then selection order.
//
// How many boxes are selected depends on the data, and Loupe compiles static shapes: the
// converter fills exactly the rows the model declares and adds a run-time check that the data
// select that many. It is built from static-size TOSA ops, per (batch, class) row of R rows:
//  1. the box of each rank: a box's rank counts the boxes ordered before it, and a one-hot
//     comparison inverts it (O(N^2) per row); one tosa.gather puts the boxes in rank order;
//  2. which ranked box suppresses which: one linalg.generic over the N x N pairs;
//  3. the greedy pass unrolled over the N ranks, five ops each: rank r is kept unless it is
//     blocked (by the score threshold or a kept box), and then blocks what it suppresses;
//  4. the max_output_boxes_per_class limit keeps the first kept boxes of each row: a step
//     depends only on the earlier ones, so limiting afterwards equals stopping early;
//  5. compaction: a selected box's output row counts the selected boxes before it (within
//     its row, plus the earlier rows' counts), and output row k sums the one-hot choice of
//     the box whose row is k.
// Only that gather reads a tensor inside a linalg body, and it reads the boxes input itself:
// loupe-form-clusters orders clusters by operands only, and an unrolled chain of gathers
// (an earlier version gathered in every greedy step) made it build a cluster cycle.
//
//===----------------------------------------------------------------------===//

#include "OnnxOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"

#include <array>
#include <limits>

using namespace mlir;

namespace loupe::frontends::onnx_import {

namespace {

/// Most boxes per batch. The greedy pass is unrolled over them, five ops each, and compile
/// time grows faster than the op count (bufferization, LLVM): 12 s at 100 boxes, 5 minutes
/// at 300 on a 2-core machine.
constexpr int64_t kMaxBoxes = 256;

/// Optional one-element input `i` as a [1, ..., 1] (`rank` dims) tensor of `elementType`,
/// or `fallback` when it is absent.
FailureOr<Value> scalarInput(NodeContext &ctx, unsigned i, Type elementType,
                             double fallback, int64_t rank) {
  if (!ctx.hasInput(i))
    return createScalar(ctx.b, elementType, fallback, rank);
  Value value = ctx.input(i);
  if (getNumElements(getShape(value)) != 1)
    return ctx.fail("input " + Twine(i) + " ('" + ctx.inputName(i) +
                    "') must hold one value");
  return createCast(ctx.b, createReshape(ctx.b, value, SmallVector<int64_t>(rank, 1)),
                    elementType);
}

/// isRank[row, r, i], i1 [R, N, N]: box i has rank r in its row of `scores` [R, N]. Rank 0
/// is the highest score, equal scores lower index first, NaN as -inf; a box's rank counts
/// the boxes ordered before it.
Value rankOneHot(ImplicitLocOpBuilder &b, Value scores) {
  int64_t rows = getShape(scores)[0], n = getShape(scores)[1];
  Type i1 = b.getI1Type();
  Value isNumber = createBinary<tosa::EqualOp>(b, scores, scores, i1);
  Value key = createSelect(b, isNumber, scores,
                           scalarLike(b, scores, -std::numeric_limits<double>::infinity()));
  Value keyI = createReshape(b, key, {rows, n, 1}), keyJ = createReshape(b, key, {rows, 1, n});
  Value iotaI = createIota(b, n, 1, 3), iotaJ = createIota(b, n, 2, 3);
  // before[row, i, j]: box j is ordered before box i.
  Value before = createBinary<tosa::LogicalOrOp>(
      b, createBinary<tosa::GreaterOp>(b, keyJ, keyI, i1),
      createBinary<tosa::LogicalAndOp>(b, createBinary<tosa::EqualOp>(b, keyJ, keyI, i1),
                                       createBinary<tosa::GreaterOp>(b, iotaI, iotaJ, i1)));
  Value rank = createReduce<tosa::ReduceSumOp>(b, createCast(b, before, b.getI32Type()), 2);
  return createBinary<tosa::EqualOp>(b, createReshape(b, rank, {rows, 1, n}), iotaI, i1);
}

/// Sums `values` [R, N] (i32, or i1 counted as 0/1) where the one-hot `choice` [R or 1, M, N]
/// is set: i32 [R, M]. Picks the chosen element of each row, 0 where none is chosen.
Value sumChosen(ImplicitLocOpBuilder &b, Value choice, Value values) {
  ArrayRef<int64_t> shape = getShape(values);
  Type i32 = b.getI32Type();
  Value picked = createSelect(b, choice, createReshape(b, createCast(b, values, i32),
                                                       {shape[0], 1, shape[1]}),
                              createScalar(b, i32, 0, 3));
  Value sum = createReduce<tosa::ReduceSumOp>(b, picked, 2);
  return createReshape(b, sum, {getShape(sum)[0], getShape(sum)[1]});
}

/// Exclusive prefix sums along each row of `values` [R, N] (i32, or i1 counted as 0/1).
Value sumBefore(ImplicitLocOpBuilder &b, Value values) {
  int64_t n = getShape(values)[1];
  Value earlier = createBinary<tosa::GreaterOp>(b, createIota(b, n, 1, 3),
                                                createIota(b, n, 2, 3), b.getI1Type());
  return sumChosen(b, earlier, values);
}

/// Each box's extent along x and y as four [R, N, 1] tensors (xmin, xmax, ymin, ymax), from
/// `boxes` [R, N, 4]: corners (y1, x1, y2, x2) in any order, or with `center`
/// (x_center, y_center, width, height).
std::array<Value, 4> boxExtents(ImplicitLocOpBuilder &b, Value boxes, bool center) {
  auto column = [&](int64_t i) { return createSliceAxis(b, boxes, 2, i, 1); };
  if (center) {
    Value half = scalarLike(b, boxes, 0.5);
    Value halfWidth = createMul(b, column(2), half);
    Value halfHeight = createMul(b, column(3), half);
    return {createBinary<tosa::SubOp>(b, column(0), halfWidth),
            createBinary<tosa::AddOp>(b, column(0), halfWidth),
            createBinary<tosa::SubOp>(b, column(1), halfHeight),
            createBinary<tosa::AddOp>(b, column(1), halfHeight)};
  }
  return {createBinary<tosa::MinimumOp>(b, column(1), column(3)),
          createBinary<tosa::MaximumOp>(b, column(1), column(3)),
          createBinary<tosa::MinimumOp>(b, column(0), column(2)),
          createBinary<tosa::MaximumOp>(b, column(0), column(2))};
}

/// suppresses[row, i, j], i1 [R, N, N]: boxes i and j of a row overlap with an IoU above
/// `iouThreshold` ([1, 1, 1]). As in onnxruntime's SuppressByIOU, pairs whose intersection
/// or either area is empty never suppress. `extents` as boxExtents returns.
Value suppressionMatrix(ImplicitLocOpBuilder &b, const std::array<Value, 4> &extents,
                        Value iouThreshold) {
  ArrayRef<int64_t> shape = getShape(extents[0]);
  SmallVector<Value> operands(extents.begin(), extents.end()); // box i: [R, N, 1]
  for (Value e : extents)                                        // box j: [R, 1, N]
    operands.push_back(createReshape(b, e, {shape[0], 1, shape[1]}));
  operands.push_back(iouThreshold);
  return createElementwise(
      b, operands, b.getI1Type(), [](OpBuilder &nb, Location loc, ValueRange args) {
        auto max = [&](Value x, Value y) { return nb.create<arith::MaximumFOp>(loc, x, y); };
        auto min = [&](Value x, Value y) { return nb.create<arith::MinimumFOp>(loc, x, y); };
        auto sub = [&](Value x, Value y) { return nb.create<arith::SubFOp>(loc, x, y); };
        auto mul = [&](Value x, Value y) { return nb.create<arith::MulFOp>(loc, x, y); };
        auto greater = [&](Value x, Value y) {
          return nb.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGT, x, y).getResult();
        };
        ValueRange i = args.take_front(4), j = args.slice(4, 4);
        Value zero = nb.create<arith::ConstantOp>(loc, nb.getZeroAttr(args[0].getType()));
        Value xLo = max(i[0], j[0]), xHi = min(i[1], j[1]);
        Value yLo = max(i[2], j[2]), yHi = min(i[3], j[3]);
        Value intersection = mul(sub(xHi, xLo), sub(yHi, yLo));
        Value areaI = mul(sub(i[1], i[0]), sub(i[3], i[2]));
        Value areaJ = mul(sub(j[1], j[0]), sub(j[3], j[2]));
        Value unionArea = sub(nb.create<arith::AddFOp>(loc, areaI, areaJ), intersection);
        Value iou = nb.create<arith::DivFOp>(loc, intersection, unionArea);
        Value suppress = greater(iou, args[8]);
        for (Value condition : {greater(xHi, xLo), greater(yHi, yLo), greater(intersection, zero),
                                greater(areaI, zero), greater(areaJ, zero),
                                greater(unionArea, zero)})
          suppress = nb.create<arith::AndIOp>(loc, suppress, condition);
        return suppress;
      });
}

/// The greedy pass over the ranks of each row: rank r is kept unless `blocked` [R, N] i1
/// (the score threshold) or a kept earlier rank that `suppresses` [R, N, N] i1 it rules it
/// out. Returns kept, i1 [R, N].
Value greedySelect(ImplicitLocOpBuilder &b, Value suppresses, Value blocked) {
  int64_t rows = getShape(blocked)[0], n = getShape(blocked)[1];
  blocked = createReshape(b, blocked, {rows, 1, n});
  SmallVector<Value> kept;
  for (int64_t r = 0; r < n; ++r) {
    Value keep =
        createUnary<tosa::LogicalNotOp>(b, createSliceAxis(b, blocked, 2, r, 1)); // [R, 1, 1]
    kept.push_back(keep);
    if (r + 1 < n)
      blocked = createBinary<tosa::LogicalOrOp>(
          b, blocked,
          createBinary<tosa::LogicalAndOp>(b, createSliceAxis(b, suppresses, 1, r, 1), keep));
  }
  return createReshape(b, createConcat(b, kept, 2), {rows, n});
}

LogicalResult convertNonMaxSuppression(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value boxes = ctx.input(0), scores = ctx.input(1);
  ArrayRef<int64_t> boxShape = getShape(boxes), scoreShape = getShape(scores);
  if (boxShape.size() != 3 || boxShape[2] != 4 || scoreShape.size() != 3 ||
      scoreShape[0] != boxShape[0] || scoreShape[2] != boxShape[1])
    return ctx.fail("boxes must be [batches, boxes, 4] and scores [batches, classes, boxes]");
  if (!isFloat(boxes) || !isFloat(scores))
    return ctx.fail("boxes and scores must be floating-point");
  int64_t batches = boxShape[0], n = boxShape[1], classes = scoreShape[1];
  int64_t rows = batches * classes;
  if (n > kMaxBoxes)
    return ctx.fail(Twine(n) + " boxes per batch; at most " + Twine(kMaxBoxes) +
                    " are supported (the greedy selection is unrolled over them)");
  int64_t centerPointBox = ctx.getInt("center_point_box", 0);
  if (centerPointBox != 0 && centerPointBox != 1)
    return ctx.unsupportedAttr("center_point_box", Twine(centerPointBox));
  RankedTensorType outType = ctx.knownOutputType(0);
  if (!outType || !outType.hasStaticShape() || outType.getRank() != 2 ||
      outType.getDimSize(1) != 3)
    return ctx.fail("how many boxes it selects depends on the data: the model must declare "
                    "output 0 ('" + ctx.outputName(0) +
                    "') with a static shape [num_selected, 3]");
  int64_t k = outType.getDimSize(0);
  if (n == 0 || rows == 0)
    return ctx.fail("no boxes or no classes");

  Type type = getElementType(boxes), i1 = b.getI1Type(), i32 = b.getI32Type();
  auto maxPerClass = scalarInput(ctx, 2, b.getI64Type(), 0, 2);
  auto iouThreshold = scalarInput(ctx, 3, type, 0, 3);
  if (failed(maxPerClass) || failed(iouThreshold))
    return failure();
  scores = createReshape(b, createCast(b, scores, type), {rows, n});
  Value isRank = rankOneHot(b, scores);
  Value order = sumChosen(b, isRank, createIota(b, n, 1, 2)); // [R, N]: box of each rank
  // Ranks the score threshold rules out (NaN scores too, as in onnxruntime).
  Value blocked = createSplat(b, i1, {rows, n}, 0);
  if (ctx.hasInput(4)) {
    auto scoreThreshold = scalarInput(ctx, 4, type, 0, 2);
    if (failed(scoreThreshold))
      return failure();
    Value below = createUnary<tosa::LogicalNotOp>(
        b, createBinary<tosa::GreaterOp>(b, scores, *scoreThreshold, i1));
    blocked = createCast(b, sumChosen(b, isRank, below), i1);
  }
  // Row (batch, class) takes its batch's boxes in rank order.
  Value ranked = b.create<tosa::GatherOp>(getTensorType({batches, classes * n, 4}, type), boxes,
                                          createReshape(b, order, {batches, classes * n}));
  ranked = createReshape(b, ranked, {rows, n, 4});
  Value suppresses =
      suppressionMatrix(b, boxExtents(b, ranked, centerPointBox == 1), *iouThreshold);
  Value kept = greedySelect(b, suppresses, blocked);
  Value position = sumBefore(b, kept); // i32 [R, N]: kept boxes before, in the row
  Value selected = createBinary<tosa::LogicalAndOp>(
      b, kept,
      createBinary<tosa::GreaterOp>(b, *maxPerClass, createCast(b, position, b.getI64Type()),
                                    i1));

  Value counts = createReduce<tosa::ReduceSumOp>(b, createCast(b, selected, i32), 1);
  Value total = createReduce<tosa::ReduceSumOp>(b, counts, 0);
  createRuntimeCheck(
      b, createBinary<tosa::EqualOp>(b, total, createScalar(b, i32, k, 2), i1),
      ("NonMaxSuppression: the data select a number of boxes other than the " + Twine(k) +
       " that output '" + ctx.outputName(0) + "' declares")
          .str());
  // Output row of each selected box: the earlier rows' counts plus its position in its row;
  // output row k takes the (flat index, box) of the box whose row is k.
  Value offsets = createReshape(b, sumBefore(b, createReshape(b, counts, {1, rows})), {rows, 1});
  Value outRow = createBinary<tosa::AddOp>(b, offsets, position);
  int64_t flatSize = rows * n;
  Value isOutRow = createBinary<tosa::LogicalAndOp>(
      b, createReshape(b, selected, {1, 1, flatSize}),
      createBinary<tosa::EqualOp>(b, createReshape(b, outRow, {1, 1, flatSize}),
                                  createIota(b, k, 1, 3), i1)); // [1, k, R * N]
  Value flat = createReshape(b, sumChosen(b, isOutRow, createIota(b, flatSize, 1, 2)), {k, 1});
  Value box = createReshape(b, sumChosen(b, isOutRow, createReshape(b, order, {1, flatSize})),
                            {k, 1});
  Value classes32 = createScalar(b, i32, classes, 2);
  Value row = createBinary<tosa::IntDivOp>(b, flat, createScalar(b, i32, n, 2));
  Value batch = createBinary<tosa::IntDivOp>(b, row, classes32);
  Value cls = createBinary<tosa::SubOp>(b, row, createMul(b, batch, classes32));
  ctx.setOutput(0, createCast(b, createConcat(b, {batch, cls, box}, 1), b.getI64Type()));
  return success();
}

} // namespace

void registerDetectionOps(ConverterMap &map) {
  map["NonMaxSuppression"] = convertNonMaxSuppression;
}

} // namespace loupe::frontends::onnx_import
