//===- FallbackTest.cpp - A failing library kernel falls back to the next one -------===//
//
// Three test kernels with one ABI stand in for a backend's kernels (ral_gemm_onednn,
// ral_gemm_openblas, ...): each fills its output with its own marker. Kernel A fails for real
// on outputs of more than 4 elements (as a kernel refusing a shape does); the others fail only
// by fault injection (ContextOptions::failKernels, LOUPE_RAL_FAIL_KERNEL). Labelled `tsan`
// (./x test-tsan): the last test runs executions with and without fallbacks on one Context.
//
//===----------------------------------------------------------------------===//
#include "RalTestUtils.h"

#include "loupe/ral/Context.h"
#include "loupe/ral/Registry.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <thread>

using namespace loupe::ral;
using loupe::ral::testing::RalArgs;

namespace {

std::atomic<int> gCallsB{0};

void fill(MemRef<float, 1> out, float marker) {
  for (int64_t i = 0; i < out.sizes[0]; ++i)
    out.data()[i * out.strides[0]] = marker;
}

/// Fills `out` with 1; refuses more than 4 elements.
void kernelA(ExecutionContext *ctx, MemRef<float, 1> out) {
  if (ctx->failed())
    return;
  if (out.sizes[0] > 4)
    return ctx->signalError(invalidArgument("test_kernel_a: needs at most 4 elements, got " +
                                            std::to_string(out.sizes[0])));
  fill(out, 1);
}
/// Fill `out` with 2 and 3.
void kernelB(ExecutionContext *ctx, MemRef<float, 1> out) {
  gCallsB.fetch_add(1, std::memory_order_relaxed);
  if (!ctx->failed())
    fill(out, 2);
}
void kernelC(ExecutionContext *ctx, MemRef<float, 1> out) {
  if (!ctx->failed())
    fill(out, 3);
}
/// A kernel of another ABI (rank 2): never a fallback for the rank-1 kernels.
void kernelOtherAbi(ExecutionContext *ctx, MemRef<float, 2> out) {}

LOUPE_RAL_API("test_kernel_a", "cpu", kernelA);
LOUPE_RAL_API("test_kernel_b", "cpu", kernelB);
LOUPE_RAL_API("test_kernel_c", "cpu", kernelC);
LOUPE_RAL_API("test_kernel_other_abi", "cpu", kernelOtherAbi);
constexpr const char *kKernelA = "test_kernel_a___cpu___pvoid_m1df32___void";

struct FallbackTracer : Tracer {
  std::vector<FallbackEvent> events;
  void onFallback(const FallbackEvent &event) override { events.push_back(event); }
};

std::shared_ptr<Context> makeContext(std::vector<std::string> failKernels = {}) {
  ContextOptions options;
  options.loadPlugins = false;
  options.numThreads = 1;
  options.failKernels = std::move(failKernels);
  auto created = Context::create(options);
  EXPECT_TRUE(created) << created.status().message();
  return created ? *created : nullptr;
}

/// A dispatch table whose dispatch 0 falls back to `fallbacks`.
struct Table {
  explicit Table(std::vector<std::string> chain) : fallbacks(std::move(chain)) {
    entries.push_back({"dispatch_0_a", "liba", "Gemm_0", &fallbacks});
  }
  Table(const Table &) = delete; // entries point into fallbacks
  std::vector<std::string> fallbacks;
  std::vector<DispatchNames> entries;
};

/// Runs dispatch 0 as compiled code does (begin, kernel A on `out`, end) in a new execution;
/// returns finish()'s status.
Status runDispatch(Context &context, const Table &table, std::vector<float> &out,
                   Tracer *tracer = nullptr, int64_t *executionId = nullptr) {
  ExecutionContext execution(context);
  execution.setDispatchTable(&table.entries);
  execution.setTracer(tracer);
  if (executionId)
    *executionId = execution.id();
  const char *none = nullptr;
  RalArgs(&execution).add(int64_t(0)).add(none).add(none).add(none).call(
      LOUPE_RAL_DISPATCH_BEGIN_CPU);
  RalArgs(&execution).add(makeMemRef<float, 1>(out.data(), {int64_t(out.size())})).call(kKernelA);
  RalArgs(&execution).add(int64_t(0)).call(LOUPE_RAL_DISPATCH_END_CPU);
  return execution.finish();
}

TEST(RalFallback, AFailingKernelFallsBackToTheNextOne) {
  auto context = makeContext();
  Table table({"test_kernel_b", "test_kernel_c"});
  std::vector<float> out(8, 0.f);
  FallbackTracer tracer;
  int64_t executionId = 0;
  Status s = runDispatch(*context, table, out, &tracer, &executionId);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(out, std::vector<float>(8, 2.f));
  ASSERT_EQ(tracer.events.size(), 1u);
  const FallbackEvent &e = tracer.events[0];
  EXPECT_EQ(e.dispatchId, 0);
  EXPECT_EQ(e.executionId, executionId);
  EXPECT_EQ(e.failedKernel, "test_kernel_a");
  EXPECT_EQ(e.message, "test_kernel_a: needs at most 4 elements, got 8");
  EXPECT_EQ(e.fallbackKernel, "test_kernel_b");
}

TEST(RalFallback, NoFallbackWhenTheKernelSucceeds) {
  auto context = makeContext();
  Table table({"test_kernel_b"});
  std::vector<float> out(4, 0.f);
  FallbackTracer tracer;
  int before = gCallsB.load();
  ASSERT_TRUE(runDispatch(*context, table, out, &tracer));
  EXPECT_EQ(out, std::vector<float>(4, 1.f));
  EXPECT_TRUE(tracer.events.empty());
  EXPECT_EQ(gCallsB.load(), before);
}

TEST(RalFallback, AnExhaustedChainFailsWithEveryMessage) {
  auto context = makeContext({"test_kernel_b", "test_kernel_c"});
  Table table({"test_kernel_b", "test_kernel_c"});
  std::vector<float> out(8, 0.f);
  FallbackTracer tracer;
  Status s = runDispatch(*context, table, out, &tracer);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument); // the first kernel's
  EXPECT_EQ(s.message(), "dispatch 0 (dispatch_0_a): every kernel failed: "
                         "test_kernel_a: needs at most 4 elements, got 8; "
                         "test_kernel_b: failure injected (LOUPE_RAL_FAIL_KERNEL); "
                         "test_kernel_c: failure injected (LOUPE_RAL_FAIL_KERNEL)");
  ASSERT_EQ(tracer.events.size(), 2u);
  EXPECT_EQ(tracer.events[1].failedKernel, "test_kernel_b");
  EXPECT_EQ(tracer.events[1].fallbackKernel, "test_kernel_c");
}

TEST(RalFallback, KernelsOfAnotherAbiAreNotFallbacks) {
  auto context = makeContext();
  Table table({"test_kernel_other_abi", "test_kernel_unknown", "test_kernel_c"});
  std::vector<float> out(8, 0.f);
  FallbackTracer tracer;
  ASSERT_TRUE(runDispatch(*context, table, out, &tracer));
  EXPECT_EQ(out, std::vector<float>(8, 3.f));
  ASSERT_EQ(tracer.events.size(), 1u);
  EXPECT_EQ(tracer.events[0].fallbackKernel, "test_kernel_c");

  // With no usable fallback the kernel's error stands unchanged.
  Table unusable({"test_kernel_other_abi"});
  Status s = runDispatch(*context, unusable, out);
  EXPECT_EQ(s.message(), "test_kernel_a: needs at most 4 elements, got 8");
}

TEST(RalFallback, WithoutFallbacksAFailureIsTheKernelsOwn) {
  std::vector<float> out(8, 0.f);
  Status s = runDispatch(*makeContext(), Table({}), out);
  EXPECT_EQ(s.message(), "test_kernel_a: needs at most 4 elements, got 8");
  // An injected failure names the kernel too.
  out.resize(4);
  s = runDispatch(*makeContext({"test_kernel_a"}), Table({}), out);
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_EQ(s.message(), "test_kernel_a: failure injected (LOUPE_RAL_FAIL_KERNEL)");
}

TEST(RalFallback, OutsideADispatchNothingFallsBack) {
  auto context = makeContext({"test_kernel_a"});
  Table table({"test_kernel_b"});
  ExecutionContext execution(*context);
  execution.setDispatchTable(&table.entries);
  std::vector<float> out(4, 0.f);
  RalArgs(&execution).add(makeMemRef<float, 1>(out.data(), {4})).call(kKernelA);
  EXPECT_TRUE(execution.finish()); // Injection and fallbacks apply inside dispatches only.
  EXPECT_EQ(out, std::vector<float>(4, 1.f));
}

TEST(RalFallback, InjectedFailuresComeFromTheEnvironment) {
  ASSERT_EQ(setenv("LOUPE_RAL_FAIL_KERNEL", "ral_gemm_onednn,,test_kernel_a", 1), 0);
  auto context = makeContext();
  unsetenv("LOUPE_RAL_FAIL_KERNEL");
  EXPECT_EQ(context->options().failKernels,
            (std::vector<std::string>{"ral_gemm_onednn", "test_kernel_a"}));
  std::vector<float> out(4, 0.f);
  FallbackTracer tracer;
  ASSERT_TRUE(runDispatch(*context, Table({"test_kernel_b"}), out, &tracer));
  EXPECT_EQ(out, std::vector<float>(4, 2.f));
  ASSERT_EQ(tracer.events.size(), 1u);
  EXPECT_EQ(tracer.events[0].message, "test_kernel_a: failure injected (LOUPE_RAL_FAIL_KERNEL)");
}

TEST(RalFallback, ConcurrentExecutionsFallBackIndependently) {
  auto context = makeContext();
  Table table({"test_kernel_b"});
  constexpr int kThreads = 8, kReps = 50;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      // Even threads: kernel A fails (8 elements) and B runs; odd ones: A runs (4 elements).
      bool fallsBack = t % 2 == 0;
      for (int rep = 0; rep < kReps; ++rep) {
        std::vector<float> out(fallsBack ? 8 : 4, 0.f);
        FallbackTracer tracer;
        int64_t executionId = 0;
        Status s = runDispatch(*context, table, out, &tracer, &executionId);
        bool ok = s && out == std::vector<float>(out.size(), fallsBack ? 2.f : 1.f) &&
                  tracer.events.size() == (fallsBack ? 1u : 0u) &&
                  (!fallsBack || tracer.events[0].executionId == executionId);
        if (!ok)
          failures.fetch_add(1);
      }
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(failures.load(), 0);
}

} // namespace
