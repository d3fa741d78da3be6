//===- CudaTest.cpp - The CUDA driver and GPU kernels (dlopen, no link-time CUDA) ----===//
//
// Without a GPU: the driver reports clearly what is missing, every GPU API called through
// ral_api_call records that status instead of crashing, and the symbol tables are checked
// against whatever CUDA libraries this machine has (the toolkit's libraries and link stub).
// With a GPU: the GPU kernels run against naive references; without one they GTEST_SKIP.
//
//===----------------------------------------------------------------------===//
#include "ConvAlgorithm.h" // ral/lib/cuda (internal)
#include "RalTestUtils.h"

#include "loupe/ral/Context.h"
#include "loupe/ral/CudaDriver.h"
#include "loupe/ral/Kernels.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <dlfcn.h>
#include <random>
#include <sys/stat.h>

using namespace loupe::ral;
using loupe::ral::testing::RalArgs;

using loupe::ral::testing::naiveGemm;

namespace {

/// Sets an environment variable for one scope.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name))
      old_ = old, had_ = true;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (had_)
      setenv(name_, old_.c_str(), 1);
    else
      unsetenv(name_);
  }

private:
  const char *name_;
  std::string old_;
  bool had_ = false;
};

bool exists(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

TEST(RalCuda, DriverInitReportsAMissingDriverClearly) {
  auto driver = CudaDriver::create(0);
  if (driver)
    GTEST_SKIP() << "a GPU is present: " << (*driver)->describe();
  EXPECT_EQ(driver.status().code(), StatusCode::kUnavailable);
  const std::string &m = driver.status().message();
  EXPECT_TRUE(m.find("libcuda.so.1 not found in") != std::string::npos ||
              m.find("no CUDA-capable GPU") != std::string::npos ||
              m.find("built without CUDA headers") != std::string::npos)
      << m;
  if (m.find("not found in") != std::string::npos) {
    EXPECT_NE(m.find("LOUPE_CUDA_LIB_DIRS"), std::string::npos) << m;
    EXPECT_NE(m.find("/usr/local/cuda/lib64"), std::string::npos) << m;
    EXPECT_NE(m.find("no NVIDIA driver on this machine"), std::string::npos) << m;
  }
}

TEST(RalCuda, SymbolTableMatchesTheToolkitsDriverStub) {
  const std::string stubs = "/usr/local/cuda/lib64/stubs";
  if (!exists(stubs + "/libcuda.so"))
    GTEST_SKIP() << "no CUDA toolkit link stub at " << stubs;
  ScopedEnv env("LOUPE_CUDA_LIB_DIRS", stubs.c_str());
  auto driver = CudaDriver::create(0);
  if (driver)
    GTEST_SKIP() << "the stub directory resolved to a real driver";
  // Every symbol of the table resolved (else: "lacks ..."), then cuInit said "stub".
  const std::string &m = driver.status().message();
  EXPECT_EQ(m.find("lacks"), std::string::npos) << m;
  EXPECT_NE(m.find("link stub"), std::string::npos) << m;
}

TEST(RalCuda, VendorLibrarySymbolTablesResolveWhereInstalled) {
  for (const CudaLibraryInfo &lib : probeCudaLibraries()) {
    SCOPED_TRACE(lib.what);
    if (lib.path.empty()) {
      EXPECT_FALSE(lib.status);
      EXPECT_FALSE(lib.status.message().empty());
      continue;
    }
    if (lib.what == "CUDA driver" || lib.what == "CUPTI")
      continue; // found means loadable; the driver's table is checked above
    EXPECT_TRUE(lib.status) << lib.path << ": " << lib.status.message();
  }
}

TEST(RalCuda, ContextWithCudaFailsCleanlyWithoutAGpu) {
  ContextOptions options;
  options.loadPlugins = false;
  options.useCuda = true;
  auto created = Context::create(options);
  if (created)
    GTEST_SKIP() << "a GPU is present";
  EXPECT_EQ(created.status().code(), StatusCode::kUnavailable);
}

TEST(RalCuda, GpuApisRecordTheDriverStatusInsteadOfCrashing) {
  ContextOptions options;
  options.loadPlugins = false;
  auto context = *Context::create(options);
  if (context->cuda())
    GTEST_SKIP() << "a GPU is present";
  ExecutionContext execution(*context);
  void *ptr = reinterpret_cast<void *>(1);
  RalArgs(&execution).add(int64_t(1024)).result(&ptr).call(LOUPE_RAL_ALLOC_GPU);
  EXPECT_EQ(ptr, nullptr);
  static const char blob[] = "not a cubin";
  const char *name = "k";
  void **params = nullptr;
  RalArgs(&execution)
      .add(static_cast<const void *>(blob))
      .add(int64_t(sizeof blob))
      .add(name)
      .add(int64_t(1)).add(int64_t(1)).add(int64_t(1))
      .add(int64_t(32)).add(int64_t(1)).add(int64_t(1))
      .add(int32_t(0))
      .add(params)
      .call(LOUPE_RAL_KERNEL_LAUNCH_GPU);
  float a[4] = {}, b[4] = {}, c[4] = {};
  RalArgs(&execution)
      .add(makeMemRef<float, 2>(a, {2, 2}))
      .add(makeMemRef<float, 2>(b, {2, 2}))
      .add(makeMemRef<float, 2>(c, {2, 2}))
      .add(false)
      .add(false)
      .call(LOUPE_RAL_GEMM_CUBLAS_F32);
  Status s = execution.finish();
  ASSERT_FALSE(s);
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
}

// ---- On a GPU: kernels against naive references (skipped here). ----

class RalGpu : public ::testing::Test {
protected:
  void SetUp() override {
    auto created = Context::create();
    ASSERT_TRUE(created) << created.status().message();
    context_ = *created;
    auto cuda = context_->cuda();
    if (!cuda)
      GTEST_SKIP() << "no GPU: " << cuda.status().message();
    cuda_ = *cuda;
  }
  /// A device copy of `host`, freed at TearDown.
  float *upload(const std::vector<float> &host) {
    auto ptr = cuda_->alloc(host.size() * sizeof(float));
    EXPECT_TRUE(ptr);
    EXPECT_TRUE(cuda_->memcpyHtoD(*ptr, host.data(), host.size() * sizeof(float)));
    buffers_.push_back(*ptr);
    return reinterpret_cast<float *>(*ptr);
  }
  std::vector<float> download(const float *device, size_t n) {
    std::vector<float> host(n);
    EXPECT_TRUE(
        cuda_->memcpyDtoH(host.data(), reinterpret_cast<uint64_t>(device), n * sizeof(float)));
    return host;
  }
  void TearDown() override {
    for (uint64_t p : buffers_)
      EXPECT_TRUE(cuda_->free(p));
  }
  std::vector<float> random(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> d(-1.f, 1.f);
    std::vector<float> v(n);
    for (float &x : v)
      x = d(rng);
    return v;
  }
  std::shared_ptr<Context> context_;
  CudaDriver *cuda_ = nullptr;
  std::vector<uint64_t> buffers_;
};

// The epilogue GEMM adds a bias and a residual (cuBLASLt's C input) before its ReLU. The second
// round runs each case again on the cuBLASLt algorithm chosen for it in the first.
TEST_F(RalGpu, GemmCublasAndEpilogueCublasLt) {
  int64_t m = 33, n = 17, k = 29;
  for (int round = 0; round < 2; ++round)
    for (int transposes = 0; transposes < 4; ++transposes) {
      bool ta = transposes & 1, tb = transposes & 2;
      std::vector<float> a = random(m * k, 1), b = random(k * n, 2), bias = random(n, 3),
                         residual = random(m * n, 4);
      float *da = upload(a), *db = upload(b), *dc = upload(std::vector<float>(m * n)),
            *dbias = upload(bias), *dr = upload(residual), *dd = upload(std::vector<float>(m * n));
      int64_t aShape[2] = {ta ? k : m, ta ? m : k}, bShape[2] = {tb ? n : k, tb ? k : n};
      ExecutionContext execution(*context_);
      RalArgs(&execution)
          .add(makeMemRef<float, 2>(da, aShape))
          .add(makeMemRef<float, 2>(db, bShape))
          .add(makeMemRef<float, 2>(dc, {m, n}))
          .add(ta)
          .add(tb)
          .call(LOUPE_RAL_GEMM_CUBLAS_F32);
      RalArgs(&execution)
          .add(makeMemRef<float, 2>(da, aShape))
          .add(makeMemRef<float, 2>(db, bShape))
          .add(makeMemRef<float, 1>(dbias, {n}))
          .add(makeMemRef<float, 2>(dr, {m, n}))
          .add(makeMemRef<float, 2>(dd, {m, n}))
          .add(ta)
          .add(tb)
          .add(int32_t(Activation::kRelu))
          .call(LOUPE_RAL_GEMM_EPILOGUE_CUBLASLT_F32);
      ASSERT_TRUE(execution.finish()) << execution.status().message();
      std::vector<float> want = naiveGemm(a, b, m, n, k, ta, tb), got = download(dc, m * n),
                         gotD = download(dd, m * n);
      for (int64_t i = 0; i < m * n; ++i) {
        ASSERT_NEAR(got[i], want[i], 1e-3f) << i;
        ASSERT_NEAR(gotD[i], std::max(0.f, want[i] + bias[i % n] + residual[i]), 1e-3f) << i;
      }
    }
}

// The algorithm is chosen once per problem and context: the same conv again, and a conv of
// another stride and epilogue in between, must each run their own problem's plan.
TEST_F(RalGpu, ConvCudnn) {
  int64_t n = 2, c = 4, h = 9, w = 8, o = 6, kh = 3, kw = 3;
  std::vector<float> x = random(n * c * h * w, 4), wt = random(o * (c / 2) * kh * kw, 5),
                     bias = random(o, 6);
  float *dx = upload(x), *dw = upload(wt), *db = upload(bias);
  auto check = [&](int64_t stride, bool relu) {
    SCOPED_TRACE("stride " + std::to_string(stride) + (relu ? ", relu" : ""));
    int64_t ho = (h - 1) / stride + 1, wo = (w - 1) / stride + 1; // pad 1, 3x3
    std::vector<int64_t> params = {stride, stride, 1, 1, 1, 1, 1, 1, 2, relu}; // groups 2
    float *dy = upload(std::vector<float>(n * o * ho * wo));
    ExecutionContext execution(*context_);
    RalArgs(&execution)
        .add(makeMemRef<float, 4>(dx, {n, c, h, w}))
        .add(makeMemRef<float, 4>(dw, {o, c / 2, kh, kw}))
        .add(makeMemRef<float, 1>(db, {o}))
        .add(makeMemRef<float, 4>(dy, {n, o, ho, wo}))
        .add(makeMemRef<int64_t, 1>(params.data(), {10}))
        .call(LOUPE_RAL_CONV_CUDNN_F32);
    ASSERT_TRUE(execution.finish()) << execution.status().message();
    std::vector<float> y = download(dy, n * o * ho * wo);
    for (int64_t b = 0; b < n; ++b)
      for (int64_t oc = 0; oc < o; ++oc)
        for (int64_t i = 0; i < ho; ++i)
          for (int64_t j = 0; j < wo; ++j) {
            int64_t g = oc / (o / 2);
            double acc = bias[oc];
            for (int64_t ci = 0; ci < c / 2; ++ci)
              for (int64_t u = 0; u < kh; ++u)
                for (int64_t v = 0; v < kw; ++v) {
                  int64_t hi = i * stride - 1 + u, wi = j * stride - 1 + v;
                  if (hi >= 0 && hi < h && wi >= 0 && wi < w)
                    acc += x[((b * c + g * (c / 2) + ci) * h + hi) * w + wi] *
                           wt[((oc * (c / 2) + ci) * kh + u) * kw + v];
                }
            ASSERT_NEAR(y[((b * o + oc) * ho + i) * wo + j], relu ? std::max(0.0, acc) : acc,
                        1e-3);
          }
  };
  check(1, true);
  check(2, false);
  check(1, true);
}

TEST_F(RalGpu, AllocMemcpyAndStreamOrdering) {
  ExecutionContext execution(*context_);
  void *device = nullptr;
  RalArgs(&execution).add(int64_t(4096)).result(&device).call(LOUPE_RAL_ALLOC_GPU);
  ASSERT_NE(device, nullptr) << execution.status().message();
  std::vector<unsigned char> host(4096, 0);
  RalArgs(&execution).add(device).add(int32_t(5)).add(int64_t(4096)).call(LOUPE_RAL_MEMSET_GPU);
  RalArgs(&execution).add(static_cast<void *>(host.data())).add(device).add(int64_t(4096))
      .call(LOUPE_RAL_MEMCPY_GPU);
  ASSERT_TRUE(execution.finish()) << execution.status().message();
  EXPECT_EQ(host[4095], 5);
}

} // namespace

// The first GPU run: cuDNN's default math let a TF32 algorithm run an f32 conv (4% off). The
// algorithm is the best one ranked in FMA math; without one, implicit GEMM.
TEST(RalCuda, ConvAlgorithmIsNeverATensorCoreOne) {
  using loupe::ral::pickFp32ConvAlgorithm;
  const int implicitGemm = 0;
  EXPECT_EQ(pickFp32ConvAlgorithm({{6, true, false}, {1, false, true}, {2, true, true}}, implicitGemm),
            2);
  EXPECT_EQ(pickFp32ConvAlgorithm({{6, true, false}, {7, true, false}}, implicitGemm), implicitGemm);
  EXPECT_EQ(pickFp32ConvAlgorithm({}, implicitGemm), implicitGemm);
}

#ifdef LOUPE_FAKE_CUDA_DIR
/// A counter of the fake driver (fixtures/fake_libcuda.c).
static int fakeCudaCounter(const char *name) {
  void *fake = dlopen(LOUPE_FAKE_CUDA_DIR "/libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  auto counter = fake ? reinterpret_cast<int (*)()>(dlsym(fake, name)) : nullptr;
  return counter ? counter() : -1;
}

// The first GPU run stored 101 CUDA streams for 100 repetitions: every execution created and
// destroyed its own. Executions now take an idle stream of the context's pool; concurrent ones
// get their own, and the context destroys the pool.
TEST(RalCuda, ExecutionsReuseTheContextsIdleStreams) {
  ScopedEnv dirs("LOUPE_CUDA_LIB_DIRS", LOUPE_FAKE_CUDA_DIR);
  ContextOptions options;
  options.loadPlugins = false;
  options.useCuda = true;
  auto context = Context::create(options);
  ASSERT_TRUE(context) << context.status().message();
  ASSERT_TRUE((*context)->cuda());
  ASSERT_NE((*(*context)->cuda())->libraryPath().find(LOUPE_FAKE_CUDA_DIR), std::string::npos);
  void *first = nullptr;
  for (int rep = 0; rep < 5; ++rep) {
    ExecutionContext execution(**context);
    void *stream = execution.cudaStream();
    ASSERT_NE(stream, nullptr);
    if (rep == 0)
      first = stream;
    EXPECT_EQ(stream, first) << "repetition " << rep;
    EXPECT_TRUE(execution.finish());
  }
  EXPECT_EQ(fakeCudaCounter("fake_cuda_streams_created"), 1);
  {
    ExecutionContext a(**context), b(**context);
    EXPECT_NE(a.cudaStream(), b.cudaStream());
    EXPECT_TRUE(a.finish());
    EXPECT_TRUE(b.finish());
  }
  EXPECT_EQ(fakeCudaCounter("fake_cuda_streams_created"), 2);
  EXPECT_EQ(fakeCudaCounter("fake_cuda_streams_destroyed"), 0);
  context->reset();
  EXPECT_EQ(fakeCudaCounter("fake_cuda_streams_live"), 0);
}
#endif
