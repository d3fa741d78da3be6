//===- OnnxOpsRecurrent.cpp - RNN, GRU, LSTM -> TOSA ----------------------===//
//
// ONNX RNN, GRU and LSTM (opsets 7 to 14), built from the equations of the
// ONNX operator spec (docs/Operators.md; reference implementations in
// onnx/backend/test/case/node/{rnn,gru,lstm}.py). Shapes are static, so the
// recurrence is unrolled over the sequence, one direction after the other:
// X·W^T for every step is one tosa.matmul up front, then each step multiplies
// the previous hidden state by R^T. Where the spec leaves details open this
// follows onnxruntime's CPU kernels: `clip` bounds the gate pre-activations
// (not C before LSTM's h), `input_forget` makes f = 1 - i, activation_alpha
// and activation_beta are consumed in order by the activations that take
// them, and with `sequence_lens` a batch row whose sequence has ended keeps
// its state (Y_h/Y_c hold its last valid step) and gets zeros in Y. A reverse
// direction starts each row at its own last valid step.
//
//===----------------------------------------------------------------------===//

#include "OnnxOps.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include <limits>

using namespace mlir;

namespace loupe::frontends::onnx_import {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

enum class CellKind { RNN, GRU, LSTM };

Value add(ImplicitLocOpBuilder &b, Value lhs, Value rhs) {
  return createBinary<tosa::AddOp>(b, lhs, rhs);
}
Value sub(ImplicitLocOpBuilder &b, Value lhs, Value rhs) {
  return createBinary<tosa::SubOp>(b, lhs, rhs);
}
Value mulScalar(ImplicitLocOpBuilder &b, Value v, double s) {
  return s == 1.0 ? v : createMul(b, v, scalarLike(b, v, s));
}
Value addScalar(ImplicitLocOpBuilder &b, Value v, double s) {
  return s == 0.0 ? v : add(b, v, scalarLike(b, v, s));
}

/// Block `i` of `size` elements along the last axis (a gate of [.., G*H]).
Value block(ImplicitLocOpBuilder &b, Value v, int64_t i, int64_t size) {
  return createSliceAxis(b, v, getShape(v).size() - 1, i * size, size);
}

/// Direction `d` of a [num_directions, ...] tensor, without that axis.
Value directionOf(ImplicitLocOpBuilder &b, Value v, int64_t d) {
  return createReshape(b, createSliceAxis(b, v, 0, d, 1),
                       getShape(v).drop_front());
}

/// [m, k] x [k, n] -> [m, n] as a tosa.matmul with a unit batch.
Value matmul(ImplicitLocOpBuilder &b, Value lhs, Value rhs) {
  int64_t m = getShape(lhs)[0], k = getShape(lhs)[1], n = getShape(rhs)[1];
  Value product = b.create<tosa::MatMulOp>(
      getTensorType({1, m, n}, getElementType(lhs)),
      createReshape(b, lhs, {1, m, k}), createReshape(b, rhs, {1, k, n}));
  return createReshape(b, product, {m, n});
}

/// Reshapes each of `parts` to `unitShape` and concatenates them on `axis`.
Value stack(ImplicitLocOpBuilder &b, ArrayRef<Value> parts,
            ArrayRef<int64_t> unitShape, int64_t axis) {
  SmallVector<Value> reshaped;
  for (Value part : parts)
    reshaped.push_back(createReshape(b, part, unitShape));
  return createConcat(b, reshaped, axis);
}

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

enum class ActivationKind {
  Relu,
  Tanh,
  Sigmoid,
  Affine,
  LeakyRelu,
  ThresholdedRelu,
  ScaledTanh,
  HardSigmoid,
  Elu,
  Softsign,
  Softplus
};

/// An activation with its alpha and beta resolved.
struct Activation {
  ActivationKind kind;
  double alpha, beta;
};

/// The activations the spec lists, how many of (alpha, beta) each takes, and
/// their defaults (those of the ONNX op of that name).
struct ActivationInfo {
  StringLiteral name;
  ActivationKind kind;
  int numParams;
  double alpha, beta;
};

const ActivationInfo kActivations[] = {
    {"Relu", ActivationKind::Relu, 0, 0, 0},
    {"Tanh", ActivationKind::Tanh, 0, 0, 0},
    {"Sigmoid", ActivationKind::Sigmoid, 0, 0, 0},
    {"Affine", ActivationKind::Affine, 2, 1.0, 0.0},
    {"LeakyRelu", ActivationKind::LeakyRelu, 1, 0.01, 0},
    {"ThresholdedRelu", ActivationKind::ThresholdedRelu, 1, 1.0, 0},
    {"ScaledTanh", ActivationKind::ScaledTanh, 2, 1.0, 1.0},
    {"HardSigmoid", ActivationKind::HardSigmoid, 2, 0.2, 0.5},
    {"Elu", ActivationKind::Elu, 1, 1.0, 0},
    {"Softsign", ActivationKind::Softsign, 0, 0, 0},
    {"Softplus", ActivationKind::Softplus, 0, 0, 0},
};

/// The formulas of the spec's activation list.
Value applyActivation(ImplicitLocOpBuilder &b, const Activation &act,
                      Value x) {
  auto atLeast = [&](double bound) {
    return createBinary<tosa::GreaterEqualOp>(b, x, scalarLike(b, x, bound),
                                              b.getI1Type());
  };
  switch (act.kind) {
  case ActivationKind::Relu:
    return createClamp(b, x, 0, kInf);
  case ActivationKind::Tanh:
    return createUnary<tosa::TanhOp>(b, x);
  case ActivationKind::Sigmoid:
    return createUnary<tosa::SigmoidOp>(b, x);
  case ActivationKind::Affine:
    return addScalar(b, mulScalar(b, x, act.alpha), act.beta);
  case ActivationKind::LeakyRelu:
    return createSelect(b, atLeast(0), x, mulScalar(b, x, act.alpha));
  case ActivationKind::ThresholdedRelu:
    return createSelect(b, atLeast(act.alpha), x, scalarLike(b, x, 0));
  case ActivationKind::ScaledTanh:
    return mulScalar(b, createUnary<tosa::TanhOp>(b, mulScalar(b, x, act.beta)),
                     act.alpha);
  case ActivationKind::HardSigmoid:
    return createClamp(b, addScalar(b, mulScalar(b, x, act.alpha), act.beta),
                       0, 1);
  case ActivationKind::Elu: {
    Value expm1 = addScalar(b, createUnary<tosa::ExpOp>(b, x), -1.0);
    return createSelect(b, atLeast(0), x, mulScalar(b, expm1, act.alpha));
  }
  case ActivationKind::Softsign:
    return createDiv(b, x, addScalar(b, createUnary<tosa::AbsOp>(b, x), 1.0));
  case ActivationKind::Softplus: {
    // max(x, 0) + log(1 + exp(-|x|)), stable for large |x|.
    Value negAbs =
        createUnary<tosa::NegateOp>(b, createUnary<tosa::AbsOp>(b, x));
    Value log1p = createUnary<tosa::LogOp>(
        b, addScalar(b, createUnary<tosa::ExpOp>(b, negAbs), 1.0));
    return add(b, createClamp(b, x, 0, kInf), log1p);
  }
  }
  llvm_unreachable("unknown activation");
}

/// The activations of all directions, `defaults.size()` per direction, from
/// `activations`, `activation_alpha` and `activation_beta`. A bidirectional
/// op given one direction's list uses it for both.
FailureOr<SmallVector<Activation>>
getActivations(NodeContext &ctx, ArrayRef<StringLiteral> defaults,
               int64_t numDirections) {
  SmallVector<std::string> given = ctx.getStrings("activations");
  SmallVector<StringRef> names(given.begin(), given.end());
  if (names.empty())
    names.assign(defaults.begin(), defaults.end());
  size_t count = defaults.size();
  if (names.size() != count && names.size() != count * numDirections)
    return ctx.fail("expected " + Twine(count * numDirections) +
                    " activations, got " + Twine(names.size()));
  SmallVector<float> alphas = ctx.getFloats("activation_alpha");
  SmallVector<float> betas = ctx.getFloats("activation_beta");
  size_t nextAlpha = 0, nextBeta = 0;
  SmallVector<Activation> result;
  for (StringRef name : names) {
    const ActivationInfo *info =
        llvm::find_if(kActivations, [&](const ActivationInfo &a) {
          return name.equals_insensitive(a.name);
        });
    if (info == std::end(kActivations)) {
      SmallVector<StringRef> supported;
      for (const ActivationInfo &a : kActivations)
        supported.push_back(a.name);
      return ctx.fail("unsupported activation '" + name + "' (supported: " +
                      llvm::join(supported, ", ") + ")");
    }
    Activation act{info->kind, info->alpha, info->beta};
    if (info->numParams >= 1 && nextAlpha < alphas.size())
      act.alpha = alphas[nextAlpha++];
    if (info->numParams >= 2 && nextBeta < betas.size())
      act.beta = betas[nextBeta++];
    result.push_back(act);
  }
  if (result.size() < count * numDirections) {
    SmallVector<Activation> forward(result);
    result.append(forward);
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Cells: one time step of one direction
//===----------------------------------------------------------------------===//

/// One direction's parameters, laid out for row-vector products
/// ([batch, k] x [k, n]).
struct Cell {
  CellKind kind = CellKind::RNN;
  int64_t hidden = 0;
  /// R^T, [hidden, gates * hidden]; for GRU the z and r gates only.
  Value recurrence;
  /// GRU: R^T of the h gate, [hidden, hidden].
  Value recurrenceH;
  /// GRU with linear_before_reset: Rbh, [hidden] (else it is in the input
  /// bias); null without B.
  Value recurrenceBiasH;
  /// LSTM: P, [3 * hidden] in [i, o, f] order; null without P.
  Value peepholes;
  /// f, g, h (as many as the op has).
  ArrayRef<Activation> activations;
  std::optional<double> clip;
  bool linearBeforeReset = false, inputForget = false;
};

/// Hidden (and, for LSTM, cell) state, [batch, hidden] each.
struct CellState {
  Value h, c;
};

/// Activation `i` of `cell` on a gate pre-activation, clipped first.
Value activate(ImplicitLocOpBuilder &b, const Cell &cell, unsigned i, Value x) {
  if (cell.clip)
    x = createClamp(b, x, -*cell.clip, *cell.clip);
  return applyActivation(b, cell.activations[i], x);
}

/// RNN: Ht = f(Xt·W^T + Ht-1·R^T + Wb + Rb).
/// `xw` holds Xt·W^T plus the input bias for every step function.
CellState stepRNN(ImplicitLocOpBuilder &b, const Cell &cell, Value xw,
                  const CellState &prev) {
  return {activate(b, cell, 0, add(b, xw, matmul(b, prev.h, cell.recurrence))),
          nullptr};
}

/// GRU, gates [z, r, h]:
///   zt = f(Xt·Wz^T + Ht-1·Rz^T + Wbz + Rbz), rt likewise,
///   ht = g(Xt·Wh^T + (rt . Ht-1)·Rh^T + Rbh + Wbh), or with
///        linear_before_reset g(Xt·Wh^T + rt . (Ht-1·Rh^T + Rbh) + Wbh),
///   Ht = (1 - zt) . ht + zt . Ht-1, computed as ht + zt . (Ht-1 - ht).
CellState stepGRU(ImplicitLocOpBuilder &b, const Cell &cell, Value xw,
                  const CellState &prev) {
  int64_t hidden = cell.hidden;
  Value hr = matmul(b, prev.h, cell.recurrence);
  auto gate = [&](int64_t g) { return add(b, block(b, xw, g, hidden), block(b, hr, g, hidden)); };
  Value z = activate(b, cell, 0, gate(0));
  Value r = activate(b, cell, 0, gate(1));
  Value recurrent;
  if (cell.linearBeforeReset) {
    recurrent = matmul(b, prev.h, cell.recurrenceH);
    if (cell.recurrenceBiasH)
      recurrent = add(b, recurrent, cell.recurrenceBiasH);
    recurrent = createMul(b, r, recurrent);
  } else {
    recurrent = matmul(b, createMul(b, r, prev.h), cell.recurrenceH);
  }
  Value candidate =
      activate(b, cell, 1, add(b, block(b, xw, 2, hidden), recurrent));
  return {add(b, candidate, createMul(b, z, sub(b, prev.h, candidate))),
          nullptr};
}

/// LSTM, gates [i, o, f, c]:
///   it = f(Xt·Wi^T + Ht-1·Ri^T + Pi . Ct-1 + Wbi + Rbi),
///   ft = f(Xt·Wf^T + Ht-1·Rf^T + Pf . Ct-1 + Wbf + Rbf) (1 - it with
///        input_forget), ct = g(Xt·Wc^T + Ht-1·Rc^T + Wbc + Rbc),
///   Ct = ft . Ct-1 + it . ct, ot = f(Xt·Wo^T + Ht-1·Ro^T + Po . Ct + Wbo +
///   Rbo), Ht = ot . h(Ct).
CellState stepLSTM(ImplicitLocOpBuilder &b, const Cell &cell, Value xw,
                   const CellState &prev) {
  int64_t hidden = cell.hidden;
  Value hr = matmul(b, prev.h, cell.recurrence);
  // Pre-activation of gate `gate`: its slices of X·W^T and H·R^T added (slicing the two
  // buffers, not their sum, leaves the step one elementwise graph: one fused kernel, not four),
  // with peephole `peephole` times `c`.
  auto gateSum = [&](int64_t gate) {
    return add(b, block(b, xw, gate, hidden), block(b, hr, gate, hidden));
  };
  auto preActivation = [&](int64_t gate, int64_t peephole, Value c) {
    Value x = gateSum(gate);
    if (!cell.peepholes)
      return x;
    return add(b, x, createMul(b, block(b, cell.peepholes, peephole, hidden), c));
  };
  Value i = activate(b, cell, 0, preActivation(0, 0, prev.c));
  Value f = cell.inputForget
                ? sub(b, scalarLike(b, i, 1.0), i)
                : activate(b, cell, 0, preActivation(2, 2, prev.c));
  Value c = activate(b, cell, 1, gateSum(3));
  Value nextC = add(b, createMul(b, f, prev.c), createMul(b, i, c));
  Value o = activate(b, cell, 0, preActivation(1, 1, nextC));
  // h(Ct) is not clipped.
  Value nextH = createMul(b, o, applyActivation(b, cell.activations[2], nextC));
  return {nextH, nextC};
}

CellState step(ImplicitLocOpBuilder &b, const Cell &cell, Value xw,
               const CellState &prev) {
  switch (cell.kind) {
  case CellKind::RNN:
    return stepRNN(b, cell, xw, prev);
  case CellKind::GRU:
    return stepGRU(b, cell, xw, prev);
  case CellKind::LSTM:
    return stepLSTM(b, cell, xw, prev);
  }
  llvm_unreachable("unknown cell");
}

//===----------------------------------------------------------------------===//
// The shared driver: shapes, directions, sequence masking, outputs
//===----------------------------------------------------------------------===//

/// i1 [batch, 1], true for the rows of `lens` (i32 [batch, 1], or null for
/// none) whose sequence includes step `t`; null when every row's does.
/// Constant lengths give constant masks.
Value stepMask(ImplicitLocOpBuilder &b, Value lens, int64_t t) {
  if (!lens)
    return nullptr;
  auto maskType = getTensorType(getShape(lens), b.getI1Type());
  if (DenseElementsAttr attr = getConstant(lens)) {
    SmallVector<bool> valid;
    for (const APInt &len : attr.getValues<APInt>())
      valid.push_back(t < len.getSExtValue());
    if (llvm::all_of(valid, [](bool v) { return v; }))
      return nullptr;
    return createConst(b, DenseElementsAttr::get(maskType, valid));
  }
  return b.create<tosa::GreaterOp>(
      maskType, lens, createScalar(b, b.getI32Type(), t, 2));
}

std::string shapeText(ArrayRef<int64_t> shape) {
  return "[" +
         llvm::join(llvm::map_range(shape,
                                    [](int64_t d) { return std::to_string(d); }),
                    ", ") +
         "]";
}

/// Converts RNN, GRU or LSTM. Inputs: X, W, R, B, sequence_lens, initial_h,
/// and for LSTM initial_c, P; outputs: Y, Y_h, and for LSTM Y_c.
LogicalResult convertRecurrent(NodeContext &ctx, CellKind kind) {
  static const StringLiteral rnnActivations[] = {"Tanh"};
  static const StringLiteral gruActivations[] = {"Sigmoid", "Tanh"};
  static const StringLiteral lstmActivations[] = {"Sigmoid", "Tanh", "Tanh"};
  ArrayRef<StringLiteral> defaultActivations =
      kind == CellKind::RNN   ? ArrayRef(rnnActivations)
      : kind == CellKind::GRU ? ArrayRef(gruActivations)
                              : ArrayRef(lstmActivations);
  int64_t numGates = kind == CellKind::RNN ? 1 : kind == CellKind::GRU ? 3 : 4;
  ImplicitLocOpBuilder &b = ctx.b;

  Value x = ctx.input(0);
  if (!isFloat(x))
    return ctx.fail("only floating-point inputs are supported");
  int64_t layout = ctx.getInt("layout", 0);
  if (layout != 0 && layout != 1)
    return ctx.unsupportedAttr("layout", Twine(layout));
  std::string direction = ctx.getString("direction", "forward");
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional")
    return ctx.unsupportedAttr("direction", "'" + direction + "'");
  if (getShape(x).size() != 3 || getShape(ctx.input(2)).size() != 3)
    return ctx.fail("X, W and R must be 3-D");
  // Everything below works on time-major [seq, batch, ...] data.
  if (layout == 1)
    x = createTranspose(b, x, {1, 0, 2});
  int64_t seqLength = getShape(x)[0], batch = getShape(x)[1];
  int64_t inputSize = getShape(x)[2], hidden = getShape(ctx.input(2))[2];
  int64_t numDirections = direction == "bidirectional" ? 2 : 1;
  int64_t gateSize = numGates * hidden;
  if (seqLength == 0 || batch == 0 || hidden == 0)
    return ctx.fail("zero-sized tensors are not supported");
  if (ctx.getInt("hidden_size", hidden) != hidden)
    return ctx.fail("hidden_size does not match R");

  auto stateShape = [&]() -> SmallVector<int64_t> {
    if (layout == 1)
      return {batch, numDirections, hidden};
    return {numDirections, batch, hidden};
  };
  std::pair<StringRef, SmallVector<int64_t>> expectedShapes[] = {
      {"W", {numDirections, gateSize, inputSize}},
      {"R", {numDirections, gateSize, hidden}},
      {"B", {numDirections, 2 * gateSize}},
      {"sequence_lens", {batch}},
      {"initial_h", stateShape()},
      {"initial_c", stateShape()},
      {"P", {numDirections, 3 * hidden}},
  };
  for (auto [i, expected] : llvm::enumerate(expectedShapes))
    if (ctx.hasInput(i + 1) && getShape(ctx.input(i + 1)) != ArrayRef(expected.second))
      return ctx.fail(expected.first + " has shape " +
                      shapeText(getShape(ctx.input(i + 1))) + ", expected " +
                      shapeText(expected.second));
  if (ctx.hasInput(4) &&
      !isa<IntegerType>(getElementType(ctx.input(4))))
    return ctx.fail("sequence_lens must be an integer tensor");

  auto activations = getActivations(ctx, defaultActivations, numDirections);
  if (failed(activations))
    return failure();
  std::optional<double> clip;
  if (ctx.hasAttr("clip"))
    clip = ctx.getFloat("clip", 0);

  Type elementType = getElementType(x);
  Value wT = createTranspose(b, ctx.input(1), {0, 2, 1});
  Value rT = createTranspose(b, ctx.input(2), {0, 2, 1});
  SmallVector<Value> masks;
  Value lens;
  if (ctx.hasInput(4))
    lens = createReshape(b, createCast(b, ctx.input(4), b.getI32Type()),
                         {batch, 1});
  for (int64_t t = 0; t < seqLength; ++t)
    masks.push_back(stepMask(b, lens, t));
  // Initial state of direction `d` from input `i`, zeros when absent.
  auto initialState = [&](unsigned i, int64_t d) {
    if (!ctx.hasInput(i))
      return createSplat(b, elementType, {batch, hidden}, 0);
    Value v = ctx.input(i);
    return directionOf(b, layout == 1 ? createTranspose(b, v, {1, 0, 2}) : v,
                       d);
  };
  Value xRows = createReshape(b, x, {seqLength * batch, inputSize});

  SmallVector<Value> ys, finalH, finalC;
  for (int64_t d = 0; d < numDirections; ++d) {
    Cell cell;
    cell.kind = kind;
    cell.hidden = hidden;
    cell.activations = ArrayRef(*activations)
                           .slice(d * defaultActivations.size(),
                                  defaultActivations.size());
    cell.clip = clip;
    cell.linearBeforeReset = kind == CellKind::GRU &&
                             ctx.getInt("linear_before_reset", 0);
    cell.inputForget = kind == CellKind::LSTM && ctx.getInt("input_forget", 0);
    Value rTd = directionOf(b, rT, d);
    cell.recurrence = rTd;
    if (kind == CellKind::GRU) {
      cell.recurrence = block(b, rTd, 0, 2 * hidden);
      cell.recurrenceH = block(b, rTd, 2, hidden);
    }
    if (kind == CellKind::LSTM && ctx.hasInput(7))
      cell.peepholes = directionOf(b, ctx.input(7), d);

    // X·W^T + Wb + Rb for all steps at once, [seq, batch, gates * hidden];
    // GRU with linear_before_reset keeps Rbh for the step.
    Value xw = createReshape(b, matmul(b, xRows, directionOf(b, wT, d)),
                             {seqLength, batch, gateSize});
    if (ctx.hasInput(3)) {
      Value bias = directionOf(b, ctx.input(3), d);
      Value wb = block(b, bias, 0, gateSize), rb = block(b, bias, 1, gateSize);
      if (cell.linearBeforeReset) {
        cell.recurrenceBiasH = block(b, rb, 2, hidden);
        rb = createPad(b, block(b, rb, 0, 2 * hidden), {0, hidden}, 0);
      }
      xw = add(b, xw, add(b, wb, rb));
    }

    CellState state{initialState(5, d),
                    kind == CellKind::LSTM ? initialState(6, d) : nullptr};
    bool reverse = direction == "reverse" || d == 1;
    SmallVector<Value> stepOutputs(seqLength);
    for (int64_t k = 0; k < seqLength; ++k) {
      int64_t t = reverse ? seqLength - 1 - k : k;
      Value xwt = createReshape(b, createSliceAxis(b, xw, 0, t, 1),
                                {batch, gateSize});
      CellState next = step(b, cell, xwt, state);
      stepOutputs[t] = next.h;
      if (Value valid = masks[t]) {
        if (ctx.hasOutput(0))
          stepOutputs[t] =
              createSelect(b, valid, next.h, scalarLike(b, next.h, 0));
        next.h = createSelect(b, valid, next.h, state.h);
        if (next.c)
          next.c = createSelect(b, valid, next.c, state.c);
      }
      state = next;
    }
    if (ctx.hasOutput(0))
      ys.push_back(layout == 1
                       ? stack(b, stepOutputs, {batch, 1, 1, hidden}, 1)
                       : stack(b, stepOutputs, {1, 1, batch, hidden}, 0));
    finalH.push_back(state.h);
    finalC.push_back(state.c);
  }

  // Y: [seq, dirs, batch, hidden] (layout 0) or [batch, seq, dirs, hidden];
  // Y_h, Y_c: [dirs, batch, hidden] or [batch, dirs, hidden].
  if (ctx.hasOutput(0))
    ctx.setOutput(0, createConcat(b, ys, layout == 1 ? 2 : 1));
  auto stackStates = [&](ArrayRef<Value> states) {
    return layout == 1 ? stack(b, states, {batch, 1, hidden}, 1)
                       : stack(b, states, {1, batch, hidden}, 0);
  };
  if (ctx.hasOutput(1))
    ctx.setOutput(1, stackStates(finalH));
  if (kind == CellKind::LSTM && ctx.hasOutput(2))
    ctx.setOutput(2, stackStates(finalC));
  return success();
}

LogicalResult convertRNN(NodeContext &ctx) {
  return convertRecurrent(ctx, CellKind::RNN);
}
LogicalResult convertGRU(NodeContext &ctx) {
  return convertRecurrent(ctx, CellKind::GRU);
}
LogicalResult convertLSTM(NodeContext &ctx) {
  return convertRecurrent(ctx, CellKind::LSTM);
}

} // namespace

void registerRecurrentOps(ConverterMap &map) {
  map["RNN"] = convertRNN;
  map["GRU"] = convertGRU;
  map["LSTM"] = convertLSTM;
}

} // namespace loupe::frontends::onnx_import
