//===- FoldConstantTransposes.cpp - Weights transposed once, at compile time -----===//
//
// See Passes.td. TOSA's lowering of fully_connected (every 1x1 convolution after
// tosa-optional-decompositions) transposes its weight with a linalg.transpose, a kernel that
// would run on every call; on a constant it is constant work, done here once.
//
//===----------------------------------------------------------------------===//
#include "loupe/Transforms/Passes.h"
#include "../Support/ConstantBytes.h"
#include "../Support/PermuteElements.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace loupe {
#define GEN_PASS_DEF_FOLDCONSTANTTRANSPOSES
#include "loupe/Transforms/Passes.h.inc"
} // namespace loupe

using namespace mlir;

namespace {
/// The row-major bytes and a name of the constant `value` is, through reshapes (which keep
/// row-major bytes as they are): a resource blob or a non-splat dense value of whole bytes.
std::optional<std::pair<ArrayRef<char>, std::string>> constantBytes(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(def))
      break;
    value = def->getOperand(0);
  }
  Attribute attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  std::optional<ArrayRef<char>> bytes = loupe::elementBytes(attr);
  if (!bytes)
    return std::nullopt;
  auto resource = dyn_cast<DenseResourceElementsAttr>(attr);
  return std::make_pair(*bytes, resource ? resource.getRawHandle().getKey().str()
                                         : std::string("constant"));
}

struct FoldConstantTransposesPass
    : loupe::impl::FoldConstantTransposesBase<FoldConstantTransposesPass> {
  void runOnOperation() override {
    SmallVector<linalg::TransposeOp> transposes;
    getOperation().walk([&](linalg::TransposeOp op) { transposes.push_back(op); });
    OpBuilder b(&getContext());
    for (linalg::TransposeOp op : transposes) {
      auto input = dyn_cast<RankedTensorType>(op.getInput().getType());
      auto result = op->getNumResults() ? dyn_cast<RankedTensorType>(op->getResult(0).getType())
                                        : RankedTensorType();
      std::optional<std::pair<ArrayRef<char>, std::string>> bytes =
          input && result && input.hasStaticShape() ? constantBytes(op.getInput()) : std::nullopt;
      if (!bytes)
        continue;
      size_t width = input.getElementTypeBitWidth() / 8;
      if (!width || bytes->first.size() != input.getNumElements() * width)
        continue;
      std::vector<char> permuted =
          loupe::permuteElements(bytes->first, input.getShape(), op.getPermutation(), width);
      b.setInsertionPoint(op);
      // A transposed weight stays a resource blob (named after it); small ones stay inline.
      TypedAttr value =
          permuted.size() >= 1024
              ? TypedAttr(DenseResourceElementsAttr::get(
                    result, bytes->second + ".T",
                    HeapAsmResourceBlob::allocateAndCopyWithAlign(permuted, width)))
              : TypedAttr(DenseElementsAttr::getFromRawBuffer(result, permuted));
      auto constant = b.create<arith::ConstantOp>(op.getLoc(), value);
      Value source = op.getInput();
      Operation *init = op.getInit().getDefiningOp();
      op->getResult(0).replaceAllUsesWith(constant.getResult());
      op.erase();
      if (init && init->use_empty() && isMemoryEffectFree(init))
        init->erase();
      // The reshapes and constant the transpose read, when nothing else does.
      while (Operation *def = source.getDefiningOp()) {
        if (!def->use_empty())
          break;
        source = def->getNumOperands() ? def->getOperand(0) : Value();
        def->erase();
        if (!source)
          break;
      }
    }
  }
};
} // namespace
