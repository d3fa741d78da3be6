//===- GpuSchedules.cpp - Thread mappings of code-generated GPU kernels ------===//
#include "GpuSchedules.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace loupe {

namespace {
Value indexConstant(OpBuilder &b, Location loc, int64_t value) {
  return b.create<arith::ConstantIndexOp>(loc, value);
}

int64_t product(ArrayRef<int64_t> values) {
  int64_t p = 1;
  for (int64_t v : values)
    p *= v;
  return p;
}


/// The indices of `linear` in a row-major iteration space of `extents` (last fastest).
SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                               ArrayRef<int64_t> extents) {
  SmallVector<Value> ivs(extents.size());
  Value rest = linear;
  for (int64_t i = static_cast<int64_t>(extents.size()) - 1; i > 0; --i) {
    Value extent = indexConstant(b, loc, extents[i]);
    ivs[i] = b.create<arith::RemUIOp>(loc, rest, extent);
    rest = b.create<arith::DivUIOp>(loc, rest, extent);
  }
  if (!extents.empty())
    ivs[0] = rest;
  return ivs;
}

/// The operand indices `map` selects at loop indices `ivs`.
SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map, ValueRange ivs) {
  SmallVector<Value> indices;
  for (unsigned i = 0; i < map.getNumResults(); ++i) {
    AffineExpr expr = map.getResult(i);
    if (auto dim = dyn_cast<AffineDimExpr>(expr))
      indices.push_back(ivs[dim.getPosition()]);
    else if (auto constant = dyn_cast<AffineConstantExpr>(expr))
      indices.push_back(indexConstant(b, loc, constant.getValue()));
    else
      indices.push_back(b.create<affine::AffineApplyOp>(loc, map.getSubMap({i}), ivs));
  }
  return indices;
}

/// `combiner` applied to (lhs, rhs): a clone of the reduction's commutative arith op.
Value combine(OpBuilder &b, Operation *combiner, Value lhs, Value rhs) {
  IRMapping map;
  map.map(combiner->getOperand(0), lhs);
  map.map(combiner->getOperand(1), rhs);
  return b.clone(*combiner, map)->getResult(0);
}

/// Butterfly reduction of `value` over the 32 lanes of a warp: afterwards every lane holds
/// the combination of all lanes' values.
Value warpReduce(OpBuilder &b, Location loc, Operation *combiner, Value value) {
  Value width = b.create<arith::ConstantIntOp>(loc, kWarpSize, 32);
  for (int64_t offset = kWarpSize / 2; offset >= 1; offset /= 2) {
    Value distance = b.create<arith::ConstantIntOp>(loc, offset, 32);
    auto shuffle = b.create<gpu::ShuffleOp>(loc, value, distance, width, gpu::ShuffleMode::XOR);
    value = combine(b, combiner, value, shuffle.getShuffleResult());
  }
  return value;
}

/// A clone of `op`'s body at loop indices `ivs`, the output argument standing for `acc`;
/// returns the yielded value.
Value cloneBodyAt(OpBuilder &b, Location loc, linalg::GenericOp op, ValueRange ivs, Value acc) {
  Block &body = op.getRegion().front();
  IRMapping map;
  for (OpOperand *input : op.getDpsInputOperands()) {
    BlockArgument arg = body.getArgument(input->getOperandNumber());
    Value source = input->get();
    if (!isa<MemRefType>(source.getType())) {
      map.map(arg, source); // a scalar input
      continue;
    }
    map.map(arg, b.create<memref::LoadOp>(
                     loc, source, applyMap(b, loc, op.getMatchingIndexingMap(input), ivs)));
  }
  map.map(body.getArgument(op.getNumDpsInputs()), acc);
  for (Operation &nested : body.without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(nested))
      map.map(index.getResult(), ivs[index.getDim()]);
    else
      b.clone(nested, map);
  }
  return map.lookup(body.getTerminator()->getOperand(0));
}

/// Bytes of one thread-per-vector4 access: kVectorWidth 32-bit elements.
constexpr int64_t kVectorBytes = kVectorWidth * 4;

/// How the thread-per-vector4 schedule reaches `operand` of an all-parallel generic.
enum class LaneAccess {
  kContiguous, ///< kVectorWidth consecutive, 16-byte aligned elements: one vector access.
  kUniform,    ///< Not indexed by the innermost loop: one element for all lanes.
  kOther,      ///< Strided, transposed, misaligned or not 32-bit: no vector access.
};

LaneAccess laneAccess(linalg::GenericOp op, OpOperand &operand) {
  auto type = dyn_cast<MemRefType>(operand.get().getType());
  if (!type)
    return LaneAccess::kUniform; // a scalar input
  Type element = type.getElementType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() != 32)
    return LaneAccess::kOther;
  AffineMap map = op.getMatchingIndexingMap(&operand);
  unsigned innermost = op.getNumLoops() - 1;
  ArrayRef<AffineExpr> results = map.getResults();
  auto usesLane = [&](AffineExpr e) { return e.isFunctionOfDim(innermost); };
  if (llvm::none_of(results, usesLane))
    return LaneAccess::kUniform;
  if (llvm::any_of(results.drop_back(), usesLane) ||
      results.back() != getAffineDimExpr(innermost, op.getContext()))
    return LaneAccess::kOther;
  int64_t offset;
  SmallVector<int64_t> strides;
  if (failed(getStridesAndOffset(type, strides, offset)) || strides.back() != 1 ||
      ShapedType::isDynamic(offset) || offset % kVectorWidth != 0)
    return LaneAccess::kOther;
  for (int64_t stride : ArrayRef<int64_t>(strides).drop_back())
    if (ShapedType::isDynamic(stride) || stride % kVectorWidth != 0)
      return LaneAccess::kOther;
  return LaneAccess::kContiguous;
}

/// A launch of `size` threads in blocks of up to `threadsPerBlock`; the insertion point is
/// left inside the bounds check and `id` is the thread's linear id.
gpu::LaunchOp launchThreads(RewriterBase &b, Location loc, int64_t size, int64_t threadsPerBlock,
                            Value &id) {
  int64_t block =
      std::min<int64_t>(threadsPerBlock, llvm::alignTo(std::max<int64_t>(size, 1), kWarpSize));
  gpu::LaunchOp launch =
      createLaunch(b, loc, std::max<int64_t>(1, llvm::divideCeil(size, block)), block, 1);
  id = b.create<arith::AddIOp>(
      loc, b.create<arith::MulIOp>(loc, launch.getBlockIds().x, indexConstant(b, loc, block)),
      launch.getThreadIds().x);
  auto inRange = b.create<scf::IfOp>(
      loc, b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, id, indexConstant(b, loc, size)),
      /*withElseRegion=*/false);
  b.setInsertionPointToStart(&inRange.getThenRegion().front());
  return launch;
}

/// Vector accesses of one kernel: `op`'s body on kVectorWidth consecutive innermost
/// iterations at a time (the thread-per-vector4 schedule and vectorised row reductions).
class VectorBody {
public:
  VectorBody(OpBuilder &b, Location loc, linalg::GenericOp op) : b(b), loc(loc), op(op) {}

  static VectorType vectorOf(Type t) { return VectorType::get({kVectorWidth}, t); }
  /// `scalar` in every lane (vector.splat: convert-gpu-to-nvvm lowers it, not vector.broadcast).
  Value splat(Value scalar) {
    return b.create<vector::SplatOp>(loc, scalar, vectorOf(scalar.getType()));
  }

  /// `operand` at loop indices `ivs` (the innermost one the first lane's) as a vector: one
  /// 16-byte aligned vector.load when it is contiguous, else one load (or the scalar) splat.
  Value read(OpOperand &operand, ValueRange ivs) {
    Value source = operand.get();
    if (!isa<MemRefType>(source.getType())) // a scalar input
      return splat(source);
    SmallVector<Value> indices = applyMap(b, loc, op.getMatchingIndexingMap(&operand), ivs);
    if (laneAccess(op, operand) == LaneAccess::kUniform)
      return splat(b.create<memref::LoadOp>(loc, source, indices));
    assumeAligned(source);
    return b.create<vector::LoadOp>(loc, vectorOf(getElementTypeOrSelf(source.getType())),
                                    source, indices);
  }

  /// Stores `value` (a vector) into output `init` at `ivs`.
  void write(OpOperand &init, ValueRange ivs, Value value) {
    assumeAligned(init.get());
    b.create<vector::StoreOp>(loc, value, init.get(),
                              applyMap(b, loc, op.getMatchingIndexingMap(&init), ivs));
  }

  /// The body on vectors at `ivs`; the output arguments stand for `accumulators` when given
  /// (a reduction's running vectors), else for the outputs read at `ivs`. Returns the yielded
  /// vectors.
  SmallVector<Value> compute(ValueRange ivs, ValueRange accumulators = {}) {
    Block &body = op.getRegion().front();
    IRMapping map;
    for (OpOperand &operand : op->getOpOperands()) {
      BlockArgument arg = body.getArgument(operand.getOperandNumber());
      if (!op.isDpsInit(&operand))
        map.map(arg, read(operand, ivs));
      else if (!accumulators.empty())
        map.map(arg, accumulators[operand.getOperandNumber() - op.getNumDpsInputs()]);
      else if (op.payloadUsesValueFromOperand(&operand))
        map.map(arg, read(operand, ivs));
    }
    for (Operation &nested : body.without_terminator()) {
      if (auto constant = dyn_cast<arith::ConstantOp>(nested)) {
        map.map(constant.getResult(),
                b.create<arith::ConstantOp>(
                    loc, DenseElementsAttr::get(vectorOf(constant.getType()), constant.getValue())));
        continue;
      }
      for (Value operand : nested.getOperands()) // a scalar captured from outside the body
        if (!map.contains(operand))
          map.map(operand, splat(operand));
      Operation *clone = b.clone(nested, map);
      for (OpResult result : clone->getResults())
        result.setType(vectorOf(result.getType()));
    }
    SmallVector<Value> yielded;
    for (Value v : body.getTerminator()->getOperands()) {
      Value value = map.lookupOrDefault(v);
      yielded.push_back(isa<VectorType>(value.getType()) ? value : splat(value));
    }
    return yielded;
  }

private:
  /// The first vector access of `memref` says its buffer is 16-byte aligned.
  void assumeAligned(Value memref) {
    if (aligned.insert(memref).second)
      b.create<memref::AssumeAlignmentOp>(loc, memref, kVectorBytes);
  }

  OpBuilder &b;
  Location loc;
  linalg::GenericOp op;
  llvm::SmallDenseSet<Value> aligned;
};

/// Whether every input of `op` is contiguous or uniform along the innermost loop (LaneAccess)
/// and its body is made of elementwise-mappable ops and constants: what VectorBody computes.
bool hasVectorBody(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() == 0)
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic) || ranges.back() % kVectorWidth != 0)
    return false;
  for (OpOperand *input : op.getDpsInputOperands())
    if (laneAccess(op, *input) == LaneAccess::kOther)
      return false;
  for (Operation &nested : op.getRegion().front().without_terminator()) {
    auto scalar = [](Type t) { return t.isIntOrIndexOrFloat(); };
    if (!llvm::all_of(nested.getResultTypes(), scalar) ||
        !llvm::all_of(nested.getOperandTypes(), scalar) || nested.getNumRegions() != 0)
      return false;
    if (!isa<arith::ConstantOp>(nested) && !OpTrait::hasElementwiseMappableTraits(&nested))
      return false;
  }
  return true;
}
} // namespace

gpu::LaunchOp createLaunch(RewriterBase &b, Location loc, int64_t grid, int64_t blockX,
                           int64_t blockY, TypeRange workgroupMemory) {
  Value one = indexConstant(b, loc, 1);
  auto launch = b.create<gpu::LaunchOp>(
      loc, indexConstant(b, loc, grid), one, one, indexConstant(b, loc, blockX),
      indexConstant(b, loc, blockY), one, /*dynamicSharedMemorySize=*/nullptr,
      /*asyncTokenType=*/nullptr, ValueRange{}, workgroupMemory);
  Block &body = launch.getBody().front();
  b.setInsertionPointToEnd(&body);
  b.create<gpu::TerminatorOp>(loc);
  b.setInsertionPointToStart(&body);
  return launch;
}

std::optional<RowReduction> matchRowReduction(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 || op.getNumReductionLoops() == 0)
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return std::nullopt;
  auto iterators = op.getIteratorTypesArray();
  unsigned numParallel = op.getNumParallelLoops();
  for (auto [i, iterator] : llvm::enumerate(iterators))
    if ((i < numParallel) != (iterator == utils::IteratorType::parallel))
      return std::nullopt; // not ordered parallel-then-reduction
  Type element = getElementTypeOrSelf(op.getDpsInitOperand(0)->get().getType());
  if (!element.isF32() && !element.isInteger(32))
    return std::nullopt; // gpu.shuffle lowers to 32-bit shfl.sync

  Block &body = op.getRegion().front();
  BlockArgument out = body.getArgument(op.getNumDpsInputs());
  Operation *combiner = body.getTerminator()->getOperand(0).getDefiningOp();
  if (!combiner || combiner->getBlock() != &body || combiner->getNumOperands() != 2 ||
      combiner->getNumResults() != 1 || !combiner->hasTrait<OpTrait::IsCommutative>() ||
      !out.hasOneUse() || *out.getUsers().begin() != combiner)
    return std::nullopt;
  std::optional<TypedAttr> neutral = arith::getNeutralElement(combiner);
  if (!neutral)
    return std::nullopt;

  // Row, not column: consecutive iterations of the innermost reduction loop read consecutive
  // elements of some input, so a warp's lanes read one contiguous segment.
  unsigned innermost = iterators.size() - 1;
  bool contiguous = llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *input) {
    AffineMap map = op.getMatchingIndexingMap(input);
    return map.getNumResults() > 0 && map.getResults().back() == getAffineDimExpr(innermost, op.getContext());
  });
  if (!contiguous)
    return std::nullopt;

  RowReduction reduction;
  reduction.op = op;
  reduction.combiner = combiner;
  reduction.neutral = *neutral;
  reduction.rows = product(ArrayRef<int64_t>(ranges).take_front(numParallel));
  reduction.length = product(ArrayRef<int64_t>(ranges).drop_front(numParallel));
  return reduction;
}

gpu::LaunchOp buildRowReductionLaunch(RewriterBase &b, const RowReduction &reduction,
                                      int64_t threadsPerBlock, int64_t warpRowMax) {
  linalg::GenericOp op = reduction.op;
  Location loc = op.getLoc();
  Type element = reduction.neutral.getType();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned numParallel = op.getNumParallelLoops();
  ArrayRef<int64_t> rowExtents = ArrayRef<int64_t>(ranges).take_front(numParallel);
  ArrayRef<int64_t> reductionExtents = ArrayRef<int64_t>(ranges).drop_front(numParallel);

  // One warp per row (4 rows per block) or one block per row.
  bool warpPerRow = reduction.length <= warpRowMax;
  int64_t rowsPerBlock = warpPerRow ? std::min<int64_t>(4, reduction.rows) : 1;
  int64_t threads = warpPerRow ? kWarpSize : threadsPerBlock;
  int64_t numWarps = threads / kWarpSize;
  SmallVector<Type> workgroupMemory;
  if (!warpPerRow)
    workgroupMemory.push_back(MemRefType::get(
        {numWarps}, element, MemRefLayoutAttrInterface(),
        gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup)));
  gpu::LaunchOp launch =
      createLaunch(b, loc, llvm::divideCeil(reduction.rows, rowsPerBlock), threads, rowsPerBlock,
                   workgroupMemory);
  Value lane = launch.getThreadIds().x;
  Value row = b.create<arith::AddIOp>(
      loc, b.create<arith::MulIOp>(loc, launch.getBlockIds().x, indexConstant(b, loc, rowsPerBlock)),
      launch.getThreadIds().y);
  // Rows past the end belong to whole warps of the last block, which skip together.
  auto inRange = b.create<scf::IfOp>(
      loc, b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, row,
                                   indexConstant(b, loc, reduction.rows)),
      /*withElseRegion=*/false);
  b.setInsertionPointToStart(&inRange.getThenRegion().front());
  SmallVector<Value> rowIvs = delinearize(b, loc, row, rowExtents);

  // Each thread folds elements lane, lane + threads, ... of its row; with vector loads
  // (one reduction loop over contiguous rows), vectors of 4 at 4 * lane, 4 * (lane +
  // threads), ... into 4 partials that it then folds together.
  Value neutral = b.create<arith::ConstantOp>(loc, reduction.neutral);
  bool vectorized = reductionExtents.size() == 1 && hasVectorBody(op);
  int64_t width = vectorized ? kVectorWidth : 1;
  Value first = vectorized ? b.create<arith::MulIOp>(loc, lane, indexConstant(b, loc, width))
                           : lane;
  Value start = vectorized ? b.create<arith::ConstantOp>(
                                 loc, DenseElementsAttr::get(VectorBody::vectorOf(element),
                                                             reduction.neutral))
                           : neutral;
  auto loop = b.create<scf::ForOp>(loc, first, indexConstant(b, loc, reduction.length),
                                   indexConstant(b, loc, threads * width), ValueRange{start});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    SmallVector<Value> ivs = rowIvs;
    llvm::append_range(ivs, delinearize(b, loc, loop.getInductionVar(), reductionExtents));
    Value acc = loop.getRegionIterArgs()[0];
    b.create<scf::YieldOp>(loc, vectorized ? VectorBody(b, loc, op).compute(ivs, acc).front()
                                           : cloneBodyAt(b, loc, op, ivs, acc));
  }
  Value partial = loop.getResult(0);
  if (vectorized) {
    Value folded = b.create<vector::ExtractOp>(loc, partial, int64_t(0));
    for (int64_t i = 1; i < width; ++i)
      folded = combine(b, reduction.combiner, folded,
                       b.create<vector::ExtractOp>(loc, partial, i));
    partial = folded;
  }
  Value total = warpReduce(b, loc, reduction.combiner, partial);

  if (!warpPerRow) {
    // Warp partials through workgroup memory; every warp then reduces them again.
    Value partials = launch.getWorkgroupAttributions().front();
    Value warpSize = indexConstant(b, loc, kWarpSize);
    Value laneInWarp = b.create<arith::RemUIOp>(loc, lane, warpSize);
    Value isFirstLane = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, laneInWarp,
                                                indexConstant(b, loc, 0));
    auto store = b.create<scf::IfOp>(loc, isFirstLane, /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&store.getThenRegion().front());
      b.create<memref::StoreOp>(loc, total, partials,
                                ValueRange{b.create<arith::DivUIOp>(loc, lane, warpSize)});
    }
    b.create<gpu::BarrierOp>(loc);
    Value slot = b.create<arith::MinUIOp>(loc, laneInWarp, indexConstant(b, loc, numWarps - 1));
    Value partial = b.create<memref::LoadOp>(loc, partials, ValueRange{slot});
    Value hasPartial = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, laneInWarp,
                                               indexConstant(b, loc, numWarps));
    total = warpReduce(b, loc, reduction.combiner,
                       b.create<arith::SelectOp>(loc, hasPartial, partial, neutral));
  }

  // Thread 0 of the row folds the total into the output's initial value.
  Value isFirst = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, lane,
                                          indexConstant(b, loc, 0));
  auto write = b.create<scf::IfOp>(loc, isFirst, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&write.getThenRegion().front());
  SmallVector<Value> ivs = rowIvs;
  ivs.append(reductionExtents.size(), indexConstant(b, loc, 0)); // unused by the output map
  OpOperand *init = op.getDpsInitOperand(0);
  SmallVector<Value> outIndices = applyMap(b, loc, op.getMatchingIndexingMap(init), ivs);
  Value initial = b.create<memref::LoadOp>(loc, init->get(), outIndices);
  b.create<memref::StoreOp>(loc, combine(b, reduction.combiner, initial, total), init->get(),
                            outIndices);
  return launch;
}

gpu::LaunchOp buildParallelLaunch(RewriterBase &b, scf::ParallelOp loop,
                                  int64_t threadsPerBlock) {
  Location loc = loop.getLoc();
  SmallVector<int64_t> extents;
  for (auto [lower, upper, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    std::optional<int64_t> lb = getConstantIntValue(lower), ub = getConstantIntValue(upper),
                           st = getConstantIntValue(step);
    if (!lb || !ub || !st || *lb != 0 || *st != 1) {
      loop.emitOpError("GPU mapping needs static loop bounds from 0 with step 1");
      return nullptr;
    }
    extents.push_back(*ub);
  }
  b.setInsertionPoint(loop);
  Value id;
  gpu::LaunchOp launch = launchThreads(b, loc, product(extents), threadsPerBlock, id);
  IRMapping map;
  map.map(loop.getInductionVars(), delinearize(b, loc, id, extents));
  for (Operation &op : loop.getBody()->without_terminator())
    b.clone(op, map);
  b.eraseOp(loop);
  return launch;
}

bool canVectorizeElementwise(linalg::GenericOp op) {
  if (op.getNumReductionLoops() != 0 || !hasVectorBody(op))
    return false;
  // Outputs are written as whole vectors.
  return llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
    return laneAccess(op, init) == LaneAccess::kContiguous;
  });
}

gpu::LaunchOp buildVectorElementwiseLaunch(RewriterBase &b, linalg::GenericOp op,
                                           int64_t threadsPerBlock) {
  Location loc = op.getLoc();
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  extents.back() /= kVectorWidth;
  Value id;
  gpu::LaunchOp launch = launchThreads(b, loc, product(extents), threadsPerBlock, id);
  SmallVector<Value> ivs = delinearize(b, loc, id, extents);
  ivs.back() = b.create<arith::MulIOp>(loc, ivs.back(), indexConstant(b, loc, kVectorWidth));
  VectorBody vectors(b, loc, op);
  for (auto [init, value] : llvm::zip(op.getDpsInitsMutable(), vectors.compute(ivs)))
    vectors.write(init, ivs, value);
  return launch;
}

} // namespace loupe
