//===- RalOutlineCpuKernels.cpp - scf.parallel -> kernel + ral.cpu_launch ----===//
//
// See Passes.td. The kernel ABI `(ctx, begin, end, params)` is the runtime's
// ral_cpu_launch_1d (ral/lib/core/CoreApis.cpp); ral-to-llvm packs the parameters.
//
//===----------------------------------------------------------------------===//
#include "loupe/Transforms/Passes.h"
#include "CpuMemory.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace loupe {
#define GEN_PASS_DEF_RALOUTLINECPUKERNELS
#include "loupe/Transforms/Passes.h.inc"
} // namespace loupe

using namespace mlir;
using namespace loupe::ralir;

/// Marks outlined kernels, so a second run of the pass leaves them alone.
static constexpr llvm::StringLiteral kKernelAttr = "ral.cpu_kernel";
/// On a kernel parameter: no other parameter of the launch views the same buffer.
static constexpr llvm::StringLiteral kNoAliasAttr = "ral.noalias";
/// Trip count assumed for a loop whose bounds are not constants.
static constexpr int64_t kDynamicTripCount = 16;
/// f32 lanes of an AVX-512 vector: how much cheaper a vectorised work unit is (workgroupBlock).
static constexpr int64_t kVectorLanes = 16;
/// Workgroups of loops that stream rows do this many times min-workgroup-work (workgroupBlock):
/// 32 x 8192 units, about 16 LayerNorm rows of 1024 floats.
static constexpr int64_t kRowStreamFactor = 32;
/// Work units of a load or store per vector register (or scalar) it moves: data another
/// kernel wrote, mostly out of this core's L1, costs more than an arithmetic op. Counted as
/// one, EfficientNet-B0's squeeze-excitation multiplies (14x14x480, 750 KB moved) ran on one
/// thread; at 8, MobileNetV3-small's 30 KB ones were split and took 7 us instead of 2.
static constexpr int64_t kMemoryOpWeight = 2;
/// A serial loop of at least this many iterations streams a row (a pooling window does not).
static constexpr int64_t kMinStreamedRow = 256;
/// A loop with this many times min-workgroup-work is split into at least this many workgroups.
static constexpr int64_t kMinWorkgroups = 8;
/// Leading parallel dimensions are linearised until their iterations reach this.
static constexpr int64_t kMinDistributedIterations = 64;

/// Trip count of one loop dimension when its bounds are constants.
static std::optional<int64_t> staticTripCount(Value lb, Value ub, Value step) {
  auto l = getConstantIntValue(lb), u = getConstantIntValue(ub), s = getConstantIntValue(step);
  if (!l || !u || !s || *s <= 0)
    return std::nullopt;
  return std::max<int64_t>(0, llvm::divideCeilSigned(*u - *l, *s));
}

/// Trip count of dimension `d` of `loop` when its bounds are constants.
static std::optional<int64_t> staticTripCount(scf::ParallelOp loop, size_t d) {
  return staticTripCount(loop.getLowerBound()[d], loop.getUpperBound()[d], loop.getStep()[d]);
}

/// Elements of the widest vector `op` defines (loupe-vectorize-cpu's code); 0 for scalar ops.
static int64_t vectorElements(Operation *op) {
  int64_t widest = 0;
  for (Type type : op->getResultTypes())
    if (auto vector = dyn_cast<VectorType>(type))
      widest = std::max(widest, vector.getNumElements());
  return widest;
}

/// The widest vector anything in `block` defines; 0 when all of it is scalar code.
static int64_t widestVector(Block &block) {
  int64_t widest = 0;
  block.walk([&](Operation *op) { widest = std::max(widest, vectorElements(op)); });
  return widest;
}

/// Work units of one execution of `block`: one per op, loops weighted by their trip counts.
static int64_t estimateWork(Block &block) {
  int64_t work = 0;
  for (Operation &op : block.without_terminator()) {
    // A vector op costs one unit per vector register it spans; a load or store more.
    int64_t trips = std::max<int64_t>(1, vectorElements(&op) / kVectorLanes);
    if (hasEffect<MemoryEffects::Read>(&op) || hasEffect<MemoryEffects::Write>(&op))
      trips *= kMemoryOpWeight;
    if (auto loop = dyn_cast<scf::ForOp>(op))
      trips = staticTripCount(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())
                  .value_or(kDynamicTripCount);
    if (auto loop = dyn_cast<scf::ParallelOp>(op))
      for (auto [lb, ub, step] :
           llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep()))
        trips *= staticTripCount(lb, ub, step).value_or(kDynamicTripCount);
    int64_t inner = 0;
    for (Region &region : op.getRegions())
      for (Block &nested : region)
        inner += estimateWork(nested);
    work += trips * std::max<int64_t>(1, inner);
  }
  return std::max<int64_t>(1, work);
}

/// Values defined outside the kernel that it can recompute: operand-free pure ops
/// (constants, memref.get_global, llvm.mlir.addressof).
static bool isRematerializable(Value value) {
  Operation *def = value.getDefiningOp();
  return def && def->getNumOperands() == 0 && def->getNumRegions() == 0 &&
         isMemoryEffectFree(def);
}

/// The buffer a memref views, as an opaque key: the symbol of a global, else the value that
/// owns the memory (an allocation, an input, a function argument) after following views.
static const void *bufferKey(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  if (auto global = value.getDefiningOp<memref::GetGlobalOp>())
    return global.getNameAttr().getAsOpaquePointer();
  return value.getAsOpaquePointer();
}

/// ceildiv(max(ub - lb, 0), step) as index arithmetic.
static Value emitTripCount(OpBuilder &b, Location loc, Value lb, Value ub, Value step) {
  if (auto trips = staticTripCount(lb, ub, step))
    return b.create<arith::ConstantIndexOp>(loc, *trips);
  Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
  Value extent = b.createOrFold<arith::MaxSIOp>(loc, b.createOrFold<arith::SubIOp>(loc, ub, lb), zero);
  return b.createOrFold<arith::CeilDivSIOp>(loc, extent, step);
}

namespace {
/// Outlines one scf.parallel of `func` (whose first argument is the context).
class KernelOutliner {
public:
  KernelOutliner(func::FuncOp func, SymbolTable &symbols, int64_t minWorkgroupWork)
      : func(func), symbols(symbols), minWorkgroupWork(minWorkgroupWork) {}

  void outline(scf::ParallelOp loop) {
    Location loc = loop.getLoc();
    size_t rank = loop.getNumLoops();
    size_t distributed = distributedDims(loop);

    // Everything the loop reads from outside: passed as kernel arguments or recomputed.
    llvm::SetVector<Value> captured;
    captured.insert(loop.getLowerBound().begin(), loop.getLowerBound().end());
    captured.insert(loop.getUpperBound().begin(), loop.getUpperBound().end());
    captured.insert(loop.getStep().begin(), loop.getStep().end());
    getUsedValuesDefinedAbove(loop.getRegion(), captured);
    Value ctx = func.getArgument(0);
    llvm::SmallVector<Value> params;
    for (Value v : captured)
      if (v != ctx && !isRematerializable(v))
        params.push_back(v);

    func::FuncOp kernel = createKernel(loc, params);
    OpBuilder b(kernel.getBody());
    IRMapping map;
    map.map(ctx, kernel.getArgument(0));
    for (auto [value, arg] : llvm::zip(params, kernel.getArguments().drop_front(3)))
      map.map(value, arg);
    for (Value v : captured)
      if (!map.contains(v))
        map.map(v, b.clone(*v.getDefiningOp())->getResult(0));
    auto lbs = llvm::to_vector(llvm::map_range(loop.getLowerBound(), [&](Value v) { return map.lookup(v); }));
    auto ubs = llvm::to_vector(llvm::map_range(loop.getUpperBound(), [&](Value v) { return map.lookup(v); }));
    auto steps = llvm::to_vector(llvm::map_range(loop.getStep(), [&](Value v) { return map.lookup(v); }));

    // for %i = begin to end: delinearise %i over the distributed dimensions.
    Value one = b.create<arith::ConstantIndexOp>(loc, 1);
    auto iterations = b.create<scf::ForOp>(loc, kernel.getArgument(1), kernel.getArgument(2), one);
    b.setInsertionPointToStart(iterations.getBody());
    Value rest = iterations.getInductionVar();
    auto unitTrips = [&](size_t d) {
      return staticTripCount(loop, d) == std::optional<int64_t>(1);
    };
    for (size_t d = distributed; d-- > 0;) {
      Value iv = lbs[d];
      if (!unitTrips(d)) {
        Value index = rest;
        if (!llvm::all_of(llvm::seq<size_t>(0, d), unitTrips)) {
          Value trips = emitTripCount(b, loc, lbs[d], ubs[d], steps[d]);
          index = b.createOrFold<arith::RemUIOp>(loc, rest, trips);
          rest = b.createOrFold<arith::DivUIOp>(loc, rest, trips);
        }
        iv = b.createOrFold<arith::AddIOp>(loc, b.createOrFold<arith::MulIOp>(loc, index, steps[d]),
                                           lbs[d]);
      }
      map.map(loop.getInductionVars()[d], iv);
    }
    auto cloneBody = [&](OpBuilder &nested) {
      for (Operation &op : loop.getBody()->without_terminator())
        nested.clone(op, map);
    };
    if (distributed == rank) {
      cloneBody(b);
    } else {
      // The remaining dimensions run serially inside one iteration.
      auto slice = [&](llvm::SmallVector<Value> &values) {
        return llvm::ArrayRef<Value>(values).drop_front(distributed);
      };
      // The loop's own induction variables, held here: a range over a temporary would dangle
      // inside the range-for below (Expand/Tile of a 4-D tensor into 8 loops crashed so).
      llvm::SmallVector<Value> serialIvs(
          llvm::drop_begin(loop.getInductionVars(), static_cast<unsigned>(distributed)));
      b.create<scf::ParallelOp>(loc, slice(lbs), slice(ubs), slice(steps),
                                [&](OpBuilder &nested, Location, ValueRange ivs) {
                                  for (auto [old, iv] : llvm::zip(serialIvs, ivs))
                                    map.map(old, iv);
                                  cloneBody(nested);
                                });
    }

    hoistScratchBuffers(kernel);

    // At the loop: size = iterations of the distributed dimensions, block = iterations per
    // workgroup, then the launch replaces the loop.
    OpBuilder at(loop);
    Value size;
    for (size_t d = 0; d < distributed; ++d) {
      Value trips = emitTripCount(at, loc, loop.getLowerBound()[d], loop.getUpperBound()[d],
                                  loop.getStep()[d]);
      size = size ? at.createOrFold<arith::MulIOp>(loc, size, trips) : trips;
    }
    Value block = at.create<arith::ConstantIndexOp>(loc, workgroupBlock(loop, distributed));
    at.create<CpuLaunchOp>(loc, ctx, FlatSymbolRefAttr::get(kernel.getSymNameAttr()),
                                  size, block, params);
    loop.erase();
  }

private:
  /// The fewest leading dimensions whose static iterations reach kMinDistributedIterations
  /// (stopping at the first dynamic one). The innermost dimension of a multi-dimensional loop
  /// stays a loop that LLVM can vectorise, unless every other dimension has one iteration:
  /// then linearising is free and distributes the innermost dimension too.
  static size_t distributedDims(scf::ParallelOp loop) {
    size_t rank = loop.getNumLoops();
    int64_t iterations = 1;
    for (size_t d = 0; d + 1 < rank; ++d) {
      auto trips = staticTripCount(loop, d);
      if (!trips)
        return d + 1;
      iterations *= *trips;
      if (iterations >= kMinDistributedIterations)
        return d + 1;
    }
    return iterations == 1 ? rank : rank - 1;
  }

  /// Iterations per workgroup, so that each does about minWorkgroupWork units, or
  /// kRowStreamFactor times that when an iteration streams a row through a serial loop of
  /// kMinStreamedRow or more iterations (a row reduction, a kStitch row): workgroups of one
  /// row would interleave the threads' rows, and the hardware prefetcher would lose each
  /// thread's stream at every row (LayerNorm of 8192x1024, one row per workgroup: 3.9-4.9 ms;
  /// 16 rows: 2.4-3.2 ms).
  int64_t workgroupBlock(scf::ParallelOp loop, size_t distributed) const {
    int64_t perIteration = estimateWork(*loop.getBody());
    for (size_t d = distributed; d < loop.getNumLoops(); ++d)
      perIteration *= staticTripCount(loop, d)
                          .value_or(kDynamicTripCount);
    bool streamsRows = false;
    loop.getBody()->walk([&](scf::ForOp row) {
      // Elements per trip: the widest vector the loop carries or loads (vector-dialect code).
      int64_t lanes = std::max<int64_t>(1, widestVector(*row.getBody()));
      streamsRows |= staticTripCount(row.getLowerBound(), row.getUpperBound(), row.getStep())
                             .value_or(0) * lanes >= kMinStreamedRow;
    });
    // When every dimension is distributed (a 1-D loop) of scalar code, the kernel's own loop
    // over a workgroup is the one LLVM vectorises: its work units cost a vector's share each.
    // Vector-dialect code (loupe-vectorize-cpu) already counts one unit per vector op.
    bool vectorised = distributed == loop.getNumLoops() && widestVector(*loop.getBody()) == 0;
    int64_t target = minWorkgroupWork * (streamsRows ? kRowStreamFactor : 1) *
                     (vectorised ? kVectorLanes : 1);
    int64_t block = llvm::divideCeil(target, std::max<int64_t>(1, perIteration));
    // Enough work for several workgroups each: at least kMinWorkgroups of them, so that the
    // threads end together (a 224-iteration column reduction of 64-float vectors otherwise
    // made two workgroups of 146 and 78 iterations).
    int64_t iterations = 1;
    for (size_t d = 0; d < distributed; ++d)
      iterations *= staticTripCount(loop, d).value_or(0);
    if (iterations * perIteration >= kMinWorkgroups * minWorkgroupWork)
      block = std::min<int64_t>(block, llvm::divideCeilSigned(iterations, kMinWorkgroups));
    // Streamed rows worth a workgroup are never left to one thread: EfficientNet-B0's
    // squeeze-excitation pool (56 rows of 56x144 floats, 1.8 MB) was one workgroup of all 56
    // rows, 128 us on one core; two workgroups of 28 contiguous rows keep each stream long.
    else if (streamsRows && iterations * perIteration >= minWorkgroupWork)
      block = std::min<int64_t>(block, llvm::divideCeilSigned(iterations, 2));
    return std::max<int64_t>(1, block);
  }

  /// An iteration's small scratch buffer (a kStitch row's reduction result: allocated and
  /// freed in the loop body) becomes one stack buffer of the kernel, which its iterations
  /// reuse in turn: no malloc per row. Iterations of one kernel call run serially, and nothing
  /// flows between them through such a buffer (bufferization gave each its own).
  static void hoistScratchBuffers(func::FuncOp kernel) {
    Block &entry = kernel.getBody().front();
    llvm::SmallVector<memref::AllocOp> allocs;
    kernel.walk([&](memref::AllocOp alloc) {
      MemRefType type = alloc.getType();
      std::optional<int64_t> bytes = loupe::staticBytes(type);
      if (alloc->getBlock() != &entry && bytes && *bytes <= loupe::kMaxScratchBytes &&
          type.getLayout().isIdentity() &&
          llvm::count_if(alloc->getUsers(), [](Operation *u) { return isa<memref::DeallocOp>(u); }) == 1)
        allocs.push_back(alloc);
    });
    for (memref::AllocOp alloc : allocs) {
      OpBuilder b(&entry, entry.begin());
      auto stack = b.create<memref::AllocaOp>(alloc.getLoc(), alloc.getType(), ValueRange{},
                                              alloc.getAlignmentAttr());
      for (Operation *user : llvm::to_vector(alloc->getUsers()))
        if (isa<memref::DeallocOp>(user))
          user->erase();
      alloc.replaceAllUsesWith(stack.getResult());
      alloc.erase();
    }
  }

  /// `func.func private @<func>_kernel_N(%ctx, %begin: index, %end: index, params...)`.
  func::FuncOp createKernel(Location loc, llvm::ArrayRef<Value> params) {
    MLIRContext *context = func.getContext();
    llvm::SmallVector<Type> inputs = {func.getArgument(0).getType(), IndexType::get(context),
                                      IndexType::get(context)};
    for (Value v : params)
      inputs.push_back(v.getType());
    OpBuilder b(context);
    auto kernel = b.create<func::FuncOp>(loc, (func.getSymName() + "_kernel_" + llvm::Twine(count++)).str(),
                                         b.getFunctionType(inputs, {}));
    kernel.setPrivate();
    kernel->setAttr(kKernelAttr, b.getUnitAttr());
    symbols.insert(kernel, std::next(Block::iterator(func)));
    // A memref parameter whose buffer no other parameter views gets `ral.noalias`, which
    // ral-to-llvm turns into LLVM `noalias` so loops vectorise without run-time checks.
    llvm::DenseMap<const void *, int> buffers;
    for (Value v : params)
      if (isa<MemRefType>(v.getType()))
        ++buffers[bufferKey(v)];
    for (auto [i, v] : llvm::enumerate(params))
      if (isa<MemRefType>(v.getType()) && buffers[bufferKey(v)] == 1)
        kernel.setArgAttr(3 + i, kNoAliasAttr, b.getUnitAttr());
    Block *entry = kernel.addEntryBlock();
    b.setInsertionPointToEnd(entry);
    b.create<func::ReturnOp>(loc);
    return kernel;
  }

  func::FuncOp func;
  SymbolTable &symbols;
  int64_t minWorkgroupWork;
  int count = 0;
};

struct RalOutlineCpuKernelsPass
    : loupe::impl::RalOutlineCpuKernelsBase<RalOutlineCpuKernelsPass> {
  using RalOutlineCpuKernelsBase::RalOutlineCpuKernelsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (func.isExternal() || func->hasAttr(kKernelAttr) || func.getNumArguments() == 0 ||
          !isa<ContextType>(func.getArgument(0).getType()))
        continue;
      llvm::SmallVector<scf::ParallelOp> loops;
      func.walk<WalkOrder::PreOrder>([&](scf::ParallelOp loop) {
        if (loop.getNumResults() == 0)
          loops.push_back(loop);
        return WalkResult::skip(); // Only outermost loops; reductions stay serial.
      });
      KernelOutliner outliner(func, symbols, minWorkgroupWork);
      for (scf::ParallelOp loop : loops)
        outliner.outline(loop);
    }
  }
};
} // namespace
