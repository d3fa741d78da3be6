//===- CompileBench.cpp - What per-pass snapshots cost -------------------------===//
//
// Compiles the example models to LLVM IR three ways in the same process and run:
//   passes_only  - the same passes with no instrumentation (the peer: plain MLIR pass manager)
//   hashes       - a snapshot per pass, hash only (what `loupe run` / `replay` record)
//   text         - a snapshot per pass with the IR text of every changed pass (the GUI, --dump-dir)
// bench/run.sh prints hashes/passes_only and text/passes_only.
//
//===----------------------------------------------------------------------===//
#include "loupe/Pipelines/Compiler.h"

#include <benchmark/benchmark.h>

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
} // namespace

#define LOUPE_COMPILE_BENCH(model, name)                                                      \
  BENCHMARK_CAPTURE(compile, name##_passes_only, model, kPassesOnly)->Unit(benchmark::kMillisecond); \
  BENCHMARK_CAPTURE(compile, name##_hashes, model, kHashes)->Unit(benchmark::kMillisecond);  \
  BENCHMARK_CAPTURE(compile, name##_text, model, kText)->Unit(benchmark::kMillisecond);

LOUPE_COMPILE_BENCH("mlp_tosa.mlir", mlp_tosa)
LOUPE_COMPILE_BENCH("cnn.onnx", cnn)
LOUPE_COMPILE_BENCH("transformer_block.onnx", transformer_block)

BENCHMARK_MAIN();
