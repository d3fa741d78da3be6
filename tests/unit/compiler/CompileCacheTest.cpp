//===- CompileCacheTest.cpp - The compile cache: keys, hits, misses, corruption ------===//
#include "loupe/Pipelines/Compiler.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using namespace loupe::compiler;
namespace fs = std::filesystem;

namespace {
const std::string kModel = std::string(LOUPE_SOURCE_DIR) + "/examples/models/mlp.onnx";

class CompileCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("loupe-cache-test-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir);
    fs::create_directories(dir / "out");
    clearCompileCacheMemory();
    options.cacheDir = (dir / "cache").string();
    options.keepIrText = false;
  }
  void TearDown() override { fs::remove_all(dir); }

  CompileResult compile(const std::string &artifact) {
    options.artifactPath = (dir / "out" / artifact).string();
    CompileResult r = compileModel(kModel, options);
    EXPECT_TRUE(r.ok()) << r.error->message;
    EXPECT_TRUE(fs::exists(r.artifactPath)) << r.artifactPath;
    return r;
  }

  fs::path dir;
  CompileOptions options;
};

TEST_F(CompileCacheTest, SecondCompileHitsMemoryThenDisk) {
  CompileCacheStats before = compileCacheStats();
  CompileResult first = compile("a.so");
  EXPECT_EQ(first.cache, "miss");
  CompileResult second = compile("b.so");
  EXPECT_EQ(second.cache, "memory");
  EXPECT_EQ(second.artifactPath, (dir / "out" / "b.so").string());
  EXPECT_EQ(second.snapshots.size(), first.snapshots.size());
  EXPECT_EQ(second.dispatches.size(), first.dispatches.size());
  EXPECT_EQ(second.clusters.size(), first.clusters.size());
  EXPECT_EQ(second.refusedMerges.size(), first.refusedMerges.size());
  EXPECT_EQ(fs::file_size(second.artifactPath), fs::file_size(first.artifactPath));

  clearCompileCacheMemory();
  CompileResult third = compile("c.so");
  EXPECT_EQ(third.cache, "disk");
  ASSERT_EQ(third.dispatches.size(), first.dispatches.size());
  for (size_t i = 0; i < first.dispatches.size(); ++i) {
    EXPECT_EQ(third.dispatches[i].name, first.dispatches[i].name);
    EXPECT_EQ(third.dispatches[i].cluster, first.dispatches[i].cluster);
    EXPECT_EQ(third.dispatches[i].fallbacks, first.dispatches[i].fallbacks);
  }
  CompileCacheStats after = compileCacheStats();
  EXPECT_EQ(after.misses - before.misses, 1);
  EXPECT_EQ(after.memoryHits - before.memoryHits, 1);
  EXPECT_EQ(after.diskHits - before.diskHits, 1);
}

TEST_F(CompileCacheTest, EveryOptionIsPartOfTheKey) {
  EXPECT_EQ(compile("a.so").cache, "miss");
  options.fusion = false;
  EXPECT_EQ(compile("b.so").cache, "miss");
  options.backends = {"openblas", "codegen"};
  EXPECT_EQ(compile("c.so").cache, "miss");
  options.backendOverrides["fc1"] = "codegen";
  EXPECT_EQ(compile("d.so").cache, "miss");
  options.keepIrText = true;
  EXPECT_EQ(compile("e.so").cache, "miss");
  options.target = "cuda";
  EXPECT_EQ(compile("f.so").cache, "miss");
  options.gpuArch = "sm_90";
  EXPECT_EQ(compile("g.so").cache, "miss");
  EXPECT_EQ(compile("h.so").cache, "memory");
}

TEST_F(CompileCacheTest, OnlyArtifactCompilesAreCachedAndOffMeansOff) {
  options.phaseTo = "ral";
  EXPECT_EQ(compileModel(kModel, options).cache, "");
  options.phaseTo = "artifact";
  options.useCache = false;
  EXPECT_EQ(compile("a.so").cache, "");
  EXPECT_FALSE(fs::exists(options.cacheDir));
}

// The full key text decides a hit: an entry whose key differs (a hash collision, a stale or
// foreign file) or whose result is corrupt is a miss, and the compile rewrites it.
TEST_F(CompileCacheTest, ForeignKeyOrCorruptEntryIsAMiss) {
  EXPECT_EQ(compile("a.so").cache, "miss");
  clearCompileCacheMemory();
  fs::path key, json;
  for (const auto &entry : fs::directory_iterator(options.cacheDir)) {
    if (entry.path().extension() == ".key")
      key = entry.path();
    if (entry.path().extension() == ".json")
      json = entry.path();
  }
  ASSERT_FALSE(key.empty());
  std::ofstream(key, std::ios::app) << "x";
  EXPECT_EQ(compile("b.so").cache, "miss");
  clearCompileCacheMemory();
  EXPECT_EQ(compile("c.so").cache, "disk");
  clearCompileCacheMemory();
  std::ofstream(json, std::ios::trunc) << "{not json";
  EXPECT_EQ(compile("d.so").cache, "miss");
  clearCompileCacheMemory();
  EXPECT_EQ(compile("e.so").cache, "disk");
}
} // namespace
