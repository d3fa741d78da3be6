//===- MoveScalesToWeights.cpp - Scale a layer's weight, not its input ---------------===//
//
// See Passes.td. `fully_connected(reshape(x * s), W)` with `s` one value per input channel is
// `fully_connected(reshape(x), W * s)`: the product scales W's N x C elements instead of x's
// M x C, so a squeeze-and-excitation block's scale no longer costs a pass over its activation.
//
//===----------------------------------------------------------------------===//
#include "loupe/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace loupe {
#define GEN_PASS_DEF_MOVESCALESTOWEIGHTS
#include "loupe/Transforms/Passes.h.inc"
} // namespace loupe

using namespace mlir;

namespace {

/// Rows of the input per output at least: the scaled weight is written transposed (the fully
/// connected layer reads W^T), by scalar loops at about twice the cost per element of the
/// input's vectorised product. At 1.75 rows per output (EfficientNet-B0's 196 x 672 input,
/// 112 outputs) the moved product took 19 us against 17; at 2.45 (196 x 480, 80) 8.7 against
/// 10; from 19.6 (784 x 144, 40) it costs next to nothing.
constexpr int64_t kRowsPerOutput = 4;

RankedTensorType staticType(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.hasStaticShape() ? type : RankedTensorType();
}

/// True when `scale` holds one value per channel of `x`, broadcast over x's other dims:
/// [1, ..., 1, C] against [..., C].
bool isChannelScale(RankedTensorType scale, RankedTensorType x) {
  if (!scale || scale.getRank() != x.getRank() || scale.getShape().back() != x.getShape().back())
    return false;
  return llvm::all_of(scale.getShape().drop_back(), [](int64_t d) { return d == 1; });
}

struct MoveScaleToWeight : OpRewritePattern<tosa::FullyConnectedOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tosa::FullyConnectedOp fc, PatternRewriter &b) const override {
    auto reshape = fc.getInput().getDefiningOp<tosa::ReshapeOp>();
    auto mul = reshape ? reshape.getInput1().getDefiningOp<tosa::MulOp>() : tosa::MulOp();
    if (!mul || mul.getShift() != 0 || !reshape->hasOneUse() || !mul->hasOneUse())
      return b.notifyMatchFailure(fc, "input is not the reshape of a product read once");
    RankedTensorType product = staticType(mul.getOutput()), input = staticType(fc.getInput()),
                     weight = staticType(fc.getWeight());
    if (!product || !input || !weight || !isa<FloatType>(product.getElementType()) ||
        input.getShape().back() != product.getShape().back())
      return b.notifyMatchFailure(fc, "not a static float product keeping its channels last");
    Value x = mul.getInput1(), scale = mul.getInput2();
    if (!isChannelScale(staticType(scale), product))
      std::swap(x, scale);
    if (!isChannelScale(staticType(scale), product) || staticType(x) != product)
      return b.notifyMatchFailure(fc, "no operand is a per-channel scale of the other");
    int64_t rows = input.getDimSize(0), outputs = weight.getDimSize(0),
            channels = weight.getDimSize(1);
    if (outputs * kRowsPerOutput > rows)
      return b.notifyMatchFailure(fc, "the weight is not a quarter of the input or less");

    Location loc = mul.getLoc();
    auto row = RankedTensorType::get({1, channels}, product.getElementType());
    Value scaleRow =
        b.create<tosa::ReshapeOp>(loc, row, scale, b.getDenseI64ArrayAttr({1, channels}));
    Value scaled =
        b.create<tosa::MulOp>(loc, weight, fc.getWeight(), scaleRow, b.getI8IntegerAttr(0));
    Value flat = b.create<tosa::ReshapeOp>(reshape.getLoc(), input, x, reshape.getNewShapeAttr());
    b.modifyOpInPlace(fc, [&] {
      fc.getInputMutable().assign(flat);
      fc.getWeightMutable().assign(scaled);
    });
    return success();
  }
};

struct MoveScalesToWeightsPass
    : loupe::impl::MoveScalesToWeightsBase<MoveScalesToWeightsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<MoveScaleToWeight>(&getContext());
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
