//===- PipelineOptions.h - What a user chooses about a compile ---*- C++ -*-===//
//
// The compile settings a user picks (CLI flags, a session's `pipeline` object, the GUI): one
// struct, which sessions store as PipelineSettings and compiler::CompileOptions extends with
// the per-call details. Standard headers only, so sessions and the GUI include it cheaply.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_PIPELINES_PIPELINEOPTIONS_H
#define LOUPE_PIPELINES_PIPELINEOPTIONS_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace loupe::compiler {

struct PipelineOptions {
  std::string target = "cpu";       ///< "cpu" or "cuda" (code-generated kernels as PTX).
  std::string gpuArch = "sm_80";    ///< cuda: the NVIDIA architecture of the PTX (sm_80, sm_90).
  /// Stop after this phase. The GUI compiles to a session's phase_to; runs always compile to
  /// the artifact (sessions::compileOptionsFor).
  std::string phaseTo = "artifact";
  /// Ordered backend preference (`--backends onednn,codegen`); empty: highest plevel. Names
  /// must be registered backends (loupe/Backends/BackendRegistry.h).
  std::vector<std::string> backends;
  /// Per-op backend overrides keyed by `loc` (an ONNX node name or file:line)
  /// (`--override LOC=B`, a session's `overrides`).
  std::map<std::string, std::string> backendOverrides;
  bool fusion = true;               ///< Fusion (`--fusion off`: one op per cluster and kernel).
  /// libm's correctly rounded exp, tanh, erf, log, ... (`--math libm`) instead of the
  /// polynomial approximations that vectorise (loupe-approximate-math; docs/pipeline.md).
  bool exactMath = false;
  /// ONNX models: whole shapes of graph inputs by name (`--input-shape NAME=D0,D1,...`), which
  /// bind their symbolic dims; a dim_param bound once is bound everywhere. The compile cache
  /// keys on the imported module, so each bound shape is an entry of its own (seed 003).
  std::map<std::string, std::vector<int64_t>> inputShapes;
};

} // namespace loupe::compiler

#endif // LOUPE_PIPELINES_PIPELINEOPTIONS_H
