//===- OnnxOpsQuantization.cpp - ONNX quantization ops -> TOSA ------------===//
//
// QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, MatMulInteger,
// ConvInteger, QLinearMatMul and QLinearConv, as the ONNX operator specs
// (onnx/docs/Operators.md, opsets 10, 11 and 13) define them:
//   quantize    y = saturate(round_half_to_even(x / scale) + zero_point)
//   dequantize  y = (x - zero_point) * scale
//   dynamic     scale = (max(0, max(x)) - min(0, min(x))) / 255,
//               zero_point = saturate(round_half_to_even(-min(0, min(x)) / scale))
// A scale or zero point holds one value (per tensor) or one per index of an
// axis (per axis: `axis` of Quantize/DequantizeLinear, the output channel of a
// convolution's weight, the rows of a matmul's A and the columns of its B).
//
// The integer ops accumulate exactly. With zero points that hold one value
// for the whole tensor, they run on int8 (uint8 is shifted by -128 with its
// zero point, so every difference stays): matmuls as
// linalg.quantized_batch_matmul, convolutions as tosa.conv2d with
// quantization_info (constant zero points); oneDNN's int8 matmul and
// convolution run those. Otherwise the zero points are subtracted first:
// matmuls in i32, convolutions in f64 through Conv's own builder (a weight
// minus its zero point needs 9 bits; every partial sum of 8-bit products stays
// below 2^53, which is checked). QLinearMatMul/QLinearConv then dequantize the
// accumulator with the product of the input scales and quantize it with the
// output's scale and zero point (the spec's formula). Division, rounding and
// saturation run in one linalg.generic (createElementwise): TOSA has neither
// round-half-to-even nor an exact float division.
//
//===----------------------------------------------------------------------===//

#include "OnnxOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"

using namespace mlir;

namespace loupe::frontends::onnx_import {


namespace {

/// The signless type a quantized tensor computes in and its range.
struct QuantRange {
  IntegerType type;
  int64_t lo, hi;
};

/// Bits of the ONNX integer type of input `i` (uint8 computes in i16: 8); 0
/// for non-integers.
unsigned inputBits(NodeContext &ctx, unsigned i) {
  auto type = dyn_cast<IntegerType>(getElementType(ctx.input(i)));
  if (!type)
    return 0;
  return type.getWidth() / (ctx.isUnsigned(ctx.inputName(i)) ? 2 : 1);
}

/// Fails unless the inputs `ids` are int8 or uint8.
LogicalResult checkInt8Inputs(NodeContext &ctx, ArrayRef<unsigned> ids) {
  for (unsigned i : ids)
    if (ctx.hasInput(i) && inputBits(ctx, i) != 8)
      return ctx.fail("input '" + ctx.inputName(i) +
                      "' must be int8 or uint8");
  return success();
}

/// The range of output `i`, which must be an 8- or 16-bit integer.
FailureOr<QuantRange> getOutputRange(NodeContext &ctx, unsigned i) {
  auto type = ctx.outputType(i);
  if (failed(type))
    return failure();
  auto intType = dyn_cast<IntegerType>(type->getElementType());
  bool isUnsigned = ctx.isUnsigned(ctx.outputName(i));
  unsigned bits = intType ? intType.getWidth() / (isUnsigned ? 2 : 1) : 0;
  if (bits != 8 && bits != 16)
    return ctx.fail("quantizes only to int8, uint8, int16 and uint16");
  if (isUnsigned)
    return QuantRange{intType, 0, (int64_t(1) << bits) - 1};
  return QuantRange{intType, -(int64_t(1) << (bits - 1)),
                    (int64_t(1) << (bits - 1)) - 1};
}

/// Input `i`, a scale or zero point, reshaped to broadcast against a tensor
/// of `shape`: one value (any shape) for the whole tensor, a 1-D tensor of
/// shape[axis] values along `axis`, or a tensor of the same rank that
/// broadcasts (MatMulInteger's per-row [.., M, 1]). Null when omitted.
FailureOr<Value> getParam(NodeContext &ctx, unsigned i, ArrayRef<int64_t> shape,
                          int64_t axis) {
  if (!ctx.hasInput(i))
    return Value();
  Value param = ctx.input(i);
  ArrayRef<int64_t> own = getShape(param);
  int64_t rank = shape.size();
  SmallVector<int64_t> aligned(rank, 1);
  if (getNumElements(own) == 1)
    return createReshape(ctx.b, param, aligned);
  std::optional<int64_t> dim = normalizeAxis(axis, rank);
  if (own.size() == 1 && dim && own[0] == shape[*dim]) {
    aligned[*dim] = own[0];
    return createReshape(ctx.b, param, aligned);
  }
  if (static_cast<int64_t>(own.size()) == rank &&
      llvm::all_of(llvm::zip(own, shape), [](auto dims) {
        return std::get<0>(dims) == 1 || std::get<0>(dims) == std::get<1>(dims);
      }))
    return param;
  std::string along = dim ? " of " + std::to_string(shape[*dim]) +
                                " values along axis " + std::to_string(*dim)
                          : std::string();
  return ctx.fail("input '" + ctx.inputName(i) +
                  "' must hold one value or be a 1-D tensor" + along);
}

/// saturate(round_half_to_even(real) + zeroPoint) to `range`, as scalars in a
/// linalg.generic body; `zeroPoint` (an integer) may be null. NaN gives lo.
Value quantizeScalar(OpBuilder &nb, Location loc, Value real, Value zeroPoint,
                     const QuantRange &range) {
  Type type = real.getType();
  auto constant = [&](int64_t v) {
    return nb.create<arith::ConstantOp>(loc, nb.getFloatAttr(type, v));
  };
  Value q = nb.create<math::RoundEvenOp>(loc, real);
  if (zeroPoint)
    q = nb.create<arith::AddFOp>(
        loc, q, nb.create<arith::SIToFPOp>(loc, type, zeroPoint));
  q = nb.create<arith::MaxNumFOp>(loc, q, constant(range.lo));
  q = nb.create<arith::MinNumFOp>(loc, q, constant(range.hi));
  return nb.create<arith::FPToSIOp>(loc, range.type, q);
}

/// saturate(round_half_to_even(x / scale) + zeroPoint) as `range.type`: x and
/// scale float (computed in f32, or f64 for f64), zeroPoint integer or null,
/// all broadcasting to x.
Value createQuantize(ImplicitLocOpBuilder &b, Value x, Value scale,
                     Value zeroPoint, const QuantRange &range) {
  SmallVector<Value> operands{x, scale};
  if (zeroPoint)
    operands.push_back(zeroPoint);
  Type type = isa<Float64Type>(getElementType(x)) ? b.getF64Type()
                                                   : b.getF32Type();
  return createElementwise(
      b, operands, range.type, [&](OpBuilder &nb, Location loc, ValueRange args) {
        auto widen = [&](Value v) -> Value {
          return v.getType() == type ? v
                                     : nb.create<arith::ExtFOp>(loc, type, v);
        };
        Value real =
            nb.create<arith::DivFOp>(loc, widen(args[0]), widen(args[1]));
        return quantizeScalar(nb, loc, real, zeroPoint ? args[2] : Value(),
                              range);
      });
}

/// (x - zeroPoint) * scale in scale's float type, the difference exact in i32;
/// zeroPoint may be null.
Value createDequantize(ImplicitLocOpBuilder &b, Value x, Value scale,
                       Value zeroPoint) {
  SmallVector<Value> operands{x, scale};
  if (zeroPoint)
    operands.push_back(zeroPoint);
  Type floatType = getElementType(scale);
  return createElementwise(
      b, operands, floatType, [&](OpBuilder &nb, Location loc, ValueRange args) {
        auto toI32 = [&](Value v) -> Value {
          return v.getType().isInteger(32)
                     ? v
                     : nb.create<arith::ExtSIOp>(loc, nb.getI32Type(), v);
        };
        Value q = toI32(args[0]);
        if (zeroPoint)
          q = nb.create<arith::SubIOp>(loc, q, toI32(args[2]));
        return nb.create<arith::MulFOp>(
            loc, nb.create<arith::SIToFPOp>(loc, floatType, q), args[1]);
      });
}

/// x - zeroPoint (null: x) in `type` (i32 or f64), exact for 8-bit operands.
Value subtractZeroPoint(ImplicitLocOpBuilder &b, Value x, Value zeroPoint,
                        Type type) {
  x = createCast(b, x, type);
  if (!zeroPoint)
    return x;
  return createBinary<tosa::SubOp>(b, x, createCast(b, zeroPoint, type));
}

/// What moves input `i` (int8 or uint8) to int8: 128 for uint8, else 0.
int64_t int8Shift(NodeContext &ctx, unsigned i) {
  return ctx.isUnsigned(ctx.inputName(i)) ? 128 : 0;
}

/// Input `i` (int8, or uint8 stored in i16) as int8: uint8 values move down by
/// int8Shift, as their zero point must, so x - zeroPoint is unchanged.
Value toInt8(NodeContext &ctx, unsigned i) {
  Value x = ctx.input(i);
  if (!int8Shift(ctx, i))
    return x;
  return createElementwise(ctx.b, {x}, ctx.b.getI8Type(),
                           [](OpBuilder &nb, Location loc, ValueRange args) {
                             Value shift = nb.create<arith::ConstantIntOp>(
                                 loc, 128, args[0].getType());
                             return nb.create<arith::TruncIOp>(
                                 loc, nb.getI8Type(),
                                 nb.create<arith::SubIOp>(loc, args[0], shift));
                           });
}

/// The per-tensor zero point of input `i` (int8 or uint8) after toInt8, from
/// input `zeroIndex` (0 when omitted), as an i32 scalar.
Value int8ZeroPoint(NodeContext &ctx, unsigned i, unsigned zeroIndex) {
  ImplicitLocOpBuilder &b = ctx.b;
  Type i32 = b.getI32Type();
  Value zero = b.create<arith::ConstantIntOp>(-int8Shift(ctx, i), i32);
  if (!ctx.hasInput(zeroIndex))
    return zero;
  Value scalar = b.create<tensor::ExtractOp>(createReshape(b, ctx.input(zeroIndex), {}),
                                             ValueRange{});
  return b.create<arith::AddIOp>(b.create<arith::ExtSIOp>(i32, scalar), zero);
}

/// The zero point input `zeroIndex` holds for every index (0 when omitted) of
/// input `i`, after toInt8, when it is a constant.
std::optional<int64_t> constantInt8ZeroPoint(NodeContext &ctx, unsigned i,
                                             unsigned zeroIndex) {
  int64_t value = 0;
  if (ctx.hasInput(zeroIndex)) {
    DenseElementsAttr values = ctx.constantInput(zeroIndex);
    if (!values || !values.getElementType().isSignlessInteger())
      return std::nullopt;
    auto all = values.getValues<APInt>();
    value = (*all.begin()).getSExtValue();
    if (llvm::any_of(all, [&](const APInt &v) { return v.getSExtValue() != value; }))
      return std::nullopt;
  }
  return value - int8Shift(ctx, i);
}

/// The exact integer convolution sum((x - xZeroPoint) * (w - wZeroPoint)) +
/// bias (i32 or null) in i32 of 8-bit inputs x, w at `xIndex`, `wIndex`, with
/// Conv's attributes; the padding holds the zero point. Zero points that are
/// constants, one value for the whole tensor, give an int8 convolution (TOSA
/// quantization_info; oneDNN's when the weight zero point is 0); others are
/// subtracted and the convolution computed in f64.
FailureOr<Value> createIntegerConv(NodeContext &ctx, unsigned xIndex, unsigned xZeroIndex,
                                   unsigned wIndex, unsigned wZeroIndex, Value bias) {
  Value x = ctx.input(xIndex), w = ctx.input(wIndex);
  auto xZeroPoint = getParam(ctx, xZeroIndex, getShape(x), 1);
  auto wZeroPoint = getParam(ctx, wZeroIndex, getShape(w), 0);
  if (failed(xZeroPoint) || failed(wZeroPoint))
    return failure();
  std::optional<int64_t> xZero = constantInt8ZeroPoint(ctx, xIndex, xZeroIndex);
  std::optional<int64_t> wZero = constantInt8ZeroPoint(ctx, wIndex, wZeroIndex);
  if (xZero && wZero)
    return createConv(ctx, toInt8(ctx, xIndex), toInt8(ctx, wIndex), bias,
                      ConvZeroPoints{*xZero, *wZero});
  // Each product is below 2^16 in magnitude and |bias| < 2^31, so f64 holds
  // every partial sum exactly while a window has at most 2^36 products.
  int64_t products = getNumElements(getShape(w).drop_front());
  if (products > (int64_t(1) << 36))
    return ctx.fail("a window of " + Twine(products) +
                    " products could round in f64");
  Type f64 = ctx.b.getF64Type();
  auto acc = createConv(ctx, subtractZeroPoint(ctx.b, x, *xZeroPoint, f64),
                        subtractZeroPoint(ctx.b, w, *wZeroPoint, f64),
                        bias ? createCast(ctx.b, bias, f64) : Value());
  if (failed(acc))
    return failure();
  return createCast(ctx.b, *acc, ctx.b.getI32Type());
}

/// Dequantizes the exact accumulator `acc` (scale xScale * wScale, zero point
/// 0) and quantizes it with the output's yScale and yZeroPoint (QLinear*).
Value requantize(ImplicitLocOpBuilder &b, Value acc, Value xScale, Value wScale,
                 Value yScale, Value yZeroPoint, const QuantRange &range) {
  Value real = createMul(b, createCast(b, acc, b.getF32Type()),
                         createMul(b, xScale, wScale));
  return createQuantize(b, real, yScale, yZeroPoint, range);
}

//===----------------------------------------------------------------------===//
// QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear
//===----------------------------------------------------------------------===//

/// QuantizeLinear (x, y_scale, y_zero_point?): the output type is the zero
/// point's, uint8 without one.
LogicalResult convertQuantizeLinear(NodeContext &ctx) {
  Value x = ctx.input(0);
  if (!isFloat(x) || getElementType(ctx.input(1)) != getElementType(x))
    return ctx.fail("x and y_scale must have the same floating-point type");
  if (ctx.getInt("block_size", 0) != 0)
    return ctx.unsupportedAttr("block_size",
                               Twine(ctx.getInt("block_size", 0)));
  auto range = getOutputRange(ctx, 0);
  if (failed(range))
    return failure();
  int64_t axis = ctx.getInt("axis", 1);
  auto scale = getParam(ctx, 1, getShape(x), axis);
  if (failed(scale))
    return failure();
  auto zeroPoint = getParam(ctx, 2, getShape(x), axis);
  if (failed(zeroPoint))
    return failure();
  ctx.setOutput(0, createQuantize(ctx.b, x, *scale, *zeroPoint, *range));
  return success();
}

/// DequantizeLinear (x, x_scale, x_zero_point?) of int8/uint8/int32 x.
LogicalResult convertDequantizeLinear(NodeContext &ctx) {
  Value x = ctx.input(0);
  auto intType = dyn_cast<IntegerType>(getElementType(x));
  if (!intType || intType.getWidth() > 32 || !isFloat(ctx.input(1)))
    return ctx.fail("x must be an integer of at most 32 bits and x_scale "
                    "floating-point");
  if (ctx.getInt("block_size", 0) != 0)
    return ctx.unsupportedAttr("block_size",
                               Twine(ctx.getInt("block_size", 0)));
  int64_t axis = ctx.getInt("axis", 1);
  auto scale = getParam(ctx, 1, getShape(x), axis);
  if (failed(scale))
    return failure();
  auto zeroPoint = getParam(ctx, 2, getShape(x), axis);
  if (failed(zeroPoint))
    return failure();
  ctx.setOutput(0, createDequantize(ctx.b, x, *scale, *zeroPoint));
  return success();
}

/// DynamicQuantizeLinear (x) -> (y uint8, y_scale, y_zero_point) from the
/// range of x widened to hold 0.
LogicalResult convertDynamicQuantizeLinear(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value x = ctx.input(0);
  if (!getElementType(x).isF32())
    return ctx.fail("x must be f32");
  auto range = getOutputRange(ctx, 0);
  if (failed(range))
    return failure();
  Value flat = createReshape(b, x, {getNumElements(getShape(x))});
  Value zero = createSplat(b, b.getF32Type(), {1}, 0);
  Value lo = createBinary<tosa::MinimumOp>(
      b, createReduce<tosa::ReduceMinOp>(b, flat, 0), zero);
  Value hi = createBinary<tosa::MaximumOp>(
      b, createReduce<tosa::ReduceMaxOp>(b, flat, 0), zero);
  double levels = range->hi - range->lo;
  Value scale = createElementwise(
      b, {hi, lo}, b.getF32Type(),
      [&](OpBuilder &nb, Location loc, ValueRange args) -> Value {
        Value span = nb.create<arith::SubFOp>(loc, args[0], args[1]);
        return nb.create<arith::DivFOp>(
            loc, span,
            nb.create<arith::ConstantOp>(loc, nb.getF32FloatAttr(levels)));
      });
  // 0 / 0 (x all zeros) is NaN, which saturates to a zero point of 0.
  Value zeroPoint = createElementwise(
      b, {lo, scale}, range->type,
      [&](OpBuilder &nb, Location loc, ValueRange args) {
        Value real = nb.create<arith::DivFOp>(
            loc, nb.create<arith::NegFOp>(loc, args[0]), args[1]);
        return quantizeScalar(nb, loc, real, Value(), *range);
      });
  SmallVector<int64_t> ones(getShape(x).size(), 1);
  ctx.setOutput(0, createQuantize(b, x, createReshape(b, scale, ones),
                                  createReshape(b, zeroPoint, ones), *range));
  ctx.setOutput(1, createReshape(b, scale, {}));
  ctx.setOutput(2, createReshape(b, zeroPoint, {}));
  return success();
}

//===----------------------------------------------------------------------===//
// MatMulInteger, QLinearMatMul
//===----------------------------------------------------------------------===//

/// True when input `i` is omitted or holds one value.
bool isPerTensor(NodeContext &ctx, unsigned i) {
  return !ctx.hasInput(i) || getNumElements(getShape(ctx.input(i))) == 1;
}

/// (a - aZeroPoint) x (b - bZeroPoint) in i32 for inputs a, b at `aIndex`,
/// `bIndex` and their zero points at `aZeroIndex`, `bZeroIndex` (per tensor,
/// per row of a, per column of b). Per-tensor zero points give
/// linalg.quantized_batch_matmul on int8 (a library op: oneDNN's int8
/// matmul); others are subtracted first and multiplied as i32.
FailureOr<Value> createIntegerMatMul(NodeContext &ctx, unsigned aIndex,
                                     unsigned aZeroIndex, unsigned bIndex,
                                     unsigned bZeroIndex) {
  Type i32 = ctx.b.getI32Type();
  if (isPerTensor(ctx, aZeroIndex) && isPerTensor(ctx, bZeroIndex)) {
    Value aZero = int8ZeroPoint(ctx, aIndex, aZeroIndex);
    Value bZero = int8ZeroPoint(ctx, bIndex, bZeroIndex);
    return createMatMul(ctx, toInt8(ctx, aIndex), toInt8(ctx, bIndex), [&](ImplicitLocOpBuilder &b, Value lhs, Value rhs) {
      ArrayRef<int64_t> l = getShape(lhs), r = getShape(rhs);
      Value init = b.create<tensor::EmptyOp>(ArrayRef<int64_t>{l[0], l[1], r[2]}, i32);
      init = b.create<linalg::FillOp>(ValueRange{b.create<arith::ConstantIntOp>(0, i32)},
                                      ValueRange{init})
                 .getResult(0);
      return b
          .create<linalg::QuantizedBatchMatmulOp>(TypeRange{init.getType()},
                                                  ValueRange{lhs, rhs, aZero, bZero},
                                                  ValueRange{init})
          .getResult(0);
    });
  }
  Value a = ctx.input(aIndex), bMat = ctx.input(bIndex);
  int64_t aRank = getShape(a).size(), bRank = getShape(bMat).size();
  auto aZero = getParam(ctx, aZeroIndex, getShape(a), aRank - 2);
  if (failed(aZero))
    return failure();
  auto bZero = getParam(ctx, bZeroIndex, getShape(bMat), bRank - 1);
  if (failed(bZero))
    return failure();
  return createMatMul(ctx, subtractZeroPoint(ctx.b, a, *aZero, i32),
                      subtractZeroPoint(ctx.b, bMat, *bZero, i32));
}

/// MatMulInteger (A, B, a_zero_point?, b_zero_point?) -> int32.
LogicalResult convertMatMulInteger(NodeContext &ctx) {
  if (failed(checkInt8Inputs(ctx, {0, 1, 2, 3})))
    return failure();
  auto product = createIntegerMatMul(ctx, 0, 2, 1, 3);
  if (failed(product))
    return failure();
  ctx.setOutput(0, *product);
  return success();
}

/// QLinearMatMul (a, a_scale, a_zero_point, b, b_scale, b_zero_point,
/// y_scale, y_zero_point): scales per tensor, per row of a or y, per column
/// of b.
LogicalResult convertQLinearMatMul(NodeContext &ctx) {
  if (failed(checkInt8Inputs(ctx, {0, 2, 3, 5, 7})))
    return failure();
  auto range = getOutputRange(ctx, 0);
  if (failed(range))
    return failure();
  auto acc = createIntegerMatMul(ctx, 0, 2, 3, 5);
  if (failed(acc))
    return failure();
  ArrayRef<int64_t> shape = getShape(*acc);
  int64_t rows = static_cast<int64_t>(shape.size()) - 2, cols = rows + 1;
  auto aScale = getParam(ctx, 1, shape, rows);
  auto bScale = getParam(ctx, 4, shape, cols);
  auto yScale = getParam(ctx, 6, shape, rows);
  auto yZero = getParam(ctx, 7, shape, rows);
  if (failed(aScale) || failed(bScale) || failed(yScale) || failed(yZero))
    return failure();
  ctx.setOutput(0, requantize(ctx.b, *acc, *aScale, *bScale, *yScale, *yZero,
                              *range));
  return success();
}

//===----------------------------------------------------------------------===//
// ConvInteger, QLinearConv
//===----------------------------------------------------------------------===//

/// ConvInteger (x, w, x_zero_point?, w_zero_point?) -> int32, with Conv's
/// attributes.
LogicalResult convertConvInteger(NodeContext &ctx) {
  if (failed(checkInt8Inputs(ctx, {0, 1, 2, 3})))
    return failure();
  auto acc = createIntegerConv(ctx, 0, 2, 1, 3, Value());
  if (failed(acc))
    return failure();
  ctx.setOutput(0, *acc);
  return success();
}

/// QLinearConv (x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale,
/// y_zero_point, B?) with Conv's attributes; w_scale/w_zero_point per tensor
/// or per output channel, B int32 with scale x_scale * w_scale.
LogicalResult convertQLinearConv(NodeContext &ctx) {
  if (failed(checkInt8Inputs(ctx, {0, 2, 3, 5, 7})))
    return failure();
  if (ctx.hasInput(8) && !getElementType(ctx.input(8)).isInteger(32))
    return ctx.fail("B must be int32");
  auto range = getOutputRange(ctx, 0);
  if (failed(range))
    return failure();
  auto acc = createIntegerConv(ctx, 0, 2, 3, 5, ctx.hasInput(8) ? ctx.input(8) : Value());
  if (failed(acc))
    return failure();
  ArrayRef<int64_t> shape = getShape(*acc);
  auto xScale = getParam(ctx, 1, shape, 1);
  auto wScale = getParam(ctx, 4, shape, 1);
  auto yScale = getParam(ctx, 6, shape, 1);
  auto yZero = getParam(ctx, 7, shape, 1);
  if (failed(xScale) || failed(wScale) || failed(yScale) || failed(yZero))
    return failure();
  ctx.setOutput(0, requantize(ctx.b, *acc, *xScale, *wScale, *yScale, *yZero,
                              *range));
  return success();
}

} // namespace

void registerQuantizationOps(ConverterMap &map) {
  map["QuantizeLinear"] = convertQuantizeLinear;
  map["DequantizeLinear"] = convertDequantizeLinear;
  map["DynamicQuantizeLinear"] = convertDynamicQuantizeLinear;
  map["MatMulInteger"] = convertMatMulInteger;
  map["QLinearMatMul"] = convertQLinearMatMul;
  map["ConvInteger"] = convertConvInteger;
  map["QLinearConv"] = convertQLinearConv;
}

} // namespace loupe::frontends::onnx_import
