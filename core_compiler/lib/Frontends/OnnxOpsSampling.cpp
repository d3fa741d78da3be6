//===- OnnxOpsSampling.cpp - GridSample, RoiAlign, MaxUnpool and friends --===//
//
// Ops that read their input at computed positions, built on tosa.gather:
// - GridSample (opset 16; the ONNX spec defers to PyTorch's grid_sample,
//   aten/src/ATen/native/GridSampler.h): unnormalize, pad (border clip or
//   reflect), then 1 (nearest), 2x2 (bilinear) or 4x4 (bicubic, Keys'
//   convolution with A = -0.75) taps per output position, each a gather.
// - RoiAlign (opset 10/16; He et al., "Mask R-CNN", 2017; the tests follow
//   onnxruntime's roialign.cc): a grid of bilinear samples per output bin,
//   averaged or maxed. ORT's `max` takes the max of the weighted corner values.
// - MaxUnpool (opset 11; onnxruntime's unpool.cc): indices are flat over the
//   default output shape (in-1)*stride - pads + kernel; an `output_shape`
//   larger than that pads the end with zeros (as the ONNX test data does).
//   The scatter is a one-hot comparison (TOSA forbids duplicate scatter
//   indices); duplicates take the largest value.
// - Det: Laplace expansion along the rows, memoized over column subsets
//   (n * 2^(n-1) multiply-adds).
// - ReverseSequence, Compress: one gather with a per-position index.
//
//===----------------------------------------------------------------------===//

#include "OnnxOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "llvm/ADT/bit.h"
#include <array>
#include <cmath>
#include <limits>

using namespace mlir;

namespace loupe::frontends::onnx_import {
namespace {

/// Largest Det matrix: the expansion costs n * 2^(n-1) multiply-adds.
constexpr int64_t kMaxDetSize = 6;
/// Most RoiAlign samples per output bin (each costs four gathers).
constexpr int64_t kMaxRoiSamples = 64;
/// Most elements of MaxUnpool's one-hot comparison.
constexpr int64_t kMaxUnpoolElements = int64_t(1) << 24;

//===----------------------------------------------------------------------===//
// Elementwise shorthands (operands broadcast numpy-style)
//===----------------------------------------------------------------------===//

Value add(ImplicitLocOpBuilder &b, Value x, Value y) {
  return createBinary<tosa::AddOp>(b, x, y);
}
Value sub(ImplicitLocOpBuilder &b, Value x, Value y) {
  return createBinary<tosa::SubOp>(b, x, y);
}
Value addC(ImplicitLocOpBuilder &b, Value x, double c) {
  return add(b, x, scalarLike(b, x, c));
}
Value mulC(ImplicitLocOpBuilder &b, Value x, double c) {
  return createMul(b, x, scalarLike(b, x, c));
}
Value floorOf(ImplicitLocOpBuilder &b, Value x) {
  return createUnary<tosa::FloorOp>(b, x);
}
Value minC(ImplicitLocOpBuilder &b, Value x, double c) {
  return createBinary<tosa::MinimumOp>(b, x, scalarLike(b, x, c));
}
Value maxC(ImplicitLocOpBuilder &b, Value x, double c) {
  return createBinary<tosa::MaximumOp>(b, x, scalarLike(b, x, c));
}
/// x < c, or x > c when `greater`, as i1.
Value compareC(ImplicitLocOpBuilder &b, Value x, double c, bool greater) {
  Value s = scalarLike(b, x, c);
  return greater ? createBinary<tosa::GreaterOp>(b, x, s, b.getI1Type())
                 : createBinary<tosa::GreaterOp>(b, s, x, b.getI1Type());
}
/// Horner's rule: coeffs[0] * x^(n-1) + ... + coeffs[n-1].
Value polynomial(ImplicitLocOpBuilder &b, Value x, ArrayRef<double> coeffs) {
  Value result = createMul(b, x, scalarLike(b, x, coeffs[0]));
  for (double c : coeffs.drop_front().drop_back())
    result = createMul(b, addC(b, result, c), x);
  return addC(b, result, coeffs.back());
}
/// Integer-valued float `x` (in i32 range) as i32.
Value toIndex(ImplicitLocOpBuilder &b, Value x) {
  return createCast(b, x, b.getI32Type());
}

/// One slice of the last dim of `x` with that dim dropped.
Value lastDimSlice(ImplicitLocOpBuilder &b, Value x, int64_t index) {
  ArrayRef<int64_t> shape = getShape(x);
  return createReshape(b, createSliceAxis(b, x, shape.size() - 1, index, 1),
                       shape.drop_back());
}

//===----------------------------------------------------------------------===//
// GridSample
//===----------------------------------------------------------------------===//

/// One tap along one axis: an i32 index (clamped into range) and its float
/// weight (zero when the tap lies outside), both of the coordinate's shape.
struct AxisTap {
  Value index, weight;
};

enum class Padding { Zeros, Border, Reflection };

/// PyTorch's reflect_coordinates: reflects `x` into [lo2/2, hi2/2] (given
/// doubled), then clips to [0, size-1].
Value reflect(ImplicitLocOpBuilder &b, Value x, int64_t size,
              bool alignCorners) {
  double lo2 = alignCorners ? 0 : -1;
  double hi2 = alignCorners ? 2 * (size - 1) : 2 * size - 1;
  if (lo2 == hi2)
    return scalarLike(b, x, 0);
  double lo = lo2 / 2, span = (hi2 - lo2) / 2;
  Value d = createUnary<tosa::AbsOp>(b, addC(b, x, -lo));
  Value flips = floorOf(b, mulC(b, d, 1 / span));
  Value extra = sub(b, d, mulC(b, flips, span));
  Value odd = sub(b, flips, mulC(b, floorOf(b, mulC(b, flips, 0.5)), 2));
  Value isOdd = compareC(b, odd, 0.5, /*greater=*/true);
  Value mirrored = addC(b, mulC(b, extra, -1), span + lo);
  return createClamp(b, createSelect(b, isOdd, mirrored, addC(b, extra, lo)),
                     0, size - 1);
}

/// PyTorch's compute_coordinates: the padding rule applied to a coordinate.
Value applyPadding(ImplicitLocOpBuilder &b, Value x, int64_t size,
                   Padding padding, bool alignCorners) {
  if (padding == Padding::Border)
    return createClamp(b, x, 0, size - 1);
  if (padding == Padding::Reflection)
    return reflect(b, x, size, alignCorners);
  return x;
}

/// round-half-to-even (PyTorch's nearbyint) from floor.
Value roundHalfEven(ImplicitLocOpBuilder &b, Value x) {
  Value f = floorOf(b, x);
  Value frac = sub(b, x, f);
  Value odd = sub(b, f, mulC(b, floorOf(b, mulC(b, f, 0.5)), 2));
  Value isHalf = createBinary<tosa::EqualOp>(b, frac, scalarLike(b, frac, 0.5),
                                             b.getI1Type());
  Value up = createSelect(b, isHalf, compareC(b, odd, 0.5, true),
                          compareC(b, frac, 0.5, true));
  return createSelect(b, up, addC(b, f, 1), f);
}

/// The taps of GridSample along one axis of `size` elements for normalized
/// coordinates `coord` ([-1, 1] spans the input).
SmallVector<AxisTap> gridSampleTaps(ImplicitLocOpBuilder &b, Value coord,
                                    int64_t size, StringRef mode,
                                    Padding padding, bool alignCorners) {
  Value x = alignCorners ? mulC(b, addC(b, coord, 1), 0.5 * (size - 1))
                         : addC(b, mulC(b, addC(b, coord, 1), 0.5 * size), -0.5);
  SmallVector<std::pair<Value, Value>> taps; // (coordinate, weight)
  Value one = scalarLike(b, x, 1);
  if (mode == "bicubic") {
    // Taps floor(x) - 1 .. floor(x) + 2, each padded on its own.
    const double a = -0.75;
    Value f = floorOf(b, x);
    Value t = sub(b, x, f), s = sub(b, one, t);
    const double outer[] = {a, -5 * a, 8 * a, -4 * a};
    const double inner[] = {a + 2, -(a + 3), 0, 1};
    Value weights[] = {polynomial(b, addC(b, t, 1), outer),
                       polynomial(b, t, inner), polynomial(b, s, inner),
                       polynomial(b, addC(b, s, 1), outer)};
    for (int64_t k = 0; k < 4; ++k)
      taps.push_back({applyPadding(b, addC(b, f, k - 1), size, padding,
                                   alignCorners),
                      weights[k]});
  } else {
    x = applyPadding(b, x, size, padding, alignCorners);
    if (mode == "nearest") {
      taps.push_back({roundHalfEven(b, x), one});
    } else {
      Value f = floorOf(b, x);
      Value t = sub(b, x, f);
      taps.push_back({f, sub(b, one, t)});
      taps.push_back({addC(b, f, 1), t});
    }
  }
  SmallVector<AxisTap> result;
  for (auto [p, w] : taps) {
    Value outside = createBinary<tosa::LogicalOrOp>(
        b, compareC(b, p, 0, false), compareC(b, p, size - 1, true),
        b.getI1Type());
    result.push_back({toIndex(b, createClamp(b, p, 0, size - 1)),
                      createSelect(b, outside, scalarLike(b, w, 0), w)});
  }
  return result;
}

/// GridSample on 4-D X [N, C, H, W] with grid [N, Ho, Wo, 2] holding (x, y):
/// every (y tap, x tap) pair is one tosa.gather of [N, Ho*Wo, C] rows from X
/// as [N, H*W, C], weighted and summed.
LogicalResult convertGridSample(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value x = ctx.input(0), grid = ctx.input(1);
  ArrayRef<int64_t> xShape = getShape(x), gShape = getShape(grid);
  if (xShape.size() != 4 || gShape.size() != 4 || gShape[3] != 2 ||
      gShape[0] != xShape[0])
    return ctx.fail("only 4-D input with a [N, H_out, W_out, 2] grid is "
                    "supported");
  if (!isFloat(x))
    return ctx.fail("only floating-point input is supported");
  std::string mode = ctx.getString("mode", "bilinear");
  // Opset 20 renamed the modes.
  if (mode == "linear")
    mode = "bilinear";
  else if (mode == "cubic")
    mode = "bicubic";
  if (mode != "bilinear" && mode != "nearest" && mode != "bicubic")
    return ctx.unsupportedAttr("mode", "'" + mode + "'");
  std::string padName = ctx.getString("padding_mode", "zeros");
  Padding padding;
  if (padName == "zeros")
    padding = Padding::Zeros;
  else if (padName == "border")
    padding = Padding::Border;
  else if (padName == "reflection")
    padding = Padding::Reflection;
  else
    return ctx.unsupportedAttr("padding_mode", "'" + padName + "'");
  bool alignCorners = ctx.getInt("align_corners", 0);

  int64_t n = xShape[0], c = xShape[1], h = xShape[2], w = xShape[3];
  int64_t ho = gShape[1], wo = gShape[2];
  grid = createCast(b, grid, getElementType(x));
  auto xTaps = gridSampleTaps(b, lastDimSlice(b, grid, 0), w, mode, padding,
                              alignCorners);
  auto yTaps = gridSampleTaps(b, lastDimSlice(b, grid, 1), h, mode, padding,
                              alignCorners);
  Value values = createReshape(b, createTranspose(b, x, {0, 2, 3, 1}),
                               {n, h * w, c});
  Value widthC = createScalar(b, b.getI32Type(), w, 3);
  Value sum;
  for (const AxisTap &ty : yTaps) {
    for (const AxisTap &tx : xTaps) {
      Value index = add(b, createMul(b, ty.index, widthC), tx.index);
      Value rows = b.create<tosa::GatherOp>(
          getTensorType({n, ho * wo, c}, getElementType(x)), values,
          createReshape(b, index, {n, ho * wo}));
      Value weight = createReshape(b, createMul(b, ty.weight, tx.weight),
                                   {n, ho * wo, 1});
      Value term = createMul(b, rows, weight);
      sum = sum ? add(b, sum, term) : term;
    }
  }
  ctx.setOutput(0, createTranspose(b, createReshape(b, sum, {n, ho, wo, c}),
                                   {0, 3, 1, 2}));
  return success();
}

//===----------------------------------------------------------------------===//
// RoiAlign
//===----------------------------------------------------------------------===//

/// The two bilinear taps of RoiAlign samples `y` (any shape) along an axis of
/// `size` elements, as onnxruntime's pre_calc: samples beyond [-1, size]
/// weigh 0, the others are clamped to [0, size-1].
std::array<AxisTap, 2> roiAlignTaps(ImplicitLocOpBuilder &b, Value y,
                                    int64_t size) {
  Value outside = createBinary<tosa::LogicalOrOp>(
      b, compareC(b, y, -1, false), compareC(b, y, size, true), b.getI1Type());
  y = minC(b, maxC(b, y, 0), size - 1);
  Value low = floorOf(b, y);
  Value high = minC(b, addC(b, low, 1), size - 1);
  Value ly = sub(b, y, low);
  Value hy = sub(b, scalarLike(b, ly, 1), ly);
  Value zero = scalarLike(b, y, 0);
  return {AxisTap{toIndex(b, low), createSelect(b, outside, zero, hy)},
          AxisTap{toIndex(b, high), createSelect(b, outside, zero, ly)}};
}

/// Samples per bin along one axis, per roi: `samplingRatio`, or (adaptive,
/// when it is 0) ceil(roi extent / bins), which needs constant rois.
FailureOr<SmallVector<int64_t>>
roiGridSizes(NodeContext &ctx, int64_t samplingRatio, int64_t numRois,
             int64_t bins, int64_t coord, double scale, bool halfPixel) {
  if (samplingRatio > 0)
    return SmallVector<int64_t>(numRois, samplingRatio);
  DenseElementsAttr rois = ctx.constantInput(1);
  if (!rois)
    return ctx.fail("sampling_ratio 0 (adaptive) needs constant rois: the "
                    "sample count would depend on the rois' values");
  SmallVector<float> values;
  for (const APFloat &v : rois.getValues<APFloat>())
    values.push_back(static_cast<float>(v.convertToDouble()));
  SmallVector<int64_t> sizes;
  for (int64_t r = 0; r < numRois; ++r) {
    // onnxruntime's float arithmetic; the half-pixel offset cancels.
    float extent = values[4 * r + coord + 2] * float(scale) -
                   values[4 * r + coord] * float(scale);
    if (!halfPixel)
      extent = std::max(extent, 1.0f);
    sizes.push_back(static_cast<int64_t>(std::ceil(extent / bins)));
    if (sizes.back() < 1)
      return ctx.fail("roi " + Twine(r) + " is empty");
  }
  return sizes;
}

/// Per-roi f32 constant [R, 1] from `values`.
Value perRoi(ImplicitLocOpBuilder &b, Type type, ArrayRef<double> values) {
  SmallVector<float> f(values.begin(), values.end());
  auto attr = DenseElementsAttr::get(
      getTensorType({int64_t(values.size()), 1}, b.getF32Type()),
      ArrayRef<float>(f));
  return createCast(b, createConst(b, attr), type);
}

/// Sample coordinates along one axis for sample `i` of each bin: [R, bins]
/// = start + bin * (o + (i + 0.5) / grid), and a [R, 1] i1 mask of the rois
/// whose grid has that sample (null when all have).
std::pair<Value, Value> roiSamples(ImplicitLocOpBuilder &b, Value start,
                                   Value binSize, int64_t bins, int64_t i,
                                   ArrayRef<int64_t> grid) {
  Type type = getElementType(start);
  SmallVector<double> offsets;
  bool all = true;
  SmallVector<bool> present;
  for (int64_t g : grid) {
    offsets.push_back((i + 0.5) / g);
    present.push_back(i < g);
    all &= i < g;
  }
  SmallVector<float> binIndex;
  for (int64_t o = 0; o < bins; ++o)
    binIndex.push_back(o);
  Value o = createCast(b,
                       createConst(b, DenseElementsAttr::get(
                                          getTensorType({1, bins}, b.getF32Type()),
                                          ArrayRef<float>(binIndex))),
                       type);
  Value pos = add(b, o, perRoi(b, type, offsets));
  Value coords = add(b, start, createMul(b, binSize, pos));
  Value mask;
  if (!all)
    mask = createConst(b, DenseElementsAttr::get(
                              getTensorType({int64_t(grid.size()), 1},
                                            b.getI1Type()),
                              ArrayRef<bool>(present)));
  return {coords, mask};
}

/// RoiAlign: X [N, C, H, W], rois [R, 4] (x1, y1, x2, y2), batch_indices [R]
/// -> [R, C, oh, ow]. Each (sample, corner) is one gather of [R*oh*ow, C]
/// rows from X as [N*H*W, C].
LogicalResult convertRoiAlign(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value x = ctx.input(0), rois = ctx.input(1), batch = ctx.input(2);
  ArrayRef<int64_t> xShape = getShape(x);
  if (xShape.size() != 4 || getShape(rois).size() != 2 ||
      getShape(rois)[1] != 4)
    return ctx.fail("X must be 4-D and rois [num_rois, 4]");
  if (!isFloat(x))
    return ctx.fail("only floating-point input is supported");
  std::string mode = ctx.getString("mode", "avg");
  if (mode != "avg" && mode != "max")
    return ctx.unsupportedAttr("mode", "'" + mode + "'");
  std::string transform =
      ctx.opset() < 16
          ? "output_half_pixel"
          : ctx.getString("coordinate_transformation_mode", "half_pixel");
  if (transform != "half_pixel" && transform != "output_half_pixel")
    return ctx.unsupportedAttr("coordinate_transformation_mode",
                               "'" + transform + "'");
  bool halfPixel = transform == "half_pixel";
  int64_t oh = ctx.getInt("output_height", 1), ow = ctx.getInt("output_width", 1);
  int64_t ratio = ctx.getInt("sampling_ratio", 0);
  double scale = ctx.getFloat("spatial_scale", 1.0f);
  int64_t n = xShape[0], c = xShape[1], h = xShape[2], w = xShape[3];
  int64_t r = getShape(rois)[0];
  if (oh < 1 || ow < 1 || ratio < 0)
    return ctx.fail("output_height/width must be positive and sampling_ratio "
                    "non-negative");
  auto gridH = roiGridSizes(ctx, ratio, r, oh, 1, scale, halfPixel);
  if (failed(gridH))
    return failure();
  auto gridW = roiGridSizes(ctx, ratio, r, ow, 0, scale, halfPixel);
  if (failed(gridW))
    return failure();
  int64_t maxH = *llvm::max_element(*gridH), maxW = *llvm::max_element(*gridW);
  if (maxH * maxW > kMaxRoiSamples)
    return ctx.fail("more than " + Twine(kMaxRoiSamples) +
                    " samples per bin are not supported");

  // Roi geometry, each [R, 1].
  Type type = getElementType(x);
  rois = createCast(b, rois, type);
  auto corner = [&](int64_t k) {
    return addC(b, mulC(b, createSliceAxis(b, rois, 1, k, 1), scale),
                halfPixel ? -0.5 : 0);
  };
  Value x1 = corner(0), y1 = corner(1), x2 = corner(2), y2 = corner(3);
  Value roiW = sub(b, x2, x1), roiH = sub(b, y2, y1);
  if (!halfPixel) {
    roiW = maxC(b, roiW, 1);
    roiH = maxC(b, roiH, 1);
  }
  Value binH = mulC(b, roiH, 1.0 / oh), binW = mulC(b, roiW, 1.0 / ow);

  Value values = createReshape(b, createTranspose(b, x, {0, 2, 3, 1}),
                               {1, n * h * w, c});
  Value base = createMul(b, createReshape(b, createCast(b, batch, b.getI32Type()),
                                          {r, 1, 1}),
                         createScalar(b, b.getI32Type(), h * w, 3));
  Value widthC = createScalar(b, b.getI32Type(), w, 3);
  bool isMax = mode == "max";
  Value lowest = scalarLike(b, createReshape(b, x1, {r, 1, 1}),
                            -std::numeric_limits<double>::infinity());
  Value result;
  for (int64_t iy = 0; iy < maxH; ++iy) {
    auto [ys, yMask] = roiSamples(b, y1, binH, oh, iy, *gridH);
    auto yTaps = roiAlignTaps(b, createReshape(b, ys, {r, oh, 1}), h);
    for (int64_t ix = 0; ix < maxW; ++ix) {
      auto [xs, xMask] = roiSamples(b, x1, binW, ow, ix, *gridW);
      auto xTaps = roiAlignTaps(b, createReshape(b, xs, {r, 1, ow}), w);
      Value sample;
      for (const AxisTap &ty : yTaps) {
        for (const AxisTap &tx : xTaps) {
          Value index = add(b, base, add(b, createMul(b, ty.index, widthC),
                                         tx.index));
          Value rows = gatherRows(b, values, index, {r, oh, ow, c});
          Value weight = createReshape(b, createMul(b, ty.weight, tx.weight),
                                       {r, oh, ow, 1});
          Value term = createMul(b, rows, weight);
          sample = !sample ? term
                   : isMax ? createBinary<tosa::MaximumOp>(b, sample, term)
                           : add(b, sample, term);
        }
      }
      // Rois whose adaptive grid is smaller skip this sample.
      for (Value mask : {yMask, xMask})
        if (mask)
          sample = createSelect(b, createReshape(b, mask, {r, 1, 1, 1}), sample,
                                isMax ? createReshape(b, lowest, {r, 1, 1, 1})
                                      : scalarLike(b, sample, 0));
      result = !result ? sample
               : isMax ? createBinary<tosa::MaximumOp>(b, result, sample)
                       : add(b, result, sample);
    }
  }
  if (!isMax) {
    SmallVector<double> inverseCount;
    for (auto [gh, gw] : llvm::zip(*gridH, *gridW))
      inverseCount.push_back(1.0 / (gh * gw));
    result = createMul(b, result,
                       createReshape(b, perRoi(b, type, inverseCount),
                                     {r, 1, 1, 1}));
  }
  ctx.setOutput(0, createTranspose(b, result, {0, 3, 1, 2}));
  return success();
}

//===----------------------------------------------------------------------===//
// MaxUnpool
//===----------------------------------------------------------------------===//

/// MaxUnpool: X and I [N, C, spatial...]; I holds flat indices into the
/// default output [N, C, (in-1)*stride - pads + kernel ...]. Each output
/// plane is the max over a [N*C, K, W] select of X where I hits (0 where
/// nothing does); a larger `output_shape` pads the end.
LogicalResult convertMaxUnpool(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value x = ctx.input(0), indices = ctx.input(1);
  ArrayRef<int64_t> xShape = getShape(x);
  int64_t rank = xShape.size(), spatial = rank - 2;
  if (rank < 3 || getShape(indices) != xShape)
    return ctx.fail("X and I must have one shape with spatial dims");
  if (!isFloat(x))
    return ctx.fail("only floating-point input is supported");
  SmallVector<int64_t> kernel = ctx.getInts("kernel_shape"),
                       stride = ctx.getInts("strides"), pads = ctx.getInts("pads");
  if (stride.empty())
    stride.assign(spatial, 1);
  if (pads.empty())
    pads.assign(2 * spatial, 0);
  if (int64_t(kernel.size()) != spatial || int64_t(stride.size()) != spatial ||
      int64_t(pads.size()) != 2 * spatial)
    return ctx.fail("kernel_shape/strides/pads do not match the spatial rank");
  SmallVector<int64_t> outShape(xShape.take_front(2));
  for (int64_t i = 0; i < spatial; ++i)
    outShape.push_back((xShape[2 + i] - 1) * stride[i] - pads[i] -
                       pads[spatial + i] + kernel[i]);
  SmallVector<int64_t> finalShape = outShape;
  if (ctx.hasInput(2)) {
    auto given = ctx.constantIntsInput(2);
    if (failed(given))
      return failure();
    if (int64_t(given->size()) != rank)
      return ctx.fail("output_shape must have " + Twine(rank) + " entries");
    finalShape = *given;
  }
  SmallVector<int64_t> endPads;
  for (auto [out, fin] : llvm::zip(outShape, finalShape)) {
    if (fin < out)
      return ctx.fail("output_shape is smaller than the unpooled shape");
    endPads.append({0, fin - out});
  }

  int64_t planes = xShape[0] * xShape[1];
  int64_t k = getNumElements(ArrayRef<int64_t>(outShape).drop_front(2));
  int64_t wIn = getNumElements(xShape.drop_front(2));
  if (planes * k * wIn > kMaxUnpoolElements)
    return ctx.fail("too large: the one-hot scatter would have " +
                    Twine(planes * k * wIn) + " elements");
  SmallVector<int32_t> planeBase;
  for (int64_t p = 0; p < planes; ++p)
    planeBase.push_back(p * k);
  Value local = sub(b, createReshape(b, createCast(b, indices, b.getI32Type()),
                                     {planes, 1, wIn}),
                    createI32Const(b, planeBase, {planes, 1, 1}));
  Value hit = createBinary<tosa::EqualOp>(b, local, createIota(b, k, 1, 3),
                                          b.getI1Type());
  Value lowest = scalarLike(b, createReshape(b, x, {planes, 1, wIn}),
                            -std::numeric_limits<double>::infinity());
  Value picked = createSelect(b, hit, createReshape(b, x, {planes, 1, wIn}),
                              lowest);
  Value any = createReduce<tosa::ReduceAnyOp>(b, hit, 2);
  Value y = createSelect(b, any, createReduce<tosa::ReduceMaxOp>(b, picked, 2),
                         scalarLike(b, picked, 0));
  ctx.setOutput(0, createPad(b, createReshape(b, y, outShape), endPads, 0));
  return success();
}

//===----------------------------------------------------------------------===//
// Det
//===----------------------------------------------------------------------===//

/// Det of [..., n, n]: minor[S] is the determinant of the last |S| rows
/// restricted to the columns in bitmask S, expanded along its first row.
LogicalResult convertDet(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value x = ctx.input(0);
  ArrayRef<int64_t> shape = getShape(x);
  int64_t rank = shape.size();
  if (rank < 2 || shape[rank - 1] != shape[rank - 2])
    return ctx.fail("input must be [..., n, n]");
  if (!isFloat(x))
    return ctx.fail("only floating-point input is supported");
  int64_t n = shape.back();
  if (n < 1 || n > kMaxDetSize)
    return ctx.fail("only matrices of size 1 to " + Twine(kMaxDetSize) +
                    " are supported, not " + Twine(n));
  SmallVector<int64_t> batchShape(shape.drop_back(2));
  int64_t batch = getNumElements(batchShape);
  Value flat = createReshape(b, x, {batch, n * n});
  auto element = [&](int64_t i, int64_t j) {
    return createSliceAxis(b, flat, 1, i * n + j, 1);
  };
  SmallVector<Value> minor(size_t(1) << n);
  for (uint32_t set = 1; set < minor.size(); ++set) {
    int64_t row = n - llvm::popcount(set);
    Value sum;
    int64_t position = 0;
    for (int64_t j = 0; j < n; ++j) {
      if (!(set & (1u << j)))
        continue;
      uint32_t rest = set & ~(1u << j);
      Value term = element(row, j);
      if (rest)
        term = createMul(b, term, minor[rest]);
      if (!sum)
        sum = term;
      else if (position % 2)
        sum = sub(b, sum, term);
      else
        sum = add(b, sum, term);
      ++position;
    }
    minor[set] = sum;
  }
  ctx.setOutput(0, createReshape(b, minor.back(), batchShape));
  return success();
}

//===----------------------------------------------------------------------===//
// ReverseSequence, Compress
//===----------------------------------------------------------------------===//

/// ReverseSequence: viewed as [B, T, rest] (batch first), position t of batch
/// b reads t' = len[b] - 1 - t when t < len[b], else t; one batched gather.
LogicalResult convertReverseSequence(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value x = ctx.input(0), lens = ctx.input(1);
  ArrayRef<int64_t> shape = getShape(x);
  int64_t batchAxis = ctx.getInt("batch_axis", 1);
  int64_t timeAxis = ctx.getInt("time_axis", 0);
  if (shape.size() < 2 || batchAxis + timeAxis != 1 ||
      (batchAxis != 0 && batchAxis != 1))
    return ctx.fail("batch_axis and time_axis must be 0 and 1 (in either "
                    "order) of an input of rank >= 2");
  SmallVector<int64_t> perm{batchAxis, timeAxis};
  for (int64_t d = 2, e = shape.size(); d < e; ++d)
    perm.push_back(d);
  Value v = createTranspose(b, x, perm); // its own inverse
  int64_t batch = shape[batchAxis], time = shape[timeAxis];
  int64_t inner = getNumElements(shape.drop_front(2));
  Value len = createReshape(b, createCast(b, lens, b.getI32Type()), {batch, 1});
  Value t = createIota(b, time, 1, 2);
  Value reversed = sub(b, addC(b, len, -1), t);
  Value index = createSelect(
      b, createBinary<tosa::GreaterOp>(b, len, t, b.getI1Type()), reversed,
      createTile(b, t, {batch, 1}));
  Value gathered = b.create<tosa::GatherOp>(
      getTensorType({batch, time, inner}, getElementType(x)),
      createReshape(b, v, {batch, time, inner}), index);
  ctx.setOutput(0, createTranspose(b, createReshape(b, gathered, getShape(v)),
                                   perm));
  return success();
}

/// Compress: the slices along `axis` (of the flattened input when absent)
/// whose constant condition is true; a shorter condition drops the rest.
LogicalResult convertCompress(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value x = ctx.input(0);
  auto condition = ctx.constantIntsInput(1);
  if (failed(condition))
    return failure();
  int64_t axis = 0;
  if (ctx.hasAttr("axis")) {
    auto normalized = normalizeAxis(ctx.getInt("axis", 0), getShape(x).size());
    if (!normalized)
      return ctx.unsupportedAttr("axis", Twine(ctx.getInt("axis", 0)));
    axis = *normalized;
  } else {
    x = createReshape(b, x, {getNumElements(getShape(x))});
  }
  int64_t size = getShape(x)[axis];
  if (int64_t(condition->size()) > size)
    return ctx.fail("condition is longer than the axis (" + Twine(size) + ")");
  SmallVector<int64_t> kept;
  for (auto [i, c] : llvm::enumerate(*condition))
    if (c)
      kept.push_back(i);
  if (kept.empty())
    return ctx.fail("the condition selects nothing: empty tensors are not "
                    "supported");
  ctx.setOutput(0, gatherAlongAxis(b, x, axis, kept));
  return success();
}

/// MaxRoiPool (Fast R-CNN's RoI pooling, as Caffe and onnxruntime compute it): each roi
/// (batch, x1, y1, x2, y2), scaled and rounded half away from zero, is cut into
/// pooled_shape bins of floor/ceil bounds; a bin is the max of its pixels, 0 when empty. The
/// rois are data, so every bin is a masked max over the whole image of its roi's batch.
LogicalResult convertMaxRoiPool(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value x = ctx.input(0), rois = ctx.input(1);
  SmallVector<int64_t> pooled = ctx.getInts("pooled_shape");
  if (getShape(x).size() != 4 || !getElementType(x).isF32() || pooled.size() != 2 ||
      getShape(rois).size() != 2 || getShape(rois)[1] != 5)
    return ctx.fail("expects f32 X [N,C,H,W], rois [R,5] and a 2-D pooled_shape");
  int64_t n = getShape(x)[0], c = getShape(x)[1], h = getShape(x)[2], w = getShape(x)[3];
  int64_t r = getShape(rois)[0], ph = pooled[0], pw = pooled[1];
  constexpr int64_t kMaxElements = int64_t(1) << 26;
  if (r * c * ph * pw * h * w > kMaxElements)
    return ctx.fail("the masked max of R*C*bins*H*W = " + Twine(r * c * ph * pw * h * w) +
                    " elements is above the supported " + Twine(kMaxElements));
  Type f32 = b.getF32Type(), i1 = b.getI1Type();
  double scale = ctx.getFloat("spatial_scale", 1.0f);
  rois = createCast(b, rois, f32);
  auto column = [&](int64_t i) { return createSliceAxis(b, rois, 1, i, 1); }; // [R, 1]
  auto roundScaled = [&](Value v) { // round(v * scale), half away from zero
    Value scaled = mulC(b, v, scale);
    Value magnitude = floorOf(b, addC(b, createUnary<tosa::AbsOp>(b, scaled), 0.5));
    return createSelect(b, compareC(b, scaled, 0, false), createUnary<tosa::NegateOp>(b, magnitude),
                        magnitude);
  };
  // Per axis: the bins' [start, end) as [R, bins] floats, clipped to [0, size].
  auto bounds = [&](Value lo, Value hi, int64_t bins, int64_t size) {
    Value start = roundScaled(lo);
    Value extent = maxC(b, addC(b, sub(b, roundScaled(hi), start), 1), 1);
    // extent / bins exactly as onnxruntime divides (a reciprocal times extent rounds apart).
    Value bin = createElementwise(b, {extent, scalarLike(b, extent, bins)}, f32,
                                  [](OpBuilder &nb, Location loc, ValueRange args) {
                                    return nb.create<arith::DivFOp>(loc, args[0], args[1])
                                        .getResult();
                                  });
    Value index = createCast(b, createIota(b, bins, 1, 2), f32); // [1, bins]
    Value binStart = add(b, floorOf(b, createMul(b, index, bin)), start);
    Value binEnd = add(b, createUnary<tosa::CeilOp>(b, createMul(b, addC(b, index, 1), bin)), start);
    auto clip = [&](Value v) { return minC(b, maxC(b, v, 0), size); };
    return std::make_pair(clip(binStart), clip(binEnd));
  };
  auto [hStart, hEnd] = bounds(column(2), column(4), ph, h);
  auto [wStart, wEnd] = bounds(column(1), column(3), pw, w);
  // In-bin masks [R, bins, size], combined to [R, 1, ph, pw, H, W].
  auto inBin = [&](Value start, Value end, int64_t bins, int64_t size) {
    Value pixel = createCast(b, createIota(b, size, 2, 3), f32); // [1, 1, size]
    Value s = createReshape(b, start, {r, bins, 1}), e = createReshape(b, end, {r, bins, 1});
    return createBinary<tosa::LogicalAndOp>(
        b, createBinary<tosa::GreaterEqualOp>(b, pixel, s, i1),
        createBinary<tosa::GreaterOp>(b, e, pixel, i1));
  };
  Value mask = createBinary<tosa::LogicalAndOp>(
      b, createReshape(b, inBin(hStart, hEnd, ph, h), {r, 1, ph, 1, h, 1}),
      createReshape(b, inBin(wStart, wEnd, pw, w), {r, 1, 1, pw, 1, w}));
  // Each roi's image, then the masked max over H and W.
  Value batch = createCast(b, createReshape(b, column(0), {r}), b.getI32Type());
  Value images = gatherRows(b, createReshape(b, x, {1, n, c * h * w}), batch, {r, c, 1, 1, h, w});
  Value lowest = createScalar(b, f32, -std::numeric_limits<float>::infinity(), 6);
  Value masked = createSelect(b, mask, images, lowest);
  masked = createReduce<tosa::ReduceMaxOp>(b, masked, 5);
  masked = createReduce<tosa::ReduceMaxOp>(b, masked, 4); // [R, C, ph, pw, 1, 1]
  Value pooledMax = createReshape(b, masked, {r, c, ph, pw});
  Value empty = createBinary<tosa::LogicalOrOp>(
      b, createReshape(b, createBinary<tosa::GreaterEqualOp>(b, hStart, hEnd, i1), {r, 1, ph, 1}),
      createReshape(b, createBinary<tosa::GreaterEqualOp>(b, wStart, wEnd, i1), {r, 1, 1, pw}));
  ctx.setOutput(0, createSelect(b, empty, createScalar(b, f32, 0, 4), pooledMax));
  return success();
}

} // namespace

void registerSamplingOps(ConverterMap &map) {
  map["MaxRoiPool"] = convertMaxRoiPool;
  map["GridSample"] = convertGridSample;
  map["RoiAlign"] = convertRoiAlign;
  map["MaxUnpool"] = convertMaxUnpool;
  map["Det"] = convertDet;
  map["ReverseSequence"] = convertReverseSequence;
  map["Compress"] = convertCompress;
}

} // namespace loupe::frontends::onnx_import
