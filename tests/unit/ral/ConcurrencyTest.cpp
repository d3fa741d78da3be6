//===- ConcurrencyTest.cpp - Many executions on one Context at once ------------------===//
//
// Labelled `tsan`: `./x test-tsan` builds with -fsanitize=thread and runs these. They use only
// the core runtime (LOUPE_RAL_NO_PLUGINS is set for them: oneDNN's OpenMP is not instrumented).
//
//===----------------------------------------------------------------------===//
#include "RalTestUtils.h"

#include "loupe/ral/Artifact.h"
#include "loupe/ral/Context.h"
#include "loupe/ral/CpuDriver.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

using namespace loupe::ral;
using loupe::ral::testing::RalArgs;

namespace {

constexpr int kThreads = 8;

std::shared_ptr<Context> makeContext(int threads = 2) {
  ContextOptions options;
  options.loadPlugins = false;
  options.numThreads = threads;
  auto created = Context::create(options);
  EXPECT_TRUE(created) << created.status().message();
  return created ? *created : nullptr;
}

/// out[i] = in[i] * scale over [lo, hi); params: {const float *in, float *out, float *scale}.
void scaleKernel(const int64_t *lo, const int64_t *hi, const int64_t *step, void **params) {
  auto *in = static_cast<const float *>(params[0]);
  auto *out = static_cast<float *>(params[1]);
  float scale = *static_cast<float *>(params[2]);
  for (int64_t i = lo[0]; i < hi[0]; i += step[0])
    out[i] = in[i] * scale;
}

struct CountingTracer : Tracer {
  int begins = 0, ends = 0;
  void onDispatchBegin(const DispatchEvent &) override { ++begins; }
  void onDispatchEnd(const DispatchEvent &) override { ++ends; }
};

/// One execution as compiled code would run it: recv, alloc, launch, send, dealloc, traced.
Status runOnce(Context &context, const Tensor &input, Tensor &output, float scale,
               CountingTracer &tracer) {
  ExecutionContext execution(context);
  execution.setTracer(&tracer);
  if (Status s = execution.bindInput(0, input); !s)
    return s;
  if (Status s = execution.bindOutput(0, &output); !s)
    return s;
  MemRef<float, 1> in{};
  RalArgs(&execution).add(int64_t(0)).result(&in).call("ral_recv_input___cpu___pvoid_i64___m1df32");
  const char *name = "scale", *backend = "codegen", *loc = "Mul";
  RalArgs(&execution).add(int64_t(0)).add(name).add(backend).add(loc).call(
      LOUPE_RAL_DISPATCH_BEGIN_CPU);
  int64_t n = in.sizes[0];
  void *buffer = nullptr;
  RalArgs(&execution).add(int64_t(n * sizeof(float))).result(&buffer).call(LOUPE_RAL_ALLOC_CPU);
  void *params[] = {in.data(), buffer, &scale};
  int64_t lower[] = {0}, upper[] = {n}, step[] = {1};
  RalArgs(&execution)
      .add(name)
      .add(makeMemRef<int64_t, 1>(lower, {1}))
      .add(makeMemRef<int64_t, 1>(upper, {1}))
      .add(makeMemRef<int64_t, 1>(step, {1}))
      .add(int64_t(1) << 16)
      .add(reinterpret_cast<void *>(&scaleKernel))
      .add(static_cast<void **>(params))
      .call(LOUPE_RAL_CPU_LAUNCH);
  RalArgs(&execution).add(int64_t(0)).call(LOUPE_RAL_DISPATCH_END_CPU);
  RalArgs(&execution)
      .add(int64_t(0))
      .add(makeMemRef<float, 1>(static_cast<float *>(buffer), {n}))
      .call("ral_send_output___cpu___pvoid_i64_m1df32___void");
  RalArgs(&execution).add(buffer).call(LOUPE_RAL_DEALLOC_CPU);
  return execution.finish();
}

TEST(RalConcurrency, ExecutionsOnOneContextFromEightThreads) {
  auto context = makeContext();
  constexpr int64_t kN = 4096;
  Tensor input(DType::F32, {kN});
  for (int64_t i = 0; i < kN; ++i)
    input.dataAs<float>()[i] = float(i % 97);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      CountingTracer tracer;
      Tensor output(DType::F32, {kN});
      for (int rep = 0; rep < 25; ++rep) {
        float scale = float(t + 1 + rep);
        Status s = runOnce(*context, input, output, scale, tracer);
        bool ok = s.isOk();
        for (int64_t i = 0; ok && i < kN; ++i)
          ok = output.dataAs<float>()[i] == input.dataAs<float>()[i] * scale;
        if (!ok)
          failures.fetch_add(1);
      }
      if (tracer.begins != 25 || tracer.ends != 25)
        failures.fetch_add(1);
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(context->numExecutions(), kThreads * 25);
  EXPECT_EQ(context->cpu().allocator().stats().bytesInUse, 0u);
  EXPECT_GT(context->cpu().allocator().stats().hits, 0u);
}

TEST(RalConcurrency, ResourcesAndKernelsAreCreatedOnce) {
  auto context = makeContext();
  std::atomic<int> resourceCreations{0}, kernelLoads{0};
  static const char blob[] = "blob";
  std::vector<std::thread> threads;
  std::atomic<void *> seen[kThreads] = {};
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 100; ++rep) {
        ExecutionContext execution(*context);
        auto *r = execution.getOrCreateResource("shared", Context::Lifetime::kPerContext, [&] {
          resourceCreations.fetch_add(1);
          return std::make_unique<Context::Resource>();
        });
        execution.getOrCreateResource("mine", Context::Lifetime::kPerExecution,
                                      [] { return std::make_unique<Context::Resource>(); });
        auto fn = context->getOrLoadKernel(blob, "k", [&]() -> StatusOr<Context::KernelHandle> {
          kernelLoads.fetch_add(1);
          return Context::KernelHandle{reinterpret_cast<void *>(0x1234), nullptr};
        });
        if (!fn || *fn != reinterpret_cast<void *>(0x1234))
          resourceCreations.fetch_add(1000);
        seen[t] = r;
        (void)execution.finish(); // Errors are checked through the tracer below.
      }
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(resourceCreations.load(), 1);
  EXPECT_EQ(kernelLoads.load(), 1);
  for (int t = 1; t < kThreads; ++t)
    EXPECT_EQ(seen[t].load(), seen[0].load());
}

TEST(RalConcurrency, AllocatorUnderContention) {
  CachingAllocator allocator;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      std::vector<void *> live;
      for (int i = 0; i < 2000; ++i) {
        void *p = allocator.allocate(64 + (i * 37 + t * 101) % 5000);
        static_cast<char *>(p)[0] = char(t);
        live.push_back(p);
        if (live.size() > 16) {
          allocator.deallocate(live.front());
          live.erase(live.begin());
        }
      }
      for (void *p : live)
        allocator.deallocate(p);
    });
  for (std::thread &t : threads)
    t.join();
  CachingAllocator::Stats s = allocator.stats();
  EXPECT_EQ(s.bytesInUse, 0u);
  EXPECT_EQ(s.allocations, uint64_t(kThreads) * 2000);
  EXPECT_EQ(s.hits + s.misses, s.allocations);
  EXPECT_GT(s.hits, s.misses);
}

TEST(RalConcurrency, OneArtifactRunFromEightThreads) {
  auto artifact = Artifact::load(std::string(LOUPE_RAL_FIXTURE_DIR) + "/libral_fixture_core.so");
  ASSERT_TRUE(artifact) << artifact.status().message();
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      Tensor x(DType::F32, {4, 8});
      for (int i = 0; i < 32; ++i)
        x.dataAs<float>()[i] = float(t * 32 + i);
      std::vector<Tensor> outputs = *(*artifact)->allocateOutputs();
      for (int rep = 0; rep < 20; ++rep) {
        Status s = (*artifact)->run({x}, outputs);
        if (!s || outputs[1].dataAs<float>()[5] != 2 * x.dataAs<float>()[5])
          failures.fetch_add(1);
      }
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(failures.load(), 0);
}

} // namespace
