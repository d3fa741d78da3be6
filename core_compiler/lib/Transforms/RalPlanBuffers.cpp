//===- RalPlanBuffers.cpp - One arena per execution, offsets planned at compile time ----===//
//
// See Passes.td. Lifetimes are positions in the entry block; placement is greedy by size
// (Pisarchyk and Lee 2020, TensorFlow Lite's ArenaPlanner).
//
//===----------------------------------------------------------------------===//
#include "loupe/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/Support/MathExtras.h"

namespace loupe {
#define GEN_PASS_DEF_RALPLANBUFFERS
#include "loupe/Transforms/Passes.h.inc"
} // namespace loupe

using namespace mlir;

namespace {
/// Every buffer starts on a cache line (and any SIMD width), as ral_alloc's do.
constexpr int64_t kAlignment = 64;

/// A buffer of the entry block: bytes and the block positions it is live over (inclusive).
struct Buffer {
  memref::AllocOp alloc;
  memref::DeallocOp dealloc;
  int64_t bytes = 0;
  int64_t first = 0, last = 0;
  int64_t offset = -1;
};

/// The top-level op of `block` holding `op`, or null when `op` is outside it.
Operation *topLevel(Operation *op, Block *block) {
  while (op && op->getBlock() != block)
    op = op->getParentOp();
  return op;
}

/// Bytes of a static memref of integers or floats (i1 takes a byte, as LLVM stores it).
std::optional<int64_t> byteSize(MemRefType type) {
  if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
      !type.getElementType().isIntOrFloat() || type.getMemorySpace())
    return std::nullopt;
  int64_t elementBytes = llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  return type.getNumElements() * elementBytes;
}

/// The buffer of `alloc` when it can live in the arena: static, freed by one memref.dealloc
/// of its own in `block`, every view of it used only inside `block`'s ops. Its lifetime ends
/// at the last top-level op that uses it or a view (an op taking it and returning a memref).
std::optional<Buffer> lifetime(memref::AllocOp alloc, Block *block,
                               const DenseMap<Operation *, int64_t> &position) {
  std::optional<int64_t> bytes = byteSize(alloc.getType());
  if (!bytes || alloc->getBlock() != block)
    return std::nullopt;
  Buffer buffer{alloc, nullptr, std::max<int64_t>(*bytes, 1), position.lookup(alloc), 0, -1};
  buffer.last = buffer.first;
  SmallVector<Value> aliases{alloc.getResult()};
  DenseSet<Value> seen{alloc.getResult()};
  while (!aliases.empty()) {
    Value value = aliases.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (auto dealloc = dyn_cast<memref::DeallocOp>(user)) {
        if (value != alloc.getResult() || dealloc->getBlock() != block || buffer.dealloc)
          return std::nullopt;
        buffer.dealloc = dealloc;
        continue;
      }
      // A buffer leaving its function or region (returned, yielded, passed to a call whose
      // callee may keep it) has no lifetime this block can see.
      if (user->hasTrait<OpTrait::IsTerminator>() || isa<CallOpInterface>(user))
        return std::nullopt;
      Operation *top = topLevel(user, block);
      if (!top)
        return std::nullopt;
      buffer.last = std::max(buffer.last, position.lookup(top));
      for (Value result : user->getResults())
        if (isa<BaseMemRefType>(result.getType()) && seen.insert(result).second)
          aliases.push_back(result);
    }
  }
  if (!buffer.dealloc)
    return std::nullopt;
  return buffer;
}

/// Greedy by size: largest first, each at the lowest offset of the smallest gap between the
/// placed buffers whose lifetimes overlap its own (else after the last of them). Returns the
/// arena's size.
int64_t place(MutableArrayRef<Buffer> buffers) {
  SmallVector<Buffer *> order;
  for (Buffer &b : buffers)
    order.push_back(&b);
  llvm::stable_sort(order, [](Buffer *a, Buffer *b) { return a->bytes > b->bytes; });
  SmallVector<Buffer *> placed;
  int64_t arena = 0;
  for (Buffer *b : order) {
    int64_t size = static_cast<int64_t>(llvm::alignTo(b->bytes, kAlignment));
    SmallVector<Buffer *> live;
    for (Buffer *p : placed)
      if (p->first <= b->last && b->first <= p->last)
        live.push_back(p);
    llvm::sort(live, [](Buffer *x, Buffer *y) { return x->offset < y->offset; });
    int64_t best = -1, bestGap = INT64_MAX, end = 0;
    for (Buffer *p : live) {
      int64_t gap = p->offset - end;
      if (gap >= size && gap < bestGap) {
        best = end;
        bestGap = gap;
      }
      end = std::max<int64_t>(end, p->offset + llvm::alignTo(p->bytes, kAlignment));
    }
    b->offset = best >= 0 ? best : end;
    arena = std::max(arena, b->offset + size);
    placed.push_back(b);
  }
  return arena;
}

struct RalPlanBuffersPass : loupe::impl::RalPlanBuffersBase<RalPlanBuffersPass> {
  void runOnOperation() override {
    // The entry (ral-inject-execution-context marks it with its inputs); kernels take the
    // context too, but their buffers are per workgroup.
    getOperation().walk([&](func::FuncOp func) {
      if (!func.isExternal() && func->hasAttr("ral.inputs"))
        plan(func);
    });
  }

  void plan(func::FuncOp func) {
    Block *block = &func.getBody().front();
    DenseMap<Operation *, int64_t> position;
    for (auto [i, op] : llvm::enumerate(block->getOperations()))
      position[&op] = static_cast<int64_t>(i);

    SmallVector<Buffer> buffers;
    int64_t unplanned = 0, unplannedBytes = 0;
    func.walk([&](memref::AllocOp alloc) {
      if (std::optional<Buffer> buffer = lifetime(alloc, block, position)) {
        buffers.push_back(*buffer);
        return;
      }
      ++unplanned;
      unplannedBytes += byteSize(alloc.getType()).value_or(0);
    });
    int64_t planned = 0;
    for (const Buffer &b : buffers)
      planned += b.bytes;
    int64_t arenaBytes = buffers.empty() ? 0 : place(buffers);

    Builder attrs(func.getContext());
    func->setAttr("loupe.buffer_plan",
                  attrs.getDictionaryAttr({
                      attrs.getNamedAttr("arena_bytes", attrs.getI64IntegerAttr(arenaBytes)),
                      attrs.getNamedAttr("planned_buffers",
                                         attrs.getI64IntegerAttr(buffers.size())),
                      attrs.getNamedAttr("planned_bytes", attrs.getI64IntegerAttr(planned)),
                      attrs.getNamedAttr("unplanned_buffers", attrs.getI64IntegerAttr(unplanned)),
                      attrs.getNamedAttr("unplanned_bytes",
                                         attrs.getI64IntegerAttr(unplannedBytes)),
                  }));
    if (buffers.empty())
      return;

    OpBuilder b = OpBuilder::atBlockBegin(block);
    Location loc = func.getLoc();
    auto arenaType = MemRefType::get({arenaBytes}, b.getI8Type());
    Value arena = b.create<memref::AllocOp>(loc, arenaType, b.getI64IntegerAttr(kAlignment));
    for (Buffer &buffer : buffers) {
      b.setInsertionPoint(buffer.alloc);
      Value offset = b.create<arith::ConstantIndexOp>(buffer.alloc.getLoc(), buffer.offset);
      Value view = b.create<memref::ViewOp>(buffer.alloc.getLoc(), buffer.alloc.getType(), arena,
                                            offset, ValueRange{});
      buffer.alloc.getResult().replaceAllUsesWith(view);
      buffer.dealloc.erase();
      buffer.alloc.erase();
    }
    b.setInsertionPoint(block->getTerminator());
    b.create<memref::DeallocOp>(loc, arena);
  }
};
} // namespace
