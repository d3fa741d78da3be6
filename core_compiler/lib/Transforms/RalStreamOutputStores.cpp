//===- RalStreamOutputStores.cpp - Non-temporal stores into large outputs -------===//
//
// See the pass description in Passes.td. On this machine a 64 MiB -> 64 MiB scaling pass
// took 6.6-7.7 ms with ordinary AVX-512 stores and 3.3-3.5 ms with streaming ones
// (`_mm512_stream_ps`, 2 OpenMP threads); workload c of issue 17 is such a pass after its
// row reductions (docs/pipeline.md, "ral-stream-output-stores").
//
//===----------------------------------------------------------------------===//
#include "loupe/Transforms/Passes.h"
#include "CpuMemory.h"
#include "DispatchTable.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/SymbolTable.h"

namespace loupe {
#define GEN_PASS_DEF_RALSTREAMOUTPUTSTORES
#include "loupe/Transforms/Passes.h.inc"
} // namespace loupe

using namespace mlir;

namespace {

/// The alignment every runtime tensor has (loupe::ral::kTensorAlignment), so every buffer
/// ral.recv_output returns.
constexpr uint64_t kOutputAlignment = 64;

bool isView(Operation *op) {
  return isa<memref::ExpandShapeOp, memref::CollapseShapeOp, memref::SubViewOp,
             memref::ReinterpretCastOp, memref::CastOp>(op);
}

/// The output buffer `v` views (a view keeps the buffer's aligned pointer), or null.
loupe::ralir::RecvOutputOp outputBehindViews(Value v) {
  Operation *def = v.getDefiningOp();
  while (def && isView(def))
    def = def->getOperand(0).getDefiningOp();
  return dyn_cast_or_null<loupe::ralir::RecvOutputOp>(def);
}

/// True when nothing but `launch` and `ral.send_output` uses `buffer` (through views):
/// nothing reads it after the kernel wrote it.
bool onlySentAfter(Value buffer, Operation *launch) {
  return llvm::all_of(buffer.getUsers(), [&](Operation *user) {
    if (isView(user))
      return onlySentAfter(user->getResult(0), launch);
    return user == launch || isa<loupe::ralir::SendOutputOp>(user);
  });
}

/// Collects the vector stores into `buffer` (through views) into `stores`; false when
/// anything else than a store or a view uses it (a load: the kernel reads what it wrote).
bool onlyStoredTo(Value buffer, SmallVectorImpl<vector::StoreOp> &stores) {
  for (OpOperand &use : buffer.getUses()) {
    Operation *user = use.getOwner();
    if (auto store = dyn_cast<vector::StoreOp>(user); store && use.get() == store.getBase() &&
                                                       store.getValueToStore() != buffer) {
      stores.push_back(store);
      continue;
    }
    if (auto store = dyn_cast<memref::StoreOp>(user); store && use.get() == store.getMemRef() &&
                                                      store.getValueToStore() != buffer)
      continue;
    if (isView(user)) {
      if (!onlyStoredTo(user->getResult(0), stores))
        return false;
      continue;
    }
    return false;
  }
  return true;
}

struct RalStreamOutputStoresPass
    : loupe::impl::RalStreamOutputStoresBase<RalStreamOutputStoresPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    module.walk([&](loupe::ralir::CpuLaunchOp launch) {
      auto kernel = symbols.lookup<func::FuncOp>(launch.getKernel());
      if (!kernel || kernel.isExternal())
        return;
      SmallVector<std::string> notes;
      for (auto [i, arg] : llvm::enumerate(launch.getArgs())) {
        loupe::ralir::RecvOutputOp output = outputBehindViews(arg);
        std::optional<int64_t> bytes = output ? loupe::staticBytes(output.getType()) : std::nullopt;
        if (!bytes || *bytes < loupe::kMinStreamedOutputBytes || !onlySentAfter(output, launch))
          continue;
        BlockArgument param = kernel.getArgument(3 + i); // after ctx, begin, end
        SmallVector<vector::StoreOp> stores;
        if (!onlyStoredTo(param, stores) || stores.empty())
          continue;
        for (vector::StoreOp store : stores)
          store.setNontemporal(true);
        OpBuilder b(kernel.getBody());
        b.create<memref::AssumeAlignmentOp>(param.getLoc(), param, kOutputAlignment);
        notes.push_back("output " + std::to_string(output.getIndex()) + " (" +
                        (*bytes >= (1 << 20) ? std::to_string(*bytes >> 20) + " MiB)"
                                             : std::to_string(*bytes >> 10) + " KiB)"));
      }
      if (notes.empty())
        return;
      kernel.walk([](func::ReturnOp ret) {
        OpBuilder(ret).create<LLVM::FenceOp>(ret.getLoc(), LLVM::AtomicOrdering::seq_cst,
                                             StringAttr());
      });
      auto host = launch->getParentOfType<func::FuncOp>();
      std::optional<int64_t> id = loupe::dispatchOf(launch, host);
      std::string note = "non-temporal stores into " + llvm::join(notes, ", ");
      loupe::updateDispatchRows(host, [&](int64_t row, NamedAttrList &fields) {
        if (row != id)
          return;
        auto schedule = dyn_cast_or_null<StringAttr>(fields.get("schedule"));
        fields.set("schedule", StringAttr::get(host.getContext(),
                                               schedule && !schedule.empty()
                                                   ? schedule.str() + "; " + note
                                                   : note));
      });
    });
  }
};

} // namespace
