//===- RalBench.cpp - Cost of a RAL dispatch; ral_cpu_launch vs memory bandwidth ----===//
//
// Two questions, each answered against a peer measured in the same run:
//  1. What does one cached ral_api_call cost? Peer: a direct call of the same C++ function
//     through a function pointer (what a non-type-erased ABI would cost). Target: < 50 ns.
//  2. How much of the machine's memory bandwidth does a parallel elementwise kernel reach
//     through ral_cpu_launch (workgroups over the thread pool)? Peers: the same STREAM "add"
//     loop split statically over std::threads, and memcpy.
// At the end a summary prints the overhead in ns and the bandwidth shares (bandwidth from wall
// time and the "bytes" counter: bytes moved per iteration). Names are <group>_<variant> with the
// peer as <group>_peer, for bench/ratios.py.
//
//===----------------------------------------------------------------------===//
#include "loupe/ral/Artifact.h"
#include "loupe/ral/Context.h"
#include "loupe/ral/CpuDriver.h"
#include "loupe/ral/Registry.h"
#include "loupe/ral/Tracer.h"
#include "loupe/ral/ral_api.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <thread>
#include <vector>

using namespace loupe::ral;

namespace {

int64_t noop(ExecutionContext *, int64_t x) {
  benchmark::DoNotOptimize(x);
  return x + 1;
}
LOUPE_RAL_API("bench_noop", "cpu", noop);
constexpr const char *kNoop = "bench_noop___cpu___pvoid_i64___i64";

std::shared_ptr<Context> benchContext() {
  static std::shared_ptr<Context> context = [] {
    ContextOptions options;
    options.loadPlugins = false;
    return *Context::create(options);
  }();
  return context;
}

void BM_DirectCall(benchmark::State &state) {
  auto context = benchContext();
  ExecutionContext execution(*context);
  int64_t (*volatile fn)(ExecutionContext *, int64_t) = &noop;
  int64_t x = 1;
  for (auto _ : state) {
    x = fn(&execution, x);
    benchmark::DoNotOptimize(x);
  }
}
BENCHMARK(BM_DirectCall)->Name("ral_call_peer");

void BM_RalApiCallCached(benchmark::State &state) {
  auto context = benchContext();
  ExecutionContext execution(*context);
  void *ctx = &execution;
  int64_t x = 1, result = 0;
  void *args[] = {&ctx, &x, &result};
  for (auto _ : state) {
    ral_api_call(ctx, kNoop, args);
    x = result;
    benchmark::ClobberMemory();
  }
  if (!execution.finish().isOk())
    state.SkipWithError("ral_api_call failed");
}
BENCHMARK(BM_RalApiCallCached)->Name("ral_call_cached");

/// Without the per-thread cache: the registry's hash map under its shared lock.
void BM_RegistryLookupUncached(benchmark::State &state) {
  for (auto _ : state)
    benchmark::DoNotOptimize(Registry::global().find(kNoop));
}
BENCHMARK(BM_RegistryLookupUncached)->Name("ral_call_uncachedlookup");

/// A whole traced dispatch with no tracer set: begin + end.
void BM_DispatchBeginEndNoTracer(benchmark::State &state) {
  auto context = benchContext();
  ExecutionContext execution(*context);
  void *ctx = &execution;
  int64_t id = 3;
  const char *name = "dispatch_3", *backend = "codegen", *loc = "Add_1";
  void *begin[] = {&ctx, &id, &name, &backend, &loc};
  void *end[] = {&ctx, &id};
  for (auto _ : state) {
    ral_api_call(ctx, LOUPE_RAL_DISPATCH_BEGIN_CPU, begin);
    ral_api_call(ctx, LOUPE_RAL_DISPATCH_END_CPU, end);
  }
}
BENCHMARK(BM_DispatchBeginEndNoTracer)->Name("ral_tracing_beginend");

/// ral_alloc + ral_dealloc of 4 KiB through the caching allocator.
void BM_AllocDealloc4K(benchmark::State &state) {
  auto context = benchContext();
  ExecutionContext execution(*context);
  void *ctx = &execution;
  int64_t bytes = 4096;
  void *ptr = nullptr;
  void *alloc[] = {&ctx, &bytes, &ptr};
  void *dealloc[] = {&ctx, &ptr};
  for (auto _ : state) {
    ral_api_call(ctx, LOUPE_RAL_ALLOC_CPU, alloc);
    ral_api_call(ctx, LOUPE_RAL_DEALLOC_CPU, dealloc);
  }
}
BENCHMARK(BM_AllocDealloc4K)->Name("ral_alloc_4k");

// ---- Bandwidth: c[i] = a[i] + b[i] over 3 x 64 MiB (STREAM "add": 12 bytes per element). ----

constexpr int64_t kElements = int64_t(16) << 20;

struct Arrays {
  std::vector<float> a, b, c;
  Arrays() : a(kElements, 1.0f), b(kElements, 2.0f), c(kElements, 0.0f) {}
};
Arrays &arrays() {
  static Arrays *arrays = new Arrays();
  return *arrays;
}

void addRange(const float *a, const float *b, float *c, int64_t lo, int64_t hi) {
  for (int64_t i = lo; i < hi; ++i)
    c[i] = a[i] + b[i];
}

void addKernel(const int64_t *lo, const int64_t *hi, const int64_t *, void **params) {
  addRange(static_cast<const float *>(params[0]), static_cast<const float *>(params[1]),
           static_cast<float *>(params[2]), lo[0], hi[0]);
}

void BM_StreamAddPeerThreads(benchmark::State &state) {
  Arrays &x = arrays();
  int threads = defaultNumThreads();
  for (auto _ : state) {
    std::vector<std::thread> workers;
    int64_t chunk = (kElements + threads - 1) / threads;
    for (int t = 1; t < threads; ++t)
      workers.emplace_back([&, t] {
        addRange(x.a.data(), x.b.data(), x.c.data(), t * chunk, std::min(kElements, (t + 1) * chunk));
      });
    addRange(x.a.data(), x.b.data(), x.c.data(), 0, std::min(kElements, chunk));
    for (std::thread &w : workers)
      w.join();
    benchmark::ClobberMemory();
  }
  state.counters["bytes"] = double(kElements * 3 * int64_t(sizeof(float)));
  state.counters["threads"] = threads;
}
BENCHMARK(BM_StreamAddPeerThreads)->Name("ral_add_peer")->Unit(benchmark::kMillisecond);

void BM_StreamAddSingleThread(benchmark::State &state) {
  Arrays &x = arrays();
  for (auto _ : state) {
    addRange(x.a.data(), x.b.data(), x.c.data(), 0, kElements);
    benchmark::ClobberMemory();
  }
  state.counters["bytes"] = double(kElements * 3 * int64_t(sizeof(float)));
}
BENCHMARK(BM_StreamAddSingleThread)->Name("ral_add_singlethread")->Unit(benchmark::kMillisecond);

void BM_MemcpyPeer(benchmark::State &state) {
  Arrays &x = arrays();
  for (auto _ : state) {
    std::memcpy(x.c.data(), x.a.data(), kElements * sizeof(float));
    benchmark::ClobberMemory();
  }
  state.counters["bytes"] = double(kElements * 2 * int64_t(sizeof(float)));
}
BENCHMARK(BM_MemcpyPeer)->Name("ral_copy_memcpy")->Unit(benchmark::kMillisecond);

void BM_RalCpuLaunchAdd(benchmark::State &state) {
  Arrays &x = arrays();
  auto context = benchContext();
  ExecutionContext execution(*context);
  void *ctx = &execution;
  const char *name = "bench_add";
  int64_t lower[] = {0}, upper[] = {kElements}, step[] = {1};
  MemRef<int64_t, 1> lo = makeMemRef<int64_t, 1>(lower, {1}), hi = makeMemRef<int64_t, 1>(upper, {1}),
                     st = makeMemRef<int64_t, 1>(step, {1});
  int64_t hint = 12; // bytes per iteration
  void *kernel = reinterpret_cast<void *>(&addKernel);
  void *params[] = {x.a.data(), x.b.data(), x.c.data()};
  void **paramsPtr = params;
  std::vector<void *> args = {&ctx, &name};
  for (MemRef<int64_t, 1> *m : {&lo, &hi, &st})
    for (void *slot : {static_cast<void *>(&m->allocated), static_cast<void *>(&m->aligned),
                       static_cast<void *>(&m->offset), static_cast<void *>(&m->sizes[0]),
                       static_cast<void *>(&m->strides[0])})
      args.push_back(slot);
  args.push_back(&hint);
  args.push_back(&kernel);
  args.push_back(&paramsPtr);
  for (auto _ : state) {
    ral_api_call(ctx, LOUPE_RAL_CPU_LAUNCH, args.data());
    benchmark::ClobberMemory();
  }
  if (!execution.finish().isOk())
    state.SkipWithError(execution.status().message().c_str());
  state.counters["bytes"] = double(kElements * 3 * int64_t(sizeof(float)));
  state.counters["threads"] = context->cpu().threadPool().numThreads();
  state.counters["workgroups"] =
      double(CpuDriver::plan({1, {0}, {kElements}, {1}}, hint, context->cpu().threadPool().numThreads())
                 .numWorkgroups);
}
BENCHMARK(BM_RalCpuLaunchAdd)->Name("ral_add_cpulaunch")->Unit(benchmark::kMillisecond);

/// ral_gemm of the MLP example's first layer (8x64 * 64x128, f32) through each CPU library
/// kernel, with a naive triple loop as the peer: which backend deserves the higher plevel.
void gemmThrough(benchmark::State &state, const char *api) {
  constexpr int64_t m = 8, k = 64, n = 128;
  std::vector<float> a(m * k, 0.5f), b(k * n, 0.25f), c(m * n);
  auto ma = makeMemRef<float, 2>(a.data(), {m, k}), mb = makeMemRef<float, 2>(b.data(), {k, n}),
       mc = makeMemRef<float, 2>(c.data(), {m, n});
  auto context = benchContext();
  ExecutionContext execution(*context);
  void *ctx = &execution;
  bool noTranspose = false;
  std::vector<void *> args = {&ctx};
  for (MemRef<float, 2> *x : {&ma, &mb, &mc}) {
    args.insert(args.end(), {&x->allocated, &x->aligned, &x->offset});
    args.insert(args.end(), {&x->sizes[0], &x->sizes[1], &x->strides[0], &x->strides[1]});
  }
  args.insert(args.end(), {&noTranspose, &noTranspose});
  for (auto _ : state) {
    ral_api_call(ctx, api, args.data());
    benchmark::DoNotOptimize(c.data());
  }
  if (!execution.finish().isOk())
    state.SkipWithError(execution.status().message().c_str());
  state.counters["flops"] = double(2 * m * n * k);
}
void BM_GemmNaivePeer(benchmark::State &state) {
  constexpr int64_t m = 8, k = 64, n = 128;
  std::vector<float> a(m * k, 0.5f), b(k * n, 0.25f), c(m * n);
  for (auto _ : state) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        float acc = 0;
        for (int64_t p = 0; p < k; ++p)
          acc += a[i * k + p] * b[p * n + j];
        c[i * n + j] = acc;
      }
    benchmark::DoNotOptimize(c.data());
  }
}
BENCHMARK(BM_GemmNaivePeer)->Name("ral_gemm8x64x128_naive");
BENCHMARK_CAPTURE(gemmThrough, openblas,
                  "ral_gemm_openblas___cpu___pvoid_m2df32_m2df32_m2df32_i1_i1___void")
    ->Name("ral_gemm8x64x128_openblas");
BENCHMARK_CAPTURE(gemmThrough, onednn,
                  "ral_gemm_onednn___cpu___pvoid_m2df32_m2df32_m2df32_i1_i1___void")
    ->Name("ral_gemm8x64x128_onednn");

/// Times one dispatch of an artifact (begin to end on the steady clock).
class DispatchTimer : public Tracer {
public:
  void dispatchBegin(int64_t) override { begin = std::chrono::steady_clock::now(); }
  void dispatchEnd(int64_t) override { seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count(); }
  std::chrono::steady_clock::time_point begin;
  double seconds = 0;
};

/// The same add compiled by Loupe from bench/ral/add.mlir: the code-generated kernel goes
/// through ral-outline-cpu-kernels and ral_cpu_launch_1d. Timed per dispatch (the add alone,
/// not the hand-over of the output).
void BM_CompiledAdd(benchmark::State &state) {
  auto artifact = Artifact::load(LOUPE_BENCH_ADD_ARTIFACT);
  if (!artifact.isOk()) {
    state.SkipWithError(artifact.status().message().c_str());
    return;
  }
  std::vector<Tensor> inputs = *(*artifact)->randomInputs(0);
  std::vector<Tensor> outputs = *(*artifact)->allocateOutputs();
  DispatchTimer timer;
  for (auto _ : state) {
    Status s = (*artifact)->run(inputs, outputs, &timer);
    if (!s.isOk()) {
      state.SkipWithError(s.message().c_str());
      return;
    }
    state.SetIterationTime(timer.seconds);
  }
  state.counters["bytes"] = double(kElements * 3 * int64_t(sizeof(float)));
  state.counters["threads"] = (*artifact)->context()->cpu().threadPool().numThreads();
}
BENCHMARK(BM_CompiledAdd)->Name("ral_add_compiled")->UseManualTime()->Unit(benchmark::kMillisecond);

/// A launch too small to split: the inline path's fixed cost.
void BM_RalCpuLaunchTinyInline(benchmark::State &state) {
  auto context = benchContext();
  ExecutionContext execution(*context);
  CpuLaunchDims dims{1, {0}, {16}, {1}};
  float a[16] = {}, b[16] = {}, c[16];
  void *params[] = {a, b, c};
  for (auto _ : state)
    benchmark::DoNotOptimize(context->cpu().launch(dims, 1, &addKernel, params));
}
BENCHMARK(BM_RalCpuLaunchTinyInline)->Name("ral_launch_inline");

/// Two workgroups: the cost of handing work to a pool thread and waiting for it.
void BM_RalCpuLaunchTwoWorkgroups(benchmark::State &state) {
  auto context = benchContext();
  if (context->cpu().threadPool().numThreads() < 2) {
    state.SkipWithError("one thread");
    return;
  }
  std::vector<float> a(2048), b(2048), c(2048);
  void *params[] = {a.data(), b.data(), c.data()};
  for (auto _ : state)
    context->cpu().threadPool().parallelFor(2, [&](int64_t i, int) {
      addRange(a.data(), b.data(), c.data(), i * 1024, (i + 1) * 1024);
    });
  (void)params;
}
BENCHMARK(BM_RalCpuLaunchTwoWorkgroups)->Name("ral_launch_twoworkgroups");

/// Remembers each benchmark's time and bandwidth for the summary.
class SummaryReporter : public benchmark::ConsoleReporter {
public:
  void ReportRuns(const std::vector<Run> &runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run &run : runs) {
      // Plain runs, or the median when run with --benchmark_repetitions (bench/run.sh).
      bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
      if ((run.run_type != Run::RT_Iteration && !median) || run.error_occurred)
        continue;
      std::string name = run.run_name.function_name;
      double unit = run.time_unit == benchmark::kMillisecond ? 1e6 : 1.0;
      ns[name] = run.GetAdjustedRealTime() * unit;
      cpuNs[name] = run.GetAdjustedCPUTime() * unit;
      // Bandwidth from wall time: the pool's threads do the work, not the timing thread.
      auto it = run.counters.find("bytes");
      if (it != run.counters.end() && ns[name] > 0)
        gbps[name] = it->second.value / ns[name];
    }
  }
  std::map<std::string, double> ns, cpuNs, gbps;
};

} // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  SummaryReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  auto get = [&](std::map<std::string, double> &m, const char *k) {
    auto it = m.find(k);
    return it == m.end() ? 0.0 : it->second;
  };
  // CPU time: on a shared machine the wall time of a 10 ns call mostly measures other processes.
  double direct = get(reporter.cpuNs, "ral_call_peer"),
         cached = get(reporter.cpuNs, "ral_call_cached"),
         cachedWall = get(reporter.ns, "ral_call_cached");
  std::printf("\nsummary\n");
  if (cached > 0)
    std::printf("  ral_api_call (cached): %.1f ns CPU per call (%.1f ns wall); direct call %.1f ns; "
                "overhead %.1f ns (target < 50 ns: %s)\n",
                cached, cachedWall, direct, cached - direct, cached < 50 ? "met" : "MISSED");
  double ral = get(reporter.gbps, "ral_add_cpulaunch"),
         peer = get(reporter.gbps, "ral_add_peer"),
         single = get(reporter.gbps, "ral_add_singlethread"),
         memcpyRate = get(reporter.gbps, "ral_copy_memcpy");
  if (ral > 0 && peer > 0)
    std::printf("  ral_cpu_launch add: %.2f GB/s = %.0f%% of the threaded STREAM add peer "
                "(%.2f GB/s), %.0f%% of memcpy (%.2f GB/s), %.2fx single-thread add (%.2f GB/s)\n",
                ral, 100 * ral / peer, peer, memcpyRate > 0 ? 100 * ral / memcpyRate : 0,
                memcpyRate, single > 0 ? ral / single : 0, single);
  double compiled = get(reporter.gbps, "ral_add_compiled");
  if (compiled > 0 && peer > 0)
    std::printf("  compiled add (loupe compile bench/ral/add.mlir): %.2f GB/s = %.0f%% of the "
                "threaded STREAM add peer, %.2fx single-thread add\n",
                compiled, 100 * compiled / peer, single > 0 ? compiled / single : 0);
  return 0;
}
