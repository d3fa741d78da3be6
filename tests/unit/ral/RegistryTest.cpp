//===- RegistryTest.cpp - Name encoding, wrappers, registry, ral_api_call --------===//
#include "loupe/ral/Context.h"
#include "loupe/ral/Registry.h"
#include "loupe/ral/ral_api.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <tuple>

using namespace loupe::ral;
using detail::FixedString;

namespace {

template <typename F> std::string nameOf(const char *device = "cpu") {
  // The device is a runtime string here only for the test's convenience: encode with "cpu"/"gpu".
  if (std::string(device) == "gpu")
    return std::string(apiName<F>(FixedString("api"), FixedString("gpu")).view());
  return std::string(apiName<F>(FixedString("api"), FixedString("cpu")).view());
}

struct Handle;

// ---- Name encoding, checked at compile time (the point of the macro) and at run time. ----
using GemmFn = void (*)(ExecutionContext *, MemRef<float, 2>, MemRef<float, 2>, MemRef<float, 2>,
                        bool, bool);
static_assert(apiName<GemmFn>(FixedString("ral_gemm"), FixedString("cpu")).view() ==
              "ral_gemm___cpu___pvoid_m2df32_m2df32_m2df32_i1_i1___void");
static_assert(detail::TypeCode<MemRef<half, 4>>::value.view() == "m4df16");
static_assert(detail::TypeCode<std::tuple<float, MemRef<int64_t, 1>>>::value.view() == "f32_m1di64");
static_assert(detail::slotOffsets<ExecutionContext *, MemRef<float, 2>, bool>()[3] == 1 + 7 + 1);

TEST(RalNameEncoding, TableOfSignatures) {
  struct Row {
    std::string got;
    const char *want;
  };
  const Row rows[] = {
      // scalars, every code
      {nameOf<void (*)(ExecutionContext *, bool, int8_t, int16_t, int32_t, int64_t)>(),
       "api___cpu___pvoid_i1_i8_i16_i32_i64___void"},
      {nameOf<void (*)(ExecutionContext *, uint8_t, uint16_t, uint32_t, ui64_t)>(),
       "api___cpu___pvoid_ui8_ui16_ui32_ui64___void"},
      {nameOf<double (*)(ExecutionContext *, half, bfloat16, float)>(),
       "api___cpu___pvoid_f16_bf16_f32___f64"},
      // index / size_t = i64 (DESIGN.md); long long too
      {nameOf<size_t (*)(ExecutionContext *, size_t, long long)>(),
       "api___cpu___pvoid_i64_i64___i64"},
      // pointers
      {nameOf<void *(*)(ExecutionContext *, const char *, void *, const void *, Handle *)>(),
       "api___cpu___pvoid_pvoid_pvoid_pvoid_pvoid___pvoid"},
      {nameOf<void (*)(ExecutionContext *, void **, const void **)>(),
       "api___cpu___pvoid_ppvoid_ppvoid___void"},
      // memrefs of rank 0-4
      {nameOf<MemRef<float, 0> (*)(ExecutionContext *, MemRef<bool, 0>)>(),
       "api___cpu___pvoid_m0di1___m0df32"},
      {nameOf<void (*)(ExecutionContext *, MemRef<int8_t, 1>, MemRef<uint16_t, 2>)>(),
       "api___cpu___pvoid_m1di8_m2dui16___void"},
      {nameOf<MemRef<double, 3> (*)(ExecutionContext *, MemRef<bfloat16, 4>)>(),
       "api___cpu___pvoid_m4dbf16___m3df64"},
      {nameOf<void (*)(ExecutionContext *, MemRef<int64_t, 1>, int64_t, void *, void **)>("gpu"),
       "api___gpu___pvoid_m1di64_i64_pvoid_ppvoid___void"},
      // tuples
      {nameOf<std::tuple<float, int32_t> (*)(ExecutionContext *)>(), "api___cpu___pvoid___f32_i32"},
      {nameOf<std::tuple<MemRef<float, 2>, MemRef<int64_t, 2>> (*)(ExecutionContext *, int64_t)>(),
       "api___cpu___pvoid_i64___m2df32_m2di64"},
      // ranks beyond 9 keep their digits
      {std::string(detail::TypeCode<MemRef<float, 12>>::value.view()), "m12df32"},
  };
  for (const Row &row : rows)
    EXPECT_EQ(row.got, row.want);
}

// ---- Wrapper unpacking: functions registered by this test, called through ral_api_call. ----

struct Seen {
  bool flag;
  int8_t i8;
  int32_t i32;
  int64_t i64;
  uint16_t u16;
  half h;
  float f;
  double d;
  const char *text;
  MemRef<float, 2> m;
  MemRef<int32_t, 0> scalar;
};
Seen seen;

double scalarsAndMemrefs(ExecutionContext *ctx, bool flag, int8_t i8, int32_t i32, int64_t i64,
                         uint16_t u16, half h, float f, double d, const char *text,
                         MemRef<float, 2> m, MemRef<int32_t, 0> scalar) {
  seen = {flag, i8, i32, i64, u16, h, f, d, text, m, scalar};
  return d * 2;
}
LOUPE_RAL_API("test_unpack", "cpu", scalarsAndMemrefs);

MemRef<float, 1> makeView(ExecutionContext *ctx, void *data, int64_t n) {
  MemRef<float, 1> m;
  m.allocated = m.aligned = static_cast<float *>(data);
  m.offset = 1;
  m.sizes[0] = n;
  m.strides[0] = 2;
  return m;
}
LOUPE_RAL_API("test_make_view", "cpu", makeView);

std::tuple<int32_t, float, MemRef<int64_t, 0>> pair(ExecutionContext *ctx, int32_t a) {
  static int64_t cell = 99;
  return {a + 1, a * 0.5f, makeMemRef(&cell)};
}
LOUPE_RAL_API("test_tuple", "cpu", pair);

int64_t counter(ExecutionContext *ctx, int64_t add) {
  static thread_local int64_t total = 0;
  return total += add;
}
LOUPE_RAL_API("test_counter", "cpu", counter);

class RalApiCall : public ::testing::Test {
protected:
  void SetUp() override {
    ContextOptions options;
    options.loadPlugins = false;
    auto created = Context::create(options);
    ASSERT_TRUE(created) << created.status().message();
    context = *created;
    execution = std::make_unique<ExecutionContext>(*context);
  }
  std::shared_ptr<Context> context;
  std::unique_ptr<ExecutionContext> execution;
};

TEST_F(RalApiCall, UnpacksScalarsPointersAndMemrefs) {
  void *ctx = execution.get();
  bool flag = true;
  int8_t i8 = -5;
  int32_t i32 = 123456;
  int64_t i64 = -(int64_t(1) << 40);
  uint16_t u16 = 65000;
  half h{0x3c00};
  float f = 2.5f;
  double d = 0.125;
  const char *text = "hello";
  float buffer[12];
  float *allocated = buffer, *aligned = buffer + 1;
  int64_t offset = 2, size0 = 3, size1 = 4, stride0 = 5, stride1 = 1;
  int32_t cell = 7;
  int32_t *cellPtr = &cell;
  int64_t zeroOffset = 0;
  double result = 0;
  void *args[] = {&ctx,    &flag,     &i8,      &i32,    &i64,     &u16,    &h,
                  &f,      &d,        &text,    &allocated, &aligned, &offset, &size0,
                  &size1,  &stride0,  &stride1, &cellPtr, &cellPtr, &zeroOffset, &result};
  ral_api_call(ctx,
               "test_unpack___cpu___pvoid_i1_i8_i32_i64_ui16_f16_f32_f64_pvoid_m2df32_m0di32___f64",
               args);
  ASSERT_TRUE(execution->status()) << execution->status().message();
  EXPECT_TRUE(seen.flag);
  EXPECT_EQ(seen.i8, -5);
  EXPECT_EQ(seen.i32, 123456);
  EXPECT_EQ(seen.i64, -(int64_t(1) << 40));
  EXPECT_EQ(seen.u16, 65000);
  EXPECT_EQ(seen.h.bits, 0x3c00);
  EXPECT_EQ(seen.f, 2.5f);
  EXPECT_EQ(seen.d, 0.125);
  EXPECT_STREQ(seen.text, "hello");
  EXPECT_EQ(seen.m.allocated, buffer);
  EXPECT_EQ(seen.m.aligned, buffer + 1);
  EXPECT_EQ(seen.m.offset, 2);
  EXPECT_EQ(seen.m.sizes[0], 3);
  EXPECT_EQ(seen.m.sizes[1], 4);
  EXPECT_EQ(seen.m.strides[0], 5);
  EXPECT_EQ(seen.m.strides[1], 1);
  EXPECT_EQ(seen.scalar.aligned, &cell);
  EXPECT_EQ(*seen.scalar.data(), 7);
  EXPECT_EQ(result, 0.25); // the result goes to the slot after the 20 argument slots
}

TEST_F(RalApiCall, MemrefResultIsOneSlotHoldingTheDescriptor) {
  void *ctx = execution.get();
  float data[8];
  void *dataPtr = data;
  int64_t n = 4;
  MemRef<float, 1> result{};
  void *args[] = {&ctx, &dataPtr, &n, &result};
  ral_api_call(ctx, "test_make_view___cpu___pvoid_pvoid_i64___m1df32", args);
  EXPECT_EQ(result.aligned, data);
  EXPECT_EQ(result.offset, 1);
  EXPECT_EQ(result.sizes[0], 4);
  EXPECT_EQ(result.strides[0], 2);
}

TEST_F(RalApiCall, TupleResultTakesOneSlotPerElement) {
  void *ctx = execution.get();
  int32_t a = 10;
  int32_t first = 0;
  float second = 0;
  MemRef<int64_t, 0> third{};
  void *args[] = {&ctx, &a, &first, &second, &third};
  ral_api_call(ctx, "test_tuple___cpu___pvoid_i32___i32_f32_m0di64", args);
  EXPECT_EQ(first, 11);
  EXPECT_EQ(second, 5.0f);
  ASSERT_NE(third.aligned, nullptr);
  EXPECT_EQ(*third.aligned, 99);
}

TEST_F(RalApiCall, UnknownApiGivesAStatusWithTheName) {
  void *ctx = execution.get();
  void *args[] = {&ctx};
  ral_api_call(ctx, "ral_no_such_api___cpu___pvoid___void", args);
  Status s = execution->finish();
  ASSERT_FALSE(s);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_NE(s.message().find("ral_no_such_api___cpu___pvoid___void"), std::string::npos)
      << s.message();
}

TEST_F(RalApiCall, CachedLookupFollowsTheNamePointer) {
  void *ctx = execution.get();
  // Two different pointers to equal strings resolve to the same function.
  static const char a[] = "test_counter___cpu___pvoid_i64___i64";
  std::string b = a;
  int64_t add = 2, r1 = 0, r2 = 0;
  void *args1[] = {&ctx, &add, &r1};
  void *args2[] = {&ctx, &add, &r2};
  for (int i = 0; i < 3; ++i)
    ral_api_call(ctx, a, args1);
  ral_api_call(ctx, b.c_str(), args2);
  EXPECT_EQ(r1, 6);
  EXPECT_EQ(r2, 8);
  EXPECT_TRUE(execution->status());
}

// ---- The registry itself. ----

TEST(RalRegistry, DuplicateIsAnErrorAndTheFirstStays) {
  Registry registry;
  ApiFunction first = [](void **) {};
  ApiFunction second = [](void **) {};
  EXPECT_TRUE(registry.add({"x___cpu___pvoid___void", "x", "cpu", first, "a.cpp:1"}));
  Status dup = registry.add({"x___cpu___pvoid___void", "x", "cpu", second, "b.cpp:2"});
  ASSERT_FALSE(dup);
  EXPECT_NE(dup.message().find("registered twice"), std::string::npos);
  EXPECT_NE(dup.message().find("a.cpp:1"), std::string::npos);
  EXPECT_NE(dup.message().find("b.cpp:2"), std::string::npos);
  EXPECT_EQ(registry.find("x___cpu___pvoid___void"), first);
  EXPECT_FALSE(registry.status());
  EXPECT_EQ(registry.size(), 1u);
}

TEST(RalRegistry, GlobalRegistryHasTheAbiNamesAndNoErrors) {
  EXPECT_TRUE(Registry::global().status()) << Registry::global().status().message();
  for (const char *name :
       {LOUPE_RAL_ALLOC_CPU, LOUPE_RAL_DEALLOC_CPU, LOUPE_RAL_ALLOC_PERSISTENT_CPU,
        LOUPE_RAL_MEMCPY_CPU, LOUPE_RAL_MEMSET_CPU, LOUPE_RAL_DISPATCH_BEGIN_CPU,
        LOUPE_RAL_DISPATCH_END_CPU, LOUPE_RAL_CPU_LAUNCH, LOUPE_RAL_CPU_LAUNCH_1D, LOUPE_RAL_ALLOC_GPU,
        LOUPE_RAL_DEALLOC_GPU, LOUPE_RAL_MEMCPY_GPU, LOUPE_RAL_MEMSET_GPU,
        LOUPE_RAL_DISPATCH_BEGIN_GPU, LOUPE_RAL_DISPATCH_END_GPU, LOUPE_RAL_KERNEL_LAUNCH_GPU,
        LOUPE_RAL_TOPK_CPU_F32, LOUPE_RAL_SORT_CPU_F32, LOUPE_RAL_GEMM_CUBLAS_F32,
        LOUPE_RAL_GEMM_GPU_F32, LOUPE_RAL_BATCH_GEMM_CUBLAS_F32,
        LOUPE_RAL_GEMM_EPILOGUE_CUBLASLT_F32, LOUPE_RAL_CONV_CUDNN_F32,
        "ral_recv_input___cpu___pvoid_i64___m0di1", "ral_recv_input___cpu___pvoid_i64___m8df64",
        "ral_recv_input___gpu___pvoid_i64___m4df16",
        "ral_send_output___cpu___pvoid_i64_m3dbf16___void",
        "ral_send_output___cpu___pvoid_i64_m2dui64___void"})
    EXPECT_NE(Registry::global().find(name), nullptr) << name;
  // Every entry is well formed: four parts, known device.
  std::set<std::string> devices;
  for (const Registry::Entry &e : Registry::global().entries()) {
    size_t p1 = e.name.find("___"), p2 = e.name.find("___", p1 + 3),
           p3 = e.name.find("___", p2 + 3);
    ASSERT_NE(p3, std::string::npos) << e.name;
    EXPECT_EQ(e.name.substr(0, p1), e.prefix);
    EXPECT_EQ(e.name.substr(p1 + 3, p2 - p1 - 3), e.device);
    devices.insert(e.device);
  }
  EXPECT_EQ(devices, (std::set<std::string>{"cpu", "gpu"}));
}

TEST(RalRegistry, PluginKernelsRegisterWhenTheirPluginLoads) {
  const std::vector<PluginStatus> &plugins = loadPlugins();
  ASSERT_FALSE(plugins.empty());
  if (!plugins[0].status)
    GTEST_SKIP() << "CPU kernel plugin unavailable: " << plugins[0].status.message();
  for (const char *name :
       {LOUPE_RAL_GEMM_CPU_F32, LOUPE_RAL_GEMM_OPENBLAS_F32, LOUPE_RAL_GEMM_ONEDNN_F32,
        LOUPE_RAL_BATCH_GEMM_OPENBLAS_F32, LOUPE_RAL_BATCH_GEMM_ONEDNN_F32,
        LOUPE_RAL_GEMM_EPILOGUE_ONEDNN_F32, LOUPE_RAL_CONV_ONEDNN_F32})
    EXPECT_NE(Registry::global().find(name), nullptr) << name;
}

TEST(RalRegistry, ContextCreationChecksRequiredApis) {
  ContextOptions options;
  options.loadPlugins = false;
  options.requiredApis = {LOUPE_RAL_ALLOC_CPU, "ral_missing___cpu___pvoid___void"};
  auto created = Context::create(options);
  ASSERT_FALSE(created);
  EXPECT_EQ(created.status().code(), StatusCode::kNotFound);
  EXPECT_NE(created.status().message().find("ral_missing___cpu___pvoid___void"), std::string::npos);
}

} // namespace
