//===- MachinePeaks.cpp - This host's peak FLOP rate and bandwidth ----------===//
#include "loupe/profiler/MachinePeaks.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace loupe::profiler {

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kAccumulators = 16; // > FMA latency x units: the FMA pipes stay full
constexpr long kFmaIterations = 4'000'000;

/// kFmaIterations x kAccumulators 8-wide FMAs (intrinsics: the language's a * b + c is not
/// contracted into an FMA under -std=c++17); returns a value so nothing is optimised away.
#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) float fmaLoop(float seed) {
  __m256 acc[kAccumulators];
  __m256 x = _mm256_set1_ps(seed), y = _mm256_set1_ps(seed * 0.999f);
  for (int a = 0; a < kAccumulators; ++a)
    acc[a] = _mm256_add_ps(x, _mm256_set1_ps(static_cast<float>(a)));
  for (long i = 0; i < kFmaIterations; ++i)
#pragma GCC unroll 16 // the accumulators must live in registers, not on the stack
    for (int a = 0; a < kAccumulators; ++a)
      acc[a] = _mm256_fmadd_ps(acc[a], y, x);
  float lanes[8], sum = 0;
  for (int a = 0; a < kAccumulators; ++a) {
    _mm256_storeu_ps(lanes, acc[a]);
    for (float l : lanes)
      sum += l;
  }
  return sum;
}
#endif

/// Runs fn(thread index) on `threads` threads at once; returns the wall seconds.
template <typename Fn> double onAllThreads(int threads, Fn fn) {
  std::vector<std::thread> pool;
  Clock::time_point start = Clock::now();
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] { fn(t); });
  for (std::thread &t : pool)
    t.join();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

MachinePeaks measure() {
  MachinePeaks peaks;
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  bool fma = false;
#if defined(__x86_64__)
  fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  std::vector<float> sink(static_cast<size_t>(threads));
  for (int attempt = 0; fma && attempt < 3; ++attempt) {
    double seconds = onAllThreads(threads, [&](int t) { sink[t] = fmaLoop(1.0f + t); });
    double flops = 2.0 * 8 * kAccumulators * kFmaIterations * threads;
    peaks.flopsPerSecond = std::max(peaks.flopsPerSecond, flops / seconds);
  }
#endif

  constexpr size_t kElements = size_t(64) << 20 >> 2; // 64 MiB per array
  std::unique_ptr<float[]> a(new float[kElements]), b(new float[kElements]), c(new float[kElements]);
  std::fill(b.get(), b.get() + kElements, 1.0f);
  std::fill(c.get(), c.get() + kElements, 2.0f);
  std::fill(a.get(), a.get() + kElements, 0.0f);
  for (int attempt = 0; attempt < 3; ++attempt) {
    double seconds = onAllThreads(threads, [&](int t) {
      size_t begin = kElements * t / threads, end = kElements * (t + 1) / threads;
      for (size_t i = begin; i < end; ++i)
        a[i] = b[i] + 3.0f * c[i];
    });
    peaks.bytesPerSecond = std::max(peaks.bytesPerSecond, 12.0 * kElements / seconds);
  }
  char how[160];
  std::snprintf(how, sizeof how,
                "%d threads: %s; triad over 3 x 64 MiB; best of 3, when the report was written",
                threads, fma ? "8-wide f32 FMA on 16 accumulators" : "no AVX2/FMA: no FLOP peak");
  peaks.how = how;
  return peaks;
}

} // namespace

MachinePeaks measureMachinePeaks() {
  static const MachinePeaks peaks = measure();
  return peaks;
}

} // namespace loupe::profiler
