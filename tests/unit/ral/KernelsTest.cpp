//===- KernelsTest.cpp - Library kernels against naive references ------------------===//
//
// Every kernel is called as compiled code calls it: through ral_api_call with its ABI name.
//
//===----------------------------------------------------------------------===//
#include "RalTestUtils.h"

#include "loupe/ral/Context.h"
#include "loupe/ral/Kernels.h"
#include "loupe/ral/Registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <thread>

using namespace loupe::ral;
using loupe::ral::testing::RalArgs;

using loupe::ral::testing::naiveGemm;

namespace {

class RalKernels : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    const std::vector<PluginStatus> &plugins = loadPlugins();
    pluginStatus_ = plugins.empty() ? notFound("no plugin") : plugins[0].status;
  }
  void SetUp() override {
    auto created = Context::create();
    ASSERT_TRUE(created) << created.status().message();
    context_ = *created;
  }
  void requirePlugin() {
    if (!pluginStatus_)
      GTEST_SKIP() << "CPU kernel plugin unavailable: " << pluginStatus_.message();
  }
  std::vector<float> random(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> d(-1.f, 1.f);
    std::vector<float> v(n);
    for (float &x : v)
      x = d(rng);
    return v;
  }
  static inline Status pluginStatus_;
  std::shared_ptr<Context> context_;
};

void expectNear(const std::vector<float> &got, const std::vector<float> &want, float tol,
                const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i]))) << what << " at " << i;
}

float applyActivation(float x, int32_t act) {
  switch (static_cast<Activation>(act)) {
  case Activation::kRelu:
    return std::max(x, 0.f);
  case Activation::kGeluTanh:
    return 0.5f * x * (1 + std::tanh(0.7978845608f * (x + 0.044715f * x * x * x)));
  case Activation::kGeluErf:
    return 0.5f * x * (1 + std::erf(x / std::sqrt(2.f)));
  case Activation::kHardSwish:
    return x * std::clamp(x / 6 + 0.5f, 0.f, 1.f);
  case Activation::kSilu:
    return x / (1 + std::exp(-x));
  default:
    return x;
  }
}

TEST_F(RalKernels, GemmAllBackendsAndTransposes) {
  requirePlugin();
  struct Shape {
    int64_t m, n, k;
  };
  for (const char *api : {LOUPE_RAL_GEMM_OPENBLAS_F32, LOUPE_RAL_GEMM_ONEDNN_F32, LOUPE_RAL_GEMM_CPU_F32})
    for (Shape s : {Shape{5, 3, 7}, Shape{17, 9, 33}, Shape{1, 64, 16}})
      for (bool ta : {false, true})
        for (bool tb : {false, true}) {
          std::vector<float> a = random(s.m * s.k, 1), b = random(s.k * s.n, 2), c(s.m * s.n, 99);
          int64_t aShape[2] = {ta ? s.k : s.m, ta ? s.m : s.k};
          int64_t bShape[2] = {tb ? s.n : s.k, tb ? s.k : s.n};
          ExecutionContext execution(*context_);
          RalArgs(&execution)
              .add(makeMemRef<float, 2>(a.data(), aShape))
              .add(makeMemRef<float, 2>(b.data(), bShape))
              .add(makeMemRef<float, 2>(c.data(), {s.m, s.n}))
              .add(ta)
              .add(tb)
              .call(api);
          ASSERT_TRUE(execution.finish()) << api << ": " << execution.status().message();
          expectNear(c, naiveGemm(a, b, s.m, s.n, s.k, ta, tb), 1e-4f,
                     std::string(api) + (ta ? " A^T" : "") + (tb ? " B^T" : ""));
        }
}

TEST_F(RalKernels, GemmStridedAndColumnMajorViews) {
  requirePlugin();
  int64_t m = 6, n = 5, k = 4, lda = 9;
  // A [6x4] inside a [6x9] buffer (leading stride 9); B as a column-major [4x5] view.
  std::vector<float> abuf = random(m * lda, 3), bcol = random(k * n, 4);
  std::vector<float> a(m * k), b(k * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p)
      a[i * k + p] = abuf[i * lda + p];
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = 0; j < n; ++j)
      b[p * n + j] = bcol[j * k + p];
  MemRef<float, 2> am = makeMemRef<float, 2>(abuf.data(), {m, k});
  am.strides[0] = lda;
  MemRef<float, 2> bm = makeMemRef<float, 2>(bcol.data(), {k, n});
  bm.strides[0] = 1;
  bm.strides[1] = k;
  for (const char *api : {LOUPE_RAL_GEMM_OPENBLAS_F32, LOUPE_RAL_GEMM_ONEDNN_F32}) {
    std::vector<float> c(m * n);
    ExecutionContext execution(*context_);
    RalArgs(&execution).add(am).add(bm).add(makeMemRef<float, 2>(c.data(), {m, n})).add(false).add(false).call(api);
    ASSERT_TRUE(execution.finish()) << execution.status().message();
    expectNear(c, naiveGemm(a, b, m, n, k, false, false), 1e-4f, api);
  }
}

// A cached oneDNN primitive re-points its memory objects at each call's buffers, and a call
// that finds them held by another thread makes its own: every call of every thread must see
// its own operands.
TEST_F(RalKernels, OneDnnCallsOfOnePrimitiveSeeTheirOwnBuffers) {
  requirePlugin();
  constexpr int64_t m = 17, n = 9, k = 33;
  constexpr int kThreads = 3, kCalls = 200;
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      ExecutionContext execution(*context_);
      for (int call = 0; call < kCalls && failures[t].empty(); ++call) {
        uint32_t seed = 100 + t * kCalls + call;
        std::vector<float> a = random(m * k, seed), b = random(k * n, seed + 7), c(m * n);
        RalArgs(&execution)
            .add(makeMemRef<float, 2>(a.data(), {m, k}))
            .add(makeMemRef<float, 2>(b.data(), {k, n}))
            .add(makeMemRef<float, 2>(c.data(), {m, n}))
            .add(false)
            .add(false)
            .call(LOUPE_RAL_GEMM_ONEDNN_F32);
        std::vector<float> want = naiveGemm(a, b, m, n, k, false, false);
        for (size_t i = 0; i < c.size() && failures[t].empty(); ++i)
          if (std::fabs(c[i] - want[i]) > 1e-4f * (1 + std::fabs(want[i])))
            failures[t] = "thread " + std::to_string(t) + " call " + std::to_string(call) +
                          " element " + std::to_string(i);
      }
      if (!execution.finish())
        failures[t] = execution.status().message();
    });
  for (std::thread &thread : threads)
    thread.join();
  for (const std::string &failure : failures)
    EXPECT_TRUE(failure.empty()) << failure;
}

TEST_F(RalKernels, GemmShapeMismatchIsAStatusNamingTheKernel) {
  requirePlugin();
  std::vector<float> a(6), b(6), c(4);
  ExecutionContext execution(*context_);
  RalArgs(&execution)
      .add(makeMemRef<float, 2>(a.data(), {2, 3}))
      .add(makeMemRef<float, 2>(b.data(), {2, 3}))
      .add(makeMemRef<float, 2>(c.data(), {2, 2}))
      .add(false)
      .add(false)
      .call(LOUPE_RAL_GEMM_OPENBLAS_F32);
  Status s = execution.finish();
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("ral_gemm_openblas"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("[2x3]"), std::string::npos) << s.message();
}

TEST_F(RalKernels, BatchedGemmWithBroadcast) {
  requirePlugin();
  int64_t batch = 3, m = 4, n = 5, k = 6;
  for (const char *api : {LOUPE_RAL_BATCH_GEMM_OPENBLAS_F32, LOUPE_RAL_BATCH_GEMM_ONEDNN_F32})
    for (bool broadcastB : {false, true})
      for (bool tb : {false, true}) {
        int64_t bBatch = broadcastB ? 1 : batch;
        std::vector<float> a = random(batch * m * k, 5), b = random(bBatch * k * n, 6),
                           c(batch * m * n);
        int64_t bShape[3] = {bBatch, tb ? n : k, tb ? k : n};
        ExecutionContext execution(*context_);
        RalArgs(&execution)
            .add(makeMemRef<float, 3>(a.data(), {batch, m, k}))
            .add(makeMemRef<float, 3>(b.data(), bShape))
            .add(makeMemRef<float, 3>(c.data(), {batch, m, n}))
            .add(false)
            .add(tb)
            .call(api);
        ASSERT_TRUE(execution.finish()) << api << ": " << execution.status().message();
        for (int64_t i = 0; i < batch; ++i) {
          std::vector<float> ai(a.begin() + i * m * k, a.begin() + (i + 1) * m * k);
          int64_t bi = broadcastB ? 0 : i;
          std::vector<float> bm(b.begin() + bi * k * n, b.begin() + (bi + 1) * k * n);
          std::vector<float> ci(c.begin() + i * m * n, c.begin() + (i + 1) * m * n);
          expectNear(ci, naiveGemm(ai, bm, m, n, k, false, tb), 1e-4f,
                     std::string(api) + " batch " + std::to_string(i));
        }
      }
}

TEST_F(RalKernels, QuantizedBatchGemmOneDnnSubtractsZeroPoints) {
  requirePlugin();
  // Full-range int8 values, zero points that move them beyond int8 (uint8 data shifted by
  // -128 has zero points down to -128), B broadcast over the batch or not.
  int64_t batch = 2, m = 5, n = 7, k = 300;
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> value(-128, 127);
  for (auto [aZero, bZero] : {std::pair{0, 0}, std::pair{-128, 3}, std::pair{100, -7}})
    for (bool broadcastB : {false, true}) {
      int64_t bBatch = broadcastB ? 1 : batch;
      std::vector<int8_t> a(batch * m * k), b(bBatch * k * n);
      for (int8_t &x : a)
        x = int8_t(value(rng));
      for (int8_t &x : b)
        x = int8_t(value(rng));
      std::vector<int32_t> c(batch * m * n, -1);
      ExecutionContext execution(*context_);
      RalArgs(&execution)
          .add(makeMemRef<int8_t, 3>(a.data(), {batch, m, k}))
          .add(makeMemRef<int8_t, 3>(b.data(), {bBatch, k, n}))
          .add(makeMemRef<int32_t, 3>(c.data(), {batch, m, n}))
          .add(int32_t(aZero))
          .add(int32_t(bZero))
          .call(LOUPE_RAL_QGEMM_ONEDNN_I8);
      ASSERT_TRUE(execution.finish()) << execution.status().message();
      for (int64_t i = 0; i < batch; ++i)
        for (int64_t r = 0; r < m; ++r)
          for (int64_t j = 0; j < n; ++j) {
            int64_t want = 0;
            for (int64_t p = 0; p < k; ++p)
              want += (int64_t(a[(i * m + r) * k + p]) - aZero) *
                      (int64_t(b[((broadcastB ? 0 : i) * k + p) * n + j]) - bZero);
            ASSERT_EQ(c[(i * m + r) * n + j], want)
                << "zero points " << aZero << ", " << bZero << " batch " << i << " at " << r
                << "," << j;
          }
    }
}

/// Calls ral_gemm_epilogue_onednn on A [m, k], B ([k, n], or [n, k] when `transB`), a bias of
/// n (none when null), a residual [m, n] (none when null) and C [m, n].
Status gemmEpilogue(Context &context, std::vector<float> &a, float *b, const float *bias,
                    float *residual, std::vector<float> &c, int64_t m, int64_t n, int64_t k,
                    bool transB, int32_t act) {
  ExecutionContext execution(context);
  RalArgs(&execution)
      .add(makeMemRef<float, 2>(a.data(), {m, k}))
      .add(transB ? makeMemRef<float, 2>(b, {n, k}) : makeMemRef<float, 2>(b, {k, n}))
      .add(makeMemRef<float, 1>(const_cast<float *>(bias), {bias ? n : 0}))
      .add(residual ? makeMemRef<float, 2>(residual, {m, n})
                    : makeMemRef<float, 2>(nullptr, {0, 0}))
      .add(makeMemRef<float, 2>(c.data(), {m, n}))
      .add(false)
      .add(transB)
      .add(act)
      .call(LOUPE_RAL_GEMM_EPILOGUE_ONEDNN_F32);
  return execution.finish();
}

/// What gemmEpilogue should write: act(A B + bias + residual) by a naive GEMM, B [k, n]
/// row-major, bias [n] and residual [m, n] added when not null.
std::vector<float> epilogueReference(const std::vector<float> &a, const std::vector<float> &b,
                                     const float *bias, const float *residual, int64_t m,
                                     int64_t n, int64_t k, int32_t act) {
  std::vector<float> want = naiveGemm(a, b, m, n, k, false, false);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      want[i * n + j] = applyActivation(want[i * n + j] + (bias ? bias[j] : 0.f) +
                                            (residual ? residual[i * n + j] : 0.f),
                                        act);
  return want;
}

// Every activation with and without a bias, and a residual (ResNet's relu(conv3 + shortcut))
// in its own buffer or already in C (bufferized in place: oneDNN's sum post-op).
TEST_F(RalKernels, GemmEpilogueOneDnnPostOps) {
  requirePlugin();
  int64_t m = 7, n = 12, k = 10;
  std::vector<float> a = random(m * k, 7), b = random(k * n, 8), bias = random(n, 9),
                     shortcut = random(m * n, 10);
  enum Residual { kNone, kOwnBuffer, kInC };
  for (int32_t act : {0, 1, 2, 3, 4, 5})
    for (bool withBias : {true, false})
      for (Residual residual : {kNone, kOwnBuffer, kInC}) {
        std::vector<float> c = residual == kInC ? shortcut : std::vector<float>(m * n);
        std::vector<float> want =
            epilogueReference(a, b, withBias ? bias.data() : nullptr,
                              residual != kNone ? shortcut.data() : nullptr, m, n, k, act);
        float *residualData = residual == kNone ? nullptr
                              : residual == kInC  ? c.data()
                                                  : shortcut.data();
        Status status = gemmEpilogue(*context_, a, b.data(), withBias ? bias.data() : nullptr,
                                     residualData, c, m, n, k, false, act);
        ASSERT_TRUE(status) << status.message();
        expectNear(c, want, 1e-4f,
                   "epilogue act " + std::to_string(act) + (withBias ? " bias" : "") +
                       " residual " + std::to_string(residual));
      }
  // An unknown activation and a residual of another shape are errors naming the kernel.
  for (int32_t act : {9, 0}) {
    ExecutionContext execution(*context_);
    std::vector<float> c(m * n);
    RalArgs(&execution)
        .add(makeMemRef<float, 2>(a.data(), {m, k}))
        .add(makeMemRef<float, 2>(b.data(), {k, n}))
        .add(makeMemRef<float, 1>(bias.data(), {0}))
        .add(act == 0 ? makeMemRef<float, 2>(shortcut.data(), {n, m})
                      : makeMemRef<float, 2>(nullptr, {0, 0}))
        .add(makeMemRef<float, 2>(c.data(), {m, n}))
        .add(false)
        .add(false)
        .add(act)
        .call(LOUPE_RAL_GEMM_EPILOGUE_ONEDNN_F32);
    Status status = execution.finish();
    ASSERT_FALSE(status);
    if (act == 0)
      EXPECT_NE(status.message().find("ral_gemm_epilogue_onednn: the residual is [12x7]"),
                std::string::npos)
          << status.message();
  }
}

struct ConvCase {
  int64_t n, c, h, w, o, kh, kw;
  int64_t strideH, strideW, padT, padL, padB, padR, dilH, dilW, groups;
  bool bias;
  int32_t act;
};

std::vector<float> naiveConv(const ConvCase &p, const std::vector<float> &x,
                             const std::vector<float> &wt, const std::vector<float> &bias,
                             int64_t oh, int64_t ow) {
  std::vector<float> y(p.n * p.o * oh * ow);
  int64_t cg = p.c / p.groups, og = p.o / p.groups;
  for (int64_t b = 0; b < p.n; ++b)
    for (int64_t o = 0; o < p.o; ++o) {
      int64_t g = o / og;
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          double acc = p.bias ? bias[o] : 0;
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t u = 0; u < p.kh; ++u)
              for (int64_t v = 0; v < p.kw; ++v) {
                int64_t hi = i * p.strideH - p.padT + u * p.dilH;
                int64_t wi = j * p.strideW - p.padL + v * p.dilW;
                if (hi < 0 || hi >= p.h || wi < 0 || wi >= p.w)
                  continue;
                acc += double(x[((b * p.c + g * cg + ci) * p.h + hi) * p.w + wi]) *
                       wt[((o * cg + ci) * p.kh + u) * p.kw + v];
              }
          y[((b * p.o + o) * oh + i) * ow + j] = applyActivation(float(acc), p.act);
        }
    }
  return y;
}

TEST_F(RalKernels, ConvOneDnnNchwAgainstNaiveLoop) {
  requirePlugin();
  const ConvCase cases[] = {
      // pad/stride/dilation asymmetric, groups 2, bias, no activation
      {2, 4, 9, 8, 6, 3, 2, 2, 1, 1, 0, 2, 1, 1, 2, 2, true, 0},
      // plain 3x3, same padding, bias + relu
      {1, 3, 7, 7, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true, 1},
      // depthwise (groups = channels), stride 2, no bias
      {1, 6, 10, 10, 6, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 6, false, 0},
      // MobileNetV3's stem: stride 2, bias + hardswish
      {1, 3, 12, 12, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, true, 4},
      // EfficientNet's stem: stride 2, bias + SiLU
      {1, 3, 12, 12, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, true, 5},
      // 1x1 with dilation 3 (no effect) and GELU
      {3, 2, 4, 5, 4, 1, 1, 1, 1, 0, 0, 0, 0, 3, 3, 1, true, 3},
  };
  for (const ConvCase &p : cases) {
    int64_t oh = (p.h + p.padT + p.padB - p.dilH * (p.kh - 1) - 1) / p.strideH + 1;
    int64_t ow = (p.w + p.padL + p.padR - p.dilW * (p.kw - 1) - 1) / p.strideW + 1;
    std::vector<float> x = random(p.n * p.c * p.h * p.w, 10),
                       wt = random(p.o * (p.c / p.groups) * p.kh * p.kw, 11),
                       bias = random(p.o, 12), y(p.n * p.o * oh * ow, 7);
    std::vector<int64_t> params = {p.strideH, p.strideW, p.padT, p.padL, p.padB,
                                   p.padR,    p.dilH,    p.dilW, p.groups, p.act};
    ExecutionContext execution(*context_);
    RalArgs(&execution)
        .add(makeMemRef<float, 4>(x.data(), {p.n, p.c, p.h, p.w}))
        .add(makeMemRef<float, 4>(wt.data(), {p.o, p.c / p.groups, p.kh, p.kw}))
        .add(makeMemRef<float, 1>(bias.data(), {p.bias ? p.o : 0}))
        .add(makeMemRef<float, 4>(y.data(), {p.n, p.o, oh, ow}))
        .add(makeMemRef<int64_t, 1>(params.data(), {int64_t(params.size())}))
        .call(LOUPE_RAL_CONV_ONEDNN_F32);
    ASSERT_TRUE(execution.finish()) << execution.status().message();
    expectNear(y, naiveConv(p, x, wt, bias, oh, ow), 1e-4f,
               "conv groups " + std::to_string(p.groups));
  }
}

/// An NCHW view of an NHWC buffer (what the compiler passes for inputs and filters).
MemRef<float, 4> nhwcView(float *data, int64_t n, int64_t c, int64_t h, int64_t w) {
  MemRef<float, 4> m = makeMemRef<float, 4>(data, {n, c, h, w});
  m.strides[0] = h * w * c;
  m.strides[1] = 1;
  m.strides[2] = w * c;
  m.strides[3] = c;
  return m;
}

/// Element [a, b, i, j] of NCHW `x` stored NHWC instead.
std::vector<float> toNhwc(const std::vector<float> &x, int64_t n, int64_t c, int64_t h,
                          int64_t w) {
  std::vector<float> y(x.size());
  for (int64_t a = 0; a < n; ++a)
    for (int64_t b = 0; b < c; ++b)
      for (int64_t i = 0; i < h; ++i)
        for (int64_t j = 0; j < w; ++j)
          y[((a * h + i) * w + j) * c + b] = x[((a * c + b) * h + i) * w + j];
  return y;
}

// A product of 16-256 dense rows by a weight of the weight blob (under 1 MiB; 2 MiB up to 64
// rows) runs as oneDNN's 1x1 convolution of a 1 x M NHWC image (asConvolution); fewer rows as
// its matmul. Both give the reference for every post-op, a bias or none, a residual of its own
// or in C, and B stored either way round.
TEST_F(RalKernels, GemmEpilogueOfAWeightAsA1x1Convolution) {
  requirePlugin();
  const int64_t n = 24, k = 40;
  std::vector<float> blob = random(k * n, 30), bias = random(n, 31);
  auto created = Context::create(ContextOptions{});
  ASSERT_TRUE(created) << created.status().message();
  std::shared_ptr<Context> context = *created;
  context->setWeights(blob.data(), blob.size() * sizeof(float));
  enum Residual { kNone, kOwnBuffer, kInC };
  for (int64_t m : {7, 40})
    for (bool transB : {false, true})
      for (int32_t act : {0, 1, 5})
        for (bool withBias : {true, false})
          for (Residual residual : {kNone, kOwnBuffer, kInC}) {
            std::vector<float> a = random(m * k, 32), shortcut = random(m * n, 33);
            std::vector<float> c = residual == kInC ? shortcut : std::vector<float>(m * n);
            // Stored [N, K] when transposed: the math B is its transpose.
            std::vector<float> mathB(k * n);
            for (int64_t i = 0; i < k; ++i)
              for (int64_t j = 0; j < n; ++j)
                mathB[i * n + j] = transB ? blob[j * k + i] : blob[i * n + j];
            std::vector<float> want =
                epilogueReference(a, mathB, withBias ? bias.data() : nullptr,
                                  residual != kNone ? shortcut.data() : nullptr, m, n, k, act);
            float *residualData = residual == kNone ? nullptr
                                  : residual == kInC  ? c.data()
                                                      : shortcut.data();
            Status status = gemmEpilogue(*context, a, blob.data(),
                                         withBias ? bias.data() : nullptr, residualData, c, m, n,
                                         k, transB, act);
            ASSERT_TRUE(status) << status.message();
            expectNear(c, want, 1e-4f,
                       "m " + std::to_string(m) + (transB ? " B^T" : "") + " act " +
                           std::to_string(act) + (withBias ? " bias" : "") + " residual " +
                           std::to_string(residual));
          }
}

// Weights of the weight blob are reordered into the primitive's blocked layout once and kept
// (ResNet-50 reordered megabytes per call); a filter outside the blob, which a run may compute,
// is reordered every call. Seen by changing both between two calls: only the run-time filter's
// change shows (the blob never changes in a real run).
TEST_F(RalKernels, ConvKeepsThePackedWeightsOfTheWeightBlobOnly) {
  requirePlugin();
  const int64_t c = 64, hw = 8; // 64 channels: a jit convolution with blocked weights
  std::vector<float> x = random(c * hw * hw, 20), blob = random(c * c * 9, 21),
                     runtime = blob, bias(c, 0.f);
  std::vector<int64_t> params = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  ContextOptions options;
  auto created = Context::create(options);
  ASSERT_TRUE(created) << created.status().message();
  std::shared_ptr<Context> context = *created;
  context->setWeights(blob.data(), blob.size() * sizeof(float));
  auto conv = [&](std::vector<float> &filter) {
    std::vector<float> y(c * hw * hw);
    ExecutionContext execution(*context);
    // NHWC views, as the compiler passes them (the filter an OIHW view of an OHWI buffer).
    RalArgs(&execution)
        .add(nhwcView(x.data(), 1, c, hw, hw))
        .add(nhwcView(filter.data(), c, c, 3, 3))
        .add(makeMemRef<float, 1>(bias.data(), {c}))
        .add(nhwcView(y.data(), 1, c, hw, hw))
        .add(makeMemRef<int64_t, 1>(params.data(), {int64_t(params.size())}))
        .call(LOUPE_RAL_CONV_ONEDNN_F32);
    EXPECT_TRUE(execution.finish()) << execution.status().message();
    return y;
  };
  std::vector<float> fromBlob = conv(blob), fromRuntime = conv(runtime);
  expectNear(fromBlob, fromRuntime, 1e-4f, "same weights");
  for (float &w : blob)
    w = -w;
  for (float &w : runtime)
    w = -w;
  expectNear(conv(blob), fromBlob, 1e-6f, "blob weights: packed once, kept");
  std::vector<float> negated = fromRuntime;
  for (float &v : negated)
    v = -v;
  expectNear(conv(runtime), negated, 1e-4f, "run-time filter: packed again");
}


// NHWC input and filter views with a contiguous NCHW output (the compiler's conv + ReLU of
// conv_bias_act writing ONNX's NCHW result), and with an NHWC output view: both layouts of
// the output get the same values.
TEST_F(RalKernels, QuantizedConvOneDnnSubtractsTheInputZeroPoint) {
  requirePlugin();
  // Exact in int32: the float reference (naiveConv) sums integers below 2^24 exactly. The
  // padding holds the zero point (0 once it is subtracted), as in ONNX's ConvInteger.
  const ConvCase cases[] = {
      {1, 4, 9, 8, 6, 3, 3, 2, 1, 1, 0, 2, 1, 1, 1, 1, true, 0},
      {2, 6, 7, 7, 4, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1, 2, false, 0},
  };
  std::mt19937 rng(13);
  std::uniform_int_distribution<int> value(-128, 127);
  for (const ConvCase &p : cases)
    for (int32_t zeroPoint : {0, -128, 77}) {
      const int64_t oh = (p.h + p.padT + p.padB - p.dilH * (p.kh - 1) - 1) / p.strideH + 1;
      const int64_t ow = (p.w + p.padL + p.padR - p.dilW * (p.kw - 1) - 1) / p.strideW + 1;
      std::vector<int8_t> x(p.n * p.c * p.h * p.w), wt(p.o * (p.c / p.groups) * p.kh * p.kw);
      std::vector<int32_t> bias(p.o), y(p.n * p.o * oh * ow, -1);
      for (int8_t &v : x)
        v = int8_t(value(rng));
      for (int8_t &v : wt)
        v = int8_t(value(rng));
      for (int32_t &v : bias)
        v = value(rng) * 1000;
      std::vector<int64_t> params = {p.strideH, p.strideW, p.padT, p.padL, p.padB,
                                     p.padR,    p.dilH,    p.dilW, p.groups};
      ExecutionContext execution(*context_);
      RalArgs(&execution)
          .add(makeMemRef<int8_t, 4>(x.data(), {p.n, p.c, p.h, p.w}))
          .add(makeMemRef<int8_t, 4>(wt.data(), {p.o, p.c / p.groups, p.kh, p.kw}))
          .add(makeMemRef<int32_t, 1>(bias.data(), {p.bias ? p.o : 0}))
          .add(makeMemRef<int32_t, 4>(y.data(), {p.n, p.o, oh, ow}))
          .add(makeMemRef<int64_t, 1>(params.data(), {int64_t(params.size())}))
          .add(zeroPoint)
          .call(LOUPE_RAL_QCONV_ONEDNN_I8);
      ASSERT_TRUE(execution.finish()) << execution.status().message();
      std::vector<float> xf, wf(wt.begin(), wt.end()), bf(bias.begin(), bias.end());
      for (int8_t v : x)
        xf.push_back(float(v - zeroPoint));
      std::vector<float> got(y.begin(), y.end());
      expectNear(got, naiveConv(p, xf, wf, bf, oh, ow), 0.f,
                 "int8 conv groups " + std::to_string(p.groups) + " zero point " +
                     std::to_string(zeroPoint));
    }
}

TEST_F(RalKernels, ConvOneDnnNhwcInputAnyOutputLayout) {
  requirePlugin();
  const ConvCase p = {1, 3, 9, 9, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true, 1};
  int64_t oh = 9, ow = 9;
  std::vector<float> x = random(p.n * p.c * p.h * p.w, 20), wt = random(p.o * p.c * 9, 21),
                     bias = random(p.o, 22);
  std::vector<float> want = naiveConv(p, x, wt, bias, oh, ow);
  std::vector<float> xNhwc = toNhwc(x, p.n, p.c, p.h, p.w), wtNhwc = toNhwc(wt, p.o, p.c, 3, 3);
  std::vector<int64_t> params = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  for (bool nchwOutput : {true, false}) {
    std::vector<float> y(p.n * p.o * oh * ow, 7);
    ExecutionContext execution(*context_);
    RalArgs(&execution)
        .add(nhwcView(xNhwc.data(), p.n, p.c, p.h, p.w))
        .add(nhwcView(wtNhwc.data(), p.o, p.c, 3, 3))
        .add(makeMemRef<float, 1>(bias.data(), {p.o}))
        .add(nchwOutput ? makeMemRef<float, 4>(y.data(), {p.n, p.o, oh, ow})
                        : nhwcView(y.data(), p.n, p.o, oh, ow))
        .add(makeMemRef<int64_t, 1>(params.data(), {int64_t(params.size())}))
        .call(LOUPE_RAL_CONV_ONEDNN_F32);
    ASSERT_TRUE(execution.finish()) << execution.status().message();
    expectNear(y, nchwOutput ? want : toNhwc(want, p.n, p.o, oh, ow), 1e-4f,
               nchwOutput ? "NCHW output" : "NHWC output");
  }
}

TEST_F(RalKernels, ConvOneDnnStridedSliceOfTheInput) {
  // A stride-2 1x1 conv over the top-left 9x9 of a 10x10 NHWC buffer (the slice TOSA takes for
  // ResNet-50's downsample convs): the kernel copies the slice dense, the result is the
  // convolution of the slice.
  requirePlugin();
  const int64_t c = 4, o = 8, full = 10, h = 9, oh = 5;
  const ConvCase p = {1, c, h, h, o, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1, 1, true, 0};
  std::vector<float> buffer = random(full * full * c, 30), wt = random(o * c, 31),
                     bias = random(o, 32);
  std::vector<float> slice; // NCHW copy of the 9x9 slice, for the reference
  for (int64_t ch = 0; ch < c; ++ch)
    for (int64_t i = 0; i < h; ++i)
      for (int64_t j = 0; j < h; ++j)
        slice.push_back(buffer[(i * full + j) * c + ch]);
  std::vector<float> want = naiveConv(p, slice, wt, bias, oh, oh);
  MemRef<float, 4> input = nhwcView(buffer.data(), 1, c, full, full);
  input.sizes[2] = input.sizes[3] = h; // the strides stay the 10x10 buffer's
  std::vector<float> y(o * oh * oh, 7);
  std::vector<int64_t> params = {2, 2, 0, 0, 0, 0, 1, 1, 1};
  ExecutionContext execution(*context_);
  RalArgs(&execution)
      .add(input)
      .add(makeMemRef<float, 4>(wt.data(), {o, c, 1, 1}))
      .add(makeMemRef<float, 1>(bias.data(), {o}))
      .add(makeMemRef<float, 4>(y.data(), {1, o, oh, oh}))
      .add(makeMemRef<int64_t, 1>(params.data(), {int64_t(params.size())}))
      .call(LOUPE_RAL_CONV_ONEDNN_F32);
  ASSERT_TRUE(execution.finish()) << execution.status().message();
  expectNear(y, want, 1e-4f, "strided slice input");
}

TEST_F(RalKernels, ConvWrongOutputShapeIsAStatus) {
  requirePlugin();
  std::vector<float> x(1 * 1 * 5 * 5), wt(1 * 1 * 3 * 3), y(1 * 1 * 5 * 5);
  std::vector<int64_t> params = {1, 1, 0, 0, 0, 0, 1, 1, 1};
  ExecutionContext execution(*context_);
  RalArgs(&execution)
      .add(makeMemRef<float, 4>(x.data(), {1, 1, 5, 5}))
      .add(makeMemRef<float, 4>(wt.data(), {1, 1, 3, 3}))
      .add(makeMemRef<float, 1>(nullptr, {0}))
      .add(makeMemRef<float, 4>(y.data(), {1, 1, 5, 5}))
      .add(makeMemRef<int64_t, 1>(params.data(), {9}))
      .call(LOUPE_RAL_CONV_ONEDNN_F32);
  Status s = execution.finish();
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("expected output [1x1x3x3]"), std::string::npos) << s.message();
}

/// Max pooling of NCHW `x` by the loop of Kernels.h (padding excluded).
std::vector<float> naiveMaxPool(const std::vector<float> &x, int64_t n, int64_t c, int64_t h,
                                int64_t w, const std::vector<int64_t> &p, int64_t oh,
                                int64_t ow) {
  std::vector<float> y(n * c * oh * ow, -std::numeric_limits<float>::infinity());
  for (int64_t b = 0; b < n * c; ++b)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        for (int64_t u = 0; u < p[kPoolWindowH]; ++u)
          for (int64_t v = 0; v < p[kPoolWindowW]; ++v) {
            int64_t r = i * p[kPoolStrideH] - p[kPoolPadTop] + u * p[kPoolDilationH];
            int64_t q = j * p[kPoolStrideW] - p[kPoolPadLeft] + v * p[kPoolDilationW];
            if (r >= 0 && r < h && q >= 0 && q < w)
              y[(b * oh + i) * ow + j] = std::max(y[(b * oh + i) * ow + j], x[(b * h + r) * w + q]);
          }
  return y;
}

// NHWC views in and out (what the compiler passes): ResNet's 3x3 stride-2 pool with its
// one-sided padding, and an asymmetric window with dilation.
TEST_F(RalKernels, MaxPoolOneDnnAgainstNaiveLoop) {
  requirePlugin();
  const int64_t n = 2, c = 5, h = 9, w = 8;
  // window h/w, stride h/w, pad top/left/bottom/right, dilation h/w
  const std::vector<int64_t> cases[] = {{3, 3, 2, 2, 1, 1, 0, 0, 1, 1},
                                        {2, 3, 1, 2, 0, 1, 1, 1, 2, 1}};
  std::vector<float> x = random(n * c * h * w, 20), xNhwc = toNhwc(x, n, c, h, w);
  for (const std::vector<int64_t> &p : cases) {
    int64_t oh = (h + p[4] + p[6] - p[8] * (p[0] - 1) - 1) / p[2] + 1;
    int64_t ow = (w + p[5] + p[7] - p[9] * (p[1] - 1) - 1) / p[3] + 1;
    std::vector<float> yNhwc(n * c * oh * ow, 7);
    ExecutionContext execution(*context_);
    RalArgs(&execution)
        .add(nhwcView(xNhwc.data(), n, c, h, w))
        .add(nhwcView(yNhwc.data(), n, c, oh, ow))
        .add(makeMemRef<int64_t, 1>(const_cast<int64_t *>(p.data()), {kPoolParams}))
        .call(LOUPE_RAL_MAX_POOL_ONEDNN_F32);
    ASSERT_TRUE(execution.finish()) << execution.status().message();
    expectNear(yNhwc, toNhwc(naiveMaxPool(x, n, c, h, w, p, oh, ow), n, c, oh, ow), 0,
               "max pool " + std::to_string(p[0]) + "x" + std::to_string(p[1]));
  }
}

TEST_F(RalKernels, MaxPoolBadParamsAreAStatus) {
  requirePlugin();
  std::vector<float> x(1 * 1 * 5 * 5), y(1 * 1 * 2 * 2);
  std::vector<int64_t> wrongOutput = {3, 3, 1, 1, 0, 0, 0, 0, 1, 1},
                       padCoversWindow = {2, 2, 2, 2, 2, 0, 0, 0, 1, 1};
  for (const auto &[params, message] :
       {std::pair{wrongOutput, "output [1x1x2x2] for input [1x1x5x5], want [1x1x3x3]"},
        std::pair{padCoversWindow, "smaller than the window"}}) {
    ExecutionContext execution(*context_);
    RalArgs(&execution)
        .add(makeMemRef<float, 4>(x.data(), {1, 1, 5, 5}))
        .add(makeMemRef<float, 4>(y.data(), {1, 1, 2, 2}))
        .add(makeMemRef<int64_t, 1>(const_cast<int64_t *>(params.data()), {kPoolParams}))
        .call(LOUPE_RAL_MAX_POOL_ONEDNN_F32);
    Status s = execution.finish();
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find(message), std::string::npos) << s.message();
  }
}

TEST_F(RalKernels, TopKMatchesAStableSortReference) {
  int64_t rows = 5, n = 40, k = 7;
  std::vector<float> in(rows * n);
  std::mt19937 rng(13);
  for (float &v : in)
    v = float(int(rng() % 9)) - 4.f; // many ties
  in[3] = std::nanf("");
  for (bool largest : {true, false}) {
    std::vector<float> values(rows * k);
    std::vector<int64_t> indices(rows * k);
    ExecutionContext execution(*context_);
    RalArgs(&execution)
        .add(makeMemRef<float, 2>(in.data(), {rows, n}))
        .add(makeMemRef<float, 2>(values.data(), {rows, k}))
        .add(makeMemRef<int64_t, 2>(indices.data(), {rows, k}))
        .add(largest)
        .call(LOUPE_RAL_TOPK_CPU_F32);
    ASSERT_TRUE(execution.finish()) << execution.status().message();
    for (int64_t r = 0; r < rows; ++r) {
      std::vector<int64_t> order(n);
      std::iota(order.begin(), order.end(), 0);
      auto key = [&](int64_t i) {
        float v = in[r * n + i];
        return std::isnan(v) ? (largest ? -INFINITY : INFINITY) : (largest ? -v : v);
      };
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return key(a) < key(b); });
      for (int64_t j = 0; j < k; ++j) {
        ASSERT_EQ(indices[r * k + j], order[j]) << "row " << r << " rank " << j;
        float want = in[r * n + order[j]];
        if (std::isnan(want))
          EXPECT_TRUE(std::isnan(values[r * k + j]));
        else
          EXPECT_EQ(values[r * k + j], want);
      }
    }
  }
}

TEST_F(RalKernels, SortIsStableWithArgsort) {
  int64_t rows = 3, n = 50;
  std::vector<int64_t> in(rows * n);
  std::mt19937 rng(17);
  for (int64_t &v : in)
    v = int64_t(rng() % 11) - 5;
  for (bool descending : {false, true}) {
    std::vector<int64_t> values(rows * n), indices(rows * n);
    ExecutionContext execution(*context_);
    RalArgs(&execution)
        .add(makeMemRef<int64_t, 2>(in.data(), {rows, n}))
        .add(makeMemRef<int64_t, 2>(values.data(), {rows, n}))
        .add(makeMemRef<int64_t, 2>(indices.data(), {rows, n}))
        .add(descending)
        .call("ral_sort___cpu___pvoid_m2di64_m2di64_m2di64_i1___void");
    ASSERT_TRUE(execution.finish()) << execution.status().message();
    for (int64_t r = 0; r < rows; ++r) {
      std::vector<int64_t> order(n);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        return descending ? in[r * n + a] > in[r * n + b] : in[r * n + a] < in[r * n + b];
      });
      for (int64_t j = 0; j < n; ++j) {
        ASSERT_EQ(indices[r * n + j], order[j]);
        ASSERT_EQ(values[r * n + j], in[r * n + order[j]]);
      }
    }
  }
}

} // namespace
