//===- TopkSort.cpp - TopK and sort on the CPU ---------------------------------===//
//
// ral_topk___cpu and ral_sort___cpu (Kernels.h): per-row, rows spread over the thread pool.
// TopK uses a partial sort of indices (std::partial_sort, O(N log K)); sort a stable sort.
//
//===----------------------------------------------------------------------===//
#include "loupe/ral/Context.h"
#include "loupe/ral/CpuDriver.h"
#include "loupe/ral/Kernels.h"
#include "loupe/ral/Registry.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace loupe::ral {

namespace {

template <typename T> bool isNan(T v) {
  if constexpr (std::is_floating_point_v<T>)
    return std::isnan(v);
  else
    return false;
}

/// Strict order "a comes before b" for a descending (largest-first) or ascending order; NaN is
/// the largest value; equal values keep index order (callers break ties by index).
template <typename T> bool before(T a, T b, bool descending) {
  bool an = isNan(a), bn = isNan(b);
  if (an || bn)
    return descending ? (an && !bn) : (!an && bn);
  return descending ? a > b : a < b;
}

std::string shape2(int64_t a, int64_t b) {
  return "[" + std::to_string(a) + "x" + std::to_string(b) + "]";
}

template <typename T>
void topk(ExecutionContext *ctx, MemRef<T, 2> input, MemRef<T, 2> values,
          MemRef<int64_t, 2> indices, bool largest) {
  if (ctx->failed())
    return;
  int64_t rows = input.sizes[0], n = input.sizes[1], k = values.sizes[1];
  if (values.sizes[0] != rows || indices.sizes[0] != rows || indices.sizes[1] != k || k > n ||
      k < 0) {
    ctx->signalError(invalidArgument("ral_topk: input " + shape2(rows, n) + ", values " +
                                     shape2(values.sizes[0], k) + ", indices " +
                                     shape2(indices.sizes[0], indices.sizes[1]) +
                                     " (want [R,N], [R,K], [R,K] with K <= N)"));
    return;
  }
  ctx->context().cpu().threadPool().parallelFor(rows, [&](int64_t r, int) {
    const T *in = input.data() + r * input.strides[0];
    std::vector<int64_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    auto cmp = [&](int64_t a, int64_t b) {
      T va = in[a * input.strides[1]], vb = in[b * input.strides[1]];
      if (before(va, vb, largest))
        return true;
      if (before(vb, va, largest))
        return false;
      return a < b;
    };
    std::partial_sort(order.begin(), order.begin() + k, order.end(), cmp);
    T *outV = values.data() + r * values.strides[0];
    int64_t *outI = indices.data() + r * indices.strides[0];
    for (int64_t j = 0; j < k; ++j) {
      outV[j * values.strides[1]] = in[order[j] * input.strides[1]];
      outI[j * indices.strides[1]] = order[j];
    }
  });
}

template <typename T>
void sortRows(ExecutionContext *ctx, MemRef<T, 2> input, MemRef<T, 2> values,
              MemRef<int64_t, 2> indices, bool descending) {
  if (ctx->failed())
    return;
  int64_t rows = input.sizes[0], n = input.sizes[1];
  if (values.sizes[0] != rows || values.sizes[1] != n || indices.sizes[0] != rows ||
      indices.sizes[1] != n) {
    ctx->signalError(invalidArgument("ral_sort: input " + shape2(rows, n) + ", values " +
                                     shape2(values.sizes[0], values.sizes[1]) + ", indices " +
                                     shape2(indices.sizes[0], indices.sizes[1]) +
                                     " (all three must have the same shape)"));
    return;
  }
  ctx->context().cpu().threadPool().parallelFor(rows, [&](int64_t r, int) {
    const T *in = input.data() + r * input.strides[0];
    std::vector<int64_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return before(in[a * input.strides[1]], in[b * input.strides[1]], descending);
    });
    T *outV = values.data() + r * values.strides[0];
    int64_t *outI = indices.data() + r * indices.strides[0];
    // Gather first: values may alias input.
    std::vector<T> gathered(n);
    for (int64_t j = 0; j < n; ++j)
      gathered[j] = in[order[j] * input.strides[1]];
    for (int64_t j = 0; j < n; ++j) {
      outV[j * values.strides[1]] = gathered[j];
      outI[j * indices.strides[1]] = order[j];
    }
  });
}

} // namespace

LOUPE_RAL_API("ral_topk", "cpu", topk<float>);
LOUPE_RAL_API("ral_topk", "cpu", topk<double>);
LOUPE_RAL_API("ral_topk", "cpu", topk<int32_t>);
LOUPE_RAL_API("ral_topk", "cpu", topk<int64_t>);
LOUPE_RAL_API("ral_sort", "cpu", sortRows<float>);
LOUPE_RAL_API("ral_sort", "cpu", sortRows<double>);
LOUPE_RAL_API("ral_sort", "cpu", sortRows<int32_t>);
LOUPE_RAL_API("ral_sort", "cpu", sortRows<int64_t>);

} // namespace loupe::ral
