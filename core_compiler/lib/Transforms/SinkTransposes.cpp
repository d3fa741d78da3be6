//===- SinkTransposes.cpp - Keep the layout of convolutions between them ---------===//
//
// See Passes.td. A `tosa.transpose` moves below the ops that read it (elementwise ops,
// reductions, reshapes that keep the element order), so the NHWC -> NCHW transpose after one
// convolution meets the NCHW -> NHWC one before the next and TOSA's canonicalization folds the
// pair away.
//
//===----------------------------------------------------------------------===//
#include "loupe/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace loupe {
#define GEN_PASS_DEF_SINKTRANSPOSES
#include "loupe/Transforms/Passes.h.inc"
} // namespace loupe

using namespace mlir;

namespace {
/// Operands at most this large may get the inverse transpose (a broadcast bias, an SE block's
/// per-channel scale); a transpose of a larger tensor is what sinking removes.
constexpr int64_t kSmallElements = 4096;

std::optional<SmallVector<int64_t>> permsOf(tosa::TransposeOp transpose) {
  SmallVector<int64_t> perms;
  if (failed(transpose.getConstantPerms(perms)))
    return std::nullopt;
  return perms;
}

SmallVector<int64_t> inverse(ArrayRef<int64_t> perms) {
  SmallVector<int64_t> inv(perms.size());
  for (auto [i, p] : llvm::enumerate(perms))
    inv[p] = static_cast<int64_t>(i);
  return inv;
}

/// `type` with its dims in the order `perms` takes them (tosa.transpose's result type).
RankedTensorType permuted(RankedTensorType type, ArrayRef<int64_t> perms) {
  SmallVector<int64_t> shape;
  for (int64_t p : perms)
    shape.push_back(type.getDimSize(p));
  return type.clone(shape);
}

Value transpose(OpBuilder &b, Location loc, Value value, ArrayRef<int64_t> perms) {
  auto permsType = RankedTensorType::get({int64_t(perms.size())}, b.getI32Type());
  SmallVector<int32_t> values(perms.begin(), perms.end());
  Value constant = b.create<tosa::ConstOp>(loc, permsType,
                                           DenseIntElementsAttr::get(permsType, values));
  auto type = permuted(cast<RankedTensorType>(value.getType()), perms);
  return b.create<tosa::TransposeOp>(loc, type, value, constant);
}

bool isSmall(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.hasStaticShape() && type.getNumElements() <= kSmallElements;
}

bool isElementwise(Operation *op) {
  return op->getDialect() && op->getDialect()->getNamespace() == "tosa" &&
         op->getNumResults() == 1 &&
         (op->hasTrait<OpTrait::ResultsBroadcastableShape>() || isa<tosa::CastOp>(op));
}

bool isReduction(Operation *op) {
  return isa<tosa::ReduceSumOp, tosa::ReduceMaxOp, tosa::ReduceMinOp, tosa::ReduceProdOp,
             tosa::ReduceAllOp, tosa::ReduceAnyOp>(op);
}

/// True when `perms` moves only dims of size 1 relative to each other and the rest: the
/// transpose keeps the element order, so a reshape of its result is a reshape of its input.
bool keepsElementOrder(RankedTensorType input, ArrayRef<int64_t> perms) {
  int64_t last = -1;
  for (int64_t p : perms) {
    if (input.getDimSize(p) == 1)
      continue;
    if (p < last)
      return false;
    last = p;
  }
  return true;
}

/// The input of `value` when it is a tosa.transpose by `perms`, else null.
Value inputOfTranspose(Value value, ArrayRef<int64_t> perms) {
  auto t = value.getDefiningOp<tosa::TransposeOp>();
  std::optional<SmallVector<int64_t>> tPerms = t ? permsOf(t) : std::nullopt;
  return tPerms && ArrayRef<int64_t>(*tPerms) == perms ? t.getInput1() : Value();
}

/// True when `value` is computed from `transposed` by elementwise ops whose other operands are
/// small (an SE block's `hardsigmoid(x)` beside `x`): once the transpose sinks through them,
/// `value` is a transpose too, and the inverse transpose taken of it meanwhile cancels.
bool derivesFrom(Value value, Value transposed, int depth = 8) {
  if (value == transposed)
    return true;
  Operation *def = value.getDefiningOp();
  if (!def || depth == 0 || !isElementwise(def))
    return false;
  bool found = false;
  for (Value operand : def->getOperands()) {
    if (derivesFrom(operand, transposed, depth - 1))
      found = true;
    else if (!isSmall(operand))
      return false;
  }
  return found;
}

/// The operand `other` of an elementwise op whose transposed operand sinks: another transpose
/// with the same perms (its input is taken), or a small value or one computed from the same
/// transpose (its inverse transpose is taken).
bool sinksWith(Value other, Value transposed, ArrayRef<int64_t> perms) {
  if (inputOfTranspose(other, perms))
    return true;
  auto type = dyn_cast<RankedTensorType>(other.getType());
  return type && type.getRank() == int64_t(perms.size()) &&
         (isSmall(other) || derivesFrom(other, transposed));
}

/// Whether `user`, a reader of `transposed` (tosa.transpose(x) by `perms`), can take x.
bool takesUntransposed(Operation *user, Value transposed, RankedTensorType x,
                       ArrayRef<int64_t> perms) {
  auto result = user->getNumResults() == 1
                    ? dyn_cast<RankedTensorType>(user->getResult(0).getType())
                    : RankedTensorType();
  if (!result || !result.hasStaticShape())
    return false;
  if (isElementwise(user))
    return llvm::all_of(user->getOperands(),
                        [&](Value v) { return sinksWith(v, transposed, perms); });
  if (isa<tosa::ReshapeOp>(user))
    return keepsElementOrder(x, perms);
  return isReduction(user);
}

/// tosa.transpose(x) -> below its readers, when every reader can take x (so the transpose
/// goes, and sinking never adds one).
struct SinkTranspose : OpRewritePattern<tosa::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tosa::TransposeOp op, PatternRewriter &b) const override {
    std::optional<SmallVector<int64_t>> perms = permsOf(op);
    auto inputType = dyn_cast<RankedTensorType>(op.getInput1().getType());
    if (!perms || !inputType || !inputType.hasStaticShape() || isSmall(op.getInput1()) ||
        op->use_empty())
      return b.notifyMatchFailure(op, "not a static transpose of a large tensor");
    llvm::SetVector<Operation *> users(op->getUsers().begin(), op->getUsers().end());
    for (Operation *user : users)
      if (!takesUntransposed(user, op.getResult(), inputType, *perms))
        return b.notifyMatchFailure(op, "a reader cannot take the untransposed value");
    SmallVector<int64_t> inv = inverse(*perms);
    for (Operation *user : users) {
      b.setInsertionPoint(user);
      Location loc = user->getLoc();
      if (auto reshape = dyn_cast<tosa::ReshapeOp>(user)) {
        b.modifyOpInPlace(reshape, [&] { reshape.getInput1Mutable().assign(op.getInput1()); });
        continue;
      }
      IRMapping map;
      for (Value operand : user->getOperands()) {
        Value input = inputOfTranspose(operand, *perms);
        map.map(operand, input ? input : transpose(b, loc, operand, inv));
      }
      Operation *moved = b.clone(*user, map);
      auto resultType = cast<RankedTensorType>(user->getResult(0).getType());
      moved->getResult(0).setType(permuted(resultType, inv));
      if (isReduction(user)) {
        auto axis = user->getAttrOfType<IntegerAttr>("axis");
        moved->setAttr("axis", b.getI32IntegerAttr((*perms)[axis.getInt()]));
      }
      b.replaceOp(user, transpose(b, loc, moved->getResult(0), *perms));
    }
    return success();
  }
};

struct SinkTransposesPass : loupe::impl::SinkTransposesBase<SinkTransposesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<SinkTranspose>(&getContext());
    // Folds the pairs that meet (transpose of transpose, identity perms).
    tosa::TransposeOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
