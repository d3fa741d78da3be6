//===- RalArtifactTest.cpp - loupe-ral-v1 artifacts end to end ---------------------===//
//
// The fixtures (fixtures/ral_fixture_artifact.c) are what the compiler's ral phase will emit:
// an entry taking the execution context, recv_input/send_output, ral_alloc, ral_cpu_launch,
// a library GEMM and dispatch tracing, all through ral_api_call.
//
//===----------------------------------------------------------------------===//
#include "loupe/ral/Artifact.h"
#include "loupe/ral/Context.h"
#include "loupe/ral/CpuDriver.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>

using namespace loupe::ral;

namespace {

std::string fixture(const char *variant) {
  return std::string(LOUPE_RAL_FIXTURE_DIR) + "/libral_fixture_" + variant + ".so";
}

Tensor makeInput() {
  Tensor x(DType::F32, {4, 8});
  for (int i = 0; i < 32; ++i)
    x.dataAs<float>()[i] = float((i * 5) % 11 - 5) / 4.0f;
  return x;
}

/// relu(x W + b) and 2x, with the fixture's constants.
void reference(const Tensor &x, std::vector<float> &y, std::vector<float> &doubled) {
  y.assign(4 * 16, 0);
  doubled.assign(32, 0);
  for (int i = 0; i < 32; ++i)
    doubled[i] = 2 * x.dataAs<float>()[i];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 16; ++j) {
      float acc = 0;
      for (int k = 0; k < 8; ++k)
        acc += x.dataAs<float>()[i * 8 + k] * (float((k * 16 + j) * 7 % 13 - 6) / 8.0f);
      acc += float(j % 5 - 2) / 4.0f;
      y[i * 16 + j] = std::max(acc, 0.f);
    }
}

struct EventLog : Tracer {
  std::vector<std::string> events;
  void onDispatchBegin(const DispatchEvent &e) override {
    events.push_back("begin " + std::to_string(e.dispatchId) + " " + e.name + " " + e.backend +
                     " " + e.loc);
  }
  void onDispatchEnd(const DispatchEvent &e) override {
    events.push_back("end " + std::to_string(e.dispatchId));
  }
  void outputReady(int64_t index) override { events.push_back("output " + std::to_string(index)); }
};

void runAndCheck(const char *variant, const char *matmulBackend) {
  auto artifact = Artifact::load(fixture(variant));
  if (!artifact && std::string(variant) == "full" &&
      artifact.status().message().find("ral_gemm_onednn") != std::string::npos)
    GTEST_SKIP() << "CPU kernel plugin unavailable: " << artifact.status().message();
  ASSERT_TRUE(artifact) << artifact.status().message();
  EXPECT_TRUE((*artifact)->usesRal());
  EXPECT_EQ((*artifact)->manifest().abi, "loupe-ral-v1");
  ASSERT_NE((*artifact)->context(), nullptr);
  Tensor x = makeInput();
  std::vector<Tensor> outputs = *(*artifact)->allocateOutputs();
  EventLog log;
  Status s = (*artifact)->run({x}, outputs, &log);
  ASSERT_TRUE(s) << s.message();
  std::vector<float> y, doubled;
  reference(x, y, doubled);
  for (int i = 0; i < 64; ++i)
    ASSERT_NEAR(outputs[0].dataAs<float>()[i], y[i], 1e-5) << i;
  for (int i = 0; i < 32; ++i)
    ASSERT_EQ(outputs[1].dataAs<float>()[i], doubled[i]) << i;
  std::vector<std::string> want = {
      "begin 0 dispatch_0_double codegen Mul_0",
      "end 0",
      "output 1", // partial output: sent before the rest runs
      std::string("begin 1 dispatch_1_matmul ") + matmulBackend + " MatMul_1",
      "end 1",
      "begin 2 dispatch_2_bias_relu codegen Add_2,Relu_3",
      "end 2",
      "output 0"};
  EXPECT_EQ(log.events, want);
  // Temporaries went back to the context's allocator.
  EXPECT_EQ((*artifact)->context()->cpu().allocator().stats().bytesInUse, 0u);
  // A second run reuses the cached blocks.
  ASSERT_TRUE((*artifact)->run({x}, outputs));
  EXPECT_GE((*artifact)->context()->cpu().allocator().stats().hits, 2u);
}

TEST(RalArtifact, RunsThroughTheRalWithALibraryGemm) { runAndCheck("full", "onednn"); }

TEST(RalArtifact, RunsThroughTheRalWithCodegenOnly) { runAndCheck("core", "codegen"); }

TEST(RalArtifact, LoadReportsAnUnregisteredApiBeforeRunning) {
  auto artifact = Artifact::load(fixture("missing_api"));
  ASSERT_FALSE(artifact);
  EXPECT_EQ(artifact.status().code(), StatusCode::kNotFound);
  EXPECT_NE(artifact.status().message().find("ral_missing_kernel___cpu___pvoid_m2df32___void"),
            std::string::npos)
      << artifact.status().message();
}

TEST(RalArtifact, AnUnknownCallAtRunTimeIsAStatusNamingIt) {
  auto artifact = Artifact::load(fixture("unknown_call"));
  if (!artifact)
    GTEST_SKIP() << artifact.status().message();
  std::vector<Tensor> outputs = *(*artifact)->allocateOutputs();
  Status s = (*artifact)->run({makeInput()}, outputs);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("ral_not_registered___cpu___pvoid___void"), std::string::npos)
      << s.message();
}

TEST(RalArtifact, WrongInputsAreRejectedBeforeTheEntryRuns) {
  auto artifact = Artifact::load(fixture("core"));
  ASSERT_TRUE(artifact) << artifact.status().message();
  std::vector<Tensor> outputs = *(*artifact)->allocateOutputs();
  Status s = (*artifact)->run({Tensor(DType::F32, {8, 4})}, outputs);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("input 0 is f32[8x4]"), std::string::npos) << s.message();
}

} // namespace

TEST(RalArtifact, ManifestShapesThatOverflowAreRejected) {
  auto manifest = [](const std::string &shape) {
    return R"({"version": 1, "abi": "loupe-ral-v1", "target": "cpu", "entry": "main",
               "inputs": [{"dtype": "f32", "shape": )" +
           shape + R"(}], "outputs": [], "dispatches": []})";
  };
  EXPECT_TRUE(parseManifest(manifest("[4, 8]")).isOk());
  for (const char *shape : {"[4294967296, 4294967296]", "[-1, 8]"}) {
    auto parsed = parseManifest(manifest(shape));
    ASSERT_FALSE(parsed.isOk()) << shape;
    EXPECT_NE(parsed.status().message().find("size overflows"), std::string::npos)
        << parsed.status().message();
  }  // Found by fuzz_manifest: a float dim was converted to int64_t (undefined behaviour).
  for (const char *shape : {"[1.5e124, 2]", "[18446744073709551615]", "[2.5]"}) {
    auto parsed = parseManifest(manifest(shape));
    ASSERT_FALSE(parsed.isOk()) << shape;
    EXPECT_NE(parsed.status().message().find("expected an integer"), std::string::npos)
        << parsed.status().message();
  }
}

TEST(RalArtifact, TruncatedArtifactsAreRefusedBeforeLoading) {
  std::string full = fixture("core");
  std::ifstream in(full, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 8192u);
  std::string path = ::testing::TempDir() + "/truncated_fixture.so";
  for (size_t keep : {bytes.size() / 2, size_t(200), size_t(10)}) {
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), keep);
    auto loaded = Artifact::load(path);
    ASSERT_FALSE(loaded.isOk()) << keep;
    EXPECT_EQ(loaded.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(loaded.status().message().find(path), std::string::npos)
        << loaded.status().message();
  }
}
