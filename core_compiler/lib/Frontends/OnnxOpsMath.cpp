//===- OnnxOpsMath.cpp - Elementwise math TOSA lacks, as linalg.generic -----===//
//
// TOSA has no inverse trigonometric functions, no 64-bit integer division and no integer
// power. These ops are built as one `linalg.generic` over tensors whose body holds the `math`
// or `arith` op (what tosa-to-linalg would produce for an op it had), so they cluster, fuse,
// show and lower like every other elementwise op. Integer Pow is exponentiation
// by squaring over the exponent's bits (Knuth, TAOCP vol. 2, 4.6.3).
//
//===----------------------------------------------------------------------===//
#include "OnnxOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"

using namespace mlir;

namespace loupe::frontends::onnx_import {

using BodyFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

Value createElementwise(ImplicitLocOpBuilder &b, ArrayRef<Value> operands,
                        Type resultElementType, BodyFn body) {
  SmallVector<Value> inputs(operands);
  auto shape = matchRanks(b, inputs);
  if (failed(shape))
    return nullptr;
  int64_t rank = shape->size();
  // A size-1 dim of an operand broadcasts: its map reads index 0 there.
  SmallVector<AffineMap> maps;
  for (Value v : inputs) {
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < rank; ++d)
      exprs.push_back(getShape(v)[d] == 1 && (*shape)[d] != 1 ? b.getAffineConstantExpr(0)
                                                               : b.getAffineDimExpr(d));
    maps.push_back(AffineMap::get(rank, 0, exprs, b.getContext()));
  }
  maps.push_back(b.getMultiDimIdentityMap(rank));
  Value init = b.create<tensor::EmptyOp>(*shape, resultElementType);
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  auto generic = b.create<linalg::GenericOp>(
      init.getType(), inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nested, Location loc, ValueRange args) {
        nested.create<linalg::YieldOp>(loc, body(nested, loc, args.drop_back()));
      });
  return generic.getResult(0);
}

Value createIntegerMod(ImplicitLocOpBuilder &b, Value lhs, Value rhs, bool floored) {
  return createElementwise(
      b, {lhs, rhs}, getElementType(lhs), [&](OpBuilder &nb, Location loc, ValueRange args) {
        Value rem = nb.create<arith::RemSIOp>(loc, args[0], args[1]);
        if (!floored)
          return rem;
        // Truncated remainder -> floored: add the divisor when the signs differ.
        Value zero = nb.create<arith::ConstantOp>(loc, nb.getIntegerAttr(rem.getType(), 0));
        Value remNeg = nb.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, rem, zero);
        Value divNeg = nb.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, args[1], zero);
        Value nonZero = nb.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, rem, zero);
        Value fix = nb.create<arith::AndIOp>(
            loc, nonZero, nb.create<arith::XOrIOp>(loc, remNeg, divNeg));
        return nb.create<arith::SelectOp>(loc, fix,
                                          nb.create<arith::AddIOp>(loc, rem, args[1]), rem)
            .getResult();
      });
}

Value createIntegerPow(ImplicitLocOpBuilder &b, Value base, Value exponent) {
  Type type = getElementType(base);
  // Exponent bits to visit: those of the largest constant exponent, else the type's.
  int64_t bits = type.getIntOrFloatBitWidth() - 1;
  if (DenseElementsAttr e = getConstant(exponent); e && !isFloat(exponent)) {
    int64_t largest = 0;
    for (const APInt &v : e.getValues<APInt>())
      largest = std::max(largest, v.getSExtValue());
    bits = largest > 0 ? 64 - llvm::countl_zero(static_cast<uint64_t>(largest)) : 0;
  }
  return createElementwise(
      b, {base, exponent}, type, [&](OpBuilder &nb, Location loc, ValueRange args) -> Value {
        auto constant = [&](int64_t v) {
          return nb.create<arith::ConstantOp>(loc, nb.getIntegerAttr(type, v)).getResult();
        };
        if (isa<FloatType>(args[1].getType())) {
          // numpy: int ** float computes in double, then truncates to the int type.
          Type f64 = nb.getF64Type();
          Value x = nb.create<arith::SIToFPOp>(loc, f64, args[0]);
          Value y = isa<Float64Type>(args[1].getType())
                        ? args[1]
                        : nb.create<arith::ExtFOp>(loc, f64, args[1]).getResult();
          return nb.create<arith::FPToSIOp>(loc, type, nb.create<math::PowFOp>(loc, x, y));
        }
        Value e = args[1];
        if (e.getType() != type)
          e = e.getType().getIntOrFloatBitWidth() < type.getIntOrFloatBitWidth()
                  ? nb.create<arith::ExtSIOp>(loc, type, e).getResult()
                  : nb.create<arith::TruncIOp>(loc, type, e).getResult();
        Value result = constant(1), power = args[0], zero = constant(0), one = constant(1);
        for (int64_t k = 0; k < bits; ++k) {
          Value bit = nb.create<arith::AndIOp>(
              loc, nb.create<arith::ShRSIOp>(loc, e, constant(k)), one);
          Value set = nb.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, bit, one);
          result = nb.create<arith::SelectOp>(
              loc, set, nb.create<arith::MulIOp>(loc, result, power), result);
          if (k + 1 < bits)
            power = nb.create<arith::MulIOp>(loc, power, power);
        }
        // A negative exponent truncates 1 / base^|e| to 0 (numpy raises; ONNX leaves it open).
        Value negative = nb.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, e, zero);
        return nb.create<arith::SelectOp>(loc, negative, zero, result);
      });
}

void createRuntimeCheck(ImplicitLocOpBuilder &b, Value condition, StringRef message) {
  Value flat = createReshape(b, condition, {});
  Value scalar = b.create<tensor::ExtractOp>(flat, ValueRange{});
  b.create<cf::AssertOp>(scalar, message);
}

namespace {

template <typename MathOp>
LogicalResult convertMathUnary(NodeContext &ctx) {
  Value x = ctx.input(0);
  if (!isFloat(x))
    return ctx.fail("only floating-point inputs are supported");
  ctx.setOutput(0, createElementwise(ctx.b, {x}, getElementType(x),
                                     [](OpBuilder &nb, Location loc, ValueRange args) {
                                       return nb.create<MathOp>(loc, args[0]).getResult();
                                     }));
  return success();
}

/// BitShift (unsigned integers, which compute zero-extended): logical shifts.
LogicalResult convertBitShift(NodeContext &ctx) {
  ImplicitLocOpBuilder &b = ctx.b;
  Value x = ctx.input(0), amount = ctx.input(1);
  if (isFloat(x))
    return ctx.fail("BitShift takes integers");
  std::string direction = ctx.getString("direction", "");
  Value result;
  if (direction == "LEFT")
    result = createBinary<tosa::LogicalLeftShiftOp>(b, x, amount);
  else if (direction == "RIGHT")
    result = createBinary<tosa::LogicalRightShiftOp>(b, x, amount);
  else
    return ctx.unsupportedAttr("direction", direction);
  if (!result)
    return ctx.fail("operand shapes do not broadcast");
  ctx.setOutput(0, result);
  return success();
}

} // namespace

void registerMathOps(ConverterMap &map) {
  map["Acos"] = convertMathUnary<math::AcosOp>;
  map["Asin"] = convertMathUnary<math::AsinOp>;
  map["Atan"] = convertMathUnary<math::AtanOp>;
  map["Acosh"] = convertMathUnary<math::AcoshOp>;
  map["Asinh"] = convertMathUnary<math::AsinhOp>;
  map["Atanh"] = convertMathUnary<math::AtanhOp>;
  map["BitShift"] = convertBitShift;
}

} // namespace loupe::frontends::onnx_import
