//===- ProtectEntryInputs.cpp - Keep caller-owned inputs read-only ----------===//
#include "loupe/Transforms/Passes.h"

#include "mlir/IR/BuiltinTypes.h"

namespace loupe {
#define GEN_PASS_DEF_PROTECTENTRYINPUTS
#include "loupe/Transforms/Passes.h.inc"
} // namespace loupe

using namespace mlir;

namespace {
struct ProtectEntryInputsPass : loupe::impl::ProtectEntryInputsBase<ProtectEntryInputsPass> {
  void runOnOperation() override {
    func::FuncOp entry = loupe::lookupEntryFunction(getOperation());
    if (!entry || entry.isExternal()) {
      getOperation().emitError("no entry function: expected @main or a single public function "
                               "with a body");
      return signalPassFailure();
    }
    auto readOnly = BoolAttr::get(&getContext(), false);
    for (unsigned i = 0, e = entry.getNumArguments(); i < e; ++i)
      if (isa<TensorType>(entry.getArgument(i).getType()))
        entry.setArgAttr(i, "bufferization.writable", readOnly);
  }
};
} // namespace
