//===- VectorizeCpu.cpp - Code-generated CPU kernels in MLIR's vector dialect -----===//
//
// See Passes.td. After IREE's LLVMCPU pipeline (compiler/src/iree/compiler/Codegen/LLVMCPU,
// "CPUDoubleTilingExpert"): tile each op to one vector along a unit-stride loop, vectorise
// the tile with upstream `linalg::vectorize`, keep accumulators in registers across the
// reduction loops (`linalg::hoistRedundantVectorTransfers`), split row reductions into
// several vector accumulators (upstream `splitReduction`'s idea, on buffers), and lower to
// 1-D vector ops that LLVM maps onto AVX-512 / AVX2 registers.
//
//===----------------------------------------------------------------------===//
#include "loupe/Transforms/Passes.h"
#include "CpuMemory.h"
#include "DispatchTable.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/bit.h"

#include <map>

namespace loupe {
#define GEN_PASS_DEF_VECTORIZECPU
#include "loupe/Transforms/Passes.h.inc"
} // namespace loupe

using namespace mlir;

/// f32 lanes of an AVX-512 register (two AVX2 registers), and of an AVX2 one.
static constexpr int64_t kLanes = 16;
static constexpr int64_t kHalfLanes = 8;
/// Registers per tile at most: an accumulating tile is this many independent chains, which
/// hide the latency of the combining op (4 cycles on two ports, Skylake-X and later).
static constexpr int64_t kAccumulators = 4;
/// Elements of the widest tile: kAccumulators AVX-512 registers of f32.
static constexpr int64_t kMaxTileLanes = kLanes * kAccumulators;

namespace {
/// How one linalg op is tiled, or why it stays scalar loops.
struct TilePlan {
  std::optional<unsigned> vectorDim; // the loop whose tile is one vector
  int64_t width = 0;                 // elements of that vector
  bool rowReduction = false;         // the vector dim is the op's innermost reduction
  int64_t splitAt = 0;               // > 0: no width fits the vector dim; split it here
  std::string refusal;               // set: scalar loops, and why
};
} // namespace

/// A type as MLIR prints it.
static std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// The vector type a plan's tile computes in, as text (`vector<16xf32>`).
static std::string vectorText(int64_t width, Type element) {
  return typeText(VectorType::get({width}, element));
}

/// The stride of `type`'s last dim is 1 (identity layouts and row subviews).
static bool unitInnerStride(MemRefType type) {
  if (type.getRank() == 0)
    return true;
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(getStridesAndOffset(type, strides, offset)) && strides.back() == 1;
}

/// Empty when every memref operand reads loop `dim` as its last, unit-stride index or not
/// at all (a broadcast): a tile along `dim` is then one contiguous vector per operand.
static std::string contiguousAlong(linalg::LinalgOp op, unsigned dim) {
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type)
      continue; // a scalar (linalg.fill's value)
    AffineMap map = op.getMatchingIndexingMap(&operand);
    for (auto [i, expr] : llvm::enumerate(map.getResults())) {
      if (!expr.isFunctionOfDim(dim))
        continue;
      if (i + 1 != map.getNumResults() || !isa<AffineDimExpr>(expr) || !unitInnerStride(type))
        return "operand " + std::to_string(operand.getOperandNumber()) +
               " is not read along its rows by loop " + std::to_string(dim);
    }
  }
  return "";
}

/// The combining op of a one-output reduction (`out = combine(f(ins), out)`).
static Operation *combinerOf(linalg::LinalgOp op) {
  SmallVector<Operation *> combiners;
  if (op.getNumDpsInits() != 1 || !matchReduction(op.getRegionOutputArgs(), 0, combiners) ||
      combiners.size() != 1 || !arith::getNeutralElement(combiners.front()))
    return nullptr;
  return combiners.front();
}

/// Elements of one tile along a dim of `extent`, at most 64 (four AVX-512 registers of f32:
/// four independent accumulator chains); 0 when the dim is first split (splitPoint). An
/// elementwise op takes the whole dim up to 64, else the largest multiple of 8 that divides
/// it (1000 -> 40). An op that accumulates in its tile (a contraction, a reduction) takes
/// powers of two only: LLVM legalises other lengths by widening them, which turned a
/// loop-carried vector<48xf32> accumulator into element inserts on every k step (a 960x240
/// GEMV took 36 us, 6x oneDNN). Split, an elementwise op pays a launch per part (a
/// squeeze-and-excitation Mul over 28x28x120 took 17 us on two threads instead of 6).
static int64_t vectorWidth(int64_t extent, bool accumulates) {
  if (accumulates && extent <= kMaxTileLanes)
    return llvm::isPowerOf2_64(extent) ? extent : 0;
  if (accumulates)
    return extent % kMaxTileLanes == 0 ? kMaxTileLanes : 0;
  if (extent <= kMaxTileLanes)
    return extent;
  for (int64_t width = kMaxTileLanes; width >= kHalfLanes; width -= kHalfLanes)
    if (extent % width == 0)
      return width;
  return 0;
}

/// Where a dim no width fits is split: after its multiples of 64, or below 64 after its
/// largest power of two (an accumulating op's 1000 -> 960 + 40 -> 960 + 32 + 8; an
/// elementwise op's 197 -> 192 + 5).
static int64_t splitPoint(int64_t extent) {
  return extent > kMaxTileLanes ? extent - extent % kMaxTileLanes
                                : int64_t(llvm::bit_floor(uint64_t(extent)));
}

/// The tile plan of `op`: the vector dim is the last parallel loop when every operand reads
/// it contiguously (elementwise ops, broadcasts, column reductions, matrix-vector loops),
/// else the innermost loop when it is the op's one reduction and read contiguously (rows).
static TilePlan planTiles(linalg::LinalgOp op) {
  TilePlan plan;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ranges.empty())
    return plan.refusal = "no loops", plan;
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return plan.refusal = "dynamic loop bounds", plan;
  if (op.hasIndexSemantics())
    return plan.refusal = "its body reads the loop indices", plan;
  if (!llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isProjectedPermutation(/*allowZeroInResults=*/true); }))
    return plan.refusal = "it reads through windows (convolution or pooling maps like d1 * 2 + d4)",
           plan;
  for (Operation &inner : op.getBlock()->without_terminator())
    if (!isa<arith::ArithDialect, math::MathDialect>(inner.getDialect()))
      return plan.refusal = "its body has " + inner.getName().getStringRef().str(), plan;
  for (Value operand : op->getOperands()) {
    Type element = getElementTypeOrSelf(operand.getType());
    // i1 vectors are bit-packed in memory, i1 memrefs a byte per element.
    if (!element.isF32() && !element.isF64() &&
        !(element.isSignlessInteger() && element.getIntOrFloatBitWidth() >= 8))
      return plan.refusal = "no vector rule for " + typeText(element), plan;
  }

  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned last = ranges.size() - 1;
  auto lastParallel = llvm::find(llvm::reverse(iterators), utils::IteratorType::parallel);
  if (lastParallel != iterators.rend()) {
    unsigned dim = last - std::distance(iterators.rbegin(), lastParallel);
    plan.refusal = contiguousAlong(op, dim);
    if (plan.refusal.empty())
      plan.vectorDim = dim;
  }
  if (!plan.vectorDim && iterators[last] == utils::IteratorType::reduction &&
      op.getNumReductionLoops() == 1 && combinerOf(op) && contiguousAlong(op, last).empty()) {
    plan.vectorDim = last;
    plan.rowReduction = true;
    plan.refusal.clear();
  }
  if (!plan.vectorDim) {
    if (plan.refusal.empty())
      plan.refusal = "no loop is read contiguously by every operand";
    return plan;
  }
  int64_t extent = ranges[*plan.vectorDim];
  plan.width = vectorWidth(extent, op.getNumReductionLoops() > 0);
  if (plan.width == 0)
    plan.splitAt = splitPoint(extent);
  return plan;
}

/// Reads a constant 0 in a generic's output map as a loop of extent 1 that the map does not
/// use (`(d0, d1) -> (0, d1)` as `(d0, d1) -> (d0, d1)` when d0 runs once): the same elements,
/// and a projected permutation, the only output map upstream linalg::vectorize takes.
/// Unit-dim folding leaves such maps, and loupe-fuse-clusters' fused LSTM cell (c and h in
/// one generic) carries one on its c output: scalar loops, 1.4 us a step, otherwise.
static void unitLoopsForZeroIndices(linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic)
    return;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (OpOperand &init : op.getDpsInitsMutable()) {
    AffineMap &map = maps[init.getOperandNumber()];
    SmallVector<AffineExpr> results(map.getResults());
    for (AffineExpr &result : results) {
      auto zero = dyn_cast<AffineConstantExpr>(result);
      auto unitLoops = llvm::seq<unsigned>(0, ranges.size());
      auto unused = llvm::find_if(unitLoops, [&](unsigned d) {
        return ranges[d] == 1 &&
               llvm::none_of(results, [&](AffineExpr e) { return e.isFunctionOfDim(d); });
      });
      if (zero && zero.getValue() == 0 && unused != unitLoops.end())
        result = getAffineDimExpr(*unused, op.getContext());
    }
    map = AffineMap::get(map.getNumDims(), 0, results, op.getContext());
  }
  if (maps != op.getIndexingMapsArray())
    generic.setIndexingMapsAttr(Builder(op.getContext()).getAffineMapArrayAttr(maps));
}

/// `op` as two ops over [0, at) and [at, extent) of loop `dim`, in that order. Every operand
/// reads `dim` as its last index or not at all (contiguousAlong), so each part reads subviews
/// of the same buffers; a reduction's second part continues from the first's result.
static FailureOr<std::pair<linalg::LinalgOp, linalg::LinalgOp>>
splitAlong(RewriterBase &rewriter, linalg::LinalgOp op, unsigned dim, int64_t at) {
  int64_t extent = op.getStaticLoopRanges()[dim];
  for (Value operand : op->getOperands())
    if (auto type = dyn_cast<MemRefType>(operand.getType()); type && !type.hasStaticShape())
      return failure();
  rewriter.setInsertionPoint(op);
  auto part = [&](int64_t offset, int64_t size) {
    SmallVector<Value> operands;
    for (OpOperand &operand : op->getOpOperands()) {
      Value value = operand.get();
      auto type = dyn_cast<MemRefType>(value.getType());
      if (type && op.getMatchingIndexingMap(&operand).isFunctionOfDim(dim)) {
        SmallVector<OpFoldResult> offsets(type.getRank(), rewriter.getIndexAttr(0));
        SmallVector<OpFoldResult> strides(type.getRank(), rewriter.getIndexAttr(1));
        SmallVector<OpFoldResult> sizes = getAsIndexOpFoldResult(op.getContext(), type.getShape());
        offsets.back() = rewriter.getIndexAttr(offset);
        sizes.back() = rewriter.getIndexAttr(size);
        value = rewriter.create<memref::SubViewOp>(op.getLoc(), value, offsets, sizes, strides);
      }
      operands.push_back(value);
    }
    Operation *clone = rewriter.clone(*op);
    clone->setOperands(operands);
    return cast<linalg::LinalgOp>(clone);
  };
  std::pair<linalg::LinalgOp, linalg::LinalgOp> parts = {part(0, at), part(at, extent - at)};
  rewriter.eraseOp(op);
  return parts;
}

/// Tiles `op` to one vector along the plan's dim, unit tiles elsewhere, reduction loops
/// innermost (so an accumulator tile stays put across them). Returns the tile op, which
/// replaces `op`; `op` itself when nothing needs a loop.
static FailureOr<linalg::LinalgOp> tileToVectors(RewriterBase &rewriter, linalg::LinalgOp op,
                                                 unsigned vectorDim, int64_t width) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<int64_t> sizes(ranges.size(), 0);
  for (auto [d, extent] : llvm::enumerate(ranges))
    if (d == vectorDim ? extent != width : extent != 1)
      sizes[d] = d == vectorDim ? width : 1;
  if (llvm::all_of(sizes, [](int64_t s) { return s == 0; }))
    return op;
  SmallVector<unsigned> order;
  for (auto kind : {utils::IteratorType::parallel, utils::IteratorType::reduction})
    for (auto [d, iterator] : llvm::enumerate(op.getIteratorTypesArray()))
      if (iterator == kind)
        order.push_back(d);
  linalg::LinalgTilingOptions options;
  options.setTileSizes(sizes).setInterchange(order).setLoopType(
      linalg::LinalgTilingLoopType::ParallelLoops);
  FailureOr<linalg::TiledLinalgOp> tiled = linalg::tileLinalgOp(rewriter, op, options);
  if (failed(tiled))
    return failure();
  rewriter.eraseOp(op);
  return tiled->op;
}

/// Rewrites a row reduction `out = combine(f(x[.., r]), out)` (loops: parallel ones of extent
/// 1, then the row) as three ops on a scratch buffer `acc` of `width` lanes: fill `acc` with the
/// combiner's neutral element; `acc[l] = combine(f(x[.., k, l]), acc[l])` over the row seen as [r /
/// width, width] (an elementwise update per vector: `width` independent partial results); `out =
/// combine(acc[l], out)` over the lanes. Float sums change order as with
/// loupe-reassociate-reductions' `reassoc`.
static LogicalResult splitRowReduction(RewriterBase &rewriter, linalg::LinalgOp op, int64_t width) {
  Location loc = op.getLoc();
  Operation *combiner = combinerOf(op);
  unsigned loops = op.getNumLoops(), row = loops - 1;
  int64_t extent = op.getStaticLoopRanges()[row];
  OpOperand *init = op.getDpsInitOperand(0);
  Type element = getElementTypeOrSelf(init->get().getType());
  MLIRContext *context = op.getContext();
  rewriter.setInsertionPoint(op);

  // One lane vector per row: [1, ..., 1, width] over the op's (unit) parallel loops.
  SmallVector<int64_t> accShape(row, 1);
  accShape.push_back(width);
  auto accType = MemRefType::get(accShape, element);
  SmallVector<AffineExpr> rowDims;
  for (unsigned d = 0; d < row; ++d)
    rowDims.push_back(getAffineDimExpr(d, context));
  Value acc = rewriter.create<memref::AllocOp>(loc, accType, rewriter.getI64IntegerAttr(64));
  Value neutral = rewriter.create<arith::ConstantOp>(loc, *arith::getNeutralElement(combiner));
  rewriter.create<linalg::FillOp>(loc, neutral, acc);

  // Loops of the lane update: the op's loops with the row split into (chunk, lane).
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    SmallVector<AffineExpr> results(map.getResults());
    Value value = input->get();
    if (map.isFunctionOfDim(row)) { // contiguousAlong: the row is the last index
      auto type = cast<MemRefType>(value.getType());
      SmallVector<int64_t> shape(type.getShape());
      shape.back() = extent / width;
      shape.push_back(width);
      SmallVector<ReassociationIndices> groups;
      for (int64_t i = 0; i + 1 < type.getRank(); ++i)
        groups.push_back({i});
      groups.push_back({type.getRank() - 1, type.getRank()});
      value = rewriter.create<memref::ExpandShapeOp>(loc, shape, value, groups);
      results.push_back(getAffineDimExpr(loops, context));
    }
    inputs.push_back(value);
    maps.push_back(AffineMap::get(loops + 1, 0, results, context));
  }
  SmallVector<AffineExpr> accIndex = rowDims;
  accIndex.push_back(getAffineDimExpr(loops, context));
  maps.push_back(AffineMap::get(loops + 1, 0, accIndex, context));
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  iterators.push_back(utils::IteratorType::parallel);
  auto update = rewriter.create<linalg::GenericOp>(loc, TypeRange{}, inputs, ValueRange{acc}, maps,
                                                   iterators);
  rewriter.cloneRegionBefore(op->getRegion(0), update.getRegion(), update.getRegion().begin());

  // The lanes into the op's output: a reduction over the one lane loop.
  accIndex.back() = getAffineDimExpr(row, context);
  SmallVector<AffineMap> finalMaps = {AffineMap::get(loops, 0, accIndex, context),
                                      op.getMatchingIndexingMap(init)};
  rewriter.create<linalg::GenericOp>(
      loc, TypeRange{}, ValueRange{acc}, ValueRange{init->get()}, finalMaps,
      op.getIteratorTypesArray(), [&](OpBuilder &b, Location at, ValueRange args) {
        OperationState state(at, combiner->getName().getStringRef(), {args[0], args[1]}, {element},
                             combiner->getAttrs());
        b.create<linalg::YieldOp>(at, b.create(state)->getResult(0));
      });
  rewriter.create<memref::DeallocOp>(loc, acc);
  rewriter.eraseOp(op);
  return success();
}

/// A row reduction: one row per tile, the row split into `plan.width` lanes, and the three
/// new ops vectorised whole (the fill, the lane combine) or per chunk of the row (the update).
static LogicalResult vectorizeRowReduction(RewriterBase &rewriter, linalg::LinalgOp op,
                                           const TilePlan &plan) {
  FailureOr<linalg::LinalgOp> row =
      tileToVectors(rewriter, op, *plan.vectorDim, op.getStaticLoopRanges()[*plan.vectorDim]);
  if (failed(row))
    return failure();
  Block *block = (*row)->getBlock();
  Operation *before = (*row)->getPrevNode(), *after = (*row)->getNextNode();
  if (failed(splitRowReduction(rewriter, *row, plan.width)))
    return failure();
  SmallVector<linalg::LinalgOp> parts;
  for (Operation &part :
       llvm::make_range(before ? std::next(before->getIterator()) : block->begin(),
                        after ? after->getIterator() : block->end()))
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(part))
      parts.push_back(linalgOp);
  for (linalg::LinalgOp part : parts) {
    TilePlan lanes = planTiles(part);
    FailureOr<linalg::LinalgOp> tile = part;
    if (lanes.vectorDim)
      tile = tileToVectors(rewriter, part, *lanes.vectorDim,
                           part.getStaticLoopRanges()[*lanes.vectorDim]);
    if (failed(tile) || failed(linalg::vectorize(rewriter, *tile)))
      return failure();
  }
  return success();
}

namespace {
/// A transfer read into a vector with unit dims, as a read of the other dims (a scalar load
/// and a broadcast when every other dim is a broadcast) shape-cast back. A contraction tile
/// (a matmul's one k step over 64 columns) reads A and B as vector<64x1>: without this, its
/// broadcast and transpose lower element by element, 64 moves per FMA.
struct DropTransferReadUnitDims : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    VectorType type = read.getVectorType();
    if (type.getRank() < 2 || read.getMask() || type.isScalable() ||
        !isa<MemRefType>(read.getSource().getType()) ||
        llvm::any_of(read.getInBoundsValues(), [](bool inBounds) { return !inBounds; }))
      return failure();
    AffineMap map = read.getPermutationMap();
    SmallVector<int64_t> shape;
    SmallVector<AffineExpr> results;
    bool onlyBroadcasts = true;
    for (auto [size, expr] : llvm::zip(type.getShape(), map.getResults())) {
      if (size == 1)
        continue;
      shape.push_back(size);
      results.push_back(expr);
      onlyBroadcasts &= isa<AffineConstantExpr>(expr);
    }
    if (shape.size() == static_cast<size_t>(type.getRank()))
      return failure();
    Location loc = read.getLoc();
    Value narrow;
    if (shape.empty() || onlyBroadcasts) {
      Value element = rewriter.create<memref::LoadOp>(loc, read.getSource(), read.getIndices());
      narrow = rewriter.create<vector::BroadcastOp>(
          loc, VectorType::get(shape.empty() ? SmallVector<int64_t>{1} : shape,
                               type.getElementType()),
          element);
    } else {
      auto narrowType = VectorType::get(shape, type.getElementType());
      narrow = rewriter.create<vector::TransferReadOp>(
          loc, narrowType, read.getSource(), read.getIndices(),
          AffineMap::get(map.getNumDims(), 0, results, read.getContext()), read.getPadding(),
          /*mask=*/Value(), rewriter.getBoolArrayAttr(SmallVector<bool>(shape.size(), true)));
    }
    rewriter.replaceOpWithNewOp<vector::ShapeCastOp>(read, type, narrow);
    return success();
  }
};

/// A broadcast that only adds leading unit dims (vector<64x1> to vector<1x1x64x1>) is a shape
/// cast, which folds with its neighbours.
struct BroadcastOfLeadingUnitDims : OpRewritePattern<vector::BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::BroadcastOp broadcast,
                                PatternRewriter &rewriter) const override {
    auto source = dyn_cast<VectorType>(broadcast.getSourceType());
    VectorType result = broadcast.getResultVectorType();
    if (!source || source.getNumElements() != result.getNumElements() ||
        !result.getShape().take_back(source.getRank()).equals(source.getShape()))
      return failure();
    rewriter.replaceOpWithNewOp<vector::ShapeCastOp>(broadcast, result, broadcast.getSource());
    return success();
  }
};
} // namespace

namespace {
/// What the ops of one dispatch became, each text once.
struct Outcome {
  SmallVector<std::string> vectors, scalar;
  bool prefetchesNextRow = false, prefetchesAhead = false;
  void add(SmallVector<std::string> &list, std::string text) {
    if (!llvm::is_contained(list, text))
      list.push_back(std::move(text));
  }
  /// "vectorised: vector<16xf32>, ...; scalar loops for linalg.transpose: ...; next row
  /// prefetched into L1"
  std::string text() const {
    SmallVector<std::string> parts;
    if (!vectors.empty())
      parts.push_back("vectorised: " + llvm::join(vectors, ", "));
    parts.append(scalar.begin(), scalar.end());
    if (prefetchesNextRow)
      parts.push_back("next row prefetched into L1");
    if (prefetchesAhead)
      parts.push_back("loads prefetched " + std::to_string(loupe::kPrefetchDistanceBytes / 1024) +
                      " KiB ahead");
    return llvm::join(parts, "; ");
  }
};
} // namespace

/// `memref.prefetch`es (read, into L1) of the cache lines of `load`'s vector at `indices`,
/// its elements `elementBytes` each.
static void prefetchLines(OpBuilder &b, vector::LoadOp load, ValueRange indices,
                          int64_t elementBytes) {
  Location loc = load.getLoc();
  SmallVector<Value> at(indices);
  Value first = at.back();
  for (int64_t line = 0; line < load.getVectorType().getNumElements() * elementBytes;
       line += loupe::kCacheLineBytes) {
    at.back() = line == 0 ? first
                          : b.create<arith::AddIOp>(
                                loc, first,
                                b.create<arith::ConstantIndexOp>(loc, line / elementBytes));
    b.create<memref::PrefetchOp>(loc, load.getBase(), at, /*isWrite=*/false,
                                 /*localityHint=*/3, /*isDataCache=*/true);
  }
}

/// `min(index + offset, extent - 1)`: a prefetch address inside the buffer.
static Value clampedAhead(OpBuilder &b, Location loc, Value index, int64_t offset,
                          int64_t extent) {
  return b.create<arith::MinUIOp>(
      loc, b.create<arith::AddIOp>(loc, index, b.create<arith::ConstantIndexOp>(loc, offset)),
      b.create<arith::ConstantIndexOp>(loc, extent - 1));
}

/// `value` is an induction variable of a loop of type `Loop`.
template <typename Loop>
static bool isInductionOf(Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  return arg && isa<Loop>(arg.getOwner()->getParentOp());
}

/// Software prefetches for loads the hardware prefetcher serves late, the dispatch's outcome
/// noting them. Both kinds put memory reads under computation that the hardware prefetcher,
/// which starts from the loads themselves, leaves waiting:
/// - next row: in a kStitch row loop (`scf.forall` over rows), every vector load of row `r`
///   of a 2-D buffer also prefetches the same lines of row `r + 1` (the last row itself). A
///   stitch kernel reads its row from memory once for a reduction, then computes from L1
///   (softmax's exp, LayerNorm's normalisation).
/// - ahead: in a streaming elementwise loop (`scf.parallel` over a 1-D buffer of at least
///   kMinPrefetchedStreamBytes, as loupe-linearize-elementwise leaves it), every vector load
///   also prefetches the lines kPrefetchDistanceBytes ahead. Workload b (tanh, exp and a
///   sigmoid per element of two 64 MiB inputs) computes long enough per line.
static void insertPrefetches(func::FuncOp func, std::map<int64_t, Outcome> &outcomes) {
  func.walk([&](vector::LoadOp load) {
    MemRefType type = load.getMemRefType();
    std::optional<int64_t> bytes = loupe::staticBytes(type);
    int64_t elementBytes = type.getElementTypeBitWidth() / 8; // 0: bit-packed, no prefetch
    if (type.getRank() == 0 || type.getRank() > 2 || !bytes || elementBytes == 0)
      return;
    Value first = load.getIndices()[0];
    bool nextRow = type.getRank() == 2 && isInductionOf<scf::ForallOp>(first);
    bool ahead = type.getRank() == 1 && *bytes >= loupe::kMinPrefetchedStreamBytes &&
                 isInductionOf<scf::ParallelOp>(first);
    if (!nextRow && !ahead)
      return;
    OpBuilder b(load);
    SmallVector<Value> at(load.getIndices());
    at.front() = clampedAhead(b, load.getLoc(), first,
                              nextRow ? 1 : loupe::kPrefetchDistanceBytes / elementBytes,
                              type.getDimSize(0));
    prefetchLines(b, load, at, elementBytes);
    Outcome &outcome = outcomes[loupe::dispatchOf(load, func).value_or(-1)];
    (nextRow ? outcome.prefetchesNextRow : outcome.prefetchesAhead) = true;
  });
}

namespace {
struct VectorizeCpuPass : loupe::impl::VectorizeCpuBase<VectorizeCpuPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    IRRewriter rewriter(&getContext());
    // Per dispatch: the vectors its ops became and why others stayed scalar loops.
    std::map<int64_t, Outcome> outcomes;
    SmallVector<linalg::LinalgOp> ops;
    func.walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics())
        ops.push_back(op);
    });
    std::reverse(ops.begin(), ops.end()); // a stack, in program order
    while (!ops.empty()) {
      linalg::LinalgOp op = ops.pop_back_val();
      std::optional<int64_t> id = loupe::dispatchOf(op, func);
      Outcome &outcome = outcomes[id.value_or(-1)];
      std::string name = op->getName().getStringRef().str();
      unitLoopsForZeroIndices(op);
      TilePlan plan = planTiles(op);
      if (plan.vectorDim && failed(linalg::vectorizeOpPrecondition(op))) {
        plan.vectorDim.reset();
        plan.refusal = "upstream linalg::vectorize does not take it";
      }
      if (!plan.vectorDim) {
        outcome.add(outcome.scalar, "scalar loops for " + name + ": " + plan.refusal);
        continue;
      }
      if (plan.splitAt) {
        auto parts = splitAlong(rewriter, op, *plan.vectorDim, plan.splitAt);
        if (failed(parts)) {
          outcome.add(outcome.scalar,
                      "scalar loops for " + name + ": its vector dim has " +
                          std::to_string(op.getStaticLoopRanges()[*plan.vectorDim]) +
                          " elements and a dynamic shape");
          continue;
        }
        ops.push_back(parts->second);
        ops.push_back(parts->first);
        continue;
      }
      Type element = getElementTypeOrSelf(op.getDpsInitOperand(0)->get().getType());
      if (plan.rowReduction) {
        if (failed(vectorizeRowReduction(rewriter, op, plan))) {
          outcome.add(outcome.scalar,
                      "scalar loops for " + name + ": its row split did not vectorise");
          continue;
        }
        outcome.add(outcome.vectors,
                    "row reduction into " + vectorText(plan.width, element) + " partial results");
        continue;
      }
      FailureOr<linalg::LinalgOp> tile = tileToVectors(rewriter, op, *plan.vectorDim, plan.width);
      if (failed(tile) || failed(linalg::vectorize(rewriter, *tile))) {
        outcome.add(outcome.scalar,
                    "scalar loops for " + name + ": the vector tile did not vectorise");
        continue;
      }
      outcome.add(outcome.vectors, vectorText(plan.width, element));
    }

    // Views into the transfers (so an accumulator's read and write match and leave the
    // reduction loops), then 1-D vector ops for LLVM.
    {
      RewritePatternSet patterns(&getContext());
      memref::populateFoldMemRefAliasOpPatterns(patterns);
      vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
      vector::MultiDimReductionOp::getCanonicalizationPatterns(patterns, &getContext());
      vector::TransferReadOp::getCanonicalizationPatterns(patterns, &getContext());
      vector::TransferWriteOp::getCanonicalizationPatterns(patterns, &getContext());
      affine::AffineApplyOp::getCanonicalizationPatterns(patterns, &getContext());
      if (failed(applyPatternsAndFoldGreedily(func, std::move(patterns))))
        return signalPassFailure();
    }
    linalg::hoistRedundantVectorTransfers(func);
    // 1-D vectors: unit dims cast away, multi-reductions as inner reductions, transfers as
    // loads and stores, broadcasts and shape casts as element moves.
    auto lower = [&](llvm::function_ref<void(RewritePatternSet &)> populate) {
      RewritePatternSet patterns(&getContext());
      populate(patterns);
      return applyPatternsAndFoldGreedily(func, std::move(patterns));
    };
    if (failed(lower([](RewritePatternSet &patterns) {
          vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
          vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
          // A contraction tile's unit k dim (vector<64x1>): its reads and product as 1-D
          // vectors, the shape casts between them folded.
          patterns.add<DropTransferReadUnitDims>(patterns.getContext(), /*benefit=*/2);
          patterns.add<BroadcastOfLeadingUnitDims>(patterns.getContext());
          vector::ExtractOp::getCanonicalizationPatterns(patterns, patterns.getContext());
          vector::populateDropUnitDimWithShapeCastPatterns(patterns);
          vector::populateShapeCastFoldingPatterns(patterns);
        })))
      return signalPassFailure();
    if (failed(lower([](RewritePatternSet &patterns) {
          vector::populateVectorMultiReductionLoweringPatterns(
              patterns, vector::VectorMultiReductionLowering::InnerReduction);
        })))
      return signalPassFailure();
    if (failed(lower([](RewritePatternSet &patterns) {
          vector::populateVectorBroadcastLoweringPatterns(patterns);
          vector::populateVectorShapeCastLoweringPatterns(patterns);
          vector::populateVectorTransferLoweringPatterns(patterns, /*maxTransferRank=*/1);
          // Constant vectors folded (kernels then recompute them instead of taking them).
          vector::ExtractOp::getCanonicalizationPatterns(patterns, patterns.getContext());
          vector::BroadcastOp::getCanonicalizationPatterns(patterns, patterns.getContext());
          // What is left (a 1-D transfer across rows): element by element.
          populateVectorToSCFConversionPatterns(
              patterns, VectorTransferToSCFOptions().enableFullUnroll().setTargetRank(1));
        })))
      return signalPassFailure();
    // The lanes of a split row are summed as a tree: the order loupe-reassociate-reductions
    // already allowed (linalg::vectorize's multi-reductions carry no fast-math flags).
    func.walk([](vector::ReductionOp reduction) {
      if (isa<FloatType>(reduction.getType()))
        reduction.setFastmath(arith::FastMathFlags::reassoc);
    });
    insertPrefetches(func, outcomes);
    recordOutcomes(func, outcomes);
  }

  /// Each code-generated dispatch's `schedule` says how it was compiled (the CPU's
  /// counterpart of ral-outline-gpu-kernels' GPU thread mappings), after what an earlier
  /// pass wrote there (loupe-pack-gemv-weights' panels).
  static void recordOutcomes(func::FuncOp func, const std::map<int64_t, Outcome> &outcomes) {
    Builder b(func.getContext());
    loupe::updateDispatchRows(func, [&](int64_t id, NamedAttrList &fields) {
      auto found = outcomes.find(id);
      if (found == outcomes.end())
        return;
      auto before = dyn_cast_or_null<StringAttr>(fields.get("schedule"));
      fields.set("schedule", b.getStringAttr((before && !before.empty() ? before.str() + "; " : "") +
                                             found->second.text()));
    });
  }
};
} // namespace
