//===- DedupExecutables.cpp - Merge structurally identical CPU kernels -------===//
//
// See Passes.td. IREE's deduplication of identical executables, for the kernels that
// ral-outline-cpu-kernels creates. Hashing and equivalence are upstream MLIR's
// OperationEquivalence (mlir/IR/OperationSupport.h).
//
//===----------------------------------------------------------------------===//
#include "loupe/Transforms/Passes.h"

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
/// A launched kernel and everything about it except its body and its name.
struct Kernel {
  func::FuncOp func;
  /// The function's attributes without `sym_name`: function type, argument and result
  /// attributes (`ral.noalias`), visibility, `ral.cpu_kernel`.
  DictionaryAttr signature;

  explicit Kernel(func::FuncOp func) : func(func) {
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
    func.getBody().walk([&](Operation *op) {
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
           OperationEquivalence::isRegionEquivalentTo(&func.getBody(), &other.func.getBody(),
                                                      OperationEquivalence::IgnoreLocations);
  }
};

struct DedupExecutablesPass : loupe::impl::DedupExecutablesBase<DedupExecutablesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTableCollection tables;
    SymbolUserMap users(tables, module);
    // Kernels that launches alone reference, so a duplicate can be erased once they are moved.
    auto onlyLaunched = [&](func::FuncOp func) {
      ArrayRef<Operation *> uses = users.getUsers(func);
      return !uses.empty() && llvm::all_of(uses, llvm::IsaPred<CpuLaunchOp>);
    };

    // Kernels in the order of their first launch, so each class keeps the one that runs first.
    llvm::SetVector<func::FuncOp> launched;
    module.walk([&](CpuLaunchOp launch) {
      if (auto func = tables.lookupNearestSymbolFrom<func::FuncOp>(launch, launch.getKernelAttr()))
        launched.insert(func);
    });

    // Kernels kept so far, by hash; a bucket holds more than one only on a collision.
    llvm::DenseMap<llvm::hash_code, llvm::SmallVector<Kernel, 1>> kept;
    int64_t before = 0, after = 0;
    for (func::FuncOp func : launched) {
      if (func->getParentOp() != module || !func.isPrivate() || func.isExternal() ||
          !onlyLaunched(func))
        continue;
      ++before;
      Kernel kernel(func);
      llvm::SmallVector<Kernel, 1> &bucket = kept[kernel.hash()];
      auto *original = llvm::find_if(bucket, [&](Kernel &k) { return k.isEquivalentTo(kernel); });
      if (original == bucket.end()) {
        bucket.push_back(kernel);
        ++after;
        continue;
      }
      auto callee = FlatSymbolRefAttr::get(original->func.getSymNameAttr());
      for (Operation *user : users.getUsers(func))
        cast<CpuLaunchOp>(user).setKernelAttr(callee);
      tables.getSymbolTable(module).erase(func);
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
