//===- InstrumentDispatches.cpp - Number and trace every kernel ------------===//
//
// See Passes.td. The runtime's ral_dispatch_begin/end APIs report each dispatch to the
// execution context's tracer (ral/lib/core/CoreApis.cpp).
//
//===----------------------------------------------------------------------===//
#include "loupe/common/Fnv1a.h"
#include "OpPatterns.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"

namespace loupe {
#define GEN_PASS_DEF_INSTRUMENTDISPATCHES
#include "loupe/Transforms/Passes.h.inc"
} // namespace loupe

using namespace mlir;


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

func::FuncOp loupe::lookupRalEntry(ModuleOp module) {
  func::FuncOp entry = lookupEntryFunction(module);
  if (entry && !entry.isExternal() && entry.getNumArguments() > 0 &&
      isa<loupe::ralir::ContextType>(entry.getArgument(0).getType()))
    return entry;
  module.emitError("expected an entry function taking a !ral.context (run "
                   "ral-inject-execution-context first)");
  return nullptr;
}

std::string loupe::describeLoc(Location loc) {
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

Value loupe::globalStringAddress(OpBuilder &builder, Location loc, ModuleOp module,
                                 StringRef text) {
  // A stable symbol per text.
  std::string symbol = "__loupe_str_" + llvm::utohexstr(fnv1a(std::string_view(text)));
  auto global = module.lookupSymbol<LLVM::GlobalOp>(symbol);
  if (!global) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(module.getBody());
    auto type = LLVM::LLVMArrayType::get(builder.getI8Type(), text.size() + 1);
    global = builder.create<LLVM::GlobalOp>(loc, type, /*isConstant=*/true,
                                            LLVM::Linkage::Internal, symbol,
                                            builder.getStringAttr(text.str() + '\0'));
  }
  return builder.create<LLVM::AddressOfOp>(loc, global);
}

/// The short kernel name of a dispatch: "matmul", "generic_reduce", "copy", or the RAL callee.
static std::string kernelName(Operation *op) {
  if (auto dispatch = dyn_cast<loupe::ralir::DispatchOp>(op))
    return dispatch.getCallee().str();
  if (auto generic = dyn_cast<linalg::GenericOp>(op))
    return generic.getNumReductionLoops() ? "generic_reduce" : "generic";
  if (isa<scf::ForallOp>(op))
    return "stitch";
  return op->getName().stripDialect().str();
}

/// The fusion kind of a dispatch, with BladeDISC's names: kLibrary (a vendor kernel), the
/// kind of its reduction, else kLoop (elementwise generics, fills, copies, transposes).
static const char *fusionKind(Operation *op) {
  if (isa<loupe::ralir::DispatchOp>(op))
    return "kLibrary";
  if (isa<scf::ForallOp>(op))
    return "kStitch"; // loupe-fuse-clusters' loop over rows.
  const char *reduction = loupe::reductionKind(op);
  return reduction ? reduction : "kLoop";
}

/// The source ops of a kernel: its own loc, then those of the ops fused into its body
/// (elementwise fusion keeps the consumer's loc on the fused op and the producers' on its
/// body, e.g. relu1's generic computing bn1's mul/add).
static Location provenance(Operation *op) {
  llvm::SmallVector<Location> locs = {op->getLoc()};
  op->walk([&](Operation *nested) {
    if (nested != op)
      locs.push_back(nested->getLoc());
  });
  return FusedLoc::get(op->getContext(), locs);
}

/// The op's `loupe.cluster`, else the cluster loupe-inline-clusters put in its location's
/// metadata (ops bufferization made from a tensor.pad), else null.
static IntegerAttr clusterOf(Operation *op) {
  if (auto cluster = op->getAttrOfType<IntegerAttr>("loupe.cluster"))
    return cluster;
  IntegerAttr found;
  op->getLoc()->walk([&](Location loc) {
    if (auto fused = dyn_cast<FusedLoc>(loc))
      found = dyn_cast_or_null<IntegerAttr>(fused.getMetadata());
    return found ? WalkResult::interrupt() : WalkResult::advance();
  });
  return found;
}

static bool isTracingCall(Operation *op) {
  auto dispatch = dyn_cast<loupe::ralir::DispatchOp>(op);
  return dispatch && dispatch.getCallee().starts_with("ral_dispatch_");
}

namespace {
struct InstrumentDispatchesPass
    : loupe::impl::InstrumentDispatchesBase<InstrumentDispatchesPass> {
  using InstrumentDispatchesBase::InstrumentDispatchesBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp entry = loupe::lookupEntryFunction(module);
    if (!entry) {
      module.emitError("no entry function: expected @main or a single public function");
      return signalPassFailure();
    }
    if (entry.isExternal())
      return;
    if (entry.getNumArguments() == 0 ||
        !isa<loupe::ralir::ContextType>(entry.getArgument(0).getType())) {
      entry.emitOpError("expected a !ral.context first argument (run ral-inject-execution-context first)");
      return signalPassFailure();
    }
    Value ctx = entry.getArgument(0);

    llvm::SmallVector<Operation *> kernels;
    for (Operation &op : entry.getBody().getOps())
      if (isa<linalg::LinalgOp, memref::CopyOp, loupe::ralir::DispatchOp, scf::ForallOp>(op) &&
          !isTracingCall(&op))
        kernels.push_back(&op);
    if (kernels.empty())
      return;

    Builder attrs(module.getContext());
    std::string deviceName = device;
    llvm::SmallVector<Attribute> table;
    for (auto [id, op] : llvm::enumerate(kernels)) {
      OpBuilder builder(op);
      Location loc = op->getLoc();
      std::string name = "dispatch_" + std::to_string(id) + "_" + kernelName(op);
      // ral-lower-to-library-call records the backend it chose and why.
      auto chosen = op->getAttrOfType<StringAttr>("loupe.backend");
      std::string backend = chosen ? chosen.str()
                                   : isa<loupe::ralir::DispatchOp>(op) ? "library" : "codegen";
      auto reason = op->getAttrOfType<StringAttr>("loupe.backend_reason");
      auto signature = op->getAttrOfType<StringAttr>("loupe.signature");
      auto candidates = op->getAttrOfType<ArrayAttr>("loupe.candidates");
      auto selectedLoc = op->getAttrOfType<StringAttr>("loupe.selected_loc");
      IntegerAttr cluster = clusterOf(op);
      std::string source = loupe::describeLoc(provenance(op));
      Value idValue = builder.create<arith::ConstantIntOp>(loc, id, 64);
      llvm::SmallVector<Value> beginArgs = {
          idValue, loupe::globalStringAddress(builder, loc, module, name),
          loupe::globalStringAddress(builder, loc, module, backend),
          loupe::globalStringAddress(builder, loc, module, source)};
      auto begin = builder.create<loupe::ralir::DispatchOp>(
          loc, TypeRange{}, ctx, beginArgs, "ral_dispatch_begin", deviceName, "", nullptr, true);
      begin.setAbi(begin.encodedName());
      builder.setInsertionPointAfter(op);
      auto end = builder.create<loupe::ralir::DispatchOp>(
          loc, TypeRange{}, ctx, ValueRange{idValue}, "ral_dispatch_end", deviceName, "", nullptr, true);
      end.setAbi(end.encodedName());
      op->setAttr("loupe.dispatch_id", attrs.getI64IntegerAttr(id));

      llvm::SmallVector<NamedAttribute> fields = {
          attrs.getNamedAttr("id", attrs.getI64IntegerAttr(id)),
          attrs.getNamedAttr("name", attrs.getStringAttr(name)),
          attrs.getNamedAttr("op", attrs.getStringAttr(op->getName().getStringRef())),
          attrs.getNamedAttr("loc", attrs.getStringAttr(source)),
          attrs.getNamedAttr("backend", attrs.getStringAttr(backend)),
          attrs.getNamedAttr("kind", attrs.getStringAttr(fusionKind(op))),
          attrs.getNamedAttr("reason", reason ? reason : attrs.getStringAttr("")),
          attrs.getNamedAttr("cluster", cluster ? cluster : attrs.getI64IntegerAttr(-1)),
          attrs.getNamedAttr("bytes", attrs.getI64IntegerAttr(loupe::dispatchBytes(op))),
          attrs.getNamedAttr("flops", attrs.getI64IntegerAttr(loupe::dispatchFlops(op))),
      };
      if (std::string math = loupe::describeKernelMath(op, exactMath); !math.empty())
        fields.push_back(attrs.getNamedAttr("math", attrs.getStringAttr(math)));
      // Library-capable ops only: what `loupe tune` needs (ral-lower-to-library-call's).
      if (signature && candidates && selectedLoc) {
        fields.push_back(attrs.getNamedAttr("signature", signature));
        fields.push_back(attrs.getNamedAttr("candidates", candidates));
        fields.push_back(attrs.getNamedAttr("selected_loc", selectedLoc));
      }
      table.push_back(attrs.getDictionaryAttr(fields));
    }
    entry->setAttr("loupe.dispatches", attrs.getArrayAttr(table));
  }
};
} // namespace
