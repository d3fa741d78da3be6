//===- OnnxOpsNormalization.cpp - Normalizations, softmax, losses ---------===//
//
// BatchNormalization (inference, and training mode with the statistics of the batch as
// the ONNX reference onnx/backend/test/case/node/batchnorm.py computes them),
// Layer/Instance/MeanVariance normalization, LRN, the softmax family and the
// NegativeLogLikelihood/SoftmaxCrossEntropy losses, all from reductions and
// elementwise TOSA ops.
//
//===----------------------------------------------------------------------===//

#include "OnnxOps.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include <cmath>

using namespace mlir;

namespace loupe::frontends::onnx_import {
namespace {

SmallVector<int64_t> spatialAxes(Value x) {
  SmallVector<int64_t> axes;
  for (int64_t d = 2, e = getShape(x).size(); d < e; ++d)
    axes.push_back(d);
  return axes;
}

//===----------------------------------------------------------------------===//
// Normalizations
//===----------------------------------------------------------------------===//

/// Reshapes a per-channel [C] tensor to [1, C, 1, ...] for rank `rank`.
Value perChannel(ImplicitLocOpBuilder &b, Value v, int64_t rank) {
  SmallVector<int64_t> shape(rank, 1);
  shape[1] = getShape(v)[0];
  return createReshape(b, v, shape);
}

/// `x` normalized over `axes`, (x - mean) * rsqrt(var + eps), with the statistics used: the
/// mean, the population variance and the inverse std-dev (reduced dims kept).
struct Normalized {
  Value y, mean, var, invStdDev;
};
Normalized normalize(ImplicitLocOpBuilder &b, Value x, ArrayRef<int64_t> axes,
                     double epsilon) {
  Value mean = createMean(b, x, axes);
  Value centered = createBinary<tosa::SubOp>(b, x, mean);
  Value var = createMean(b, createMul(b, centered, centered), axes);
  Value invStdDev = createUnary<tosa::RsqrtOp>(
      b, createBinary<tosa::AddOp>(b, var, scalarLike(b, var, epsilon)));
  return {createMul(b, centered, invStdDev), mean, var, invStdDev};
}

/// BatchNormalization in training mode (opset 14+, training_mode=1): Y normalizes x with
/// the mean and population variance over N and the spatial dims; the optional outputs are
/// running_mean = input_mean * momentum + mean * (1 - momentum) and running_var likewise.
LogicalResult convertBatchNormTraining(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value x = ctx.input(0);
  int64_t rank = getShape(x).size();
  Type elementType = getElementType(x);
  SmallVector<int64_t> axes = spatialAxes(x);
  axes.insert(axes.begin(), 0);
  Normalized n = normalize(b, x, axes, ctx.getFloat("epsilon", 1e-5f));
  auto param = [&](unsigned i) {
    return perChannel(b, createCast(b, ctx.input(i), elementType), rank);
  };
  Value y = createBinary<tosa::AddOp>(b, createMul(b, n.y, param(1)), param(2));
  ctx.setOutput(0, y);
  double momentum = ctx.getFloat("momentum", 0.9f);
  // running = input * momentum + current * (1 - momentum), as the running statistic's [C].
  auto setRunning = [&](unsigned output, Value current, unsigned input) {
    Value running = createBinary<tosa::AddOp>(
        b, createMul(b, param(input), scalarLike(b, current, momentum)),
        createMul(b, current, scalarLike(b, current, 1 - momentum)));
    ctx.setOutput(output, createCast(b, createReshape(b, running, getShape(ctx.input(input))),
                                     getElementType(ctx.input(input))));
  };
  setRunning(1, n.mean, 3);
  setRunning(2, n.var, 4);
  return success();
}

LogicalResult convertBatchNormalization(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value x = ctx.input(0);
  if (!isFloat(x))
    return ctx.fail("only floating-point inputs are supported");
  if (ctx.opset() < 9 && !ctx.getInt("spatial", 1))
    return ctx.unsupportedAttr("spatial", "0");
  int64_t rank = getShape(x).size();
  if (rank < 2)
    return ctx.fail("input must have a channel dimension");
  for (unsigned i = 1; i <= 4; ++i)
    if (!ctx.hasInput(i) || getShape(ctx.input(i)) != getShape(x).slice(1, 1) ||
        !isFloat(ctx.input(i)))
      return ctx.fail("scale, B, mean and var must be float [C]");
  if (ctx.getInt("training_mode", 0))
    return convertBatchNormTraining(ctx);
  for (unsigned i = 1; i < ctx.numOutputs(); ++i)
    if (ctx.hasOutput(i))
      return ctx.fail("training outputs without training_mode=1 (opset < 14) are not "
                      "supported");
  double epsilon = ctx.getFloat("epsilon", 1e-5f);

  // y = x * a + c with a = scale / sqrt(var + eps), c = B - mean * a; folded
  // when the statistics are f32 constants (the usual inference case).
  DenseElementsAttr scale = ctx.constantInput(1), bias = ctx.constantInput(2),
                    mean = ctx.constantInput(3), var = ctx.constantInput(4);
  Value a, c;
  if (scale && bias && mean && var && scale.getElementType().isF32() &&
      bias.getElementType().isF32() && mean.getElementType().isF32() &&
      var.getElementType().isF32()) {
    SmallVector<float> av, cv;
    auto s = scale.getValues<float>(), bb = bias.getValues<float>(),
         m = mean.getValues<float>(), v = var.getValues<float>();
    for (int64_t i = 0, e = scale.getNumElements(); i < e; ++i) {
      float ai = s[i] / std::sqrt(v[i] + static_cast<float>(epsilon));
      av.push_back(ai);
      cv.push_back(bb[i] - m[i] * ai);
    }
    auto type = scale.getType();
    a = createConst(b, DenseElementsAttr::get(type, ArrayRef<float>(av)));
    c = createConst(b, DenseElementsAttr::get(type, ArrayRef<float>(cv)));
    a = createCast(b, a, getElementType(x));
    c = createCast(b, c, getElementType(x));
  } else {
    Value varEps = createBinary<tosa::AddOp>(
        b, ctx.input(4), scalarLike(b, ctx.input(4), epsilon));
    a = createMul(b, ctx.input(1), createUnary<tosa::RsqrtOp>(b, varEps));
    c = createBinary<tosa::SubOp>(b, ctx.input(2),
                                  createMul(b, ctx.input(3), a));
  }
  Value y = createMul(b, x, perChannel(b, a, rank));
  y = createBinary<tosa::AddOp>(b, y, perChannel(b, c, rank));
  if (!y)
    return ctx.fail("per-channel parameters do not match the channel count");
  ctx.setOutput(0, y);
  return success();
}


LogicalResult convertLayerNormalization(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value x = ctx.input(0);
  if (!isFloat(x))
    return ctx.fail("only floating-point inputs are supported");
  int64_t rank = getShape(x).size();
  auto axis = normalizeAxis(ctx.getInt("axis", -1), rank);
  if (!axis)
    return ctx.unsupportedAttr("axis", Twine(ctx.getInt("axis", -1)));
  SmallVector<int64_t> axes;
  for (int64_t d = *axis; d < rank; ++d)
    axes.push_back(d);
  Normalized n = normalize(b, x, axes, ctx.getFloat("epsilon", 1e-5f));
  Value y = createMul(b, n.y, ctx.input(1));
  if (y && ctx.hasInput(2))
    y = createBinary<tosa::AddOp>(b, y, ctx.input(2));
  if (!y || getShape(y) != getShape(x))
    return ctx.fail("Scale/B do not broadcast to the normalized shape");
  ctx.setOutput(0, y);
  ctx.setOutput(1, n.mean);
  ctx.setOutput(2, n.invStdDev);
  return success();
}

LogicalResult convertInstanceNormalization(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value x = ctx.input(0);
  if (!isFloat(x))
    return ctx.fail("only floating-point inputs are supported");
  int64_t rank = getShape(x).size();
  if (rank < 3)
    return ctx.fail("input must have spatial dimensions");
  if (getShape(ctx.input(1)) != getShape(x).slice(1, 1) ||
      getShape(ctx.input(2)) != getShape(x).slice(1, 1))
    return ctx.fail("scale and B must be [C]");
  Value y = normalize(b, x, spatialAxes(x), ctx.getFloat("epsilon", 1e-5f)).y;
  y = createMul(b, y, perChannel(b, ctx.input(1), rank));
  y = createBinary<tosa::AddOp>(b, y, perChannel(b, ctx.input(2), rank));
  ctx.setOutput(0, y);
  return success();
}

/// MeanVarianceNormalization: (x - mean) / (sqrt(var) + 1e-9) over `axes`,
/// as in the ONNX function body.
LogicalResult convertMeanVarianceNormalization(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value x = ctx.input(0);
  if (!isFloat(x))
    return ctx.fail("only floating-point inputs are supported");
  int64_t rank = getShape(x).size();
  SmallVector<int64_t> axes;
  SmallVector<int64_t> raw =
      ctx.hasAttr("axes") ? ctx.getInts("axes") : SmallVector<int64_t>{0, 2, 3};
  for (int64_t a : raw) {
    auto axis = normalizeAxis(a, rank);
    if (!axis)
      return ctx.unsupportedAttr("axes", "with axis " + Twine(a));
    axes.push_back(*axis);
  }
  llvm::sort(axes);
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  Value centered = createBinary<tosa::SubOp>(b, x, createMean(b, x, axes));
  Value var = createMean(b, createMul(b, centered, centered), axes);
  Value std = createUnary<tosa::ReciprocalOp>(b, createUnary<tosa::RsqrtOp>(b, var));
  Value denom = createBinary<tosa::AddOp>(b, std, scalarLike(b, std, 1e-9));
  ctx.setOutput(0, createDiv(b, centered, denom));
  return success();
}

/// LRN: x / (bias + alpha/size * sum_window(x^2))^beta, the window running
/// over channels: `size` shifted slices of the zero-padded squares.
LogicalResult convertLRN(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value x = ctx.input(0);
  ArrayRef<int64_t> shape = getShape(x);
  if (!isFloat(x) || shape.size() < 3)
    return ctx.fail("only floating-point inputs with spatial dims are supported");
  int64_t size = ctx.getInt("size", 0);
  if (size <= 0)
    return ctx.unsupportedAttr("size", Twine(size));
  double alpha = ctx.getFloat("alpha", 1e-4f), beta = ctx.getFloat("beta", 0.75f);
  double bias = ctx.getFloat("bias", 1.0f);
  // Window offsets t - lo for t in [0, size); only those within the C channels add anything,
  // so a huge `size` costs no more than 2C - 1 slices.
  int64_t channels = shape[1], lo = (size - 1) / 2;
  int64_t first = std::max<int64_t>(0, lo - (channels - 1));
  int64_t last = std::min<int64_t>(size - 1, lo + channels - 1);
  SmallVector<int64_t> pads(2 * shape.size(), 0);
  pads[2] = lo - first;
  pads[3] = last - lo;
  Value sq = createPad(b, createMul(b, x, x), pads, 0);
  Value sum;
  for (int64_t t = first; t <= last; ++t) {
    Value part = createSliceAxis(b, sq, 1, t - first, channels);
    sum = sum ? createBinary<tosa::AddOp>(b, sum, part) : part;
  }
  Value base = createBinary<tosa::AddOp>(
      b, createMul(b, sum, scalarLike(b, sum, alpha / size)),
      scalarLike(b, sum, bias));
  Value denom = createBinary<tosa::PowOp>(b, base, scalarLike(b, base, beta));
  ctx.setOutput(0, createDiv(b, x, denom));
  return success();
}

//===----------------------------------------------------------------------===//
// Softmax family
//===----------------------------------------------------------------------===//

/// Numerically stable (log-)softmax of `x` along `axis`.
Value createSoftmax(ImplicitLocOpBuilder &b, Value x, int64_t axis, bool log) {
  Value max = createReduce<tosa::ReduceMaxOp>(b, x, axis);
  Value shifted = createBinary<tosa::SubOp>(b, x, max);
  Value exp = createUnary<tosa::ExpOp>(b, shifted);
  Value sum = createReduce<tosa::ReduceSumOp>(b, exp, axis);
  if (log)
    return createBinary<tosa::SubOp>(b, shifted,
                                     createUnary<tosa::LogOp>(b, sum));
  return createMul(b, exp, createUnary<tosa::ReciprocalOp>(b, sum));
}

/// Softmax/LogSoftmax. Before opset 13 the input is coerced to 2-D at `axis`
/// (default 1); from 13 the op runs along `axis` (default -1).
template <bool log>
LogicalResult convertSoftmax(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value x = ctx.input(0);
  if (!isFloat(x))
    return ctx.fail("only floating-point inputs are supported");
  ArrayRef<int64_t> shape = getShape(x);
  int64_t rank = shape.size();
  bool legacy = ctx.opset() < 13;
  int64_t rawAxis = ctx.getInt("axis", legacy ? 1 : -1);
  auto axis = normalizeAxis(rawAxis, std::max<int64_t>(rank, 1));
  if (!axis)
    return ctx.unsupportedAttr("axis", Twine(rawAxis));
  if (!legacy) {
    ctx.setOutput(0, createSoftmax(b, x, *axis, log));
    return success();
  }
  Value in = createReshape(b, x,
                           {getNumElements(shape.take_front(*axis)),
                            getNumElements(shape.drop_front(*axis))});
  ctx.setOutput(0, createReshape(b, createSoftmax(b, in, 1, log), shape));
  return success();
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

/// loss[n, d...] = -input[n, target[n, d...], d...] * weight[target], with
/// `ignore_index` entries weighted 0, then the `reduction`. The class is
/// selected by comparing the targets with a channel iota.
LogicalResult convertNllLoss(NodeContext &ctx, Value input, Value target,
                             Value weight) {
  ImplicitLocOpBuilder &b = ctx.b;
  ArrayRef<int64_t> inShape = getShape(input);
  int64_t rank = inShape.size();
  SmallVector<int64_t> targetShape(inShape);
  if (rank >= 2)
    targetShape.erase(targetShape.begin() + 1);
  if (rank < 2 || !isFloat(input) ||
      getShape(target) != ArrayRef<int64_t>(targetShape) ||
      (weight && getShape(weight) != inShape.slice(1, 1)))
    return ctx.fail("needs float input [N, C, d...], target [N, d...] and "
                    "weight [C]");
  std::string reduction = ctx.getString("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    return ctx.unsupportedAttr("reduction", "'" + reduction + "'");
  Type i1 = b.getI1Type();
  SmallVector<int64_t> classShape(getShape(target));
  classShape.insert(classShape.begin() + 1, 1);
  Value cls = createCast(b, createReshape(b, target, classShape), b.getI32Type());
  Value hit = createBinary<tosa::EqualOp>(
      b, cls, createIota(b, inShape[1], 1, rank), i1);
  Value zero = scalarLike(b, input, 0);
  Value picked =
      createReduce<tosa::ReduceSumOp>(b, createSelect(b, hit, input, zero), 1);
  Value w = weight ? createReduce<tosa::ReduceSumOp>(
                         b, createSelect(b, hit, perChannel(b, weight, rank), zero),
                         1)
                   : Value();
  if (ctx.hasAttr("ignore_index")) {
    Value ignored = createBinary<tosa::EqualOp>(
        b, cls,
        createScalar(b, b.getI32Type(), ctx.getInt("ignore_index", 0), rank), i1);
    w = createSelect(b, ignored, scalarLike(b, picked, 0),
                     w ? w : scalarLike(b, picked, 1));
  }
  Value loss = createUnary<tosa::NegateOp>(b, w ? createMul(b, picked, w) : picked);
  SmallVector<int64_t> outShape(getShape(target));
  if (reduction == "none") {
    ctx.setOutput(0, createReshape(b, loss, outShape));
    return success();
  }
  SmallVector<int64_t> all;
  for (int64_t d = 0; d < rank; ++d)
    all.push_back(d);
  auto sumAll = [&](Value v) {
    for (int64_t d : all)
      v = createReduce<tosa::ReduceSumOp>(b, v, d);
    return v;
  };
  Value total = sumAll(loss);
  if (reduction == "mean")
    total = w ? createDiv(b, total, sumAll(w))
              : createMul(b, total, scalarLike(b, total,
                                               1.0 / getNumElements(outShape)));
  ctx.setOutput(0, createReshape(b, total, {}));
  return success();
}

LogicalResult convertNegativeLogLikelihoodLoss(NodeContext &ctx) {
  return convertNllLoss(ctx, ctx.input(0), ctx.input(1), ctx.input(2));
}

/// SoftmaxCrossEntropyLoss: NLL of the log-softmax over the class axis (1);
/// the optional second output is that log-probability.
LogicalResult convertSoftmaxCrossEntropyLoss(NodeContext &ctx) {
  Value scores = ctx.input(0);
  if (!isFloat(scores) || getShape(scores).size() < 2)
    return ctx.fail("needs float scores [N, C, d...]");
  Value logProb = createSoftmax(ctx.b, scores, 1, /*log=*/true);
  ctx.setOutput(1, logProb);
  return convertNllLoss(ctx, logProb, ctx.input(1), ctx.input(2));
}

} // namespace

void registerNormalizationOps(ConverterMap &map) {
  map["BatchNormalization"] = convertBatchNormalization;
  map["LayerNormalization"] = convertLayerNormalization;
  map["InstanceNormalization"] = convertInstanceNormalization;
  map["MeanVarianceNormalization"] = convertMeanVarianceNormalization;
  map["LRN"] = convertLRN;
  map["Softmax"] = convertSoftmax<false>;
  map["LogSoftmax"] = convertSoftmax<true>;
  map["NegativeLogLikelihoodLoss"] = convertNegativeLogLikelihoodLoss;
  map["SoftmaxCrossEntropyLoss"] = convertSoftmaxCrossEntropyLoss;
}

} // namespace loupe::frontends::onnx_import
