//===- Session.h - Session JSON v1 and v2 -----------------------*- C++ -*-===//
//
// A session says what to compile, how, and how to run it, so the GUI and `loupe replay`
// reproduce the same work. docs/sessions.md documents the format; example (v2):
//
//   { "loupe_session": 2, "name": "cnn", "model": "../models/cnn.onnx",
//     "pipeline": { "target": "cpu", "phase_to": "artifact" },
//     "run": { "warmup": 2, "reps": 20, "seed": 0, "mode": "hot",
//              "inputs": "../models/cnn/test_data_set_0",
//              "check": "../models/cnn/test_data_set_0", "rtol": 1e-3, "atol": 1e-5 },
//     "variants": [ { "name": "short", "run": { "reps": 10 } },
//                   { "name": "long", "run": { "warmup": 5, "reps": 40 } } ],
//     "compare": ["short", "long"] }
//
// A variant's `pipeline` and `run` objects override the top-level ones field by field. v1 is
// v2 without `variants` and `compare`. Relative paths are relative to the session file.
// Unknown fields, wrong types and newer versions are errors naming the file and the field
// (JSON pointer), never ignored.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_SESSIONS_SESSION_H
#define LOUPE_SESSIONS_SESSION_H

#include "loupe/Pipelines/PipelineOptions.h"
#include "loupe/profiler/Run.h"
#include "loupe/ral/Status.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace loupe::profiler {
/// Field-wise equality of run settings, over Session.cpp's field list (runFields).
bool operator==(const RunSettings &a, const RunSettings &b);
inline bool operator!=(const RunSettings &a, const RunSettings &b) { return !(a == b); }
} // namespace loupe::profiler

namespace loupe::compiler {
/// Field-wise equality of pipeline settings, over Session.cpp's field list (pipelineFields).
bool operator==(const PipelineOptions &a, const PipelineOptions &b);
inline bool operator!=(const PipelineOptions &a, const PipelineOptions &b) { return !(a == b); }
} // namespace loupe::compiler

namespace loupe::sessions {

/// Newest format this build reads; it writes 1 when there are no variants, else 2.
inline constexpr int kSessionVersion = 2;
/// What a session file that leaves out `run.warmup` or `run.reps` means (docs/sessions.md).
inline constexpr int kFileWarmupReps = 2;
inline constexpr int kFileReps = 20;
/// Name of the implicit variant made of the top-level settings.
inline constexpr const char *kBaseVariant = "base";

/// How to compile: the compiler's own options (loupe/Pipelines/PipelineOptions.h), whose JSON
/// fields Session.cpp lists once (pipelineFields); the top level and every variant read, write
/// and compare them through that list.
using PipelineSettings = compiler::PipelineOptions;

/// Limits of a bound input shape (`--input-shape`, pipeline.input_shapes).
constexpr size_t kMaxShapeRank = 16;
constexpr int64_t kMaxShapeDim = int64_t(1) << 40;
/// Parses an input shape "D0,D1,..." ("" for a scalar) into `dims`. False with `why` set on a
/// dim that is not a number in [0, kMaxShapeDim) or more than kMaxShapeRank dims.
bool parseShape(const std::string &text, std::vector<int64_t> &dims, std::string &why);

/// How to run a compiled model: the run path's own settings (loupe/profiler/Run.h), whose JSON
/// fields Session.cpp lists once (runFields).
using profiler::RunSettings;

/// A named set of settings: the top level with the variant's overrides applied.
struct Variant {
  std::string name;
  PipelineSettings pipeline;
  RunSettings run;
};

struct Session {
  std::string name;                  ///< Defaults to the file's stem.
  std::string model;                 ///< .mlir, .onnx or a compiled .so; absolute after load.
  PipelineSettings pipeline;
  RunSettings run;
  /// Effective settings of each variant, in file order; names unique, never "base".
  std::vector<Variant> variants;
  /// Empty, or the two variants to compare (baseline, candidate); "base" names the top level.
  std::vector<std::string> compare;
  std::string path;                  ///< The file it was loaded from / saved to.

  /// The top-level settings as the variant "base".
  Variant base() const { return {kBaseVariant, pipeline, run}; }
  /// "base" or a variant; nullopt for an unknown name.
  std::optional<Variant> variant(const std::string &name) const;
  /// What replay runs, in order: "base" alone when there are no variants; else the variants,
  /// after "base" when `compare` names it.
  std::vector<Variant> runList() const;
};

/// Parses session JSON. `path` names the file in errors and anchors relative paths.
ral::StatusOr<Session> parseSession(const std::string &text, const std::string &path);
/// Reads and parses the session file at `path`.
ral::StatusOr<Session> loadSession(const std::string &path);
/// Serialises `session`, with paths relative to the directory of `path`. Variants hold only
/// the fields that differ from the top level. Version 1 without variants and compare, else 2.
std::string sessionToJson(const Session &session, const std::string &path);
/// Writes `session` to `path` (atomically: temp file then rename).
ral::Status saveSession(const Session &session, const std::string &path);

/// A run's settings as the flat JSON object the profile DB stores as its config: every
/// pipeline and run field under its session name, paths absolute, empty paths left out.
std::string runConfigJson(const PipelineSettings &pipeline, const RunSettings &run);
/// The variant `name` that reproduces a stored run: its config (runConfigJson) read over the
/// session's top level (fields the config lacks keep the top level's values). `phase_to`
/// stays the session's: every run compiles to the artifact. Error for malformed config.
ral::StatusOr<Variant> variantFromRunConfig(const Session &session, std::string name,
                                            const std::string &configJson);

} // namespace loupe::sessions

#endif // LOUPE_SESSIONS_SESSION_H
