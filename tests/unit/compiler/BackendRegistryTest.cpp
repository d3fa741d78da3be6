//===- BackendRegistryTest.cpp - Backend priorities, availability and scoping --------===//
#include "loupe/Backends/BackendRegistry.h"

#include <gtest/gtest.h>

using namespace loupe::backends;

namespace {

/// A private registry shaped like the defaults, so the tests do not depend on them.
BackendRegistry makeRegistry() {
  BackendRegistry r;
  r.addBackend(kCodegen).set_enable("cpu").set_enable("gpu");
  r.addBackend("onednn").set_enable("cpu");
  r.addBackend("openblas").set_enable("cpu");
  r.addBackend("cublas").set_enable("gpu");
  r.addOp("onednn", "matmul", 15).set_kernel("ral_gemm_onednn");
  r.addOp("openblas", "matmul", 12).set_kernel("ral_gemm_openblas");
  r.addOp("onednn", "conv2d", 15).set_kernel("ral_conv_onednn");
  r.addOp("cublas", "matmul", 15).set_kernel("ral_gemm_cublas");
  return r;
}

TEST(BackendRegistry, CandidatesAreOrderedByPlevelAndFilteredByDevice) {
  BackendRegistry r = makeRegistry();
  std::vector<Selection> cpu = r.candidates("matmul", "cpu");
  ASSERT_EQ(cpu.size(), 3u);
  EXPECT_EQ(cpu[0].backend, "onednn");
  EXPECT_EQ(cpu[1].backend, "openblas");
  EXPECT_EQ(cpu[2].backend, "codegen");
  EXPECT_EQ(cpu[2].plevel, 10);
  std::vector<Selection> gpu = r.candidates("matmul", "gpu");
  ASSERT_EQ(gpu.size(), 2u);
  EXPECT_EQ(gpu[0].kernel, "ral_gemm_cublas");
  // An op no library registers: codegen only.
  std::vector<Selection> relu = r.candidates("relu", "cpu");
  ASSERT_EQ(relu.size(), 1u);
  EXPECT_EQ(relu[0].backend, "codegen");
}

TEST(BackendRegistry, SelectionScopes) {
  BackendRegistry r = makeRegistry();
  Preferences prefs;
  EXPECT_EQ(r.select("matmul", "Gemm_0", prefs).backend, "onednn");

  prefs.order = {"openblas", "codegen"};
  Selection s = r.select("matmul", "Gemm_0", prefs);
  EXPECT_EQ(s.backend, "openblas");
  EXPECT_EQ(s.kernel, "ral_gemm_openblas");
  EXPECT_NE(s.reason.find("first of --backends openblas,codegen"), std::string::npos) << s.reason;
  // openblas does not run conv: the next preferred backend does.
  EXPECT_EQ(r.select("conv2d", "Conv_1", prefs).backend, "codegen");

  // A per-op override wins, matched against any name of a fused loc.
  prefs.overrides["Gemm_0"] = "onednn";
  EXPECT_EQ(r.select("matmul", "Gemm_0", prefs).backend, "onednn");
  EXPECT_EQ(r.select("matmul", "Relu_1,Gemm_0", prefs).backend, "onednn");
  EXPECT_EQ(r.select("matmul", "Gemm_00", prefs).backend, "openblas");
}

TEST(BackendRegistry, TunedSignaturesWinOverPreferencesNotOverOverrides) {
  BackendRegistry r = makeRegistry();
  Preferences prefs;
  prefs.order = {"onednn"};
  prefs.tuned["matmul:4x8xf32:8x16xf32:4x16xf32"] = "openblas";
  Selection s = r.select("matmul", "Gemm_0", prefs, "matmul:4x8xf32:8x16xf32:4x16xf32");
  EXPECT_EQ(s.backend, "openblas");
  EXPECT_NE(s.reason.find("tuned: loupe tune measured openblas fastest"), std::string::npos)
      << s.reason;
  // Another signature, or none: the preference list decides.
  EXPECT_EQ(r.select("matmul", "Gemm_0", prefs, "matmul:1x1xf32:1x1xf32:1x1xf32").backend,
            "onednn");
  EXPECT_EQ(r.select("matmul", "Gemm_0", prefs).backend, "onednn");
  // A per-op override still wins.
  prefs.overrides["Gemm_0"] = "codegen";
  EXPECT_EQ(r.select("matmul", "Gemm_0", prefs, "matmul:4x8xf32:8x16xf32:4x16xf32").backend,
            "codegen");
  // A tuned backend that cannot run the op (a table from another build) is skipped, saying so.
  prefs.overrides.clear();
  prefs.tuned["conv2d:x"] = "openblas";
  s = r.select("conv2d", "Conv_0", prefs, "conv2d:x");
  EXPECT_EQ(s.backend, "onednn");
  EXPECT_NE(s.reason.find("tuned openblas cannot run conv2d"), std::string::npos) << s.reason;
}

// The cost rules: on the CPU a GEMV (one row) whose B fits in 512 KiB goes to openblas rather
// than the higher-plevel onednn, one whose B fills at least 2 MiB to codegen; more rows, a B in
// between, a batch, the GPU or a preference list keep the usual choice.
TEST(BackendRegistry, GemvCostRules) {
  const BackendRegistry &r = BackendRegistry::global();
  Preferences prefs;
  Selection s = r.select("matmul", "fc1", prefs, "matmul:1x288xf32:288x72xf32:1x72xf32");
  EXPECT_EQ(s.backend, "openblas");
  EXPECT_NE(s.reason.find("a small GEMV (one row, B of 82944 bytes)"), std::string::npos)
      << s.reason;
  EXPECT_EQ(r.select("batch_matmul", "fc", prefs,
                     "batch_matmul:1x1x64xf32:1x64x32xf32:1x1x32xf32").backend,
            "openblas");
  for (const char *other : {"matmul:2x288xf32:288x72xf32:2x72xf32",        // two rows
                            "batch_matmul:2x1x64xf32:2x64x32xf32:2x1x32xf32", // a batch
                            "matmul:1x?xf32:?x72xf32:1x72xf32",             // dynamic
                            "matmul:1x99999999999999999999xf32:9x9xf32:1x9xf32"}) // no int64
    EXPECT_EQ(r.select(other[0] == 'b' ? "batch_matmul" : "matmul", "fc", prefs, other).backend,
              "onednn")
        << other;
  s = r.select("batch_matmul", "classifier", prefs,
               "batch_matmul:1x1x1024xf32:1x1024x1000xf32:1x1x1000xf32");
  EXPECT_EQ(s.backend, "codegen");
  EXPECT_NE(s.reason.find("a GEMV (one row, B of 4096000 bytes)"), std::string::npos)
      << s.reason;
  EXPECT_EQ(r.select("matmul", "fc", prefs, "matmul:1x256xf32:256x1024xf32:1x1024xf32").backend,
            "codegen"); // 1 MiB
  EXPECT_EQ(r.select("matmul", "fc", prefs, "matmul:1x128xf32:128x1025xf32:1x1025xf32").backend,
            "codegen"); // just above 512 KiB
  EXPECT_EQ(r.select("matmul", "fc", prefs, "matmul:1x128xf32:128x1024xf32:1x1024xf32").backend,
            "openblas"); // exactly 512 KiB
  prefs.order = {"onednn", "openblas"};
  EXPECT_EQ(r.select("matmul", "fc", prefs, "matmul:1x288xf32:288x72xf32:1x72xf32").backend,
            "onednn");
  EXPECT_EQ(r.select("matmul", "fc", prefs, "matmul:1x1024xf32:1024x1000xf32:1x1000xf32").backend,
            "onednn");
  Preferences gpu;
  gpu.device = "gpu";
  EXPECT_EQ(r.select("matmul", "fc", gpu, "matmul:1x288xf32:288x72xf32:1x72xf32").backend,
            "cublas");
}

TEST(BackendRegistry, UnusablePreferencesFallBackAndSaySo) {
  BackendRegistry r = makeRegistry();
  Preferences prefs;
  prefs.order = {"cublas"}; // Not enabled on cpu.
  Selection s = r.select("matmul", "Gemm_0", prefs);
  EXPECT_EQ(s.backend, "onednn");
  EXPECT_NE(s.reason.find("no preferred backend runs matmul on cpu"), std::string::npos) << s.reason;

  prefs.order.clear();
  prefs.overrides["Conv_3"] = "openblas"; // openblas has no conv.
  s = r.select("conv2d", "Conv_3", prefs);
  EXPECT_EQ(s.backend, "onednn");
  EXPECT_NE(s.reason.find("override 'Conv_3=openblas' cannot run conv2d"), std::string::npos)
      << s.reason;
}

/// The kernels of fallbacks(), space-separated.
std::string fallbackKernels(const BackendRegistry &r, const std::string &op, const std::string &loc,
                            const Preferences &prefs) {
  std::string text;
  for (const Selection &s : r.fallbacks(op, r.select(op, loc, prefs), prefs))
    text += s.kernel + " ";
  return text;
}

TEST(BackendRegistry, FallbacksFollowTheRankingOfTheChoice) {
  BackendRegistry r = makeRegistry();
  Preferences prefs;
  // By plevel: the lower library plevels, never codegen.
  EXPECT_EQ(fallbackKernels(r, "matmul", "Gemm_0", prefs), "ral_gemm_openblas ");
  // The user's order: only the backends it names, in its order.
  prefs.order = {"openblas", "onednn"};
  EXPECT_EQ(fallbackKernels(r, "matmul", "Gemm_0", prefs), "ral_gemm_onednn ");
  prefs.order = {"openblas", "codegen"};
  EXPECT_EQ(fallbackKernels(r, "matmul", "Gemm_0", prefs), "");
  // An override is tried first, then the order.
  prefs.order = {"openblas", "codegen"};
  prefs.overrides["Gemm_0"] = "onednn";
  EXPECT_EQ(fallbackKernels(r, "matmul", "Gemm_0", prefs), "ral_gemm_openblas ");
  // An order that runs nothing for the op: select() used plevels, so do the fallbacks.
  prefs = {};
  prefs.order = {"cublas"};
  EXPECT_EQ(fallbackKernels(r, "matmul", "Gemm_0", prefs), "ral_gemm_openblas ");
  // No other library for the op or the device; codegen chosen: nothing.
  prefs = {};
  EXPECT_EQ(fallbackKernels(r, "conv2d", "Conv_1", prefs), "");
  prefs.device = "gpu";
  EXPECT_EQ(fallbackKernels(r, "matmul", "Gemm_0", prefs), "");
  prefs = {};
  prefs.order = {"codegen"};
  EXPECT_EQ(fallbackKernels(r, "matmul", "Gemm_0", prefs), "");
}

TEST(BackendRegistry, RegistrationMistakesAreRecorded) {
  BackendRegistry r = makeRegistry();
  r.addBackend("onednn");
  r.addOp("mkl", "matmul", 20);
  r.addFusePattern("nobody", "matmul_bias", 1).set_ops({"matmul", "add"});
  ASSERT_EQ(r.errors().size(), 3u);
  EXPECT_EQ(r.errors()[0], "backend 'onednn' registered twice");
  EXPECT_NE(r.errors()[1].find("unknown backend 'mkl'"), std::string::npos);
}

TEST(BackendRegistry, DefaultsMatchTheDocumentedPlevels) {
  const BackendRegistry &r = BackendRegistry::global();
  EXPECT_TRUE(r.errors().empty());
  auto order = [&](const std::string &op, const std::string &device) {
    std::string text;
    for (const Selection &s : r.candidates(op, device))
      text += s.backend + ":" + std::to_string(s.plevel) + " ";
    return text;
  };
  EXPECT_EQ(order("matmul", "cpu"), "onednn:15 openblas:12 codegen:10 ");
  EXPECT_EQ(order("conv2d", "cpu"), "onednn:15 codegen:10 ");
  EXPECT_EQ(order("matmul", "gpu"), "cublas:15 codegen:10 ");
  EXPECT_EQ(order("conv2d", "gpu"), "cudnn:15 codegen:10 ");
  EXPECT_EQ(order("softmax", "cpu"), "codegen:10 ");
}

// Fuse patterns: oneDNN's epilogue GEMM, and the conv kernels themselves with an activation
// (params[kConvActivation]) for conv + bias + relu; openblas and cublas register none.
TEST(BackendRegistry, DefaultFusePatterns) {
  const BackendRegistry &r = BackendRegistry::global();
  auto kernel = [&](const std::string &backend, const std::string &name) {
    const FusePattern *p = r.findFusePattern(backend, name);
    return p ? p->kernel + " " + std::to_string(p->plevel) : std::string("none");
  };
  EXPECT_EQ(kernel("onednn", "matmul_bias_act"), "ral_gemm_epilogue_onednn 15");
  EXPECT_EQ(kernel("onednn", "conv_bias_act"), "ral_conv_onednn 15");
  EXPECT_EQ(kernel("cudnn", "conv_bias_act"), "ral_conv_cudnn 15");
  EXPECT_EQ(kernel("openblas", "matmul_bias_act"), "none");
  EXPECT_EQ(kernel("cublas", "matmul_bias_act"), "ral_gemm_epilogue_cublaslt 15");
  EXPECT_EQ(r.findFusePattern("cublas", "matmul_bias_act")->ops,
            (std::vector<std::string>{"matmul", "add", "relu"})); // no exact GELU in cuBLASLt
  EXPECT_EQ(r.findFusePattern("onednn", "matmul_bias_act")->ops,
            (std::vector<std::string>{"matmul", "add", "relu", "gelu_erf", "hardswish", "silu"}));
  const FusePattern *conv = r.findFusePattern("onednn", "conv_bias_act");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->ops, (std::vector<std::string>{"conv2d", "depthwise_conv2d", "add", "relu", "hardswish", "silu"}));
  EXPECT_EQ(r.findFusePattern("cudnn", "conv_bias_act")->ops,
            (std::vector<std::string>{"conv2d", "add", "relu"})); // no hardswish in cuDNN
}

TEST(BackendRegistry, ParsesBackendLists) {
  EXPECT_EQ(parseBackendList("onednn,codegen"), (std::vector<std::string>{"onednn", "codegen"}));
  EXPECT_EQ(parseBackendList(""), std::vector<std::string>{});
  EXPECT_EQ(parseBackendList("a,,b,"), (std::vector<std::string>{"a", "b"}));
}

} // namespace
