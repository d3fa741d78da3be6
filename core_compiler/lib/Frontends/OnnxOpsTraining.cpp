//===- OnnxOpsTraining.cpp - ai.onnx.preview.training optimizers ----------===//
//
// The optimizer ops of the ONNX preview training domain, Adagrad, Adam and Momentum (ONNX
// operator spec, ai.onnx.preview.training opset 1), computed exactly as the ONNX reference
// implementations onnx/backend/test/case/node/{adagrad,adam,momentum}.py do. The algorithms:
// Adagrad (Duchi, Hazan, Singer, JMLR 2011), Adam (Kingma, Ba, arXiv:1412.6980), SGD with
// momentum and Nesterov momentum (Sutskever et al., ICML 2013).
//
// Each op reads the learning rate R (a float scalar) and the update count T (an int64
// scalar) as run-time values: the count-dependent factors are computed in the graph and
// picked with tosa.select, so one artifact serves every step.
//
//===----------------------------------------------------------------------===//
#include "OnnxOps.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"

using namespace mlir;

namespace loupe::frontends::onnx_import {
namespace {

/// The operands of an optimizer with `numGroups` variadic groups (X, G, then its state):
/// inputs R, T, X1..Xn, G1..Gn, S1..Sn, ...; outputs X1_new..Xn_new, S1_new..Sn_new, ...
struct OptimizerOperands {
  Value rate;  ///< R as a rank-0 tensor of X's element type.
  Value step;  ///< T as a rank-0 i64 tensor.
  Value positiveStep; ///< T > 0, rank-0 i1.
  /// tensors[i] = {X_i, G_i, S_i...}, all of X_i's shape and element type.
  SmallVector<SmallVector<Value>> tensors;
};

FailureOr<OptimizerOperands> readOperands(NodeContext &ctx, unsigned numGroups) {
  ImplicitLocOpBuilder &b = ctx.b;
  unsigned numTensors = ctx.numInputs() < 2 ? 0 : ctx.numInputs() - 2;
  unsigned n = numTensors / numGroups;
  if (n == 0 || numTensors % numGroups || ctx.numOutputs() != (numGroups - 1) * n)
    return ctx.fail("expects inputs R, T and " + Twine(numGroups) +
                    " equal groups of tensors, and " + Twine(numGroups - 1) +
                    " groups of outputs");
  for (unsigned i = 0; i < ctx.numInputs(); ++i)
    if (!ctx.hasInput(i))
      return ctx.fail("input " + Twine(i) + " is missing");
  Value x0 = ctx.input(2);
  if (!isFloat(x0) || !isFloat(ctx.input(0)) ||
      getNumElements(getShape(ctx.input(0))) != 1 ||
      getNumElements(getShape(ctx.input(1))) != 1 ||
      !getElementType(ctx.input(1)).isInteger(64))
    return ctx.fail("needs a float scalar R, an int64 scalar T and float tensors");
  OptimizerOperands ops;
  Type elementType = getElementType(x0);
  ops.rate = createCast(b, createReshape(b, ctx.input(0), {}), elementType);
  ops.step = createReshape(b, ctx.input(1), {});
  ops.positiveStep = createBinary<tosa::GreaterOp>(
      b, ops.step, createSplat(b, b.getI64Type(), {}, 0), b.getI1Type());
  for (unsigned i = 0; i < n; ++i) {
    SmallVector<Value> group;
    for (unsigned g = 0; g < numGroups; ++g) {
      Value v = ctx.input(2 + g * n + i);
      if (getType(v) != getType(ctx.input(2 + i)))
        return ctx.fail("input '" + ctx.inputName(2 + g * n + i) + "' must have the type of '" +
                        ctx.inputName(2 + i) + "'");
      if (getElementType(v) != elementType)
        return ctx.fail("all tensors must have one element type");
      group.push_back(v);
    }
    ops.tensors.push_back(std::move(group));
  }
  return ops;
}

/// Applies `update` (operands {X, G, S...} -> results {X_new, S_new...}) to every group and
/// sets the outputs in ONNX's order.
LogicalResult
setUpdates(NodeContext &ctx, const OptimizerOperands &ops,
           function_ref<SmallVector<Value>(ArrayRef<Value>)> update) {
  unsigned n = ops.tensors.size();
  for (unsigned i = 0; i < n; ++i) {
    SmallVector<Value> results = update(ops.tensors[i]);
    for (auto [k, result] : llvm::enumerate(results))
      ctx.setOutput(k * n + i, result);
  }
  return success();
}

/// Small arithmetic over tensors and scalars (rank-0 tensors broadcast numpy-style).
struct Arith {
  ImplicitLocOpBuilder &b;
  Type elementType;

  Value constant(double v) const { return createSplat(b, elementType, {}, v); }
  Value add(Value x, Value y) const { return createBinary<tosa::AddOp>(b, x, y); }
  Value sub(Value x, Value y) const { return createBinary<tosa::SubOp>(b, x, y); }
  Value mul(Value x, Value y) const { return createMul(b, x, y); }
  Value div(Value x, Value y) const { return createDiv(b, x, y); }
  Value sqrt(Value x) const {
    return createElementwise(b, {x}, elementType,
                             [](OpBuilder &nb, Location loc, ValueRange args) -> Value {
                               return nb.create<math::SqrtOp>(loc, args[0]);
                             });
  }
  /// pow(base, T) for a constant base and the run-time count T.
  Value powStep(double base, Value step) const {
    return createBinary<tosa::PowOp>(b, constant(base), createCast(b, step, elementType));
  }
  /// g + norm_coefficient * x: the gradient of the L2 regularization term added.
  Value regularized(Value x, Value g, double normCoefficient) const {
    return add(mul(constant(normCoefficient), x), g);
  }
};

/// Adagrad: r' = R / (1 + T * decay_factor), g' = norm_coefficient * X + G,
/// H_new = H + g'^2, X_new = X - r' * g' / (sqrt(H_new) + epsilon).
LogicalResult convertAdagrad(NodeContext &ctx) {
  auto ops = readOperands(ctx, 3);
  if (failed(ops))
    return failure();
  Arith a{ctx.b, getElementType(ops->rate)};
  double decay = ctx.getFloat("decay_factor", 0.0f);
  double epsilon = ctx.getFloat("epsilon", 1e-6f);
  double norm = ctx.getFloat("norm_coefficient", 0.0f);
  Value step = createCast(ctx.b, ops->step, a.elementType);
  Value rate = a.div(ops->rate, a.add(a.constant(1), a.mul(step, a.constant(decay))));
  return setUpdates(ctx, *ops, [&](ArrayRef<Value> t) -> SmallVector<Value> {
    Value x = t[0], g = a.regularized(t[0], t[1], norm), h = t[2];
    Value hNew = a.add(h, a.mul(g, g));
    Value scaled = a.div(a.mul(rate, g), a.add(a.sqrt(hNew), a.constant(epsilon)));
    return {a.sub(x, scaled), hNew};
  });
}

/// Adam: g' = norm_coefficient * X + G, V_new = alpha * V + (1 - alpha) * g',
/// H_new = beta * H + (1 - beta) * g'^2, r' = R * sqrt(1 - beta^T) / (1 - alpha^T) when
/// T > 0 else R, X_new = (1 - norm_coefficient_post) * (X - r' * V_new / (sqrt(H_new) + epsilon)).
LogicalResult convertAdam(NodeContext &ctx) {
  auto ops = readOperands(ctx, 4);
  if (failed(ops))
    return failure();
  Arith a{ctx.b, getElementType(ops->rate)};
  double alpha = ctx.getFloat("alpha", 0.9f), beta = ctx.getFloat("beta", 0.999f);
  double epsilon = ctx.getFloat("epsilon", 1e-6f);
  double norm = ctx.getFloat("norm_coefficient", 0.0f);
  double normPost = ctx.getFloat("norm_coefficient_post", 0.0f);
  // At T = 0 the corrected rate divides by zero; the select keeps R there.
  Value corrected =
      a.div(a.mul(ops->rate, a.sqrt(a.sub(a.constant(1), a.powStep(beta, ops->step)))),
            a.sub(a.constant(1), a.powStep(alpha, ops->step)));
  Value rate = createSelect(ctx.b, ops->positiveStep, corrected, ops->rate);
  return setUpdates(ctx, *ops, [&](ArrayRef<Value> t) -> SmallVector<Value> {
    Value x = t[0], g = a.regularized(t[0], t[1], norm), v = t[2], h = t[3];
    Value vNew = a.add(a.mul(a.constant(alpha), v), a.mul(a.constant(1 - alpha), g));
    Value hNew = a.add(a.mul(a.constant(beta), h), a.mul(a.constant(1 - beta), a.mul(g, g)));
    Value xNew =
        a.sub(x, a.mul(rate, a.div(vNew, a.add(a.sqrt(hNew), a.constant(epsilon)))));
    return {a.mul(a.constant(1 - normPost), xNew), vNew, hNew};
  });
}

/// Momentum: g' = norm_coefficient * X + G, V_new = alpha * V + beta' * g' with beta' = beta
/// when T > 0 else 1; "standard": X_new = X - R * V_new, "nesterov":
/// X_new = X - R * (g' + alpha * V_new).
LogicalResult convertMomentum(NodeContext &ctx) {
  for (StringRef attr : {"alpha", "beta", "mode", "norm_coefficient"})
    if (!ctx.hasAttr(attr))
      return ctx.fail("attribute '" + attr + "' is required");
  std::string mode = ctx.getString("mode", "");
  if (mode != "standard" && mode != "nesterov")
    return ctx.unsupportedAttr("mode", "'" + mode + "'");
  auto ops = readOperands(ctx, 3);
  if (failed(ops))
    return failure();
  Arith a{ctx.b, getElementType(ops->rate)};
  double alpha = ctx.getFloat("alpha", 0), beta = ctx.getFloat("beta", 0);
  double norm = ctx.getFloat("norm_coefficient", 0);
  Value gradientScale =
      createSelect(ctx.b, ops->positiveStep, a.constant(beta), a.constant(1));
  return setUpdates(ctx, *ops, [&](ArrayRef<Value> t) -> SmallVector<Value> {
    Value x = t[0], g = a.regularized(t[0], t[1], norm), v = t[2];
    Value vNew = a.add(a.mul(a.constant(alpha), v), a.mul(gradientScale, g));
    Value direction = mode == "nesterov" ? a.add(g, a.mul(a.constant(alpha), vNew)) : vNew;
    return {a.sub(x, a.mul(ops->rate, direction)), vNew};
  });
}

} // namespace

void registerTrainingOps(ConverterMap &map) {
  map["ai.onnx.preview.training.Adagrad"] = convertAdagrad;
  map["ai.onnx.preview.training.Adam"] = convertAdam;
  map["ai.onnx.preview.training.Momentum"] = convertMomentum;
}

} // namespace loupe::frontends::onnx_import
