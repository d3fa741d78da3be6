//===- CompilerTest.cpp - Phases and the snapshot recorder ---------------------===//
#include "loupe/Pipelines/Compiler.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

using namespace loupe::compiler;

namespace {
const std::string kModel = std::string(LOUPE_SOURCE_DIR) + "/examples/models/mlp_tosa.mlir";

std::string writeTemp(const std::string &name, const std::string &text) {
  auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << text;
  return path.string();
}

TEST(CompilerTest, PhaseToStopsAfterThePhase) {
  CompileOptions options;
  options.phaseTo = "graph";
  CompileResult result = compileModel(kModel, options);
  ASSERT_TRUE(result.ok()) << result.error->message;
  EXPECT_EQ(result.lastPhase, "graph");
  for (const PassSnapshot &s : result.snapshots)
    EXPECT_TRUE(s.phase == "import" || s.phase == "graph") << s.phase;
  EXPECT_NE(result.finalIr.find("tosa."), std::string::npos);
  EXPECT_TRUE(result.artifactPath.empty());
}

TEST(CompilerTest, SnapshotsRecordEveryPassInOrder) {
  CompileOptions options;
  options.phaseTo = "llvm";
  CompileResult result = compileModel(kModel, options);
  ASSERT_TRUE(result.ok()) << result.error->message;
  ASSERT_GT(result.snapshots.size(), 30u);
  const auto &phases = phaseNames();
  size_t lastPhase = 0;
  uint64_t previousHash = 0;
  for (size_t i = 0; i < result.snapshots.size(); ++i) {
    const PassSnapshot &s = result.snapshots[i];
    EXPECT_EQ(s.index, static_cast<int>(i));
    size_t phase = std::find(phases.begin(), phases.end(), s.phase) - phases.begin();
    ASSERT_LT(phase, phases.size()) << s.phase;
    EXPECT_GE(phase, lastPhase) << "phase order broken at " << s.pass;
    lastPhase = phase;
    EXPECT_FALSE(s.pass.empty());
    EXPECT_GE(s.durationNs, 0);
    // changed <=> the hash moved; text kept exactly for changed snapshots.
    if (i > 0)
      EXPECT_EQ(s.changed, s.irHash != previousHash) << s.pass;
    EXPECT_EQ(s.changed, !s.ir.empty()) << s.pass;
    previousHash = s.irHash;
  }
  EXPECT_EQ(result.snapshots.front().pass, "parse-mlir");
  EXPECT_EQ(result.snapshots.back().pass, "translate-to-llvmir");
  EXPECT_EQ(result.snapshots.back().irKind, IrKind::LlvmIr);
  // Pass options are recorded in textual pipeline form.
  bool sawOptions = false;
  for (const PassSnapshot &s : result.snapshots)
    sawOptions |= s.pass == "one-shot-bufferize" &&
                  s.options.find("bufferize-function-boundaries=true") != std::string::npos;
  EXPECT_TRUE(sawOptions);
}

TEST(CompilerTest, KeepIrTextOffKeepsOnlyHashes) {
  CompileOptions options;
  options.phaseTo = "lower";
  options.keepIrText = false;
  CompileResult result = compileModel(kModel, options);
  ASSERT_TRUE(result.ok());
  for (const PassSnapshot &s : result.snapshots)
    EXPECT_TRUE(s.ir.empty());
  CompileOptions withText = options;
  withText.keepIrText = true;
  CompileResult again = compileModel(kModel, withText);
  ASSERT_EQ(again.snapshots.size(), result.snapshots.size());
  for (size_t i = 0; i < again.snapshots.size(); ++i)
    EXPECT_EQ(again.snapshots[i].irHash, result.snapshots[i].irHash) << "hashes are deterministic";
}

TEST(CompilerTest, ArtifactIsWritten) {
  CompileOptions options;
  options.artifactPath = (std::filesystem::temp_directory_path() / "compiler_test.so").string();
  CompileResult result = compileModel(kModel, options);
  ASSERT_TRUE(result.ok()) << result.error->message;
  EXPECT_EQ(result.lastPhase, "artifact");
  EXPECT_TRUE(std::filesystem::exists(result.artifactPath));
  std::vector<std::string> steps;
  for (const PassSnapshot &s : result.snapshots)
    if (s.phase == "artifact")
      steps.push_back(s.pass);
  EXPECT_EQ(steps, (std::vector<std::string>{"loupe-entry-abi", "llvm-O3", "llvm-codegen",
                                             "link-shared-object"}));
  std::filesystem::remove(result.artifactPath);
}

TEST(CompilerTest, LibraryDispatchesListTheirFallbacks) {
  const std::string mlp = std::string(LOUPE_SOURCE_DIR) + "/examples/models/mlp.onnx";
  auto fallbacksByName = [&](const std::vector<std::string> &backends) {
    CompileOptions options;
    options.phaseTo = "ral";
    options.backends = backends;
    CompileResult result = compileModel(mlp, options);
    EXPECT_TRUE(result.ok()) << result.error->message;
    std::map<std::string, std::vector<std::string>> out;
    for (const DispatchSummary &d : result.dispatches)
      if (d.op == "ral.dispatch")
        out[d.name] = d.fallbacks;
    return out;
  };
  using Chains = std::map<std::string, std::vector<std::string>>;
  // By plevel: every matmul takes a oneDNN epilogue (bias, fc1's ReLU, fc2's GELU), which no
  // other backend has.
  EXPECT_EQ(fallbacksByName({}),
            (Chains{{"dispatch_0_ral_gemm_epilogue_onednn", {}},
                    {"dispatch_1_ral_gemm_epilogue_onednn", {}},
                    {"dispatch_2_ral_gemm_epilogue_onednn", {}}}));
  // The user's order: OpenBLAS first (no epilogue fusion), then oneDNN.
  Chains blasFirst = fallbacksByName({"openblas", "onednn"});
  EXPECT_EQ(blasFirst.size(), 3u);
  for (const auto &[name, chain] : blasFirst)
    EXPECT_EQ(chain, std::vector<std::string>{"ral_batch_gemm_onednn"}) << name;
}

TEST(CompilerTest, MalformedMlirNamesFileLineColumn) {
  std::string path = writeTemp("compiler_test_bad.mlir", "func.func @main() {\n  %0 = bogus.op\n}\n");
  CompileResult result = compileModel(path, CompileOptions());
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error->kind, CompileError::Kind::BadInput);
  EXPECT_NE(result.error->message.find("compiler_test_bad.mlir:2:"), std::string::npos)
      << result.error->message;
}

TEST(CompilerTest, DynamicShapesAreRejectedWithTheInput) {
  std::string path = writeTemp("compiler_test_dyn.mlir",
                               "func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {\n"
                               "  %y = tosa.exp %x : (tensor<?xf32>) -> tensor<?xf32>\n"
                               "  return %y : tensor<?xf32>\n}\n");
  CompileResult result = compileModel(path, CompileOptions());
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error->message.find("input 0 has type tensor<?xf32>"), std::string::npos)
      << result.error->message;
}

TEST(CompilerTest, UnknownPhaseAndTargetAreBadInput) {
  CompileOptions options;
  options.phaseTo = "nope";
  CompileResult result = compileModel(kModel, options);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error->kind, CompileError::Kind::BadInput);
  options.phaseTo = "artifact";
  options.target = "tpu";
  result = compileModel(kModel, options);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error->message.find("tpu"), std::string::npos);
  options.target = "cuda";
  options.gpuArch = "sm_70";
  result = compileModel(kModel, options);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error->kind, CompileError::Kind::BadInput);
  EXPECT_NE(result.error->message.find("sm_70"), std::string::npos);
}

// The cuda target: GEMMs go to cuBLAS (with its bias as a cuBLASLt epilogue); every
// code-generated dispatch gets a GPU schedule and
// launch sizes, and its kernel's PTX (for the chosen architecture) is kept and snapshotted.
/// The GPU kernel a code-generated dispatch launches: its own, or the one named after its
/// launch sizes when loupe-dedup-executables merged it with an identical kernel.
std::string launchedKernel(const DispatchSummary &d) {
  size_t shared = d.launch.find(", kernel ");
  return shared == std::string::npos ? d.name : d.launch.substr(shared + 9);
}

TEST(CompilerTest, CudaTargetMapsEveryKernelAndKeepsItsPtx) {
  CompileOptions options;
  options.target = "cuda";
  options.gpuArch = "sm_90";
  options.phaseTo = "ral";
  CompileResult result = compileModel(kModel, options);
  ASSERT_TRUE(result.ok()) << result.error->message;
  int codegen = 0, epilogues = 0, vectorized = 0;
  for (const DispatchSummary &d : result.dispatches) {
    if (d.kind == "kLibrary") {
      EXPECT_EQ(d.backend, "cublas") << d.name;
      epilogues += d.name.find("ral_gemm_epilogue_cublaslt") != std::string::npos;
      EXPECT_TRUE(d.schedule.empty()) << d.name;
      continue;
    }
    ++codegen;
    vectorized += d.schedule == "thread-per-vector4";
    EXPECT_FALSE(d.schedule.empty()) << d.name;
    EXPECT_EQ(d.launch.rfind("grid ", 0), 0u) << d.name << ": " << d.launch;
    EXPECT_NE(result.ptx.find("// kernel " + launchedKernel(d) + "\n"), std::string::npos)
        << d.name;
  }
  EXPECT_GT(codegen, 0);
  EXPECT_EQ(epilogues, 1) << "fc2 + bias: one cuBLASLt epilogue GEMM";
  EXPECT_GT(vectorized, 0) << "bias and activation kernels take 128-bit accesses";
  EXPECT_NE(result.ptx.find("ld.global.v4.f32"), std::string::npos);
  EXPECT_NE(result.ptx.find("st.global.v4.f32"), std::string::npos);
  EXPECT_NE(result.ptx.find(".target sm_90"), std::string::npos);
  bool snapshot = false;
  for (const PassSnapshot &s : result.snapshots)
    snapshot |= s.pass == "ptx" && s.irKind == IrKind::Assembly && s.ir == result.ptx;
  EXPECT_TRUE(snapshot);
}

// The transformer's two attention heads and two layer norms run the same GPU kernels: each
// identical kernel is compiled to PTX once and launched by every dispatch that needs it.
TEST(CompilerTest, CudaDispatchesShareIdenticalKernels) {
  CompileOptions options;
  options.target = "cuda";
  options.phaseTo = "ral";
  CompileResult result = compileModel(
      std::string(LOUPE_SOURCE_DIR) + "/examples/models/transformer_block.onnx", options);
  ASSERT_TRUE(result.ok()) << result.error->message;
  std::set<std::string> kernels;
  int codegen = 0;
  for (const DispatchSummary &d : result.dispatches) {
    if (d.schedule.empty())
      continue;
    ++codegen;
    kernels.insert(launchedKernel(d));
  }
  size_t inPtx = 0;
  for (size_t at = result.ptx.find("// kernel "); at != std::string::npos;
       at = result.ptx.find("// kernel ", at + 1))
    ++inPtx;
  EXPECT_LT(kernels.size(), size_t(codegen)) << "some dispatches share a kernel";
  EXPECT_EQ(inPtx, kernels.size()) << "each kernel compiled once";
  for (const std::string &k : kernels)
    EXPECT_NE(result.ptx.find("// kernel " + k + "\n"), std::string::npos) << k;
}
} // namespace

// The MLP's clusters: each GEMM takes its bias, fc1 its ReLU and fc2 the exact GELU after it
// (onednn's matmul_bias_act), and the ral phase lowers each cluster to one epilogue kernel.
TEST(CompilerTest, MlpClustersTakeBiasReluAndGeluEpilogues) {
  CompileOptions options;
  options.phaseTo = "ral";
  CompileResult result =
      compileModel(std::string(LOUPE_SOURCE_DIR) + "/examples/models/mlp.onnx", options);
  ASSERT_TRUE(result.ok()) << result.error->message;
  std::vector<std::string> epilogues;
  for (const ClusterSummary &c : result.clusters)
    if (c.pattern == "matmul_bias_act")
      epilogues.push_back(c.reason.substr(c.reason.find("; takes")));
  EXPECT_EQ(epilogues, (std::vector<std::string>{
                           "; takes the bias and ReLU after it as its epilogue; 5 ops fused",
                           "; takes the bias and GELU after it as its epilogue; 9 ops fused",
                           "; takes the bias after it as its epilogue; 4 ops fused"}));
  int gemms = 0;
  for (const DispatchSummary &d : result.dispatches)
    gemms += d.name.find("ral_gemm_epilogue_onednn") != std::string::npos;
  EXPECT_EQ(gemms, 3);
}

// conv_relu.onnx: conv1 and conv3 take the ReLU after them (onednn's conv_bias_act), moved
// before TOSA's NCHW transpose onto their NHWC results; conv2's clip to [0, 6] is refused. The
// ral phase lowers each taken ReLU into its conv kernel. With fusion off no conv takes its
// ReLU.
TEST(CompilerTest, ConvClustersTakeTheirRelu) {
  const std::string model = std::string(LOUPE_SOURCE_DIR) + "/examples/models/conv_relu.onnx";
  CompileOptions options;
  options.phaseTo = "ral";
  CompileResult result = compileModel(model, options);
  ASSERT_TRUE(result.ok()) << result.error->message;
  std::vector<std::string> fused;
  for (const ClusterSummary &c : result.clusters)
    if (c.pattern == "conv_bias_act")
      fused.push_back(c.loc + c.reason.substr(c.reason.find("; takes")));
  EXPECT_EQ(fused, (std::vector<std::string>{
                       "conv1,relu1; takes the ReLU after it as its epilogue; 2 ops fused",
                       "conv3,relu3; takes the ReLU after it as its epilogue; 2 ops fused"}));
  bool clipRefused = false;
  for (const RefusedMerge &r : result.refusedMerges)
    clipRefused |= r.producer == "conv2" &&
                   r.rule.find("conv_bias_act covers the ReLU or hardswish or SiLU of the NHWC result") !=
                       std::string::npos;
  EXPECT_TRUE(clipRefused);
  std::vector<std::string> convs;
  for (const DispatchSummary &d : result.dispatches)
    if (d.name.find("ral_conv_onednn") != std::string::npos)
      convs.push_back(d.loc);
  EXPECT_EQ(convs, (std::vector<std::string>{"conv1,relu1", "conv2", "conv3,relu3"}));

  options.fusion = false;
  result = compileModel(model, options);
  ASSERT_TRUE(result.ok()) << result.error->message;
  for (const ClusterSummary &c : result.clusters)
    EXPECT_NE(c.pattern, "conv_bias_act") << c.loc;
  convs.clear();
  for (const DispatchSummary &d : result.dispatches)
    if (d.name.find("ral_conv_onednn") != std::string::npos)
      convs.push_back(d.loc);
  EXPECT_EQ(convs, (std::vector<std::string>{"conv1", "conv2", "conv3"}));
}

TEST(CompilerTest, WeightsAreSummarizedNeverPrinted) {
  // The CNN's fc weight (Gemm B, 1024x10 f32 = 40 KiB) and conv2's (16x3x3x8) are resource
  // blobs: the result lists their type, shape, size and statistics; no snapshot holds bytes.
  CompileOptions options;
  options.phaseTo = "graph";
  CompileResult result =
      compileModel(std::string(LOUPE_SOURCE_DIR) + "/examples/models/cnn.onnx", options);
  ASSERT_TRUE(result.ok()) << result.error->message;
  ASSERT_FALSE(result.weights.empty());
  const WeightSummary *fc = nullptr;
  for (const WeightSummary &w : result.weights)
    if (w.bytes == 1024 * 10 * 4)
      fc = &w;
  ASSERT_NE(fc, nullptr);
  EXPECT_EQ(fc->dtype, "f32");
  EXPECT_LT(fc->min, fc->max);
  EXPECT_GT(fc->stddev, 0);
  EXPECT_LE(fc->min, fc->mean);
  EXPECT_LE(fc->mean, fc->max);
  for (const PassSnapshot &s : result.snapshots) {
    EXPECT_EQ(s.ir.find("dense_resource<" + fc->name + ">") == std::string::npos, s.ir.empty())
        << s.pass;
    EXPECT_EQ(s.ir.find("0x0400"), std::string::npos) << s.pass << ": a blob's hex";
  }
}
