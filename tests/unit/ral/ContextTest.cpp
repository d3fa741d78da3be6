//===- ContextTest.cpp - Context, ExecutionContext and the core RAL APIs --------===//
#include "RalTestUtils.h"

#include "loupe/ral/Context.h"
#include "loupe/ral/CpuDriver.h"
#include "loupe/ral/Registry.h"

#include <gtest/gtest.h>

using namespace loupe::ral;
using loupe::ral::testing::RalArgs;

namespace {

std::shared_ptr<Context> makeContext() {
  ContextOptions options;
  options.loadPlugins = false;
  auto created = Context::create(options);
  EXPECT_TRUE(created) << created.status().message();
  return created ? *created : nullptr;
}

struct Counted : Context::Resource {
  explicit Counted(int &destroyed) : destroyed(destroyed) {}
  ~Counted() override { ++destroyed; }
  int &destroyed;
};

TEST(RalContext, ResourceLifetimes) {
  auto context = makeContext();
  int created = 0, destroyedPerExec = 0, destroyedPerContext = 0, destroyedGlobal = 0;
  Context::Resource *perContext = nullptr;
  Context::Resource *global = nullptr;
  for (int run = 0; run < 3; ++run) {
    ExecutionContext execution(*context);
    auto *a = execution.getOrCreateResource("test.exec", Context::Lifetime::kPerExecution, [&] {
      ++created;
      return std::make_unique<Counted>(destroyedPerExec);
    });
    EXPECT_EQ(a, execution.getOrCreateResource("test.exec", Context::Lifetime::kPerExecution, {}));
    auto *b = execution.getOrCreateResource("test.ctx", Context::Lifetime::kPerContext, [&] {
      return std::make_unique<Counted>(destroyedPerContext);
    });
    auto *c = execution.getOrCreateResource("test.global", Context::Lifetime::kGlobal, [&] {
      return std::make_unique<Counted>(destroyedGlobal);
    });
    if (run == 0) {
      perContext = b;
      global = c;
    }
    EXPECT_EQ(b, perContext);
    EXPECT_EQ(c, global);
    EXPECT_TRUE(execution.finish());
    EXPECT_EQ(destroyedPerExec, run + 1);
  }
  EXPECT_EQ(created, 3);
  EXPECT_EQ(destroyedPerContext, 0);
  context.reset();
  EXPECT_EQ(destroyedPerContext, 1);
  EXPECT_EQ(destroyedGlobal, 0); // lives as long as the process
  auto other = makeContext();
  ExecutionContext execution(*other);
  EXPECT_EQ(execution.getOrCreateResource("test.global", Context::Lifetime::kGlobal, {}), global);
}

TEST(RalContext, KernelCacheLoadsOncePerBlobAndName) {
  auto context = makeContext();
  static const char blob1[] = "blob1", blob2[] = "blob2";
  int loads = 0, releases = 0;
  auto loader = [&](void *fn) {
    return [&, fn]() -> StatusOr<Context::KernelHandle> {
      ++loads;
      return Context::KernelHandle{fn, [&] { ++releases; }};
    };
  };
  int f1, f2, f3;
  EXPECT_EQ(*context->getOrLoadKernel(blob1, "k", loader(&f1)), &f1);
  EXPECT_EQ(*context->getOrLoadKernel(blob1, "k", loader(&f3)), &f1);
  EXPECT_EQ(*context->getOrLoadKernel(blob1, "other", loader(&f2)), &f2);
  EXPECT_EQ(*context->getOrLoadKernel(blob2, "k", loader(&f3)), &f3);
  EXPECT_EQ(loads, 3);
  EXPECT_EQ(context->numLoadedKernels(), 3u);
  // A failure is cached: reported again without another load.
  auto failing = [&]() -> StatusOr<Context::KernelHandle> {
    ++loads;
    return invalidArgument("bad image");
  };
  EXPECT_FALSE(context->getOrLoadKernel(blob2, "bad", failing));
  auto again = context->getOrLoadKernel(blob2, "bad", failing);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.status().message(), "bad image");
  EXPECT_EQ(loads, 4);
  context.reset();
  EXPECT_EQ(releases, 3);
}

TEST(RalContext, RecvInputAndSendOutputThroughRalApiCall) {
  auto context = makeContext();
  ExecutionContext execution(*context);
  Tensor input(DType::F32, {2, 3});
  for (int i = 0; i < 6; ++i)
    input.dataAs<float>()[i] = float(i);
  ASSERT_TRUE(execution.bindInput(0, input));
  Tensor bound(DType::F32, {3, 2});
  ASSERT_TRUE(execution.bindOutput(0, &bound));

  MemRef<float, 2> received{};
  RalArgs(&execution).add(int64_t(0)).result(&received).call(
      "ral_recv_input___cpu___pvoid_i64___m2df32");
  ASSERT_TRUE(execution.status()) << execution.status().message();
  EXPECT_EQ(received.data(), input.dataAs<float>());
  EXPECT_EQ(received.sizes[0], 2);
  EXPECT_EQ(received.sizes[1], 3);
  EXPECT_EQ(received.strides[0], 3);
  EXPECT_EQ(received.strides[1], 1);

  // Output 0: the transpose of the input as a strided view, copied into the bound tensor.
  MemRef<float, 2> transposed = received;
  transposed.sizes[0] = 3;
  transposed.sizes[1] = 2;
  transposed.strides[0] = 1;
  transposed.strides[1] = 3;
  RalArgs(&execution).add(int64_t(0)).add(transposed).call(
      "ral_send_output___cpu___pvoid_i64_m2df32___void");
  // Output 1: unbound, a rank-0 i64 value kept as a new tensor.
  int64_t value = 42;
  RalArgs(&execution).add(int64_t(1)).add(makeMemRef(&value)).call(
      "ral_send_output___cpu___pvoid_i64_m0di64___void");
  ASSERT_TRUE(execution.finish()) << execution.status().message();
  EXPECT_TRUE(execution.isOutputSent(0));
  EXPECT_TRUE(execution.isOutputSent(1));
  EXPECT_EQ(execution.numOutputsSent(), 2);
  const float want[] = {0, 3, 1, 4, 2, 5};
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(bound.dataAs<float>()[i], want[i]);
  Tensor copy = execution.sentOutput(1);
  EXPECT_EQ(copy.dtype(), DType::I64);
  EXPECT_TRUE(copy.shape().empty());
  EXPECT_EQ(copy.dataAs<int64_t>()[0], 42);
}

TEST(RalContext, RecvInputMismatchesAreStatusesNamingTheInput) {
  auto context = makeContext();
  {
    ExecutionContext execution(*context);
    EXPECT_TRUE(execution.bindInput(0, Tensor(DType::F32, {2, 3})));
    MemRef<float, 3> m{};
    RalArgs(&execution).add(int64_t(0)).result(&m).call(
        "ral_recv_input___cpu___pvoid_i64___m3df32");
    Status s = execution.finish();
    ASSERT_FALSE(s);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find("input 0 is f32[2x3]"), std::string::npos) << s.message();
    EXPECT_EQ(m.aligned, nullptr);
  }
  {
    ExecutionContext execution(*context);
    MemRef<int32_t, 1> m{};
    RalArgs(&execution).add(int64_t(3)).result(&m).call(
        "ral_recv_input___cpu___pvoid_i64___m1di32");
    Status s = execution.finish();
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("input 3 is not bound"), std::string::npos) << s.message();
  }
  {
    ExecutionContext execution(*context);
    Tensor wrong(DType::F32, {2});
    EXPECT_TRUE(execution.bindOutput(0, &wrong));
    float v[3] = {1, 2, 3};
    RalArgs(&execution).add(int64_t(0)).add(makeMemRef<float, 1>(v, {3})).call(
        "ral_send_output___cpu___pvoid_i64_m1df32___void");
    Status s = execution.finish();
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("output 0 is f32[3], the bound buffer is f32[2]"), std::string::npos)
        << s.message();
  }
}

TEST(RalContext, OutputsComputedInTheCallersBuffer) {
  // ral_recv_output hands out the bound buffer (checked against the compiled shape first), or a
  // new tensor when none is bound; sending that buffer back copies nothing.
  auto context = makeContext();
  {
    ExecutionContext execution(*context);
    Tensor bound(DType::F32, {2, 3});
    ASSERT_TRUE(execution.bindOutput(0, &bound));
    MemRef<float, 2> out{};
    RalArgs(&execution).add(int64_t(0)).add(int64_t(2)).add(int64_t(3)).result(&out).call(
        "ral_recv_output___cpu___pvoid_i64_i64_i64___m2df32");
    ASSERT_TRUE(execution.status()) << execution.status().message();
    EXPECT_EQ(out.data(), bound.dataAs<float>());
    EXPECT_EQ(out.strides[0], 3);
    for (int i = 0; i < 6; ++i)
      out.data()[i] = float(i);
    RalArgs(&execution).add(int64_t(0)).add(out).call(
        "ral_send_output___cpu___pvoid_i64_m2df32___void");
    // Output 1, unbound: a new tensor, which the send keeps as the output.
    MemRef<int64_t, 1> fresh{};
    RalArgs(&execution).add(int64_t(1)).add(int64_t(4)).result(&fresh).call(
        "ral_recv_output___cpu___pvoid_i64_i64___m1di64");
    ASSERT_NE(fresh.data(), nullptr);
    // Both aligned as compiled kernels assume (ral-stream-output-stores).
    EXPECT_EQ(reinterpret_cast<uintptr_t>(out.aligned) % kTensorAlignment, 0u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(fresh.aligned) % kTensorAlignment, 0u);
    EXPECT_EQ(out.offset, 0);
    EXPECT_EQ(fresh.offset, 0);
    for (int i = 0; i < 4; ++i)
      fresh.data()[i] = 10 + i;
    RalArgs(&execution).add(int64_t(1)).add(fresh).call(
        "ral_send_output___cpu___pvoid_i64_m1di64___void");
    ASSERT_TRUE(execution.finish()) << execution.status().message();
    EXPECT_EQ(bound.dataAs<float>()[5], 5.0f);
    Tensor kept = execution.sentOutput(1);
    EXPECT_EQ(kept.dataAs<int64_t>(), fresh.data()) << "sent without a copy";
    EXPECT_EQ(kept.dataAs<int64_t>()[3], 13);
  }
  {
    // A bound buffer of another shape is refused before any code writes there.
    ExecutionContext execution(*context);
    Tensor wrong(DType::F32, {2});
    ASSERT_TRUE(execution.bindOutput(0, &wrong));
    MemRef<float, 1> out{};
    RalArgs(&execution).add(int64_t(0)).add(int64_t(3)).result(&out).call(
        "ral_recv_output___cpu___pvoid_i64_i64___m1df32");
    EXPECT_EQ(out.data(), nullptr);
    Status s = execution.finish();
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("ral_recv_output: output 0 is f32[3], the bound buffer is f32[2]"),
              std::string::npos)
        << s.message();
  }
}

TEST(RalContext, TemporariesAreTrackedAndFreedAtFinish) {
  auto context = makeContext();
  CachingAllocator &allocator = context->cpu().allocator();
  uint64_t before = allocator.stats().bytesInUse;
  {
    ExecutionContext execution(*context);
    void *a = nullptr, *b = nullptr;
    RalArgs(&execution).add(int64_t(1000)).result(&a).call(LOUPE_RAL_ALLOC_CPU);
    RalArgs(&execution).add(int64_t(0)).result(&b).call(LOUPE_RAL_ALLOC_CPU);
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u);
    RalArgs(&execution).add(a).add(int32_t(7)).add(int64_t(1000)).call(LOUPE_RAL_MEMSET_CPU);
    EXPECT_EQ(static_cast<unsigned char *>(a)[999], 7);
    RalArgs(&execution).add(a).call(LOUPE_RAL_DEALLOC_CPU);
    EXPECT_GT(allocator.stats().bytesInUse, before); // b is still live
    EXPECT_TRUE(execution.finish());
    EXPECT_EQ(allocator.stats().bytesInUse, before);
  }
  ExecutionContext execution(*context);
  int local;
  RalArgs(&execution).add(static_cast<void *>(&local)).call(LOUPE_RAL_DEALLOC_CPU);
  Status s = execution.finish();
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("not allocated by this execution"), std::string::npos);
}

TEST(RalContext, PersistentBuffersLiveWithTheContext) {
  auto context = makeContext();
  void *p = nullptr;
  {
    ExecutionContext execution(*context);
    RalArgs(&execution).add(int64_t(256)).result(&p).call(LOUPE_RAL_ALLOC_PERSISTENT_CPU);
    std::memset(p, 3, 256);
    EXPECT_TRUE(execution.finish());
  }
  EXPECT_EQ(static_cast<unsigned char *>(p)[255], 3); // still ours after the execution
  EXPECT_GE(context->cpu().allocator().stats().bytesInUse, 256u);
}

struct RecordingTracer : Tracer {
  std::vector<std::string> events;
  void onDispatchBegin(const DispatchEvent &e) override {
    events.push_back("begin " + std::to_string(e.dispatchId) + " " + e.name + " " + e.backend +
                     " " + e.loc + " " + e.device + " #" + std::to_string(e.sequence));
  }
  void onDispatchEnd(const DispatchEvent &e) override {
    events.push_back("end " + std::to_string(e.dispatchId) + " " + e.name);
  }
  void outputReady(int64_t index) override { events.push_back("output " + std::to_string(index)); }
};

TEST(RalContext, DispatchEventsReachTheTracerWithNames) {
  auto context = makeContext();
  ExecutionContext execution(*context);
  RecordingTracer tracer;
  execution.setTracer(&tracer);
  std::vector<DispatchNames> table(2);
  table[1] = {"dispatch_1_conv", "onednn", "Conv_7"};
  execution.setDispatchTable(&table);
  const char *name = "dispatch_0_add", *backend = "codegen", *loc = "Add_1,Relu_2";
  const char *none = nullptr;
  RalArgs(&execution).add(int64_t(0)).add(name).add(backend).add(loc).call(
      LOUPE_RAL_DISPATCH_BEGIN_CPU);
  RalArgs(&execution).add(int64_t(0)).call(LOUPE_RAL_DISPATCH_END_CPU);
  RalArgs(&execution).add(int64_t(1)).add(none).add(none).add(none).call(
      LOUPE_RAL_DISPATCH_BEGIN_GPU);
  RalArgs(&execution).add(int64_t(1)).call(LOUPE_RAL_DISPATCH_END_GPU);
  EXPECT_TRUE(execution.finish());
  std::vector<std::string> want = {"begin 0 dispatch_0_add codegen Add_1,Relu_2 cpu #0",
                                   "end 0 dispatch_0_add",
                                   "begin 1 dispatch_1_conv onednn Conv_7 gpu #1",
                                   "end 1 dispatch_1_conv"};
  EXPECT_EQ(tracer.events, want);
}

TEST(RalContext, GpuDispatchEventsCarryTheExecutionsStream) {
  struct StreamTracer : Tracer {
    std::vector<void *> streams;
    void onDispatchBegin(const DispatchEvent &e) override { streams.push_back(e.stream); }
    void onDispatchEnd(const DispatchEvent &e) override { streams.push_back(e.stream); }
  } tracer;
  auto context = makeContext();
  ExecutionContext execution(*context);
  execution.setTracer(&tracer);
  execution.dispatchBegin(0, "k", "", "", "cpu");
  execution.dispatchEnd(0, "cpu");
  execution.dispatchBegin(1, "g", "", "", "gpu");
  execution.dispatchEnd(1, "gpu");
  ASSERT_EQ(tracer.streams.size(), 4u);
  EXPECT_EQ(tracer.streams[0], nullptr); // CPU dispatches have none
  EXPECT_EQ(tracer.streams[1], nullptr);
  if (context->cuda()) {
    EXPECT_NE(tracer.streams[2], nullptr);
    EXPECT_EQ(tracer.streams[2], execution.cudaStream());
    EXPECT_EQ(tracer.streams[3], tracer.streams[2]);
  } else {
    // Without CUDA the event has no stream and the execution no error of the tracer's making.
    EXPECT_EQ(tracer.streams[2], nullptr);
    EXPECT_EQ(tracer.streams[3], nullptr);
  }
  EXPECT_TRUE(execution.finish());
}

TEST(RalContext, LegacyIdOnlyTracersStillWork) {
  struct IdTracer : Tracer {
    std::vector<int64_t> ids;
    void dispatchBegin(int64_t id) override { ids.push_back(id); }
    void dispatchEnd(int64_t id) override { ids.push_back(-id - 1); }
  } tracer;
  auto context = makeContext();
  ExecutionContext execution(*context);
  execution.setTracer(&tracer);
  execution.dispatchBegin(5, "k", "", "", "cpu");
  execution.dispatchEnd(5, "cpu");
  EXPECT_EQ(tracer.ids, (std::vector<int64_t>{5, -6}));
}

TEST(RalContext, FirstErrorWinsAndLaterOnesAreCounted) {
  auto context = makeContext();
  ExecutionContext execution(*context);
  EXPECT_FALSE(execution.failed());
  execution.signalError(invalidArgument("first"));
  execution.signalError(internalError("second"));
  execution.signalError(internalError("third"));
  EXPECT_TRUE(execution.failed());
  Status s = execution.finish();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "first (and 2 later errors)");
  // The context is not poisoned by an execution's error.
  EXPECT_TRUE(context->status());
  ExecutionContext next(*context);
  EXPECT_TRUE(next.finish());
}

TEST(RalContext, MemcpyCopiesBytes) {
  auto context = makeContext();
  ExecutionContext execution(*context);
  char src[16] = "0123456789abcde", dst[16] = {};
  RalArgs(&execution).add(static_cast<void *>(dst)).add(static_cast<void *>(src)).add(int64_t(16))
      .call(LOUPE_RAL_MEMCPY_CPU);
  EXPECT_STREQ(dst, src);
}

} // namespace
