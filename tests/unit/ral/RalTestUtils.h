//===- RalTestUtils.h - Build ral_api_call argument arrays by hand --*- C++ -*-===//
#ifndef LOUPE_TESTS_UNIT_RAL_RALTESTUTILS_H
#define LOUPE_TESTS_UNIT_RAL_RALTESTUTILS_H

#include "loupe/ral/Context.h"
#include "loupe/ral/MemRef.h"
#include "loupe/ral/ral_api.h"

#include <cstring>
#include <deque>
#include <vector>

namespace loupe::ral::testing {

/// The `void **args` of one ral_api_call, as compiled code builds it: args[0] points to the
/// context, then one slot per scalar/pointer and 3+2N per rank-N memref, then result slots.
class RalArgs {
public:
  explicit RalArgs(ExecutionContext *ctx) : ctx_(ctx) { slots_.push_back(&ctx_); }

  template <typename T> RalArgs &add(T value) {
    static_assert(sizeof(T) <= sizeof(int64_t), "one 8-byte word per slot");
    words_.push_back(0);
    std::memcpy(&words_.back(), &value, sizeof(T));
    slots_.push_back(&words_.back());
    return *this;
  }
  template <typename T, int N> RalArgs &add(const MemRef<T, N> &m) {
    add(m.allocated);
    add(m.aligned);
    add(m.offset);
    if constexpr (N > 0) {
      for (int i = 0; i < N; ++i)
        add(m.sizes[i]);
      for (int i = 0; i < N; ++i)
        add(m.strides[i]);
    }
    return *this;
  }
  /// A result slot pointing to `storage`.
  template <typename T> RalArgs &result(T *storage) {
    slots_.push_back(storage);
    return *this;
  }
  void call(const char *apiName) { ral_api_call(ctx_, apiName, slots_.data()); }

private:
  void *ctx_;
  std::deque<int64_t> words_;
  std::vector<void *> slots_;
};

/// A row-major memref over a vector.
template <typename T, int N>
MemRef<T, N> memrefOf(std::vector<T> &data, const int64_t (&sizes)[N]) {
  return makeMemRef<T, N>(data.data(), sizes);
}

/// C[M,N] = op(A) op(B) in double precision, with A stored [M,K] (or [K,M] when `ta`) and B
/// [K,N] (or [N,K] when `tb`): the reference the GEMM kernels are checked against.
inline std::vector<float> naiveGemm(const std::vector<float> &a, const std::vector<float> &b,
                                    int64_t m, int64_t n, int64_t k, bool ta, bool tb) {
  std::vector<float> c(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t p = 0; p < k; ++p)
        acc += double(ta ? a[p * m + i] : a[i * k + p]) * (tb ? b[j * k + p] : b[p * n + j]);
      c[i * n + j] = float(acc);
    }
  return c;
}

} // namespace loupe::ral::testing

#endif // LOUPE_TESTS_UNIT_RAL_RALTESTUTILS_H
