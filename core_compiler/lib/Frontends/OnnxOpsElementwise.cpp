//===- OnnxOpsElementwise.cpp - Elementwise ONNX ops -> TOSA --------------===//
//
// Arithmetic, comparison, logical and activation ops, Clip, Cast and Where.
// Binary ops follow numpy broadcasting (the lower-rank operand is reshaped to
// match ranks); opset < 7 models use the legacy `broadcast`/`axis` form.
//
//===----------------------------------------------------------------------===//

#include "OnnxOps.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include <cmath>
#include <limits>

using namespace mlir;

namespace loupe::frontends::onnx_import {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// Legacy (opset < 7) broadcasting: with `broadcast=1` and `axis`, B's dims
/// align with A's starting at `axis`; reshape B so numpy rules apply.
Value alignLegacyBroadcast(NodeContext &ctx, Value lhs, Value rhs) {
  if (ctx.opset() >= 7 || !ctx.getInt("broadcast", 0) || !ctx.hasAttr("axis"))
    return rhs;
  int64_t rank = getShape(lhs).size();
  auto axis = normalizeAxis(ctx.getInt("axis", 0), rank);
  ArrayRef<int64_t> shape = getShape(rhs);
  if (!axis || *axis + static_cast<int64_t>(shape.size()) > rank)
    return rhs;
  SmallVector<int64_t> newShape(*axis, 1);
  llvm::append_range(newShape, shape);
  newShape.resize(rank, 1);
  return createReshape(ctx.b, rhs, newShape);
}

/// Applies `build` to the two inputs, reporting non-broadcastable shapes.
template <typename BuildFn>
LogicalResult convertBinary(NodeContext &ctx, BuildFn build) {
  Value lhs = ctx.input(0);
  Value rhs = alignLegacyBroadcast(ctx, lhs, ctx.input(1));
  Value result = build(ctx.b, lhs, rhs);
  if (!result)
    return ctx.fail("operand shapes do not broadcast");
  ctx.setOutput(0, result);
  return success();
}

template <typename OpTy>
LogicalResult convertBinaryOp(NodeContext &ctx) {
  return convertBinary(ctx, [](ImplicitLocOpBuilder &b, Value l, Value r) {
    return createBinary<OpTy>(b, l, r);
  });
}

LogicalResult convertMul(NodeContext &ctx) {
  return convertBinary(ctx, createMul);
}
/// Truncating integer division of two constants (same shape, or a scalar
/// divisor); null when it does not apply.
Value foldIntDiv(ImplicitLocOpBuilder &b, Value lhs, Value rhs) {
  DenseElementsAttr l = getConstant(lhs), r = getConstant(rhs);
  if (!l || !r || (r.getNumElements() != 1 && r.getType() != l.getType()))
    return nullptr;
  SmallVector<APInt> result;
  auto divisors = r.getValues<APInt>();
  int64_t i = 0;
  for (const APInt &v : l.getValues<APInt>()) {
    const APInt &d = divisors[r.getNumElements() == 1 ? 0 : i++];
    if (d.isZero())
      return nullptr;
    result.push_back(v.sdiv(d));
  }
  return createConst(b, DenseElementsAttr::get(l.getType(), result));
}

/// Float division is reciprocal * mul. TOSA's int_div is i32-only: narrower
/// ints widen to i32; i64 is folded when constant and rejected otherwise.
LogicalResult convertDiv(NodeContext &ctx) {
  Value lhs = ctx.input(0);
  auto intType = dyn_cast<IntegerType>(getElementType(lhs));
  if (!intType)
    return convertBinary(ctx, createDiv);
  if (Value folded = foldIntDiv(ctx.b, lhs, ctx.input(1))) {
    ctx.setOutput(0, folded);
    return success();
  }
  if (intType.getWidth() > 32)
    return ctx.fail("64-bit integer Div needs constant operands (TOSA int_div "
                    "is 32-bit only)");
  return convertBinary(ctx, [&](ImplicitLocOpBuilder &b, Value l, Value r) {
    Type i32 = b.getI32Type();
    Value q = createBinary<tosa::IntDivOp>(b, createCast(b, l, i32),
                                           createCast(b, r, i32));
    return q ? createCast(b, q, intType) : q;
  });
}

/// Pow: float bases through tosa.pow, integer bases through createIntegerPow.
LogicalResult convertPow(NodeContext &ctx) {
  return convertBinary(ctx, [](ImplicitLocOpBuilder &b, Value l, Value r) -> Value {
    if (isFloat(l))
      return createBinary<tosa::PowOp>(b, l, createCast(b, r, getElementType(l)));
    return createIntegerPow(b, l, r);
  });
}

/// Comparisons produce i1; `swap` turns Less into Greater(b, a).
template <typename OpTy, bool swap>
LogicalResult convertCompare(NodeContext &ctx) {
  return convertBinary(ctx, [](ImplicitLocOpBuilder &b, Value l, Value r) {
    if (swap)
      std::swap(l, r);
    return createBinary<OpTy>(b, l, r, b.getI1Type());
  });
}

/// Max, Min, Sum and Mean take any number of inputs.
template <typename OpTy>
LogicalResult convertVariadic(NodeContext &ctx) {
  Value result = ctx.input(0);
  for (unsigned i = 1; i < ctx.numInputs(); ++i) {
    result = createBinary<OpTy>(ctx.b, result, ctx.input(i));
    if (!result)
      return ctx.fail("operand shapes do not broadcast");
  }
  if (ctx.opType() == "Mean") {
    if (!isFloat(result))
      return ctx.fail("integer Mean is not supported");
    result = createMul(ctx.b, result,
                       createScalar(ctx.b, getElementType(result),
                                    1.0 / ctx.numInputs(),
                                    getShape(result).size()));
  }
  ctx.setOutput(0, result);
  return success();
}

template <typename OpTy>
LogicalResult convertUnaryOp(NodeContext &ctx) {
  ctx.setOutput(0, createUnary<OpTy>(ctx.b, ctx.input(0)));
  return success();
}

/// Ops only defined on floats in TOSA (exp, log, ...).
template <typename OpTy>
LogicalResult convertFloatUnaryOp(NodeContext &ctx) {
  if (!isFloat(ctx.input(0)))
    return ctx.fail("only floating-point inputs are supported");
  return convertUnaryOp<OpTy>(ctx);
}

Value mulScalar(ImplicitLocOpBuilder &b, Value v, double s) {
  return s == 1.0 ? v : createMul(b, v, scalarLike(b, v, s));
}
Value addScalar(ImplicitLocOpBuilder &b, Value v, double s) {
  return s == 0.0 ? v : createBinary<tosa::AddOp>(b, v, scalarLike(b, v, s));
}

/// x > 0 (or >= 0) as i1.
Value isPositive(ImplicitLocOpBuilder &b, Value x, bool orZero) {
  Value zero = scalarLike(b, x, 0);
  return orZero ? createBinary<tosa::GreaterEqualOp>(b, x, zero, b.getI1Type())
                : createBinary<tosa::GreaterOp>(b, x, zero, b.getI1Type());
}

/// alpha * (exp(x) - 1), the negative branch of Elu/Selu.
Value expm1Scaled(ImplicitLocOpBuilder &b, Value x, double alpha) {
  return mulScalar(b, addScalar(b, createUnary<tosa::ExpOp>(b, x), -1.0),
                   alpha);
}

LogicalResult convertRelu(NodeContext &ctx) {
  ctx.setOutput(0, createClamp(ctx.b, ctx.input(0), 0, kInf));
  return success();
}

LogicalResult convertLeakyRelu(NodeContext &ctx) {
  Value x = ctx.input(0);
  double alpha = ctx.getFloat("alpha", 0.01f);
  ctx.setOutput(0, createSelect(ctx.b, isPositive(ctx.b, x, true), x,
                                mulScalar(ctx.b, x, alpha)));
  return success();
}

LogicalResult convertPRelu(NodeContext &ctx) {
  Value x = ctx.input(0), slope = ctx.input(1);
  ArrayRef<int64_t> xShape = getShape(x), slopeShape = getShape(slope);
  // PRelu-6 applies a 1-D slope per channel (dim 1), not to the last dim.
  if (ctx.opset() < 7 && slopeShape.size() == 1 && xShape.size() >= 2 &&
      slopeShape[0] == xShape[1] && slopeShape[0] != 1) {
    SmallVector<int64_t> shape(xShape.size(), 1);
    shape[1] = slopeShape[0];
    slope = createReshape(ctx.b, slope, shape);
  }
  Value scaled = createMul(ctx.b, x, slope);
  if (!scaled)
    return ctx.fail("slope does not broadcast to the input");
  ctx.setOutput(0, createSelect(ctx.b, isPositive(ctx.b, x, true), x, scaled));
  return success();
}

LogicalResult convertElu(NodeContext &ctx) {
  Value x = ctx.input(0);
  double alpha = ctx.getFloat("alpha", 1.0f);
  ctx.setOutput(0, createSelect(ctx.b, isPositive(ctx.b, x, false), x,
                                expm1Scaled(ctx.b, x, alpha)));
  return success();
}

LogicalResult convertSelu(NodeContext &ctx) {
  Value x = ctx.input(0);
  double alpha = ctx.getFloat("alpha", 1.67326319217681884765625f);
  double gamma = ctx.getFloat("gamma", 1.05070102214813232421875f);
  Value elu = createSelect(ctx.b, isPositive(ctx.b, x, false), x,
                           expm1Scaled(ctx.b, x, alpha));
  ctx.setOutput(0, mulScalar(ctx.b, elu, gamma));
  return success();
}

LogicalResult convertCelu(NodeContext &ctx) {
  Value x = ctx.input(0);
  double alpha = ctx.getFloat("alpha", 1.0f);
  Value neg = expm1Scaled(ctx.b, mulScalar(ctx.b, x, 1.0 / alpha), alpha);
  ctx.setOutput(0, createSelect(ctx.b, isPositive(ctx.b, x, false), x, neg));
  return success();
}

LogicalResult convertThresholdedRelu(NodeContext &ctx) {
  Value x = ctx.input(0);
  double alpha = ctx.getFloat("alpha", 1.0f);
  Value cond = createBinary<tosa::GreaterOp>(
      ctx.b, x, scalarLike(ctx.b, x, alpha), ctx.b.getI1Type());
  ctx.setOutput(0, createSelect(ctx.b, cond, x, scalarLike(ctx.b, x, 0)));
  return success();
}

/// softplus(x) = max(x, 0) + log(1 + exp(-|x|)), stable for large |x|.
LogicalResult convertSoftplus(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value x = ctx.input(0);
  Value negAbs = createUnary<tosa::NegateOp>(b, createUnary<tosa::AbsOp>(b, x));
  Value log1p = createUnary<tosa::LogOp>(
      b, addScalar(b, createUnary<tosa::ExpOp>(b, negAbs), 1.0));
  ctx.setOutput(0, createBinary<tosa::AddOp>(b, createClamp(b, x, 0, kInf),
                                             log1p));
  return success();
}

LogicalResult convertSoftsign(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value x = ctx.input(0);
  Value denom = addScalar(b, createUnary<tosa::AbsOp>(b, x), 1.0);
  ctx.setOutput(0, createDiv(b, x, denom));
  return success();
}

LogicalResult convertHardSigmoid(NodeContext &ctx) {
  Value x = ctx.input(0);
  double alpha = ctx.getFloat("alpha", 0.2f), beta = ctx.getFloat("beta", 0.5f);
  ctx.setOutput(0, createClamp(ctx.b,
                               addScalar(ctx.b, mulScalar(ctx.b, x, alpha), beta),
                               0, 1));
  return success();
}

LogicalResult convertHardSwish(NodeContext &ctx) {
  Value x = ctx.input(0);
  Value gate = createClamp(
      ctx.b, addScalar(ctx.b, mulScalar(ctx.b, x, 1.0 / 6), 0.5), 0, 1);
  ctx.setOutput(0, createMul(ctx.b, x, gate));
  return success();
}

/// sqrt(x) = 1 / rsqrt(x): exact at 0 (1/inf) and NaN below, like sqrt.
LogicalResult convertSqrt(NodeContext &ctx) {
  if (!isFloat(ctx.input(0)))
    return ctx.fail("only floating-point inputs are supported");
  Value rsqrt = createUnary<tosa::RsqrtOp>(ctx.b, ctx.input(0));
  ctx.setOutput(0, createUnary<tosa::ReciprocalOp>(ctx.b, rsqrt));
  return success();
}

LogicalResult convertSign(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value x = ctx.input(0);
  Value zero = scalarLike(b, x, 0);
  Value isNeg = createBinary<tosa::GreaterOp>(b, zero, x, b.getI1Type());
  Value negOrZero =
      createSelect(b, isNeg, scalarLike(b, x, -1), scalarLike(b, x, 0));
  ctx.setOutput(0, createSelect(b, isPositive(b, x, false),
                                scalarLike(b, x, 1), negOrZero));
  return success();
}

LogicalResult convertIsNaN(NodeContext &ctx) {
  Value x = ctx.input(0);
  Value same = createBinary<tosa::EqualOp>(ctx.b, x, x, ctx.b.getI1Type());
  ctx.setOutput(0, createUnary<tosa::LogicalNotOp>(ctx.b, same));
  return success();
}

LogicalResult convertIsInf(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value x = ctx.input(0);
  Value result = createSplat(b, b.getI1Type(), getShape(x), 0);
  for (auto [attr, inf] : {std::pair("detect_positive", kInf),
                           std::pair("detect_negative", -kInf)}) {
    if (!ctx.getInt(attr, 1))
      continue;
    Value hit =
        createBinary<tosa::EqualOp>(b, x, scalarLike(b, x, inf), b.getI1Type());
    result = createBinary<tosa::LogicalOrOp>(b, result, hit);
  }
  ctx.setOutput(0, result);
  return success();
}

/// Round half to even: floor, then up when the fraction is above one half or
/// exactly one half with an odd floor.
LogicalResult convertRound(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value x = ctx.input(0);
  if (!isFloat(x))
    return ctx.fail("only floating-point inputs are supported");
  Type i1 = b.getI1Type();
  Value floor = createUnary<tosa::FloorOp>(b, x);
  Value frac = createBinary<tosa::SubOp>(b, x, floor);
  Value half = scalarLike(b, x, 0.5);
  Value halfFloor = createUnary<tosa::FloorOp>(b, mulScalar(b, floor, 0.5));
  Value odd = createBinary<tosa::EqualOp>(
      b, createBinary<tosa::SubOp>(b, floor, mulScalar(b, halfFloor, 2)),
      scalarLike(b, x, 1), i1);
  Value tie = createSelect(b, odd, addScalar(b, floor, 1), floor);
  Value below = createSelect(b, createBinary<tosa::GreaterOp>(b, half, frac, i1),
                             floor, tie);
  ctx.setOutput(0, createSelect(b, createBinary<tosa::GreaterOp>(b, frac, half, i1),
                                addScalar(b, floor, 1), below));
  return success();
}

/// Mod: floats a - trunc(a / b) * b (fmod=1) or a - floor(a / b) * b (fmod=0); integers
/// C's remainder (fmod=1) or floored to the divisor's sign (fmod=0), in any width.
LogicalResult convertMod(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value lhs = ctx.input(0), rhs = ctx.input(1);
  if (failed(matchRanks(b, lhs, rhs)))
    return ctx.fail("operand shapes do not broadcast");
  bool fmod = ctx.getInt("fmod", 0);
  Type type = getElementType(lhs), i1 = b.getI1Type();
  Value quotient;
  if (isa<FloatType>(type)) {
    Value q = createDiv(b, lhs, rhs);
    Value isNeg = createBinary<tosa::GreaterOp>(b, scalarLike(b, q, 0), q, i1);
    quotient = fmod ? createSelect(b, isNeg, createUnary<tosa::CeilOp>(b, q),
                                   createUnary<tosa::FloorOp>(b, q))
                    : createUnary<tosa::FloorOp>(b, q);
  } else {
    ctx.setOutput(0, createIntegerMod(b, lhs, rhs, /*floored=*/!fmod));
    return success();
  }
  ctx.setOutput(0, createBinary<tosa::SubOp>(b, lhs, createMul(b, quotient, rhs)));
  return success();
}

LogicalResult convertTan(NodeContext &ctx) {
  Value x = ctx.input(0);
  if (!isFloat(x))
    return ctx.fail("only floating-point inputs are supported");
  ctx.setOutput(0, createDiv(ctx.b, createUnary<tosa::SinOp>(ctx.b, x),
                             createUnary<tosa::CosOp>(ctx.b, x)));
  return success();
}

/// Sinh/Cosh: (exp(x) -/+ exp(-x)) / 2.
template <typename OpTy>
LogicalResult convertHyperbolic(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value x = ctx.input(0);
  if (!isFloat(x))
    return ctx.fail("only floating-point inputs are supported");
  Value pos = createUnary<tosa::ExpOp>(b, x);
  Value neg = createUnary<tosa::ExpOp>(b, createUnary<tosa::NegateOp>(b, x));
  ctx.setOutput(0, mulScalar(b, createBinary<OpTy>(b, pos, neg), 0.5));
  return success();
}

LogicalResult convertShrink(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value x = ctx.input(0);
  double bias = ctx.getFloat("bias", 0), lambd = ctx.getFloat("lambd", 0.5f);
  Type i1 = b.getI1Type();
  Value below =
      createBinary<tosa::GreaterOp>(b, scalarLike(b, x, -lambd), x, i1);
  Value above = createBinary<tosa::GreaterOp>(b, x, scalarLike(b, x, lambd), i1);
  Value inner = createSelect(b, above, addScalar(b, x, -bias),
                             scalarLike(b, x, 0));
  ctx.setOutput(0, createSelect(b, below, addScalar(b, x, bias), inner));
  return success();
}

LogicalResult convertClip(NodeContext &ctx) {
  Value x = ctx.input(0);
  Type elementType = getElementType(x);
  double lo = -kInf, hi = kInf;
  if (!isa<FloatType>(elementType)) {
    unsigned width = elementType.getIntOrFloatBitWidth();
    lo = -std::ldexp(1.0, width - 1);
    hi = std::ldexp(1.0, width - 1) - 1;
  }
  if (ctx.opset() < 11) {
    lo = ctx.getFloat("min", lo);
    hi = ctx.getFloat("max", hi);
    ctx.setOutput(0, createClamp(ctx.b, x, lo, hi));
    return success();
  }
  // Constant bounds become a clamp, others maximum/minimum.
  Value result = x;
  for (unsigned i = 1; i <= 2; ++i) {
    if (!ctx.hasInput(i))
      continue;
    if (DenseElementsAttr attr = ctx.constantInput(i);
        attr && attr.getNumElements() == 1) {
      double bound = *ctx.constantScalarInput(i);
      (i == 1 ? lo : hi) = bound;
      continue;
    }
    Value bound = ctx.input(i);
    result = i == 1 ? createBinary<tosa::MaximumOp>(ctx.b, result, bound)
                    : createBinary<tosa::MinimumOp>(ctx.b, result, bound);
    if (!result)
      return ctx.fail("bound does not broadcast to the input");
  }
  ctx.setOutput(0, createClamp(ctx.b, result, lo, hi));
  return success();
}

/// ONNX casts truncate floats toward zero; TOSA's cast rounds to nearest even,
/// so truncate first.
Value castElements(ImplicitLocOpBuilder &b, Value x, Type to) {
  if (isFloat(x) && isa<IntegerType>(to) && !to.isInteger(1)) {
    Value isNeg = createBinary<tosa::GreaterOp>(b, scalarLike(b, x, 0), x,
                                                b.getI1Type());
    x = createSelect(b, isNeg, createUnary<tosa::CeilOp>(b, x),
                     createUnary<tosa::FloorOp>(b, x));
  }
  return createCast(b, x, to);
}

LogicalResult convertCast(NodeContext &ctx) {
  auto to = ctx.getElementTypeAttr("to");
  if (failed(to))
    return failure();
  ctx.setOutput(0, castElements(ctx.b, ctx.input(0), *to));
  return success();
}

LogicalResult convertCastLike(NodeContext &ctx) {
  ctx.setOutput(0, castElements(ctx.b, ctx.input(0),
                                getElementType(ctx.input(1))));
  return success();
}

LogicalResult convertWhere(NodeContext &ctx) {
  Value result =
      createSelect(ctx.b, ctx.input(0), ctx.input(1), ctx.input(2));
  if (!result)
    return ctx.fail("operand shapes do not broadcast");
  ctx.setOutput(0, result);
  return success();
}

} // namespace

void registerElementwiseOps(ConverterMap &map) {
  map["Add"] = convertBinaryOp<tosa::AddOp>;
  map["Sub"] = convertBinaryOp<tosa::SubOp>;
  map["Mul"] = convertMul;
  map["Div"] = convertDiv;
  map["Pow"] = convertPow;
  map["And"] = convertBinaryOp<tosa::LogicalAndOp>;
  map["Or"] = convertBinaryOp<tosa::LogicalOrOp>;
  map["Xor"] = convertBinaryOp<tosa::LogicalXorOp>;
  map["Equal"] = convertCompare<tosa::EqualOp, false>;
  map["Greater"] = convertCompare<tosa::GreaterOp, false>;
  map["GreaterOrEqual"] = convertCompare<tosa::GreaterEqualOp, false>;
  map["Less"] = convertCompare<tosa::GreaterOp, true>;
  map["LessOrEqual"] = convertCompare<tosa::GreaterEqualOp, true>;
  map["Max"] = convertVariadic<tosa::MaximumOp>;
  map["Min"] = convertVariadic<tosa::MinimumOp>;
  map["Sum"] = convertVariadic<tosa::AddOp>;
  map["Mean"] = convertVariadic<tosa::AddOp>;

  map["Abs"] = convertUnaryOp<tosa::AbsOp>;
  map["Neg"] = convertUnaryOp<tosa::NegateOp>;
  map["Not"] = convertUnaryOp<tosa::LogicalNotOp>;
  map["Exp"] = convertFloatUnaryOp<tosa::ExpOp>;
  map["Log"] = convertFloatUnaryOp<tosa::LogOp>;
  map["Sigmoid"] = convertFloatUnaryOp<tosa::SigmoidOp>;
  map["Tanh"] = convertFloatUnaryOp<tosa::TanhOp>;
  map["Erf"] = convertFloatUnaryOp<tosa::ErfOp>;
  map["Reciprocal"] = convertFloatUnaryOp<tosa::ReciprocalOp>;
  map["Floor"] = convertFloatUnaryOp<tosa::FloorOp>;
  map["Ceil"] = convertFloatUnaryOp<tosa::CeilOp>;
  map["Sin"] = convertFloatUnaryOp<tosa::SinOp>;
  map["Cos"] = convertFloatUnaryOp<tosa::CosOp>;
  map["Sqrt"] = convertSqrt;
  map["Sign"] = convertSign;
  map["IsNaN"] = convertIsNaN;
  map["IsInf"] = convertIsInf;
  map["Round"] = convertRound;
  map["Mod"] = convertMod;
  map["Tan"] = convertTan;
  map["Sinh"] = convertHyperbolic<tosa::SubOp>;
  map["Cosh"] = convertHyperbolic<tosa::AddOp>;
  map["Shrink"] = convertShrink;

  map["Relu"] = convertRelu;
  map["LeakyRelu"] = convertLeakyRelu;
  map["PRelu"] = convertPRelu;
  map["Elu"] = convertElu;
  map["Selu"] = convertSelu;
  map["Celu"] = convertCelu;
  map["ThresholdedRelu"] = convertThresholdedRelu;
  map["Softplus"] = convertSoftplus;
  map["Softsign"] = convertSoftsign;
  map["HardSigmoid"] = convertHardSigmoid;
  map["HardSwish"] = convertHardSwish;
  map["Clip"] = convertClip;
  map["Cast"] = convertCast;
  map["CastLike"] = convertCastLike;
  map["Where"] = convertWhere;
}

} // namespace loupe::frontends::onnx_import
