//===- RalExternalizeConstants.cpp - Weights into the artifact's blob -------===//
//
// Large constant globals, and every constant a contraction or convolution reads (a library
// kernel's weights), leave the code: each gets a slot in one weight blob that the artifact
// carries as a section and the runtime maps at load; the entry reads them with `ral.constant`
// (seed document 000, "Constant Loading"). LLVM never sees their bytes.
//
//===----------------------------------------------------------------------===//
#include "loupe/Transforms/Passes.h"
#include "loupe/Dialect/Ral/IR/RalDialect.h"
#include "../Support/ConstantBytes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/MathExtras.h"

namespace loupe {
#define GEN_PASS_DEF_RALEXTERNALIZECONSTANTS
#include "loupe/Transforms/Passes.h.inc"
} // namespace loupe

using namespace mlir;
using namespace loupe::ralir;

namespace {
/// The bytes of a constant global's value when it belongs in the blob: a resource blob, or a
/// dense, non-splat, byte-addressable value of at least `minBytes`. A resource without bytes
/// (parsed from a dump that elided them) is an error.
FailureOr<std::optional<ArrayRef<char>>> blobBytes(memref::GlobalOp global, int64_t minBytes) {
  if (!global.getConstant() || !global.getInitialValue())
    return std::optional<ArrayRef<char>>();
  Attribute value = *global.getInitialValue();
  std::optional<ArrayRef<char>> bytes = loupe::elementBytes(value);
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    if (!bytes)
      return global.emitError("constant global @")
             << global.getSymName() << " holds resource '" << resource.getRawHandle().getKey()
             << "' without its bytes (IR printed with its weights elided)";
    return bytes;
  }
  if (bytes && static_cast<int64_t>(bytes->size()) < minBytes)
    return std::optional<ArrayRef<char>>();
  return bytes;
}

/// The globals that the contractions and convolutions of `entry` read, directly or through
/// views: a library kernel's weights, which the runtime packs into its layout once per
/// Context only when they come from the blob (a small depthwise filter left in the code was
/// reordered on every call).
llvm::DenseSet<StringAttr> contractionOperands(func::FuncOp entry) {
  llvm::DenseSet<StringAttr> names;
  entry.walk([&](linalg::LinalgOp op) {
    if (!isa<linalg::ContractionOpInterface, linalg::ConvolutionOpInterface>(op.getOperation()))
      return;
    for (Value v : op.getDpsInputs()) {
      while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
        v = view.getViewSource();
      if (auto read = v.getDefiningOp<memref::GetGlobalOp>())
        names.insert(read.getNameAttr().getAttr());
    }
  });
  return names;
}

struct RalExternalizeConstantsPass
    : loupe::impl::RalExternalizeConstantsBase<RalExternalizeConstantsPass> {
  using RalExternalizeConstantsBase::RalExternalizeConstantsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp entry = loupe::lookupRalEntry(module);
    if (!entry)
      return signalPassFailure();
    Value ctx = entry.getArgument(0);
    MLIRContext *context = &getContext();
    Builder builder(context);

    // Slots in the order the globals appear; a global only other functions read stays.
    SymbolTable symbols(module);
    llvm::DenseMap<memref::GlobalOp, int64_t> offsets;
    llvm::DenseMap<memref::GlobalOp, StringAttr> names;
    SmallVector<Attribute> table;
    int64_t bytes = 0;
    SmallVector<memref::GetGlobalOp> reads;
    llvm::DenseSet<StringAttr> weights = contractionOperands(entry);
    WalkResult walk = entry.walk([&](memref::GetGlobalOp read) {
      auto global = symbols.lookup<memref::GlobalOp>(read.getName());
      if (!global || !read.getType().getLayout().isIdentity())
        return WalkResult::advance();
      if (!offsets.count(global)) {
        FailureOr<std::optional<ArrayRef<char>>> data =
            blobBytes(global, weights.contains(global.getSymNameAttr()) ? 0 : minBytes);
        if (failed(data))
          return WalkResult::interrupt();
        if (!*data)
          return WalkResult::advance();
        int64_t offset = llvm::alignTo(bytes, loupe::kWeightSlotAlignment);
        offsets[global] = offset;
        bytes = offset + static_cast<int64_t>((*data)->size());
        // Named after the model's tensor where the value is its resource blob.
        StringAttr name = global.getSymNameAttr();
        if (auto resource = dyn_cast<DenseResourceElementsAttr>(*global.getInitialValue()))
          name = builder.getStringAttr(resource.getRawHandle().getKey());
        names[global] = name;
        table.push_back(builder.getDictionaryAttr(
            {builder.getNamedAttr("name", name),
             builder.getNamedAttr("offset", builder.getI64IntegerAttr(offset)),
             builder.getNamedAttr("value", *global.getInitialValue())}));
      }
      reads.push_back(read);
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    if (table.empty())
      return;

    OpBuilder b(context);
    for (memref::GetGlobalOp read : reads) {
      auto global = symbols.lookup<memref::GlobalOp>(read.getName());
      b.setInsertionPoint(read);
      // Located at the weight's name (its table entry), which the IR view can search.
      auto constant = b.create<ConstantOp>(NameLoc::get(names.lookup(global)), read.getType(),
                                           ctx, static_cast<uint64_t>(offsets.lookup(global)));
      read.replaceAllUsesWith(constant.getResult());
      read.erase();
    }
    for (auto [global, offset] : offsets)
      if (SymbolTable::symbolKnownUseEmpty(global, module))
        global.erase();
    module->setAttr("ral.weights",
                    builder.getDictionaryAttr(
                        {builder.getNamedAttr("bytes", builder.getI64IntegerAttr(bytes)),
                         builder.getNamedAttr("constants", builder.getArrayAttr(table))}));
  }
};
} // namespace
