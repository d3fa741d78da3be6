//===- RalOutlineGpuKernels.cpp - Code-generated kernels -> gpu.launch_func ---===//
//
// See Passes.td. The thread mappings are in GpuSchedules.cpp.
//
//===----------------------------------------------------------------------===//
#include "GpuSchedules.h"

#include "loupe/Transforms/Passes.h"

#include "mlir/Dialect/GPU/Transforms/Utils.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/SymbolTable.h"

namespace loupe {
#define GEN_PASS_DEF_RALOUTLINEGPUKERNELS
#include "loupe/Transforms/Passes.h.inc"
} // namespace loupe

using namespace mlir;
using namespace loupe;
using namespace loupe::ralir;

namespace {

/// A kernel's GPU mapping, for the dispatch table.
struct Mapping {
  gpu::LaunchOp launch;
  const char *schedule = "";
};

/// `op` as a linalg.generic: upstream generalisation for named ops; linalg.map and
/// linalg.reduce move their region (a map's body gets the unused output argument).
linalg::GenericOp generalize(RewriterBase &b, linalg::LinalgOp op) {
  if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
    return generic;
  if (!isa<linalg::MapOp, linalg::ReduceOp>(op)) {
    FailureOr<linalg::GenericOp> generalized = linalg::generalizeNamedOp(b, op);
    return succeeded(generalized) ? *generalized : nullptr;
  }
  auto generic = b.create<linalg::GenericOp>(op.getLoc(), TypeRange{}, op.getDpsInputs(),
                                             op.getDpsInits(), op.getIndexingMapsArray(),
                                             op.getIteratorTypesArray());
  Region &body = generic.getRegion();
  b.inlineRegionBefore(op->getRegion(0), body, body.begin());
  if (isa<linalg::MapOp>(op))
    body.front().addArgument(getElementTypeOrSelf(op.getDpsInits()[0].getType()), op.getLoc());
  b.eraseOp(op);
  return generic;
}

/// The launch of one code-generated linalg op: generalised, loops ordered parallel-then-
/// reduction, then the warp reduction schedule, 128-bit vectors per thread (elementwise ops
/// on contiguous rows), or one thread per parallel iteration (a sequential loop nest on one
/// thread when the op has no parallel loop).
Mapping mapToGpu(RewriterBase &b, linalg::LinalgOp op, int64_t threadsPerBlock,
                 int64_t warpRowMax) {
  b.setInsertionPoint(op);
  linalg::GenericOp generic = generalize(b, op);
  if (!generic) {
    op.emitOpError("cannot be generalised for GPU code generation");
    return {};
  }
  SmallVector<unsigned> order;
  for (auto [i, iterator] : llvm::enumerate(generic.getIteratorTypesArray()))
    if (iterator == utils::IteratorType::parallel)
      order.push_back(i);
  for (auto [i, iterator] : llvm::enumerate(generic.getIteratorTypesArray()))
    if (iterator != utils::IteratorType::parallel)
      order.push_back(i);
  if (!llvm::equal(order, llvm::seq<unsigned>(0, order.size())))
    generic = *linalg::interchangeGenericOp(b, generic, order);

  if (std::optional<RowReduction> reduction = matchRowReduction(generic);
      reduction && reduction->length >= kWarpSize) {
    b.setInsertionPoint(generic);
    gpu::LaunchOp launch = buildRowReductionLaunch(b, *reduction, threadsPerBlock, warpRowMax);
    b.eraseOp(generic);
    return {launch, reduction->length <= warpRowMax ? "warp-row-reduction"
                                                    : "block-row-reduction"};
  }
  if (canVectorizeElementwise(generic)) {
    b.setInsertionPoint(generic);
    gpu::LaunchOp launch = buildVectorElementwiseLaunch(b, generic, threadsPerBlock);
    b.eraseOp(generic);
    return {launch, "thread-per-vector4"};
  }
  if (generic.getNumParallelLoops() == 0) {
    // A short full reduction or a 0-d op: its loops on a single thread.
    b.setInsertionPoint(generic);
    gpu::LaunchOp launch = createLaunch(b, generic.getLoc(), 1, 1, 1);
    generic->moveBefore(launch.getBody().front().getTerminator());
    b.setInsertionPoint(generic);
    if (failed(linalg::linalgOpToLoops(b, generic)))
      return {};
    b.eraseOp(generic);
    return {launch, "single-thread"};
  }
  b.setInsertionPoint(generic);
  FailureOr<linalg::LinalgLoops> loops = linalg::linalgOpToParallelLoops(b, generic);
  if (failed(loops) || loops->empty() || !isa<scf::ParallelOp>(loops->front())) {
    generic.emitOpError("cannot be lowered to parallel loops for the GPU");
    return {};
  }
  b.eraseOp(generic);
  gpu::LaunchOp launch = buildParallelLaunch(b, cast<scf::ParallelOp>(loops->front()),
                                             threadsPerBlock);
  return {launch, "thread-per-element"};
}

/// "grid 4x1x1 block 32x4x1": the launch's static sizes.
std::string describeLaunch(gpu::LaunchOp launch) {
  auto text = [](gpu::KernelDim3 dims) {
    std::string s;
    for (Value v : {dims.x, dims.y, dims.z})
      s += (s.empty() ? "" : "x") + std::to_string(getConstantIntValue(v).value_or(-1));
    return s;
  };
  return "grid " + text(launch.getGridSizeOperandValues()) + " block " +
         text(launch.getBlockSizeOperandValues());
}

/// Moves the launch's body into `gpu.module @name { gpu.func @name }` and launches it with
/// gpu.launch_func. Constants are cloned into the kernel; every other value is a parameter.
gpu::LaunchFuncOp outline(RewriterBase &b, gpu::LaunchOp launch, StringRef name,
                          ModuleOp module) {
  (void)sinkOperationsIntoLaunchOp(launch, [](Operation *op) {
    return op->hasTrait<OpTrait::ConstantLike>() && op->getNumOperands() == 0;
  });
  SmallVector<Value> operands;
  gpu::GPUFuncOp kernel = outlineKernelFunc(launch, name, operands);
  OpBuilder top = OpBuilder::atBlockEnd(module.getBody());
  auto gpuModule = top.create<gpu::GPUModuleOp>(launch.getLoc(), name);
  SymbolTable(module).insert(gpuModule); // unique name, in case of a clash
  SymbolTable(gpuModule).insert(kernel);
  b.setInsertionPoint(launch);
  auto launchFunc = b.create<gpu::LaunchFuncOp>(
      launch.getLoc(), kernel, launch.getGridSizeOperandValues(),
      launch.getBlockSizeOperandValues(), /*dynamicSharedMemorySize=*/Value(), operands);
  b.eraseOp(launch);
  return launchFunc;
}

struct RalOutlineGpuKernelsPass
    : loupe::impl::RalOutlineGpuKernelsBase<RalOutlineGpuKernelsPass> {
  using RalOutlineGpuKernelsBase::RalOutlineGpuKernelsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp entry = loupe::lookupRalEntry(module);
    if (!entry)
      return signalPassFailure();
    Value ctx = entry.getArgument(0);
    IRRewriter b(&getContext());

    // Weights live on the host (the weight blob, small globals): the kernels read device copies.
    // Library descriptors stay on the host (ralir::kHostReadAttr).
    entry.walk([&](Operation *op) {
      if (!isa<memref::GetGlobalOp, ConstantOp>(op) || op->hasAttr(ralir::kHostReadAttr))
        return;
      Value host = op->getResult(0);
      b.setInsertionPointAfter(op);
      auto copy = b.create<DeviceConstantOp>(op->getLoc(), host.getType(), ctx, host);
      b.replaceAllUsesExcept(host, copy, copy);
    });

    llvm::SmallVector<Operation *> kernels;
    for (Operation &op : entry.getBody().getOps())
      if (isa<linalg::LinalgOp, memref::CopyOp>(op))
        kernels.push_back(&op);
    auto table = entry->getAttrOfType<ArrayAttr>("loupe.dispatches");
    llvm::SmallVector<Attribute> rows(table ? table.getValue() : ArrayRef<Attribute>{});
    for (auto [index, op] : llvm::enumerate(kernels)) {
      auto id = op->getAttrOfType<IntegerAttr>("loupe.dispatch_id");
      std::string name = "kernel_" + std::to_string(index);
      auto row = id && id.getInt() < static_cast<int64_t>(rows.size())
                     ? cast<DictionaryAttr>(rows[id.getInt()])
                     : DictionaryAttr();
      if (row)
        name = row.getAs<StringAttr>("name").str();
      b.setInsertionPoint(op);
      linalg::LinalgOp linalgOp;
      if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        linalgOp = b.create<linalg::CopyOp>(copy.getLoc(), copy.getSource(), copy.getTarget());
        b.eraseOp(copy);
      } else {
        linalgOp = cast<linalg::LinalgOp>(op);
      }
      Mapping mapping = mapToGpu(b, linalgOp, threadsPerBlock, warpRowMax);
      if (!mapping.launch)
        return signalPassFailure();
      std::string launchText = describeLaunch(mapping.launch);
      gpu::LaunchFuncOp launchFunc = outline(b, mapping.launch, name, module);
      if (id)
        launchFunc->setAttr("loupe.dispatch_id", id);
      if (row) {
        NamedAttrList attrs(row);
        attrs.set("schedule", b.getStringAttr(mapping.schedule));
        attrs.set("launch", b.getStringAttr(launchText));
        rows[id.getInt()] = attrs.getDictionary(&getContext());
      }
    }
    if (table)
      entry->setAttr("loupe.dispatches", b.getArrayAttr(rows));

    // Every buffer is device memory now: host code may only pass it on.
    WalkResult hostAccess = entry.walk([](Operation *op) {
      if (!isa<memref::LoadOp, memref::StoreOp, linalg::LinalgOp>(op))
        return WalkResult::advance();
      op->emitOpError("reads or writes device memory in host code (cuda target)");
      return WalkResult::interrupt();
    });
    if (hostAccess.wasInterrupted())
      return signalPassFailure();
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), b.getUnitAttr());
  }
};
} // namespace
