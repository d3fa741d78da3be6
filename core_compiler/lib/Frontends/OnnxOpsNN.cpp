//===- OnnxOpsNN.cpp - Neural-network ONNX ops -> TOSA --------------------===//
//
// Gemm/MatMul, Conv/ConvTranspose and pooling.
// ONNX is channels-first; TOSA convolutions and pools are channels-last, so
// those ops transpose around the TOSA op (constant weights are transposed at
// import). 1-D windows run as 2-D ones with a unit height; 3-D pools are
// separable and run as two 2-D pools; 3-D ConvTranspose runs as the
// equivalent tosa.conv3d. MaxPool's Indices output gathers every window and
// takes its argmax (onnxruntime's pool_functors.h: first maximum, index flat
// over [N, C, spatial...], storage_order 1 making the spatial part
// column-major).
//
//===----------------------------------------------------------------------===//

#include "OnnxOps.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include <cmath>
#include <limits>

using namespace mlir;

namespace loupe::frontends::onnx_import {
namespace {

int64_t floorDiv(int64_t a, int64_t b) {
  return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

//===----------------------------------------------------------------------===//
// Gemm, MatMul
//===----------------------------------------------------------------------===//

/// tosa.matmul of [P, M, K] and [P, K, N] operands -> [P, M, N] (lhs's type).
Value createTosaBatchMatMul(ImplicitLocOpBuilder &b, Value lhs, Value rhs) {
  ArrayRef<int64_t> l = getShape(lhs), r = getShape(rhs);
  return b.create<tosa::MatMulOp>(getTensorType({l[0], l[1], r[2]}, getElementType(lhs)), lhs,
                                  rhs);
}

/// Batched [P, M, K] x [P, K, N] -> [P, M, N] on operands of any shape that
/// reshape to those, built by `build` (tosa.matmul when null).
Value createBatchMatMul(ImplicitLocOpBuilder &b, Value lhs, Value rhs, int64_t p, int64_t m,
                        int64_t k, int64_t n, BatchMatMulBuilder build) {
  lhs = createReshape(b, lhs, {p, m, k});
  rhs = createReshape(b, rhs, {p, k, n});
  return build ? build(b, lhs, rhs) : createTosaBatchMatMul(b, lhs, rhs);
}

LogicalResult convertGemm(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value a = ctx.input(0), bMat = ctx.input(1);
  if (!isFloat(a))
    return ctx.fail("only floating-point Gemm is supported");
  if (getShape(a).size() != 2 || getShape(bMat).size() != 2)
    return ctx.fail("A and B must be 2-D");
  if (ctx.getInt("transA", 0))
    a = createTranspose(b, a, {1, 0});
  if (ctx.getInt("transB", 0))
    bMat = createTranspose(b, bMat, {1, 0});
  int64_t m = getShape(a)[0], k = getShape(a)[1], n = getShape(bMat)[1];
  if (getShape(bMat)[0] != k)
    return ctx.fail("inner dimensions of A and B differ");
  Value y = createReshape(b, createBatchMatMul(b, a, bMat, 1, m, k, n, {}), {m, n});
  double alpha = ctx.getFloat("alpha", 1.0f), beta = ctx.getFloat("beta", 1.0f);
  if (alpha != 1.0)
    y = createMul(b, y, scalarLike(b, y, alpha));
  if (ctx.hasInput(2) && beta != 0.0) {
    Value c = ctx.input(2);
    if (beta != 1.0)
      c = createMul(b, c, scalarLike(b, c, beta));
    y = createBinary<tosa::AddOp>(b, y, c);
    if (!y || getShape(y) != ArrayRef<int64_t>{m, n})
      return ctx.fail("C does not broadcast to [M, N]");
  }
  ctx.setOutput(0, y);
  return success();
}

} // namespace

/// numpy matmul: 1-D operands get a unit dim (dropped again), batch dims
/// broadcast. When B has no real batch, A's batch folds into M.
FailureOr<Value> createMatMul(NodeContext &ctx, Value lhs, Value rhs,
                              BatchMatMulBuilder build) {
  ImplicitLocOpBuilder &b = ctx.b;
  if (getShape(lhs).empty() || getShape(rhs).empty())
    return ctx.fail("operands must have rank >= 1");
  bool vecLhs = getShape(lhs).size() == 1, vecRhs = getShape(rhs).size() == 1;
  if (vecLhs)
    lhs = createReshape(b, lhs, {1, getShape(lhs)[0]});
  if (vecRhs)
    rhs = createReshape(b, rhs, {getShape(rhs)[0], 1});
  ArrayRef<int64_t> lShape = getShape(lhs), rShape = getShape(rhs);
  int64_t m = lShape[lShape.size() - 2], k = lShape.back();
  int64_t n = rShape.back();
  if (rShape[rShape.size() - 2] != k)
    return ctx.fail("inner dimensions differ");

  SmallVector<int64_t> lBatch(lShape.drop_back(2)), rBatch(rShape.drop_back(2));
  size_t batchRank = std::max(lBatch.size(), rBatch.size());
  lBatch.insert(lBatch.begin(), batchRank - lBatch.size(), 1);
  rBatch.insert(rBatch.begin(), batchRank - rBatch.size(), 1);
  SmallVector<int64_t> batch;
  for (auto [l, r] : llvm::zip(lBatch, rBatch)) {
    if (l != r && l != 1 && r != 1)
      return ctx.fail("batch dimensions do not broadcast");
    batch.push_back(std::max(l, r));
  }
  int64_t p = getNumElements(batch);

  Value product;
  if (getNumElements(rBatch) == 1) {
    product = createBatchMatMul(b, lhs, rhs, 1, getNumElements(lBatch) * m, k, n, build);
  } else {
    // Tile each operand to the full batch shape.
    auto expand = [&](Value v, ArrayRef<int64_t> own) {
      SmallVector<int64_t> shape(own), multiples;
      shape.append({getShape(v)[getShape(v).size() - 2], getShape(v).back()});
      v = createReshape(b, v, shape);
      for (auto [o, full] : llvm::zip(own, batch))
        multiples.push_back(o == full ? 1 : full);
      multiples.append({1, 1});
      return createTile(b, v, multiples);
    };
    product = createBatchMatMul(b, expand(lhs, lBatch), expand(rhs, rBatch), p,
                                m, k, n, build);
  }
  SmallVector<int64_t> shape(batch);
  if (!vecLhs)
    shape.push_back(m);
  if (!vecRhs)
    shape.push_back(n);
  return createReshape(b, product, shape);
}

namespace {

LogicalResult convertMatMul(NodeContext &ctx) {
  if (!isFloat(ctx.input(0)))
    return ctx.fail("only floating-point MatMul is supported");
  FailureOr<Value> product = createMatMul(ctx, ctx.input(0), ctx.input(1));
  if (failed(product))
    return failure();
  ctx.setOutput(0, *product);
  return success();
}

//===----------------------------------------------------------------------===//
// Windows (Conv, pools)
//===----------------------------------------------------------------------===//

/// Kernel geometry per spatial dim, with pads normalized so that
/// `(in + lo + hi - effectiveKernel) / stride + 1 == out` is exact: surplus
/// trailing pad is dropped, and when even that is not enough `crop` trailing
/// input elements (never read) are left for pools to slice away.
struct Window {
  SmallVector<int64_t> kernel, stride, dilation, lo, hi, out, crop;
  /// The pads ONNX asked for at the end (hi before normalization).
  SmallVector<int64_t> onnxHi;
};

/// Reads kernel_shape/strides/dilations/pads/auto_pad; `ceilMode` selects the
/// pooling output rule.
FailureOr<Window> getWindow(NodeContext &ctx, ArrayRef<int64_t> inSpatial,
                            ArrayRef<int64_t> kernel, bool ceilMode) {
  size_t rank = inSpatial.size();
  Window w;
  w.kernel.assign(kernel.begin(), kernel.end());
  w.stride = ctx.getInts("strides");
  w.dilation = ctx.getInts("dilations");
  SmallVector<int64_t> pads = ctx.getInts("pads");
  if (w.stride.empty())
    w.stride.assign(rank, 1);
  if (w.dilation.empty())
    w.dilation.assign(rank, 1);
  if (pads.empty())
    pads.assign(2 * rank, 0);
  if (w.kernel.size() != rank || w.stride.size() != rank ||
      w.dilation.size() != rank || pads.size() != 2 * rank)
    return ctx.fail("kernel_shape/strides/dilations/pads do not match the "
                    "input's spatial rank");
  auto positive = [](ArrayRef<int64_t> v) {
    return llvm::all_of(v, [](int64_t x) { return x > 0; });
  };
  if (!positive(w.kernel) || !positive(w.stride) || !positive(w.dilation) ||
      llvm::any_of(pads, [](int64_t p) { return p < 0; }))
    return ctx.fail("kernel_shape/strides/dilations must be positive and pads "
                    "non-negative");
  std::string autoPad = ctx.getString("auto_pad", "NOTSET");
  for (size_t i = 0; i < rank; ++i) {
    int64_t in = inSpatial[i], s = w.stride[i];
    int64_t effective = (w.kernel[i] - 1) * w.dilation[i] + 1;
    int64_t lo = pads[i], hi = pads[rank + i], out;
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      out = (in + s - 1) / s;
      int64_t total = std::max<int64_t>(0, (out - 1) * s + effective - in);
      lo = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
      hi = total - lo;
    } else if (autoPad == "VALID") {
      lo = hi = 0;
      out = (in - effective) / s + 1;
    } else if (autoPad == "NOTSET") {
      int64_t span = in + lo + hi - effective;
      out = (ceilMode ? (span + s - 1) / s : span / s) + 1;
      // A ceil-mode window must start inside the input or the leading pad.
      if (ceilMode && (out - 1) * s >= in + lo)
        --out;
    } else {
      return ctx.unsupportedAttr("auto_pad", "'" + autoPad + "'");
    }
    if (out <= 0)
      return ctx.fail("window is larger than the padded input");
    int64_t needHi = (out - 1) * s + effective - in - lo;
    w.lo.push_back(lo);
    w.onnxHi.push_back(hi);
    w.hi.push_back(std::max<int64_t>(needHi, 0));
    w.crop.push_back(std::max<int64_t>(-needHi, 0));
    w.out.push_back(out);
  }
  return w;
}

/// Slices away `crop` trailing elements of each spatial dim of channels-last
/// `x` (dims 1..rank-2).
Value cropSpatial(ImplicitLocOpBuilder &b, Value x, ArrayRef<int64_t> crop) {
  SmallVector<int64_t> start(getShape(x).size(), 0), size(getShape(x));
  for (auto [i, c] : llvm::enumerate(crop))
    size[i + 1] -= c;
  return createSlice(b, x, start, size);
}

/// The kernel/stride/dilation/pad attributes of a 2-D TOSA window op.
struct Window2D {
  SmallVector<int64_t> kernel, stride, dilation, pad;
};

Window2D get2D(const Window &w, size_t first) {
  Window2D r;
  for (size_t i = first; i < first + 2; ++i) {
    r.kernel.push_back(w.kernel[i]);
    r.stride.push_back(w.stride[i]);
    r.dilation.push_back(w.dilation[i]);
    r.pad.append({w.lo[i], w.hi[i]});
  }
  return r;
}

/// Prepends a unit spatial dim: [N, C, L] -> [N, C, 1, L] and the matching
/// window entries, so 1-D ops run as 2-D ones.
void addUnitDim(ImplicitLocOpBuilder &b, Value &x, Window &w) {
  SmallVector<int64_t> shape(getShape(x));
  shape.insert(shape.begin() + 2, 1);
  x = createReshape(b, x, shape);
  for (auto *v : {&w.kernel, &w.stride, &w.dilation, &w.out})
    v->insert(v->begin(), 1);
  for (auto *v : {&w.lo, &w.hi, &w.crop, &w.onnxHi})
    v->insert(v->begin(), 0);
}

//===----------------------------------------------------------------------===//
// Conv
//===----------------------------------------------------------------------===//

/// The element type of a convolution of `x`: i32 for an int8 one.
Type convResultType(ImplicitLocOpBuilder &b, Value x,
                    std::optional<ConvZeroPoints> zeroPoints) {
  return zeroPoints ? b.getI32Type() : getElementType(x);
}

/// Sets the TOSA quantization_info of an int8 convolution `op`.
Value quantized(Operation *op, std::optional<ConvZeroPoints> zeroPoints) {
  if (zeroPoints)
    op->setAttr("quantization_info",
                tosa::ConvOpQuantizationAttr::get(op->getContext(), zeroPoints->input,
                                                  zeroPoints->weight));
  return op->getResult(0);
}

/// One group of a 2-D/3-D convolution on channels-last `x` with ONNX-layout
/// weight [M, C, k...].
Value createConvGroup(ImplicitLocOpBuilder &b, Value x, Value weight,
                      Value bias, const Window &w,
                      std::optional<ConvZeroPoints> zeroPoints) {
  ArrayRef<int64_t> xShape = getShape(x);
  int64_t rank = xShape.size();
  SmallVector<int64_t> outShape{xShape[0]};
  llvm::append_range(outShape, w.out);
  outShape.push_back(getShape(weight)[0]);
  auto type = getTensorType(outShape, convResultType(b, x, zeroPoints));
  Value wT = createTranspose(b, weight, channelsLastPerm(rank));
  if (rank == 4) {
    Window2D w2 = get2D(w, 0);
    return quantized(b.create<tosa::Conv2DOp>(type, x, wT, bias,
                                              b.getDenseI64ArrayAttr(w2.pad),
                                              b.getDenseI64ArrayAttr(w2.stride),
                                              b.getDenseI64ArrayAttr(w2.dilation)),
                     zeroPoints);
  }
  SmallVector<int64_t> pad;
  for (size_t i = 0; i < 3; ++i)
    pad.append({w.lo[i], w.hi[i]});
  return quantized(b.create<tosa::Conv3DOp>(type, x, wT, bias,
                                            b.getDenseI64ArrayAttr(pad),
                                            b.getDenseI64ArrayAttr(w.stride),
                                            b.getDenseI64ArrayAttr(w.dilation)),
                   zeroPoints);
}

} // namespace

/// Conv's attributes (group, kernel_shape, strides, dilations, pads, auto_pad)
/// applied to NC... `x` and [M, C/group, k...] `weight` with optional [M] `bias`.
FailureOr<Value> createConv(NodeContext &ctx, Value x, Value weight, Value bias,
                            std::optional<ConvZeroPoints> zeroPoints) {
  ImplicitLocOpBuilder &b = ctx.b;
  ArrayRef<int64_t> xShape = getShape(x), wShape = getShape(weight);
  int64_t rank = xShape.size();
  if (rank < 3 || rank > 5 || static_cast<int64_t>(wShape.size()) != rank)
    return ctx.fail("only 1-D, 2-D and 3-D convolutions are supported");
  int64_t group = ctx.getInt("group", 1);
  int64_t channels = xShape[1], outChannels = wShape[0];
  if (group <= 0 || channels % group || outChannels % group ||
      wShape[1] * group != channels)
    return ctx.unsupportedAttr("group", Twine(group));
  SmallVector<int64_t> kernel = ctx.getInts("kernel_shape");
  if (kernel.empty())
    kernel.assign(wShape.begin() + 2, wShape.end());
  auto window = getWindow(ctx, xShape.drop_front(2), kernel, false);
  if (failed(window))
    return failure();
  Window w = *window;

  if (bias && getShape(bias) != ArrayRef<int64_t>{outChannels})
    return ctx.fail("bias must be [" + Twine(outChannels) + "]");
  if (!bias)
    bias = createSplat(b, convResultType(b, x, zeroPoints), {outChannels}, 0);
  bool is1D = rank == 3;
  if (is1D) {
    addUnitDim(b, x, w);
    SmallVector<int64_t> shape(wShape);
    shape.insert(shape.begin() + 2, 1);
    weight = createReshape(b, weight, shape);
  }
  int64_t nd = getShape(x).size();
  // Trailing input no window reads is not cropped (w.crop is for pools): a convolution indexes
  // its input, and a cropped view is strided, which oneDNN copies densely before each call
  // (ResNet-50's stride-2 1x1 downsamples over 56x56, 28x28, 14x14: 0.36 ms a run).
  x = createTranspose(b, x, channelsLastPerm(nd));

  Value result;
  if (group == 1) {
    result = createConvGroup(b, x, weight, bias, w, zeroPoints);
  } else if (wShape[1] == 1 && nd == 4) {
    // Depthwise: [C*mult, 1, KH, KW] -> [KH, KW, C, mult].
    int64_t mult = outChannels / channels;
    ArrayRef<int64_t> k = getShape(weight).drop_front(2);
    Value dw = createTranspose(
        b, createReshape(b, weight, {channels, mult, k[0], k[1]}),
        {2, 3, 0, 1});
    Window2D w2 = get2D(w, 0);
    SmallVector<int64_t> outShape{getShape(x)[0], w.out[0], w.out[1],
                                  outChannels};
    result = quantized(b.create<tosa::DepthwiseConv2DOp>(
                           getTensorType(outShape, convResultType(b, x, zeroPoints)), x, dw,
                           bias, b.getDenseI64ArrayAttr(w2.pad),
                           b.getDenseI64ArrayAttr(w2.stride),
                           b.getDenseI64ArrayAttr(w2.dilation)),
                       zeroPoints);
  } else {
    // Grouped: one convolution per group, concatenated along channels.
    int64_t cg = channels / group, mg = outChannels / group;
    SmallVector<Value> parts;
    for (int64_t g = 0; g < group; ++g)
      parts.push_back(createConvGroup(
          b, createSliceAxis(b, x, nd - 1, g * cg, cg),
          createSliceAxis(b, weight, 0, g * mg, mg),
          createSliceAxis(b, bias, 0, g * mg, mg), w, zeroPoints));
    result = createConcat(b, parts, nd - 1);
  }
  result = createTranspose(b, result, channelsFirstPerm(nd));
  if (is1D)
    result = createReshape(b, result, {xShape[0], outChannels, w.out[1]});
  return result;
}

namespace {

LogicalResult convertConv(NodeContext &ctx) {
  if (!isFloat(ctx.input(0)))
    return ctx.fail("only floating-point Conv is supported");
  FailureOr<Value> result = createConv(ctx, ctx.input(0), ctx.input(1),
                                       ctx.hasInput(2) ? ctx.input(2) : Value());
  if (failed(result))
    return failure();
  ctx.setOutput(0, *result);
  return success();
}

/// Inserts `dilation - 1` zeros between the elements along `axis`.
Value dilateAxis(ImplicitLocOpBuilder &b, Value w, int64_t axis,
                 int64_t dilation) {
  SmallVector<int64_t> shape(getShape(w)), split(shape);
  int64_t k = shape[axis];
  split.insert(split.begin() + axis + 1, 1);
  SmallVector<int64_t> pads(2 * split.size(), 0);
  pads[2 * (axis + 1) + 1] = dilation - 1;
  Value spread = createPad(b, createReshape(b, w, split), pads, 0);
  shape[axis] = k * dilation;
  return createSliceAxis(b, createReshape(b, spread, shape), axis, 0,
                         (k - 1) * dilation + 1);
}

/// 3-D ConvTranspose (TOSA has no transpose_conv3d) as the equivalent
/// tosa.conv3d: the input dilated by the stride and padded by k - 1 + outPad
/// (cropped where negative), the kernel flipped with its channel dims swapped.
/// `x` [N, C, D, H, W], `weight` [C, M/group, k...] (already dilated), `outPad`
/// as tosa.transpose_conv2d's: out = (in-1)*stride + top + bottom + k.
Value createConvTranspose3D(ImplicitLocOpBuilder &b, Value x, Value weight,
                            Value bias, int64_t group, ArrayRef<int64_t> stride,
                            ArrayRef<int64_t> outPad,
                            ArrayRef<int64_t> outSpatial) {
  x = createTranspose(b, x, channelsLastPerm(5));
  ArrayRef<int64_t> k = getShape(weight).drop_front(2);
  SmallVector<int64_t> pads(2, 0), start(5, 0);
  for (int64_t i = 0; i < 3; ++i) {
    if (stride[i] > 1)
      x = dilateAxis(b, x, 1 + i, stride[i]);
    int64_t lo = k[i] - 1 + outPad[2 * i], hi = k[i] - 1 + outPad[2 * i + 1];
    pads.append({std::max<int64_t>(lo, 0), std::max<int64_t>(hi, 0)});
    start[1 + i] = std::max<int64_t>(-lo, 0);
  }
  pads.append({0, 0});
  x = createPad(b, x, pads, 0);
  SmallVector<int64_t> size(getShape(x));
  for (int64_t i = 0; i < 3; ++i)
    size[1 + i] = outSpatial[i] + k[i] - 1;
  x = createSlice(b, x, start, size);

  Window w;
  w.kernel.assign(k.begin(), k.end());
  w.stride.assign(3, 1);
  w.dilation.assign(3, 1);
  w.lo.assign(3, 0);
  w.hi.assign(3, 0);
  w.out.assign(outSpatial.begin(), outSpatial.end());
  int64_t cg = getShape(x)[4] / group, mg = getShape(weight)[1];
  SmallVector<Value> parts;
  for (int64_t g = 0; g < group; ++g) {
    Value wg = createTranspose(b, createSliceAxis(b, weight, 0, g * cg, cg),
                               {1, 0, 2, 3, 4});
    for (int32_t axis = 2; axis < 5; ++axis)
      wg = b.create<tosa::ReverseOp>(getType(wg), wg, b.getI32IntegerAttr(axis));
    parts.push_back(createConvGroup(b, createSliceAxis(b, x, 4, g * cg, cg), wg,
                                    createSliceAxis(b, bias, 0, g * mg, mg), w, {}));
  }
  return createTranspose(b, createConcat(b, parts, 4), channelsFirstPerm(5));
}

/// ConvTranspose: 1-D/2-D via tosa.transpose_conv2d, whose out_pad is the
/// negated ONNX crop: OH = (IH-1)*s + top + bottom + KH; 3-D via
/// createConvTranspose3D with the same out_pad.
LogicalResult convertConvTranspose(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value x = ctx.input(0), weight = ctx.input(1);
  if (!isFloat(x))
    return ctx.fail("only floating-point ConvTranspose is supported");
  ArrayRef<int64_t> xShape = getShape(x), wShape = getShape(weight);
  int64_t rank = xShape.size();
  if (rank < 3 || rank > 5 || static_cast<int64_t>(wShape.size()) != rank)
    return ctx.fail("only 1-D, 2-D and 3-D transposed convolutions are "
                    "supported");
  int64_t group = ctx.getInt("group", 1);
  int64_t channels = xShape[1];
  if (group <= 0 || channels % group || wShape[0] != channels)
    return ctx.unsupportedAttr("group", Twine(group));
  int64_t outChannels = wShape[1] * group;
  // A dilated kernel is a larger kernel with zeros in between.
  SmallVector<int64_t> dilations = ctx.getInts("dilations");
  if (!dilations.empty() && dilations.size() != static_cast<size_t>(rank - 2))
    return ctx.fail("dilations do not match the input's spatial rank");
  for (auto [i, d] : llvm::enumerate(dilations)) {
    if (d < 1)
      return ctx.unsupportedAttr("dilations", Twine(d));
    if (d > 1)
      weight = dilateAxis(b, weight, 2 + i, d);
  }
  wShape = getShape(weight);
  auto outType = ctx.outputType(0);
  if (failed(outType))
    return failure();
  size_t spatial = rank - 2;
  SmallVector<int64_t> stride = ctx.getInts("strides");
  SmallVector<int64_t> pads = ctx.getInts("pads");
  if (stride.empty())
    stride.assign(spatial, 1);
  std::string autoPad = ctx.getString("auto_pad", "NOTSET");
  bool explicitPads = autoPad == "NOTSET" && !ctx.hasAttr("output_shape");
  if (pads.empty())
    pads.assign(2 * spatial, 0);

  SmallVector<int64_t> outputPadding = ctx.getInts("output_padding");
  if (outputPadding.empty())
    outputPadding.assign(spatial, 0);
  if (stride.size() != spatial || pads.size() != 2 * spatial ||
      outputPadding.size() != spatial ||
      llvm::any_of(stride, [](int64_t s) { return s <= 0; }))
    return ctx.fail("strides/pads/output_padding do not match the input's "
                    "spatial rank, or a stride is not positive");

  // Leading crop per dim; the trailing one follows from the output size.
  SmallVector<int64_t> outPad, outSpatial;
  for (size_t i = 0; i < spatial; ++i) {
    int64_t in = xShape[2 + i], k = wShape[2 + i];
    int64_t out = outType->getDimSize(2 + i);
    int64_t full = (in - 1) * stride[i] + k;
    int64_t total = full + outputPadding[i] - out;
    int64_t lo;
    if (autoPad == "VALID")
      lo = 0;
    else if (explicitPads)
      lo = pads[i];
    else if (autoPad == "SAME_UPPER")
      lo = floorDiv(total, 2);
    else // The spec's formulas use floor division (total may be negative).
      lo = total - floorDiv(total, 2);
    outPad.append({-lo, out - full + lo});
    outSpatial.push_back(out);
  }
  if (ctx.hasInput(2) &&
      getShape(ctx.input(2)) != ArrayRef<int64_t>{outChannels})
    return ctx.fail("bias must be [" + Twine(outChannels) + "]");
  Value bias = ctx.hasInput(2)
                   ? ctx.input(2)
                   : createSplat(b, getElementType(x), {outChannels}, 0);
  if (spatial == 3) {
    ctx.setOutput(0, createConvTranspose3D(b, x, weight, bias, group, stride,
                                           outPad, outSpatial));
    return success();
  }
  if (spatial == 1) {
    x = createReshape(b, x, {xShape[0], channels, 1, xShape[2]});
    weight = createReshape(b, weight, {wShape[0], wShape[1], 1, wShape[2]});
    outPad.insert(outPad.begin(), {0, 0});
    stride.insert(stride.begin(), 1);
    outSpatial.insert(outSpatial.begin(), 1);
  }
  x = createTranspose(b, x, channelsLastPerm(4));
  int64_t cg = channels / group, mg = outChannels / group;
  SmallVector<Value> parts;
  for (int64_t g = 0; g < group; ++g) {
    // [C, M, KH, KW] -> [M, KH, KW, C].
    Value wg = createTranspose(b, createSliceAxis(b, weight, 0, g * cg, cg),
                               {1, 2, 3, 0});
    SmallVector<int64_t> outShape{xShape[0], outSpatial[0], outSpatial[1], mg};
    parts.push_back(b.create<tosa::TransposeConv2DOp>(
        getTensorType(outShape, getElementType(x)),
        createSliceAxis(b, x, 3, g * cg, cg), wg,
        createSliceAxis(b, bias, 0, g * mg, mg),
        b.getDenseI64ArrayAttr(outPad), b.getDenseI64ArrayAttr(stride),
        b.getDenseI64ArrayAttr(outShape)));
  }
  Value result = createTranspose(b, createConcat(b, parts, 3),
                                 channelsFirstPerm(4));
  ctx.setOutput(0, createReshape(b, result, outType->getShape()));
  return success();
}

//===----------------------------------------------------------------------===//
// Pools
//===----------------------------------------------------------------------===//

/// tosa.max_pool2d / avg_pool2d on channels-last `x` for window dims
/// [first, first+1] of `w`.
Value createPool2D(ImplicitLocOpBuilder &b, bool isMax, Value x,
                   const Window &w, size_t first) {
  Window2D w2 = get2D(w, first);
  ArrayRef<int64_t> shape = getShape(x);
  auto type = getTensorType({shape[0], w.out[first], w.out[first + 1], shape[3]},
                            getElementType(x));
  if (isMax)
    return b.create<tosa::MaxPool2dOp>(type, x,
                                       b.getDenseI64ArrayAttr(w2.kernel),
                                       b.getDenseI64ArrayAttr(w2.stride),
                                       b.getDenseI64ArrayAttr(w2.pad));
  return b.create<tosa::AvgPool2dOp>(
      type, x, b.getDenseI64ArrayAttr(w2.kernel),
      b.getDenseI64ArrayAttr(w2.stride), b.getDenseI64ArrayAttr(w2.pad),
      TypeAttr::get(b.getF32Type()));
}

/// -inf for floats, the minimum for integers: the identity of max.
double lowestValue(Type type) {
  if (isa<FloatType>(type))
    return -std::numeric_limits<double>::infinity();
  return -std::ldexp(1.0, type.getIntOrFloatBitWidth() - 1);
}

/// Unpadded 1-D max pool along `axis` (length (out-1)*stride + kernel) as a
/// tosa.max_pool2d over [outer, length, inner, 1].
Value maxPoolAxis(ImplicitLocOpBuilder &b, Value x, int64_t axis,
                  int64_t kernel, int64_t stride, int64_t out) {
  ArrayRef<int64_t> shape = getShape(x);
  int64_t outer = getNumElements(shape.take_front(axis));
  int64_t inner = getNumElements(shape.drop_front(axis + 1));
  Value pooled = b.create<tosa::MaxPool2dOp>(
      getTensorType({outer, out, inner, 1}, getElementType(x)),
      createReshape(b, x, {outer, shape[axis], inner, 1}),
      b.getDenseI64ArrayAttr({kernel, 1}), b.getDenseI64ArrayAttr({stride, 1}),
      b.getDenseI64ArrayAttr({0, 0, 0, 0}));
  SmallVector<int64_t> outShape(shape);
  outShape[axis] = out;
  return createReshape(b, pooled, outShape);
}

/// Dilated MaxPool (TOSA's has no dilation), one spatial dim at a time as max
/// is separable. After explicit padding with the lowest value, a dilation d
/// that divides the stride s becomes a subsample by d; an s dividing d
/// becomes a subsample by s and d/s interleaved phases of unit stride.
FailureOr<Value> createDilatedMaxPool(NodeContext &ctx, Value x,
                                      const Window &w) {
  ImplicitLocOpBuilder &b = ctx.b;
  double lowest = lowestValue(getElementType(x));
  int64_t rank = getShape(x).size();
  SmallVector<int64_t> pads(4, 0), start(rank, 0);
  for (size_t i = 0; i < w.lo.size(); ++i)
    pads.append({w.lo[i], w.hi[i]});
  x = createPad(b, x, pads, lowest);
  SmallVector<int64_t> size(getShape(x));
  for (size_t i = 0; i < w.crop.size(); ++i)
    size[2 + i] -= w.crop[i];
  x = createSlice(b, x, start, size);

  for (size_t i = 0; i < w.kernel.size(); ++i) {
    int64_t axis = 2 + i, k = w.kernel[i], s = w.stride[i], d = w.dilation[i];
    int64_t out = w.out[i];
    if (d == 1) {
      x = maxPoolAxis(b, x, axis, k, s, out);
    } else if (s % d == 0) {
      x = subsample(b, x, axis, d);
      x = createSliceAxis(b, x, axis, 0, (out - 1) * (s / d) + k);
      x = maxPoolAxis(b, x, axis, k, s / d, out);
    } else if (d % s == 0) {
      int64_t e = d / s, rows = (out + e - 1) / e;
      Value z = subsample(b, x, axis, s);
      int64_t length = getShape(z)[axis];
      SmallVector<Value> phases;
      for (int64_t p = 0; p < std::min(e, out); ++p) {
        int64_t count = (out - p + e - 1) / e;
        Value zp = subsample(b, createSliceAxis(b, z, axis, p, length - p),
                             axis, e);
        zp = createSliceAxis(b, zp, axis, 0, count + k - 1);
        Value yp = maxPoolAxis(b, zp, axis, k, 1, count);
        SmallVector<int64_t> rowPad(2 * rank, 0);
        rowPad[2 * axis + 1] = rows - count;
        yp = createPad(b, yp, rowPad, lowest);
        SmallVector<int64_t> split(getShape(yp));
        split.insert(split.begin() + axis + 1, 1);
        phases.push_back(createReshape(b, yp, split));
      }
      // Interleave: output o = row * e + phase.
      Value y = createConcat(b, phases, axis + 1);
      SmallVector<int64_t> merged(getShape(x));
      merged[axis] = rows * phases.size();
      x = createSliceAxis(b, createReshape(b, y, merged), axis, 0, out);
    } else {
      return ctx.unsupportedAttr("dilations",
                                 Twine(d) + " with stride " + Twine(s) +
                                     " (neither divides the other)");
    }
  }
  return x;
}

/// MaxPool with its Indices output, on channels-first `x` [N, C, spatial...]
/// of any spatial rank: one gather of every window from the padded input as
/// [N*C, O, K] (O outputs, K kernel taps), then reduce_max and argmax over
/// the taps (argmax takes the first maximum, in row-major window order as
/// onnxruntime). The index is flat over [N, C, spatial...], with the spatial
/// part row-major (storage_order 0) or column-major (1), as i64.
std::pair<Value, Value> createMaxPoolWithIndices(ImplicitLocOpBuilder &b,
                                                 Value x, const Window &w,
                                                 bool columnMajor) {
  ArrayRef<int64_t> xShape = getShape(x);
  size_t spatial = xShape.size() - 2;
  ArrayRef<int64_t> in = xShape.drop_front(2);
  SmallVector<int64_t> pads(4, 0), padded;
  for (size_t i = 0; i < spatial; ++i) {
    pads.append({w.lo[i], w.hi[i]});
    padded.push_back(in[i] + w.lo[i] + w.hi[i]);
  }
  x = createPad(b, x, pads, lowestValue(getElementType(x)));
  int64_t planes = xShape[0] * xShape[1], numOut = getNumElements(w.out);
  int64_t taps = getNumElements(w.kernel), planeSize = getNumElements(in);

  // Per (output, tap): the padded offset to read, and the ONNX index it is.
  SmallVector<int64_t> paddedStrides = getStrides(padded);
  SmallVector<int64_t> onnxStrides = getStrides(in);
  if (columnMajor) {
    int64_t stride = 1;
    for (size_t i = 0; i < spatial; stride *= in[i], ++i)
      onnxStrides[i] = stride;
  }
  SmallVector<int32_t> reads, onnxIndex;
  SmallVector<int64_t> o(spatial, 0), k(spatial, 0);
  auto next = [&](SmallVector<int64_t> &pos, ArrayRef<int64_t> limit) {
    for (int64_t d = spatial - 1; d >= 0 && ++pos[d] == limit[d]; --d)
      pos[d] = 0;
  };
  for (int64_t i = 0; i < numOut; ++i, next(o, w.out)) {
    for (int64_t t = 0; t < taps; ++t, next(k, w.kernel)) {
      int64_t read = 0, index = 0;
      for (size_t d = 0; d < spatial; ++d) {
        int64_t p = o[d] * w.stride[d] + k[d] * w.dilation[d];
        read += p * paddedStrides[d];
        // A padded position (never the maximum) maps to the nearest real one.
        index += std::clamp<int64_t>(p - w.lo[d], 0, in[d] - 1) * onnxStrides[d];
      }
      reads.push_back(read);
      onnxIndex.push_back(index);
    }
  }
  Type elementType = getElementType(x);
  Value windows = b.create<tosa::GatherOp>(
      getTensorType({planes, numOut * taps, 1}, elementType),
      createReshape(b, x, {planes, getNumElements(padded), 1}),
      createTile(b, createI32Const(b, reads, {1, numOut * taps}), {planes, 1}));
  windows = createReshape(b, windows, {planes, numOut, taps});
  Value values = createReduce<tosa::ReduceMaxOp>(b, windows, 2);
  Value argmax = b.create<tosa::ArgMaxOp>(
      getTensorType({planes, numOut}, b.getI32Type()), windows,
      b.getI32IntegerAttr(2));
  // Row o * taps + argmax of the index table.
  SmallVector<int32_t> rowBase;
  for (int64_t i = 0; i < numOut; ++i)
    rowBase.push_back(i * taps);
  Value row = createBinary<tosa::AddOp>(b, argmax,
                                        createI32Const(b, rowBase, {1, numOut}));
  Value table = createI32Const(b, onnxIndex, {1, numOut * taps, 1});
  Value index = b.create<tosa::GatherOp>(
      getTensorType({1, planes * numOut, 1}, b.getI32Type()), table,
      createReshape(b, row, {1, planes * numOut}));
  SmallVector<int64_t> planeBase;
  for (int64_t p = 0; p < planes; ++p)
    planeBase.push_back(p * planeSize);
  index = createBinary<tosa::AddOp>(
      b, createCast(b, createReshape(b, index, {planes, numOut}), b.getI64Type()),
      createI64Const(b, planeBase, {planes, 1}));
  SmallVector<int64_t> outShape(xShape.take_front(2));
  llvm::append_range(outShape, w.out);
  return {createReshape(b, values, outShape), createReshape(b, index, outShape)};
}

/// Max or average pooling of `x` (input 0 unless given) with the node's window attributes;
/// averages count the padding when `countIncludePad`; `finish` maps the pooled result.
LogicalResult convertPool(NodeContext &ctx, bool isMax, Value x, bool countIncludePad,
                          function_ref<Value(Value)> finish) {
  ImplicitLocOpBuilder &b = ctx.b;
  ArrayRef<int64_t> xShape = getShape(x);
  int64_t rank = xShape.size();
  if (rank < 3 || rank > 5)
    return ctx.fail("only 1-D, 2-D and 3-D pooling is supported");
  Type elementType = getElementType(x);
  if (!isMax && !(elementType.isF32() || elementType.isF16()))
    return ctx.fail("AveragePool supports only f32 and f16");
  // tosa.max_pool2d takes any number type; uint8 arrives as i16.
  if (elementType.isInteger(1))
    return ctx.fail("MaxPool does not take booleans");
  auto window = getWindow(ctx, xShape.drop_front(2), ctx.getInts("kernel_shape"),
                          ctx.getInt("ceil_mode", 0));
  if (failed(window))
    return failure();
  Window w = *window;
  if (isMax && ctx.hasOutput(1)) {
    int64_t storageOrder = ctx.getInt("storage_order", 0);
    if (storageOrder != 0 && storageOrder != 1)
      return ctx.unsupportedAttr("storage_order", Twine(storageOrder));
    auto [values, indices] = createMaxPoolWithIndices(b, x, w, storageOrder);
    ctx.setOutput(0, values);
    ctx.setOutput(1, indices);
    return success();
  }
  if (llvm::any_of(w.dilation, [](int64_t d) { return d != 1; })) {
    if (!isMax)
      return ctx.unsupportedAttr("dilations", "other than 1");
    FailureOr<Value> result = createDilatedMaxPool(ctx, x, w);
    if (failed(result))
      return failure();
    ctx.setOutput(0, *result);
    return success();
  }

  // count_include_pad: pad explicitly with zeros so TOSA counts them; only
  // the ceil-mode surplus stays implicit (excluded, as in PyTorch).
  if (!isMax && countIncludePad) {
    SmallVector<int64_t> pads(4, 0);
    for (size_t i = 0; i < w.lo.size(); ++i) {
      int64_t in = xShape[2 + i] + w.lo[i] + w.onnxHi[i];
      int64_t effective = w.kernel[i];
      int64_t needHi = (w.out[i] - 1) * w.stride[i] + effective - in;
      pads.append({w.lo[i], w.onnxHi[i]});
      w.lo[i] = 0;
      w.hi[i] = std::max<int64_t>(needHi, 0);
      w.crop[i] = std::max<int64_t>(-needHi, 0);
    }
    x = createPad(b, x, pads, 0);
  }

  bool is1D = rank == 3;
  if (is1D)
    addUnitDim(b, x, w);
  int64_t nd = getShape(x).size();
  x = cropSpatial(b, createTranspose(b, x, channelsLastPerm(nd)), w.crop);
  ArrayRef<int64_t> s = getShape(x);
  Value result;
  if (nd == 4) {
    result = createPool2D(b, isMax, x, w, 0);
  } else {
    // [N, D, H, W, C]: pool H, W with D folded into the batch, then D with
    // H*W flattened into one spatial dim.
    Value hw = createPool2D(b, isMax, createReshape(b, x, {s[0] * s[1], s[2], s[3], s[4]}),
                            w, 1);
    Window wd = w;
    wd.kernel = {w.kernel[0], 1};
    wd.stride = {w.stride[0], 1};
    wd.lo = {w.lo[0], 0};
    wd.hi = {w.hi[0], 0};
    wd.out = {w.out[0], w.out[1] * w.out[2]};
    Value d = createPool2D(
        b, isMax, createReshape(b, hw, {s[0], s[1], w.out[1] * w.out[2], s[4]}),
        wd, 0);
    result = createReshape(b, d, {s[0], w.out[0], w.out[1], w.out[2], s[4]});
  }
  result = createTranspose(b, result, channelsFirstPerm(nd));
  if (is1D)
    result = createReshape(b, result, {xShape[0], xShape[1], w.out[1]});
  ctx.setOutput(0, finish(result));
  return success();
}

Value identity(Value v) { return v; }

LogicalResult convertMaxPool(NodeContext &ctx) {
  return convertPool(ctx, true, ctx.input(0), false, identity);
}
LogicalResult convertAveragePool(NodeContext &ctx) {
  return convertPool(ctx, false, ctx.input(0), ctx.getInt("count_include_pad", 0), identity);
}

/// |x|^p, and its inverse y^(1/p), for the Lp ops (p = 2 as x * x and sqrt).
Value powerP(ImplicitLocOpBuilder &b, Value x, int64_t p) {
  if (p == 2)
    return createMul(b, x, x);
  Value a = createUnary<tosa::AbsOp>(b, x);
  return p == 1 ? a : createBinary<tosa::PowOp>(b, a, scalarLike(b, a, p));
}
Value rootP(ImplicitLocOpBuilder &b, Value y, int64_t p) {
  if (p == 1)
    return y;
  if (p == 2)
    return createUnary<tosa::ReciprocalOp>(b, createUnary<tosa::RsqrtOp>(b, y));
  return createBinary<tosa::PowOp>(b, y, scalarLike(b, y, 1.0 / p));
}

/// LpPool: (sum over the window of |x|^p)^(1/p), the padding counting as zeros: an average
/// pool counting the padding, times the window size.
LogicalResult convertLpPool(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  int64_t p = ctx.getInt("p", 2);
  if (p < 1 || !isFloat(ctx.input(0)))
    return ctx.fail("LpPool takes floats and p >= 1");
  int64_t window = getNumElements(ctx.getInts("kernel_shape"));
  return convertPool(ctx, false, powerP(b, ctx.input(0), p), true, [&](Value sum) {
    return rootP(b, createMul(b, sum, scalarLike(b, sum, window)), p);
  });
}

/// The spatial axes of an N, C, D1, ... tensor, innermost first: a global pool reduces them in
/// this order. With the channels innermost after transposes sink (NHWC), reducing W first
/// streams each H row's contiguous W x C block; reducing H first read rows 56 x 144 floats
/// apart: EfficientNet-B0's squeeze-excitation pool over 56x56x144 took 149 us (12 GB/s).
SmallVector<int64_t> spatialAxes(Value x) {
  SmallVector<int64_t> axes;
  for (int64_t d = static_cast<int64_t>(getShape(x).size()) - 1; d >= 2; --d)
    axes.push_back(d);
  return axes;
}

LogicalResult convertGlobalAveragePool(NodeContext &ctx) {
  Value x = ctx.input(0);
  if (!isFloat(x))
    return ctx.fail("only floating-point inputs are supported");
  ctx.setOutput(0, createMean(ctx.b, x, spatialAxes(x)));
  return success();
}

LogicalResult convertGlobalLpPool(NodeContext &ctx) {
  Value x = ctx.input(0);
  int64_t p = ctx.getInt("p", 2);
  if (p < 1 || !isFloat(x))
    return ctx.fail("GlobalLpPool takes floats and p >= 1");
  Value sum = powerP(ctx.b, x, p);
  for (int64_t axis : spatialAxes(x))
    sum = createReduce<tosa::ReduceSumOp>(ctx.b, sum, axis);
  ctx.setOutput(0, rootP(ctx.b, sum, p));
  return success();
}

/// LpNormalization: x / ||x||_p along `axis` (p is 1 or 2).
LogicalResult convertLpNormalization(NodeContext &ctx) {
  Value x = ctx.input(0);
  int64_t p = ctx.getInt("p", 2);
  auto axis = normalizeAxis(ctx.getInt("axis", -1), getShape(x).size());
  if ((p != 1 && p != 2) || !axis || !isFloat(x))
    return ctx.fail("LpNormalization takes floats, p 1 or 2 and an axis in range");
  Value norm = rootP(ctx.b, createReduce<tosa::ReduceSumOp>(ctx.b, powerP(ctx.b, x, p), *axis), p);
  ctx.setOutput(0, createDiv(ctx.b, x, norm));
  return success();
}

LogicalResult convertGlobalMaxPool(NodeContext &ctx) {
  Value x = ctx.input(0);
  for (int64_t axis : spatialAxes(x))
    x = createReduce<tosa::ReduceMaxOp>(ctx.b, x, axis);
  ctx.setOutput(0, x);
  return success();
}

} // namespace

void registerNNOps(ConverterMap &map) {
  map["Gemm"] = convertGemm;
  map["MatMul"] = convertMatMul;
  map["Conv"] = convertConv;
  map["ConvTranspose"] = convertConvTranspose;
  map["MaxPool"] = convertMaxPool;
  map["AveragePool"] = convertAveragePool;
  map["GlobalAveragePool"] = convertGlobalAveragePool;
  map["GlobalMaxPool"] = convertGlobalMaxPool;
  map["LpPool"] = convertLpPool;
  map["GlobalLpPool"] = convertGlobalLpPool;
  map["LpNormalization"] = convertLpNormalization;
}

} // namespace loupe::frontends::onnx_import
