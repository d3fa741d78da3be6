//===- InstrumentDispatches.cpp - Number and trace every kernel ------------===//
//
// See Passes.td. The hooks are resolved by the dynamic loader against the runtime
// (ral/lib/core/Artifact.cpp), which records their begin/end timestamps per execution.
//
//===----------------------------------------------------------------------===//
#include "loupe/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"

namespace loupe {
#define GEN_PASS_DEF_INSTRUMENTDISPATCHES
#include "loupe/Transforms/Passes.h.inc"
} // namespace loupe

using namespace mlir;

static constexpr llvm::StringLiteral kBeginHook = "loupe_ral_dispatch_begin";
static constexpr llvm::StringLiteral kEndHook = "loupe_ral_dispatch_end";

func::FuncOp loupe::lookupEntryFunction(ModuleOp module) {
  if (auto main = module.lookupSymbol<func::FuncOp>("main"))
    return main;
  func::FuncOp entry;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isPrivate() || func.isExternal())
      continue;
    if (entry)
      return nullptr; // Ambiguous: more than one public function.
    entry = func;
  }
  return entry;
}

/// Human-readable provenance of `loc`: the names of NameLocs (ONNX nodes), else file:line.
static std::string describeLoc(Location loc) {
  llvm::SmallVector<std::string> parts;
  loc->walk([&](Location inner) {
    if (auto name = dyn_cast<NameLoc>(inner))
      parts.push_back(name.getName().str());
    else if (auto file = dyn_cast<FileLineColLoc>(inner))
      parts.push_back((file.getFilename().strref() + ":" + llvm::Twine(file.getLine())).str());
    else
      return WalkResult::advance();
    return WalkResult::skip();
  });
  // Deduplicate while keeping the order: fused locations repeat names.
  llvm::SmallVector<std::string> unique;
  for (auto &p : parts)
    if (llvm::find(unique, p) == unique.end())
      unique.push_back(p);
  return llvm::join(unique, ",");
}

static func::FuncOp getOrInsertHook(ModuleOp module, StringRef name) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder builder(module.getBodyRegion());
  builder.setInsertionPointToStart(module.getBody());
  auto type = builder.getFunctionType({builder.getI64Type()}, {});
  auto hook = builder.create<func::FuncOp>(module.getLoc(), name, type);
  hook.setPrivate();
  return hook;
}

namespace {
struct InstrumentDispatchesPass
    : loupe::impl::InstrumentDispatchesBase<InstrumentDispatchesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp entry = loupe::lookupEntryFunction(module);
    if (!entry) {
      module.emitError("no entry function: expected @main or a single public function");
      return signalPassFailure();
    }
    if (entry.isExternal())
      return;

    llvm::SmallVector<Operation *> kernels;
    for (Operation &op : entry.getBody().getOps())
      if (isa<linalg::LinalgOp, memref::CopyOp>(op))
        kernels.push_back(&op);
    if (kernels.empty())
      return;

    func::FuncOp begin = getOrInsertHook(module, kBeginHook);
    func::FuncOp end = getOrInsertHook(module, kEndHook);
    Builder attrs(module.getContext());
    llvm::SmallVector<Attribute> table;
    for (auto [id, op] : llvm::enumerate(kernels)) {
      OpBuilder builder(op);
      Location loc = op->getLoc();
      Value idValue = builder.create<arith::ConstantIntOp>(loc, id, 64);
      builder.create<func::CallOp>(loc, begin, ValueRange{idValue});
      builder.setInsertionPointAfter(op);
      builder.create<func::CallOp>(loc, end, ValueRange{idValue});
      op->setAttr("loupe.dispatch_id", attrs.getI64IntegerAttr(id));

      std::string opName = op->getName().getStringRef().str();
      std::string shortName = op->getName().stripDialect().str();
      if (auto generic = dyn_cast<linalg::GenericOp>(op))
        shortName = generic.getNumReductionLoops() ? "generic_reduce" : "generic";
      std::string name = "dispatch_" + std::to_string(id) + "_" + shortName;
      table.push_back(attrs.getDictionaryAttr({
          attrs.getNamedAttr("id", attrs.getI64IntegerAttr(id)),
          attrs.getNamedAttr("name", attrs.getStringAttr(name)),
          attrs.getNamedAttr("op", attrs.getStringAttr(opName)),
          attrs.getNamedAttr("loc", attrs.getStringAttr(describeLoc(loc))),
      }));
    }
    entry->setAttr("loupe.dispatches", attrs.getArrayAttr(table));
  }
};
} // namespace
