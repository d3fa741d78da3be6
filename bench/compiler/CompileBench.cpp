//===- CompileBench.cpp - What per-pass snapshots cost -------------------------===//
//
// Compiles the example models to LLVM IR three ways in the same process and run:
//   passes_only  - the same passes with no instrumentation (the peer: plain MLIR pass manager)
//   hashes       - a snapshot per pass, hash only (what `loupe run` / `replay` record)
//   text         - a snapshot per pass with the IR text of every changed pass (the GUI, --dump-dir)
// bench/run.sh prints hashes/passes_only and text/passes_only.
// Clustering at scale: a generated 10,000-op linalg module (elementwise chains with a library
// matmul side path every 5 ops, so merges hit the cycle check) through the graph phase (the
// peer: parse, canonicalize, CSE) and through the cluster phase.
// And the compile cache: a whole artifact compile (cache off, the peer) against a memory hit
// and a disk hit of the same compile (artifact copied to the requested path).
//
//===----------------------------------------------------------------------===//
#include "loupe/Pipelines/Compiler.h"

#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>

using namespace loupe::compiler;

namespace {
enum Mode { kPassesOnly, kHashes, kText };

void compile(benchmark::State &state, const char *model, Mode mode) {
  CompileOptions options;
  options.phaseTo = "llvm";
  options.recordPasses = mode != kPassesOnly;
  options.keepIrText = mode == kText;
  std::string path = std::string(LOUPE_SOURCE_DIR) + "/examples/models/" + model;
  size_t snapshots = 0, textBytes = 0;
  for (auto _ : state) {
    CompileResult result = compileModel(path, options);
    if (!result.ok()) {
      state.SkipWithError(result.error->message.c_str());
      return;
    }
    snapshots = result.snapshots.size();
    textBytes = 0;
    for (const auto &s : result.snapshots)
      textBytes += s.ir.size();
  }
  state.counters["snapshots"] = snapshots;
  state.counters["ir_text_bytes"] = textBytes;
}
/// `ops` linalg ops on 16x16 tensors: adds reading the last two values, every 5th a matmul.
std::string generatedModule(int ops) {
  std::string text = "func.func @main(%a: tensor<16x16xf32>) -> tensor<16x16xf32> {\n"
                     "  %e = tensor.empty() : tensor<16x16xf32>\n"
                     "  %z = arith.constant 0.0 : f32\n"
                     "  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>\n"
                     "  %v0 = linalg.exp ins(%a : tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>\n";
  const char *type = "tensor<16x16xf32>";
  for (int i = 1; i < ops; ++i) {
    std::string v = "%v" + std::to_string(i), prev = "%v" + std::to_string(i - 1);
    if (i % 5 == 0)
      text += "  " + v + " = linalg.matmul ins(" + prev + ", %a : " + type + ", " + type +
              ") outs(%f : " + type + ") -> " + type + "\n";
    else
      text += "  " + v + " = linalg.add ins(" + prev + ", %v" + std::to_string(std::max(0, i - 2)) +
              " : " + type + ", " + type + ") outs(%e : " + type + ") -> " + type + "\n";
  }
  return text + "  return %v" + std::to_string(ops - 1) + " : " + type + "\n}\n";
}

void clusterGenerated(benchmark::State &state, const char *phaseTo) {
  auto path = std::filesystem::temp_directory_path() / "loupe-bench-10k.mlir";
  std::ofstream(path) << generatedModule(10000);
  CompileOptions options;
  options.phaseTo = phaseTo;
  options.recordPasses = false;
  for (auto _ : state) {
    CompileResult result = compileModel(path.string(), options);
    if (!result.ok()) {
      state.SkipWithError(result.error->message.c_str());
      return;
    }
    state.counters["clusters"] = result.clusters.size();
    state.counters["refused_merges"] = result.refusedMerges.size();
  }
}

enum CacheMode { kCacheOff, kMemoryHit, kDiskHit };

void compileArtifact(benchmark::State &state, const char *model, CacheMode mode) {
  auto dir = std::filesystem::temp_directory_path() / "loupe-bench-cache";
  CompileOptions options;
  options.keepIrText = false;
  options.useCache = mode != kCacheOff;
  options.cacheDir = (dir / "cache").string();
  options.artifactPath = (dir / "out.so").string();
  std::filesystem::create_directories(dir);
  std::string path = std::string(LOUPE_SOURCE_DIR) + "/examples/models/" + model;
  if (mode != kCacheOff)
    (void)compileModel(path, options); // Fills the cache.
  for (auto _ : state) {
    if (mode == kDiskHit)
      clearCompileCacheMemory();
    CompileResult result = compileModel(path, options);
    if (!result.ok() || (mode != kCacheOff && result.cache == "miss")) {
      state.SkipWithError(result.ok() ? "the cache missed" : result.error->message.c_str());
      return;
    }
  }
  std::filesystem::remove_all(dir);
}
} // namespace

BENCHMARK_CAPTURE(clusterGenerated, cluster10k_peer, "graph")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(clusterGenerated, cluster10k_clustered, "cluster")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(compileArtifact, cache_cnn_peer, "cnn.onnx", kCacheOff)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(compileArtifact, cache_cnn_memory, "cnn.onnx", kMemoryHit)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(compileArtifact, cache_cnn_disk, "cnn.onnx", kDiskHit)->Unit(benchmark::kMillisecond);

#define LOUPE_COMPILE_BENCH(model, name)                                                      \
  BENCHMARK_CAPTURE(compile, name##_passes_only, model, kPassesOnly)->Unit(benchmark::kMillisecond); \
  BENCHMARK_CAPTURE(compile, name##_hashes, model, kHashes)->Unit(benchmark::kMillisecond);  \
  BENCHMARK_CAPTURE(compile, name##_text, model, kText)->Unit(benchmark::kMillisecond);

LOUPE_COMPILE_BENCH("mlp_tosa.mlir", mlp_tosa)
LOUPE_COMPILE_BENCH("cnn.onnx", cnn)
LOUPE_COMPILE_BENCH("transformer_block.onnx", transformer_block)

BENCHMARK_MAIN();
