//===- DedupExecutables.cpp - Merge structurally identical kernels -----------===//
//
// See Passes.td. IREE's deduplication of identical executables, for the kernels that
// ral-outline-cpu-kernels and ral-outline-gpu-kernels create. Hashing and equivalence are upstream MLIR's
// OperationEquivalence (mlir/IR/OperationSupport.h).
//
//===----------------------------------------------------------------------===//
#include "loupe/Transforms/Passes.h"
#include "DispatchTable.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

namespace loupe {
#define GEN_PASS_DEF_DEDUPEXECUTABLES
#include "loupe/Transforms/Passes.h.inc"
} // namespace loupe

using namespace mlir;
using namespace loupe::ralir;

/// Module attribute with the outcome: `{kernels = <before> : i64, unique = <after> : i64}`.
static constexpr llvm::StringLiteral kDedupAttr = "loupe.dedup";

namespace {
/// A launched kernel (a private func.func of ral.cpu_launch, or the gpu.func of a gpu.module of
/// gpu.launch_func) and everything about it except its body and its name.
struct Kernel {
  FunctionOpInterface func;
  /// The function's attributes without `sym_name`: function type, argument and result
  /// attributes (`ral.noalias`), visibility, `ral.cpu_kernel`, `gpu.kernel`, known sizes.
  DictionaryAttr signature;

  explicit Kernel(FunctionOpInterface func) : func(func) {
    llvm::SmallVector<NamedAttribute> attrs;
    for (NamedAttribute attr : func->getAttrDictionary())
      if (attr.getName() != SymbolTable::getSymbolAttrName())
        attrs.push_back(attr);
    signature = DictionaryAttr::get(func.getContext(), attrs);
  }

  /// Equal for equivalent kernels: the signature and every body op (name, attributes,
  /// properties, result types) in walk order; operands and locations are left out.
  llvm::hash_code hash() {
    llvm::hash_code hash = hash_value(signature);
    func.getFunctionBody().walk([&](Operation *op) {
      hash = llvm::hash_combine(
          hash, OperationEquivalence::computeHash(op, OperationEquivalence::ignoreHashValue,
                                                  OperationEquivalence::ignoreHashValue,
                                                  OperationEquivalence::IgnoreLocations));
    });
    return hash;
  }

  /// Same signature and bodies equivalent up to locations and SSA names.
  bool isEquivalentTo(Kernel &other) {
    return signature == other.signature &&
           OperationEquivalence::isRegionEquivalentTo(&func.getFunctionBody(),
                                                      &other.func.getFunctionBody(),
                                                      OperationEquivalence::IgnoreLocations);
  }
};

/// The launches of kernels: ral.cpu_launch of a private func.func in the module, and
/// gpu.launch_func of the only function of a gpu.module.
struct Launches {
  ModuleOp module;
  SymbolTableCollection tables;
  SymbolUserMap users;
  explicit Launches(ModuleOp module) : module(module), users(tables, module) {}

  /// The kernel `launch` runs when it is one the pass may merge (launched only, by launches of
  /// the same kind), else null.
  FunctionOpInterface kernelOf(Operation *launch) {
    if (auto cpu = dyn_cast<CpuLaunchOp>(launch)) {
      auto func = tables.lookupNearestSymbolFrom<func::FuncOp>(cpu, cpu.getKernelAttr());
      if (!func || func->getParentOp() != module || !func.isPrivate() || func.isExternal() ||
          !onlyLaunchedBy<CpuLaunchOp>(func))
        return nullptr;
      return func;
    }
    auto gpuLaunch = cast<gpu::LaunchFuncOp>(launch);
    auto func = tables.lookupNearestSymbolFrom<gpu::GPUFuncOp>(gpuLaunch, gpuLaunch.getKernel());
    auto container = func ? dyn_cast<gpu::GPUModuleOp>(func->getParentOp()) : nullptr;
    if (!container || container->getParentOp() != module ||
        !llvm::hasSingleElement(container.getBody()->without_terminator()) ||
        !onlyLaunchedBy<gpu::LaunchFuncOp>(func) ||
        !onlyLaunchedBy<gpu::LaunchFuncOp>(container))
      return nullptr;
    return func;
  }

  /// Points `launch` at `kernel`.
  static void retarget(Operation *launch, FunctionOpInterface kernel) {
    if (auto cpu = dyn_cast<CpuLaunchOp>(launch))
      return cpu.setKernelAttr(FlatSymbolRefAttr::get(kernel.getNameAttr()));
    auto container = cast<gpu::GPUModuleOp>(kernel->getParentOp());
    cast<gpu::LaunchFuncOp>(launch).setKernelAttr(SymbolRefAttr::get(
        container.getNameAttr(), {FlatSymbolRefAttr::get(kernel.getNameAttr())}));
  }

  /// A GPU dispatch now launches another dispatch's kernel: its dispatch table row (the
  /// entry's `loupe.dispatches`, ral-outline-gpu-kernels) says so after its launch sizes, as
  /// CUPTI will name the kernel ("grid 16x1x1 block 256x1x1, kernel dispatch_7_generic").
  static void noteSharedKernel(Operation *launch, FunctionOpInterface kernel) {
    auto id = launch->getAttrOfType<IntegerAttr>("loupe.dispatch_id");
    auto entry = launch->getParentOfType<func::FuncOp>();
    if (!id || !entry)
      return;
    loupe::updateDispatchRows(entry, [&](int64_t row, NamedAttrList &fields) {
      if (row != id.getInt())
        return;
      auto text = dyn_cast_or_null<StringAttr>(fields.get("launch"));
      fields.set("launch", StringAttr::get(launch->getContext(),
                                           (text ? text.str() : std::string()) + ", kernel " +
                                               kernel.getName().str()));
    });
  }

  /// Erases `kernel` (with its gpu.module).
  void erase(FunctionOpInterface kernel) {
    Operation *top = isa<gpu::GPUFuncOp>(kernel) ? kernel->getParentOp() : kernel;
    tables.getSymbolTable(module).erase(top);
  }

private:
  template <typename LaunchT>
  bool onlyLaunchedBy(Operation *symbol) {
    ArrayRef<Operation *> uses = users.getUsers(symbol);
    return !uses.empty() && llvm::all_of(uses, llvm::IsaPred<LaunchT>);
  }
};

struct DedupExecutablesPass : loupe::impl::DedupExecutablesBase<DedupExecutablesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Launches launches(module);

    // Kernels in the order of their first launch, so each class keeps the one that runs first.
    llvm::SetVector<Operation *> launched;
    llvm::DenseMap<Operation *, llvm::SmallVector<Operation *, 2>> launchesOf;
    module.walk([&](Operation *op) {
      if (!isa<CpuLaunchOp, gpu::LaunchFuncOp>(op))
        return;
      if (FunctionOpInterface kernel = launches.kernelOf(op)) {
        launched.insert(kernel);
        launchesOf[kernel].push_back(op);
      }
    });

    // Kernels kept so far, by hash; a bucket holds more than one only on a collision.
    llvm::DenseMap<llvm::hash_code, llvm::SmallVector<Kernel, 1>> kept;
    int64_t before = 0, after = 0;
    for (Operation *op : launched) {
      ++before;
      Kernel kernel(cast<FunctionOpInterface>(op));
      llvm::SmallVector<Kernel, 1> &bucket = kept[kernel.hash()];
      auto *original = llvm::find_if(bucket, [&](Kernel &k) { return k.isEquivalentTo(kernel); });
      if (original == bucket.end()) {
        bucket.push_back(kernel);
        ++after;
        continue;
      }
      for (Operation *launch : launchesOf[op]) {
        Launches::retarget(launch, original->func);
        if (isa<gpu::LaunchFuncOp>(launch))
          Launches::noteSharedKernel(launch, original->func);
      }
      launches.erase(kernel.func);
    }

    // Kernels merged by an earlier run still count as kernels before deduplication, so the
    // record of a second run equals the first's.
    if (auto previous = module->getAttrOfType<DictionaryAttr>(kDedupAttr)) {
      auto kernels = previous.getAs<IntegerAttr>("kernels");
      auto unique = previous.getAs<IntegerAttr>("unique");
      if (kernels && unique)
        before += kernels.getInt() - unique.getInt();
    }
    Builder b(&getContext());
    module->setAttr(kDedupAttr,
                    b.getDictionaryAttr({b.getNamedAttr("kernels", b.getI64IntegerAttr(before)),
                                         b.getNamedAttr("unique", b.getI64IntegerAttr(after))}));
  }
};
} // namespace
