//===- OnnxOpsIndexing.cpp - Gathers, one-hot masks, scans and Resize -----===//
//
// Ops built on tosa.gather (Gather, GatherElements, GatherND, Resize,
// Upsample), on comparisons with constant index grids (OneHot, Trilu,
// EyeLike, Hardmax) and CumSum as a log-step scan of shifted adds.
//
//===----------------------------------------------------------------------===//

#include "OnnxOps.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include <cmath>
#include <limits>

using namespace mlir;

namespace loupe::frontends::onnx_import {
namespace {

//===----------------------------------------------------------------------===//
// Gather family
//===----------------------------------------------------------------------===//

/// Gather along `axis` via tosa.gather on [outer, K, inner] values with the
/// indices tiled over `outer`.
LogicalResult convertGather(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value data = ctx.input(0), indices = ctx.input(1);
  ArrayRef<int64_t> shape = getShape(data);
  auto axis = normalizeAxis(ctx.getInt("axis", 0), shape.size());
  if (!axis)
    return ctx.unsupportedAttr("axis", Twine(ctx.getInt("axis", 0)));
  int64_t k = shape[*axis];
  ArrayRef<int64_t> idxShape = getShape(indices);
  if (getNumElements(idxShape) == 0 || getNumElements(shape) == 0)
    return ctx.fail("empty tensors are not supported");
  SmallVector<int64_t> outShape(shape.begin(), shape.begin() + *axis);
  llvm::append_range(outShape, idxShape);
  outShape.append(shape.begin() + *axis + 1, shape.end());

  if (DenseElementsAttr attr = getConstant(indices)) {
    SmallVector<int64_t> normalized;
    for (const APInt &v : attr.getValues<APInt>()) {
      int64_t i = v.getSExtValue();
      if (i < -k || i >= k)
        return ctx.fail("index " + Twine(i) + " is out of range");
      normalized.push_back(i < 0 ? i + k : i);
    }
    ctx.setOutput(0, createReshape(b, gatherAlongAxis(b, data, *axis, normalized),
                                   outShape));
    return success();
  }
  int64_t outer = getNumElements(shape.take_front(*axis));
  int64_t inner = getNumElements(shape.drop_front(*axis + 1));
  int64_t w = getNumElements(idxShape);
  Value idx = createReshape(b, indices, {1, w});
  idx = normalizeIndices(b, idx, createI32Const(b, {int32_t(k)}, {1, 1}));
  Value gathered = b.create<tosa::GatherOp>(
      getTensorType({outer, w, inner}, getElementType(data)),
      createReshape(b, data, {outer, k, inner}), createTile(b, idx, {outer, 1}));
  ctx.setOutput(0, createReshape(b, gathered, outShape));
  return success();
}

/// GatherElements: each output element reads data at its own position with
/// the `axis` coordinate replaced by the index, i.e. at the linear offset
/// base(position) + index * stride(axis).
LogicalResult convertGatherElements(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value data = ctx.input(0), indices = ctx.input(1);
  ArrayRef<int64_t> shape = getShape(data), idxShape = getShape(indices);
  int64_t rank = shape.size();
  auto axis = normalizeAxis(ctx.getInt("axis", 0), rank);
  if (!axis || static_cast<int64_t>(idxShape.size()) != rank)
    return ctx.fail("indices must have the data's rank and a valid axis");
  if (!fitsI32(getNumElements(shape)) || getNumElements(idxShape) == 0)
    return ctx.fail("data too large for i32 offsets, or empty indices");
  SmallVector<int64_t> strides = getStrides(shape);
  SmallVector<int32_t> base;
  SmallVector<int64_t> pos(rank, 0);
  for (int64_t n = getNumElements(idxShape); n > 0; --n) {
    int64_t offset = 0;
    for (int64_t d = 0; d < rank; ++d)
      if (d != *axis)
        offset += pos[d] * strides[d];
    base.push_back(offset);
    for (int64_t d = rank - 1; d >= 0 && ++pos[d] == idxShape[d]; --d)
      pos[d] = 0;
  }
  Value idx = normalizeIndices(
      b, indices,
      createScalar(b, b.getI32Type(), shape[*axis], rank));
  idx = createMul(b, idx, createScalar(b, b.getI32Type(), strides[*axis], rank));
  idx = createBinary<tosa::AddOp>(b, idx, createI32Const(b, base, idxShape));
  Value values = createReshape(b, data, {1, getNumElements(shape), 1});
  ctx.setOutput(0, gatherRows(b, values, idx, idxShape));
  return success();
}

/// GatherND: the last indices dim holds K coordinates into data dims
/// [batch_dims, batch_dims + K); the rest of data is gathered whole.
LogicalResult convertGatherND(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value data = ctx.input(0), indices = ctx.input(1);
  ArrayRef<int64_t> shape = getShape(data), idxShape = getShape(indices);
  int64_t r = shape.size(), q = idxShape.size();
  int64_t batchDims = ctx.getInt("batch_dims", 0);
  int64_t k = q ? idxShape.back() : 0;
  if (q < 1 || batchDims < 0 || batchDims >= std::min(q, r) || k < 1 ||
      batchDims + k > r)
    return ctx.fail("inconsistent indices shape and batch_dims");
  ArrayRef<int64_t> sliced = shape.slice(batchDims, k);
  int64_t rows = getNumElements(shape.take_front(batchDims + k));
  int64_t c = getNumElements(shape.drop_front(batchDims + k));
  if (!fitsI32(rows) || getNumElements(idxShape) == 0)
    return ctx.fail("data too large for i32 offsets, or empty indices");

  // Coordinates -> row offsets within one batch.
  SmallVector<int64_t> lastDim(q, 1);
  lastDim.back() = k;
  SmallVector<int32_t> dims(sliced.begin(), sliced.end()), strides;
  for (int64_t s : getStrides(sliced))
    strides.push_back(s);
  Value idx = normalizeIndices(b, indices, createI32Const(b, dims, lastDim));
  idx = createMul(b, idx, createI32Const(b, strides, lastDim));
  idx = createReduce<tosa::ReduceSumOp>(b, idx, q - 1);
  // Plus the batch offset of each index tuple.
  SmallVector<int64_t> tupleShape(idxShape.drop_back());
  int64_t perBatch = getNumElements(sliced);
  int64_t inner = getNumElements(ArrayRef<int64_t>(tupleShape).drop_front(batchDims));
  SmallVector<int32_t> base;
  for (int64_t i = 0, e = getNumElements(tupleShape); i < e; ++i)
    base.push_back((i / inner) * perBatch);
  tupleShape.push_back(1);
  idx = createBinary<tosa::AddOp>(b, idx, createI32Const(b, base, tupleShape));

  SmallVector<int64_t> outShape(idxShape.drop_back());
  outShape.append(shape.begin() + batchDims + k, shape.end());
  Value values = createReshape(b, data, {1, rows, c});
  ctx.setOutput(0, gatherRows(b, values, idx, outShape));
  return success();
}

//===----------------------------------------------------------------------===//
// Index grids
//===----------------------------------------------------------------------===//

LogicalResult convertOneHot(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value indices = ctx.input(0), values = ctx.input(2);
  auto depth = ctx.constantScalarInput(1);
  if (failed(depth))
    return failure();
  if (getNumElements(getShape(values)) != 2)
    return ctx.fail("values must hold [off_value, on_value]");
  int64_t rank = getShape(indices).size() + 1;
  auto axis = normalizeAxis(ctx.getInt("axis", -1), rank);
  if (!axis)
    return ctx.unsupportedAttr("axis", Twine(ctx.getInt("axis", -1)));
  if (!(*depth > 0 && *depth < 2147483648.0))
    return ctx.fail("depth must be in [1, 2^31)");
  int64_t n = static_cast<int64_t>(*depth);
  SmallVector<int64_t> outShape(getShape(indices));
  outShape.insert(outShape.begin() + *axis, n);
  if (exceedsElementLimit(outShape))
    return ctx.fail("the output would have more than 2^37 elements (depth " + Twine(n) + ")");
  if (!isa<IntegerType>(getElementType(indices)))
    indices = createCast(b, createUnary<tosa::FloorOp>(b, indices),
                         b.getI32Type());
  Value idx = normalizeIndices(
      b, indices, createScalar(b, b.getI32Type(), n, rank - 1));
  SmallVector<int64_t> expanded(getShape(idx));
  expanded.insert(expanded.begin() + *axis, 1);
  Value hit = createBinary<tosa::EqualOp>(b, createReshape(b, idx, expanded),
                                          createIota(b, n, *axis, rank),
                                          b.getI1Type());
  Value flat = createReshape(b, values, {2});
  SmallVector<int64_t> ones(rank, 1);
  Value off = createReshape(b, createSliceAxis(b, flat, 0, 0, 1), ones);
  Value on = createReshape(b, createSliceAxis(b, flat, 0, 1, 1), ones);
  ctx.setOutput(0, createSelect(b, hit, on, off));
  return success();
}

/// Constant i1 mask over the last two dims: (col - row) compared with k.
Value createDiagonalMask(ImplicitLocOpBuilder &b, int64_t rows, int64_t cols,
                         llvm::function_ref<bool(int64_t)> keep) {
  SmallVector<bool> mask;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      mask.push_back(keep(j - i));
  return createConst(b, DenseElementsAttr::get(
                            getTensorType({rows, cols}, b.getI1Type()),
                            ArrayRef<bool>(mask)));
}

LogicalResult convertTrilu(NodeContext &ctx) {
  Value x = ctx.input(0);
  ArrayRef<int64_t> shape = getShape(x);
  if (shape.size() < 2)
    return ctx.fail("input must have rank >= 2");
  int64_t k = 0;
  if (ctx.hasInput(1)) {
    auto value = ctx.constantScalarInput(1);
    if (failed(value))
      return failure();
    k = static_cast<int64_t>(*value);
  }
  bool upper = ctx.getInt("upper", 1);
  Value mask = createDiagonalMask(
      ctx.b, shape[shape.size() - 2], shape.back(),
      [&](int64_t diag) { return upper ? diag >= k : diag <= k; });
  ctx.setOutput(0, createSelect(ctx.b, mask, x, scalarLike(ctx.b, x, 0)));
  return success();
}

LogicalResult convertEyeLike(NodeContext &ctx) {
  ArrayRef<int64_t> shape = getShape(ctx.input(0));
  if (shape.size() != 2)
    return ctx.fail("input must be 2-D");
  Type elementType = getElementType(ctx.input(0));
  if (ctx.hasAttr("dtype")) {
    auto type = ctx.getElementTypeAttr("dtype");
    if (failed(type))
      return failure();
    elementType = *type;
  }
  int64_t k = ctx.getInt("k", 0);
  Value mask = createDiagonalMask(ctx.b, shape[0], shape[1],
                                  [&](int64_t diag) { return diag == k; });
  ctx.setOutput(0, createCast(ctx.b, mask, elementType));
  return success();
}

/// Hardmax: 1 at the first maximum along the axis (coerced to 2-D before
/// opset 13), else 0.
LogicalResult convertHardmax(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value x = ctx.input(0);
  ArrayRef<int64_t> shape = getShape(x);
  int64_t rank = shape.size();
  bool legacy = ctx.opset() < 13;
  int64_t rawAxis = ctx.getInt("axis", legacy ? 1 : -1);
  auto axis = normalizeAxis(rawAxis, rank);
  if (!axis)
    return ctx.unsupportedAttr("axis", Twine(rawAxis));
  Value in = x;
  int64_t along = *axis;
  if (legacy) {
    in = createReshape(b, x,
                       {getNumElements(shape.take_front(*axis)),
                        getNumElements(shape.drop_front(*axis))});
    along = 1;
  }
  SmallVector<int64_t> reduced(getShape(in)), kept(getShape(in));
  reduced.erase(reduced.begin() + along);
  kept[along] = 1;
  Value index = b.create<tosa::ArgMaxOp>(getTensorType(reduced, b.getI32Type()),
                                         in, b.getI32IntegerAttr(along));
  Value hit = createBinary<tosa::EqualOp>(
      b, createReshape(b, index, kept),
      createIota(b, getShape(in)[along], along, kept.size()), b.getI1Type());
  ctx.setOutput(0, createReshape(b, createCast(b, hit, getElementType(x)),
                                 shape));
  return success();
}

/// x shifted by `count` along `axis`, zero-filled at the front.
Value shiftForward(ImplicitLocOpBuilder &b, Value x, int64_t axis,
                   int64_t count) {
  int64_t n = getShape(x)[axis];
  SmallVector<int64_t> pads(2 * getShape(x).size(), 0);
  pads[2 * axis] = count;
  return createSliceAxis(b, createPad(b, x, pads, 0), axis, 0, n);
}

/// CumSum as a Hillis-Steele scan: log2(n) shifted adds.
LogicalResult convertCumSum(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value x = ctx.input(0);
  auto rawAxis = ctx.constantScalarInput(1);
  if (failed(rawAxis))
    return failure();
  auto axis = normalizeAxis(static_cast<int64_t>(*rawAxis), getShape(x).size());
  if (!axis)
    return ctx.fail("axis is out of range");
  bool reverse = ctx.getInt("reverse", 0);
  auto flip = [&](Value v) {
    return reverse ? b.create<tosa::ReverseOp>(getType(v), v,
                                                b.getI32IntegerAttr(*axis))
                         .getResult()
                   : v;
  };
  x = flip(x);
  if (ctx.getInt("exclusive", 0))
    x = shiftForward(b, x, *axis, 1);
  for (int64_t step = 1; step < getShape(x)[*axis]; step *= 2)
    x = createBinary<tosa::AddOp>(b, x, shiftForward(b, x, *axis, step));
  ctx.setOutput(0, flip(x));
  return success();
}

/// NonZero: the coordinates [rank, K] (int64) of the nonzero elements in row-major order. K
/// depends on the data: it is the size the model declares, checked at run time. Element j is
/// the i with x[i] != 0 and j nonzeros before it: a [K, n] comparison against the exclusive
/// prefix count (a matmul with a strictly upper triangular matrix of ones, exact below 2^24).
LogicalResult convertNonZero(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value x = ctx.input(0);
  ArrayRef<int64_t> shape = getShape(x);
  int64_t rank = std::max<int64_t>(1, shape.size()), n = getNumElements(shape);
  auto outType = ctx.outputType(0);
  if (failed(outType))
    return ctx.fail("the number of nonzeros depends on the data: the model must declare a "
                    "static output shape [rank, K]");
  int64_t k = outType->getShape().back();
  constexpr int64_t kMaxElements = 4096; // the comparison is n x n
  if (n > kMaxElements || k > n)
    return ctx.fail("NonZero of " + Twine(n) + " elements (at most " + Twine(kMaxElements) +
                    ") into " + Twine(k) + " declared nonzeros");
  Type f32 = b.getF32Type(), i32 = b.getI32Type(), i1 = b.getI1Type();
  Value flat = createReshape(b, x, {1, n});
  Value nonZero = createUnary<tosa::LogicalNotOp>(
      b, createBinary<tosa::EqualOp>(b, flat, scalarLike(b, flat, 0), i1));
  Value ones = createCast(b, nonZero, f32); // [1, n]
  SmallVector<float> upper(n * n, 0.f);
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = r + 1; c < n; ++c)
      upper[r * n + c] = 1.f;
  Value before = b.create<tosa::MatMulOp>(
      getTensorType({1, 1, n}, f32), createReshape(b, ones, {1, 1, n}),
      createConst(b, DenseElementsAttr::get(getTensorType({1, n, n}, f32),
                                            ArrayRef<float>(upper))));
  Value prefix = createCast(b, createReshape(b, before, {1, n}), i32);
  // sel[j, i]: element i is the j-th nonzero.
  Value picks = createBinary<tosa::EqualOp>(b, prefix, createIota(b, k, 0, 2), i1);
  Value sel = createBinary<tosa::LogicalAndOp>(b, picks, nonZero);
  Value flatIndex = createReduce<tosa::ReduceSumOp>(
      b, createSelect(b, sel, createIota(b, n, 1, 2), createScalar(b, i32, 0, 2)), 1); // [K, 1]
  Value count = createReduce<tosa::ReduceSumOp>(b, createCast(b, nonZero, i32), 1);
  createRuntimeCheck(b, createBinary<tosa::EqualOp>(b, count, createScalar(b, i32, k, 2), i1),
                     ("the input has a number of nonzeros other than the " + Twine(k) +
                      " the model declares").str());
  // Row-major flat index -> one coordinate per dim.
  SmallVector<Value> coords;
  SmallVector<int64_t> strides = getStrides(shape.empty() ? ArrayRef<int64_t>{1} : shape);
  for (int64_t d = 0; d < rank; ++d) {
    int64_t dim = shape.empty() ? 1 : shape[d];
    Value c = createBinary<tosa::IntDivOp>(b, flatIndex, createScalar(b, i32, strides[d], 2));
    c = createIntegerMod(b, c, createScalar(b, i32, dim, 2), /*floored=*/false);
    coords.push_back(createReshape(b, c, {1, k}));
  }
  ctx.setOutput(0, createCast(b, createConcat(b, coords, 0), b.getI64Type()));
  return success();
}

//===----------------------------------------------------------------------===//
// Resize, Upsample
//===----------------------------------------------------------------------===//

/// Sampling of one output position: input indices (clamped) and weights.
struct Taps {
  SmallVector<int64_t> index;
  SmallVector<double> weight;
  /// tf_crop_and_resize mapped the position outside the input: it takes
  /// extrapolation_value.
  bool outside = false;
};

/// Per output position of one axis, the taps the ONNX reference resize uses:
/// the `n` inputs nearest to the mapped coordinate (edge-clamped), weighted
/// by the nearest/linear/cubic coefficients. [roiStart, roiEnd] is the axis's
/// crop box, normalized (tf_crop_and_resize only).
FailureOr<SmallVector<Taps>>
computeTaps(NodeContext &ctx, int64_t in, int64_t out, double scale,
            StringRef mode, StringRef transform, StringRef nearestMode,
            double cubicA, bool excludeOutside, double roiStart, double roiEnd) {
  SmallVector<Taps> result;
  for (int64_t o = 0; o < out; ++o) {
    double x;
    double outWidth = scale * in;
    bool outside = false;
    if (transform == "tf_crop_and_resize") {
      x = (outWidth == 1 ? (roiEnd - roiStart) * (in - 1) / 2
                         : o * (roiEnd - roiStart) * (in - 1) / (outWidth - 1)) +
          roiStart * (in - 1);
      outside = x < 0 || x > in - 1;
    } else if (transform == "half_pixel")
      x = (o + 0.5) / scale - 0.5;
    else if (transform == "pytorch_half_pixel")
      x = outWidth == 1 ? -0.5 : (o + 0.5) / scale - 0.5;
    else if (transform == "align_corners")
      x = outWidth == 1 ? 0 : o * (in - 1) / (outWidth - 1);
    else if (transform == "asymmetric")
      x = o / scale;
    else if (transform == "tf_half_pixel_for_nn")
      x = (o + 0.5) / scale;
    else
      return ctx.unsupportedAttr("coordinate_transformation_mode",
                                 "'" + transform + "'");
    // The left neighbour; an integral x counts as ratio 1 from x - 1.
    double left = std::floor(x);
    double ratio = x - left;
    if (ratio == 0) {
      left -= 1;
      ratio = 1;
    }
    SmallVector<double> coeffs;
    if (mode == "nearest") {
      bool right;
      if (ratio == 1 || nearestMode == "ceil")
        right = true;
      else if (nearestMode == "round_prefer_floor")
        right = ratio > 0.5;
      else if (nearestMode == "round_prefer_ceil")
        right = ratio >= 0.5;
      else if (nearestMode == "floor")
        right = false;
      else
        return ctx.unsupportedAttr("nearest_mode", "'" + nearestMode + "'");
      coeffs = {right ? 0.0 : 1.0, right ? 1.0 : 0.0};
    } else if (mode == "linear") {
      coeffs = {1 - ratio, ratio};
    } else if (mode == "cubic") {
      double a = cubicA, r = ratio, s = 1 - ratio;
      coeffs = {((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
                ((a + 2) * r - (a + 3)) * r * r + 1,
                ((a + 2) * s - (a + 3)) * s * s + 1,
                ((a * (s + 1) - 5 * a) * (s + 1) + 8 * a) * (s + 1) - 4 * a};
    } else {
      return ctx.unsupportedAttr("mode", "'" + mode + "'");
    }
    int64_t n = coeffs.size();
    int64_t first = static_cast<int64_t>(left) - (n / 2 - 1);
    Taps taps;
    taps.outside = outside;
    if (mode == "nearest") {
      // A single tap: the chosen neighbour.
      int64_t idx = first + (coeffs[1] == 1.0);
      taps.index.push_back(std::clamp<int64_t>(idx, 0, in - 1));
      taps.weight.push_back(1.0);
      result.push_back(std::move(taps));
      continue;
    }
    double sum = 0;
    for (int64_t t = 0; t < n; ++t) {
      int64_t idx = first + t;
      if (excludeOutside && (idx < 0 || idx >= in))
        coeffs[t] = 0;
      sum += coeffs[t];
      taps.index.push_back(std::clamp<int64_t>(idx, 0, in - 1));
    }
    for (double c : coeffs)
      taps.weight.push_back(excludeOutside && sum != 0 ? c / sum : c);
    result.push_back(std::move(taps));
  }
  return result;
}

/// Resizes `x` along `axis` to `out` elements: one gather per tap, summed
/// with per-position weights (a single gather for nearest).
Value resizeAxis(ImplicitLocOpBuilder &b, Value x, int64_t axis,
                 ArrayRef<Taps> taps) {
  int64_t n = taps.front().index.size();
  int64_t rank = getShape(x).size();
  Value result;
  for (int64_t t = 0; t < n; ++t) {
    SmallVector<int64_t> indices;
    SmallVector<float> weights;
    bool unit = true, zero = true;
    for (const Taps &tap : taps) {
      indices.push_back(tap.index[t]);
      weights.push_back(tap.weight[t]);
      unit &= tap.weight[t] == 1.0;
      zero &= tap.weight[t] == 0.0;
    }
    if (zero)
      continue;
    Value term = gatherAlongAxis(b, x, axis, indices);
    if (!unit) {
      SmallVector<int64_t> shape(rank, 1);
      shape[axis] = indices.size();
      Value w = createConst(b, DenseElementsAttr::get(
                                   getTensorType(shape, b.getF32Type()),
                                   ArrayRef<float>(weights)));
      term = createMul(b, term, createCast(b, w, getElementType(x)));
    }
    result = result ? createBinary<tosa::AddOp>(b, result, term) : term;
  }
  return result;
}

/// Resize (opset 10+) and Upsample: separable, axis by axis. Scales must be
/// constant; sizes may also come from the inferred output shape. For
/// tf_crop_and_resize the roi ([starts..., ends...], normalized) must be
/// constant; an output position outside the input on any axis takes
/// extrapolation_value, as in the ONNX reference.
LogicalResult convertResize(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value x = ctx.input(0);
  ArrayRef<int64_t> shape = getShape(x);
  int64_t rank = shape.size();
  bool legacy = ctx.opType() == "Upsample" || ctx.opset() < 11;
  std::string mode = ctx.getString("mode", "nearest");
  std::string transform = legacy ? "asymmetric"
                                 : ctx.getString("coordinate_transformation_mode",
                                                 "half_pixel");
  std::string nearestMode =
      legacy ? "floor" : ctx.getString("nearest_mode", "round_prefer_floor");
  if (mode == "bilinear" || mode == "trilinear")
    mode = "linear";

  SmallVector<double> scales;
  unsigned scalesIndex = legacy ? 1 : 2;
  if (ctx.opType() == "Upsample" && ctx.opset() < 9) {
    for (float s : ctx.getFloats("scales"))
      scales.push_back(s);
  } else if (ctx.hasInput(scalesIndex) &&
             getNumElements(getShape(ctx.input(scalesIndex))) > 0) {
    DenseElementsAttr attr = ctx.constantInput(scalesIndex);
    if (!attr || !isa<FloatType>(attr.getElementType()))
      return ctx.fail("input '" + ctx.inputName(scalesIndex) +
                      "' (scales) must be a constant");
    for (const APFloat &v : attr.getValues<APFloat>())
      scales.push_back(v.convertToDouble());
  }
  SmallVector<int64_t> outShape;
  if (!scales.empty()) {
    if (static_cast<int64_t>(scales.size()) != rank)
      return ctx.fail("scales must have one entry per dimension");
    for (auto [dim, s] : llvm::zip(shape, scales))
      outShape.push_back(static_cast<int64_t>(std::floor(dim * s)));
  } else {
    // Sizes: a constant input, else the inferred output shape.
    FailureOr<SmallVector<int64_t>> sizes =
        ctx.constantInput(3) ? ctx.constantIntsInput(3)
                             : FailureOr<SmallVector<int64_t>>(failure());
    if (failed(sizes)) {
      auto type = ctx.outputType(0);
      if (failed(type))
        return failure();
      sizes = llvm::to_vector(type->getShape());
    }
    outShape = *sizes;
    if (static_cast<int64_t>(outShape.size()) != rank)
      return ctx.fail("sizes must have one entry per dimension");
    for (auto [dim, size] : llvm::zip(shape, outShape))
      scales.push_back(static_cast<double>(size) / dim);
  }
  if (mode != "nearest" && !isa<FloatType>(getElementType(x)))
    return ctx.fail("linear and cubic modes need a floating-point input");

  // The crop box: roi holds [start_0, ..., start_{r-1}, end_0, ..., end_{r-1}].
  SmallVector<double> roi;
  bool crop = transform == "tf_crop_and_resize";
  if (crop) {
    DenseElementsAttr attr = ctx.hasInput(1) ? ctx.constantInput(1) : nullptr;
    if (!attr || !isa<FloatType>(attr.getElementType()) ||
        attr.getNumElements() != 2 * rank)
      return ctx.fail("tf_crop_and_resize needs a constant float roi of " +
                      Twine(2 * rank) + " values");
    for (const APFloat &v : attr.getValues<APFloat>())
      roi.push_back(v.convertToDouble());
  }
  // Per axis with positions outside the crop box, an i1 mask [1, .., out, .., 1] of them.
  SmallVector<Value> outsideMasks;
  for (int64_t axis = 0; axis < rank; ++axis) {
    if (outShape[axis] <= 0)
      return ctx.fail("empty tensors are not supported");
    double roiStart = crop ? roi[axis] : 0, roiEnd = crop ? roi[rank + axis] : 1;
    if (outShape[axis] == shape[axis] && scales[axis] == 1.0 && roiStart == 0 &&
        roiEnd == 1)
      continue;
    auto taps = computeTaps(ctx, shape[axis], outShape[axis], scales[axis],
                            mode, transform, nearestMode,
                            ctx.getFloat("cubic_coeff_a", -0.75f),
                            ctx.getInt("exclude_outside", 0), roiStart, roiEnd);
    if (failed(taps))
      return failure();
    x = resizeAxis(b, x, axis, *taps);
    SmallVector<bool> outside;
    for (const Taps &t : *taps)
      outside.push_back(t.outside);
    if (llvm::is_contained(outside, true)) {
      SmallVector<int64_t> maskShape(rank, 1);
      maskShape[axis] = outShape[axis];
      outsideMasks.push_back(createConst(
          b, DenseElementsAttr::get(getTensorType(maskShape, b.getI1Type()),
                                    ArrayRef<bool>(outside))));
    }
  }
  if (!outsideMasks.empty()) {
    Value outside = outsideMasks.front();
    for (Value mask : ArrayRef<Value>(outsideMasks).drop_front())
      outside = createBinary<tosa::LogicalOrOp>(b, outside, mask);
    x = createSelect(b, outside,
                     scalarLike(b, x, ctx.getFloat("extrapolation_value", 0.0f)), x);
  }
  ctx.setOutput(0, x);
  return success();
}

} // namespace

void registerIndexingOps(ConverterMap &map) {
  map["Gather"] = convertGather;
  map["GatherElements"] = convertGatherElements;
  map["GatherND"] = convertGatherND;
  map["OneHot"] = convertOneHot;
  map["Trilu"] = convertTrilu;
  map["EyeLike"] = convertEyeLike;
  map["Hardmax"] = convertHardmax;
  map["CumSum"] = convertCumSum;
  map["NonZero"] = convertNonZero;
  map["Resize"] = convertResize;
  map["Upsample"] = convertResize;
}

} // namespace loupe::frontends::onnx_import
