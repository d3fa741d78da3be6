//===- RalInjectExecutionContext.cpp - Entry (memrefs) -> (!ral.context) ------===//
//
// See Passes.td. Seed document 000 (BladeDISC RAL), "Context Injection" and
// "Inputs/Outputs Binding".
//
//===----------------------------------------------------------------------===//
#include "loupe/Transforms/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace loupe {
#define GEN_PASS_DEF_RALINJECTEXECUTIONCONTEXT
#include "loupe/Transforms/Passes.h.inc"
} // namespace loupe

using namespace mlir;
using namespace loupe::ralir;

/// Every value that may share memory with `buffer`: the views it was made from and the views
/// made from those, transitively.
static llvm::SetVector<Value> aliasesOf(Value buffer) {
  Value root = buffer;
  while (auto view = root.getDefiningOp<ViewLikeOpInterface>())
    root = view.getViewSource();
  llvm::SetVector<Value> aliases;
  aliases.insert(root);
  for (size_t i = 0; i < aliases.size(); ++i)
    for (Operation *user : aliases[i].getUsers())
      if (auto view = dyn_cast<ViewLikeOpInterface>(user))
        if (view.getViewSource() == aliases[i])
          for (Value result : user->getResults())
            aliases.insert(result);
  return aliases;
}

/// True when `op` (or an op nested in it) may write one of `aliases`.
static bool mayWrite(Operation *op, const llvm::SetVector<Value> &aliases) {
  bool writes = false;
  op->walk([&](Operation *nested) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
    bool usesAlias = llvm::any_of(nested->getOperands(),
                                  [&](Value v) { return aliases.contains(v); });
    if (!effects) {
      // Unknown effects: assume a write when it sees the buffer (calls, region ops are
      // covered by walking into them).
      writes |= usesAlias && nested->getNumRegions() == 0 &&
                !nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>();
      return;
    }
    llvm::SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (auto &effect : instances) {
      if (!isa<MemoryEffects::Write>(effect.getEffect()))
        continue;
      Value target = effect.getValue();
      writes |= target ? aliases.contains(target) : usesAlias;
    }
  });
  return writes;
}

/// The top-level op of `block` after which `buffer` holds its final value.
static Operation *lastWriterInBlock(Value buffer, Block &block) {
  llvm::SetVector<Value> aliases = aliasesOf(buffer);
  Operation *last = buffer.getDefiningOp();
  if (last && last->getBlock() != &block)
    last = nullptr;
  for (Operation &op : block.without_terminator())
    if (mayWrite(&op, aliases))
      last = &op;
  // A view returned as the output is defined after the writes to its source.
  Operation *def = buffer.getDefiningOp();
  if (def && def->getBlock() == &block && (!last || last->isBeforeInBlock(def)))
    last = def;
  return last;
}

namespace {
struct RalInjectExecutionContextPass
    : loupe::impl::RalInjectExecutionContextBase<RalInjectExecutionContextPass> {
  using RalInjectExecutionContextBase::RalInjectExecutionContextBase;

  void runOnOperation() override {
    func::FuncOp entry = loupe::lookupEntryFunction(getOperation());
    if (!entry) {
      getOperation().emitError("no entry function: expected @main or a single public function");
      return signalPassFailure();
    }
    if (entry.isExternal()) {
      entry.emitOpError("the entry function has no body");
      return signalPassFailure();
    }
    if (!entry.getBody().hasOneBlock()) {
      entry.emitOpError("expected a single-block entry function (run after bufferization, "
                        "before lowering to control flow)");
      return signalPassFailure();
    }
    FunctionType type = entry.getFunctionType();
    for (Type t : llvm::concat<const Type>(type.getInputs(), type.getResults())) {
      auto memref = dyn_cast<MemRefType>(t);
      if (isa<ContextType>(t)) {
        entry.emitOpError("already takes a !ral.context");
        return signalPassFailure();
      }
      if (!memref || !memref.hasStaticShape() || !memref.getLayout().isIdentity() ||
          typeCode(t).empty()) {
        entry.emitOpError("inputs and results must be statically shaped, identity-layout "
                          "memrefs of RAL element types; got ")
            << t;
        return signalPassFailure();
      }
    }

    MLIRContext *ctx = &getContext();
    Block &body = entry.getBody().front();
    Location loc = entry.getLoc();
    Value context = body.insertArgument(0u, ContextType::get(ctx), loc);

    // Inputs: ral.recv_input at the top, in order.
    OpBuilder builder(ctx);
    builder.setInsertionPointToStart(&body);
    for (unsigned i = 0, e = type.getNumInputs(); i < e; ++i) {
      BlockArgument arg = body.getArgument(i + 1);
      Value received = builder.create<RecvInputOp>(arg.getLoc(), arg.getType(), context,
                                                   builder.getI64IntegerAttr(i));
      arg.replaceAllUsesWith(received);
    }
    body.eraseArguments(1, type.getNumInputs());

    // Outputs computed in place: a returned buffer the entry allocates is the caller's
    // (ral.recv_output), so sending it copies nothing. CPU only: a GPU output lives in
    // device memory until it is sent.
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    if (device == "cpu") {
      llvm::SmallPtrSet<Operation *, 4> placed;
      for (auto [j, value] : llvm::enumerate(ret.getOperands())) {
        auto alloc = value.getDefiningOp<memref::AllocOp>();
        if (!alloc || alloc->getBlock() != &body || !placed.insert(alloc).second ||
            !alloc.getType().getLayout().isIdentity() || !alloc.getType().hasStaticShape())
          continue;
        builder.setInsertionPoint(alloc);
        Value buffer = builder.create<RecvOutputOp>(alloc.getLoc(), alloc.getType(), context,
                                                    builder.getI64IntegerAttr(j));
        alloc.replaceAllUsesWith(buffer);
        alloc.erase();
      }
    }

    // Outputs: ral.send_output right after the buffer is final.
    for (auto [j, value] : llvm::enumerate(ret.getOperands())) {
      Operation *after = lastWriterInBlock(value, body);
      if (after)
        builder.setInsertionPointAfter(after);
      else
        builder.setInsertionPointAfterValue(value);
      builder.create<SendOutputOp>(value.getLoc(), context, builder.getI64IntegerAttr(j), value);
    }
    builder.setInsertionPoint(ret);
    builder.create<func::ReturnOp>(ret.getLoc());
    ret.erase();

    // Run-time conditions (cf.assert of the importer) report through the context.
    entry.walk([&](cf::AssertOp check) {
      builder.setInsertionPoint(check);
      builder.create<CheckOp>(check.getLoc(), context, check.getArg(), check.getMsgAttr());
      check.erase();
    });

    entry.setFunctionType(FunctionType::get(ctx, {context.getType()}, {}));
    entry->setAttr("ral.inputs", builder.getTypeArrayAttr(type.getInputs()));
    entry->setAttr("ral.outputs", builder.getTypeArrayAttr(type.getResults()));
    // Argument attributes (e.g. bufferization.writable) belonged to the removed arguments.
    entry.setAllArgAttrs(llvm::ArrayRef<DictionaryAttr>{DictionaryAttr::get(ctx)});
    entry.setAllResultAttrs(llvm::ArrayRef<DictionaryAttr>{});
  }
};
} // namespace
