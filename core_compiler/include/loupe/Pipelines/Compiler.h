//===- Compiler.h - Loupe's compiler entry point ----------------*- C++ -*-===//
//
// The public face of core_compiler: compile a model (.mlir or .onnx) through the named phases,
// recording a snapshot after every pass. No MLIR or LLVM header is included here, so sessions,
// the GUI and the CLI can use it without paying for MLIR's headers.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_PIPELINES_COMPILER_H
#define LOUPE_PIPELINES_COMPILER_H

#include "loupe/Pipelines/CompileResult.h"
#include "loupe/Pipelines/PipelineOptions.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace loupe::compiler {

/// Pipeline phases in order (docs/pipeline.md lists the passes of each). Inline, like the
/// checks below, so session validation needs no compiler library.
inline const std::vector<std::string> &phaseNames() {
  static const std::vector<std::string> names = {"import", "graph", "cluster", "lower",
                                                 "ral",    "llvm",  "artifact"};
  return names;
}
/// True when `name` is one of phaseNames().
inline bool isPhase(const std::string &name) {
  const auto &names = phaseNames();
  return std::find(names.begin(), names.end(), name) != names.end();
}
/// True when `arch` is an NVIDIA architecture the cuda target compiles for (sm_80, sm_90).
inline bool isGpuArch(const std::string &arch) { return arch == "sm_80" || arch == "sm_90"; }

/// A compile's options: the user's choices (PipelineOptions, reproducible from a session file
/// or the CLI) and the details of one call.
struct CompileOptions : PipelineOptions {
  std::string artifactPath;        ///< Shared object to write; a temporary file when empty.
  bool keepIrText = true;          ///< Keep the text of changed snapshots (off: hashes only).
  bool recordPasses = true;        ///< Snapshot every MLIR pass (off: only the pseudo-passes;
                                   ///< bench/compiler measures the recorder's cost this way).
  /// Shapes of the tensors a run will feed (`--inputs DIR`), in input order: they bind the
  /// symbolic dims of inputs that inputShapes does not name.
  std::vector<std::vector<int64_t>> inputTensorShapes;
  /// Raw bytes of those tensors (empty for the large ones): the inputs ONNX ops read as shape
  /// tensors are specialized to them (frontends::InputBindings::values); the artifact's
  /// manifest records the value and each run checks it.
  std::vector<std::string> inputTensorValues;
  /// Reuse an earlier artifact compile of the same module and options (docs/pipeline.md,
  /// "Compile cache"); only compiles through the artifact phase are cached.
  bool useCache = true;
  std::string cacheDir;            ///< Empty: $LOUPE_CACHE_DIR, else ~/.cache/loupe/compile.
  /// Op signature -> backend, from the profile DB's tuning table for this device, consulted
  /// when `backends` names "auto" (sessions::resolveTunedBackends fills it; the compiler
  /// reads no DB).
  std::map<std::string, std::string> tunedBackends;
};

/// Compile cache counters of this process since it started.
struct CompileCacheStats {
  int64_t memoryHits = 0, diskHits = 0, misses = 0;
};
CompileCacheStats compileCacheStats();
/// Forgets the in-memory entries (the disk entries stay); for tests.
void clearCompileCacheMemory();

/// The disk cache of `dir` (compileCacheDir's choice when empty): entries, their bytes, and
/// the cap past which the least recently used entries are evicted after each store
/// ($LOUPE_CACHE_MAX_BYTES, default 4 GiB; entries count their artifact, weights included).
struct CompileCacheUsage {
  std::string dir;
  int64_t entries = 0, bytes = 0, capBytes = 0;
};
CompileCacheUsage compileCacheUsage(const std::string &dir = "");
/// Removes every entry of the disk cache of `dir` (and the in-memory ones); returns what went
/// (its directory, entries and bytes). Files that are not cache entries stay.
CompileCacheUsage clearCompileCache(const std::string &dir = "");

/// Compiles the model at `modelPath`: `.mlir` (func + tosa/linalg/arith/tensor) or `.onnx`.
/// Thread-safe: every call owns its MLIRContext.
CompileResult compileModel(const std::string &modelPath, const CompileOptions &options);

} // namespace loupe::compiler

#endif // LOUPE_PIPELINES_COMPILER_H
