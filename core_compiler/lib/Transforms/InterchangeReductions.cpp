//===- InterchangeReductions.cpp - Column reductions distributed over their rows' parallel dims ---===//
//
// See Passes.td. The interchange itself is upstream linalg's (interchangeGenericOp).
//
//===----------------------------------------------------------------------===//
#include "loupe/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace loupe {
#define GEN_PASS_DEF_INTERCHANGEREDUCTIONS
#include "loupe/Transforms/Passes.h.inc"
} // namespace loupe

using namespace mlir;

namespace {
/// Distributed iterations below which a kernel leaves a core idle (ral-outline-cpu-kernels
/// distributes the leading parallel loops when they reach 64).
constexpr int64_t kWorkgroups = 64;
/// Elements of the innermost parallel dims kept inside the reduction: one AVX-512 f32 vector.
constexpr int64_t kVectorElements = 16;

/// The loop order that moves the outer trailing parallel dims of a `[parallel*, reduction+,
/// parallel+]` generic before its reductions, keeping the innermost ones (at least one vector)
/// inside; empty when the generic keeps its order.
SmallVector<unsigned> distributedOrder(linalg::GenericOp generic) {
  SmallVector<utils::IteratorType> iterators = generic.getIteratorTypesArray();
  SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
  unsigned n = iterators.size(), firstReduction = n, lastReduction = 0;
  for (unsigned i = 0; i < n; ++i)
    if (iterators[i] == utils::IteratorType::reduction) {
      firstReduction = std::min(firstReduction, i);
      lastReduction = i;
    }
  if (firstReduction == n || lastReduction + 1 == n || ShapedType::isDynamicShape(ranges))
    return {};
  for (unsigned i = firstReduction; i <= lastReduction; ++i)
    if (iterators[i] != utils::IteratorType::reduction)
      return {};
  int64_t leading = 1;
  for (unsigned i = 0; i < firstReduction; ++i)
    leading *= ranges[i];
  // The innermost trailing parallel dims that make one vector stay inside.
  unsigned inner = n;
  for (int64_t elements = 1; inner > lastReduction + 1 && elements < kVectorElements;)
    elements *= ranges[--inner];
  int64_t moved = 1;
  for (unsigned i = lastReduction + 1; i < inner; ++i)
    moved *= ranges[i];
  if (leading >= kWorkgroups || moved == 1)
    return {};
  SmallVector<unsigned> order;
  for (unsigned i = 0; i < firstReduction; ++i)
    order.push_back(i);
  for (unsigned i = lastReduction + 1; i < inner; ++i)
    order.push_back(i);
  for (unsigned i = firstReduction; i <= lastReduction; ++i)
    order.push_back(i);
  for (unsigned i = inner; i < n; ++i)
    order.push_back(i);
  return order;
}

struct InterchangeReductionsPass
    : loupe::impl::InterchangeReductionsBase<InterchangeReductionsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp g) { generics.push_back(g); });
    for (linalg::GenericOp generic : generics) {
      SmallVector<unsigned> order = distributedOrder(generic);
      if (order.empty())
        continue;
      rewriter.setInsertionPoint(generic);
      (void)linalg::interchangeGenericOp(rewriter, generic, order);
    }
  }
};
} // namespace
