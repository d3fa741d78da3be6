//===- Session.h - Session JSON v1 ------------------------------*- C++ -*-===//
//
// A session says what to compile, how, and how to run it, so the GUI and `loupe replay`
// reproduce the same work. docs/sessions.md documents the format; example:
//
//   { "loupe_session": 1, "name": "cnn", "model": "../models/cnn.onnx",
//     "pipeline": { "target": "cpu", "phase_to": "artifact" },
//     "run": { "warmup": 2, "reps": 20, "seed": 0,
//              "inputs": "../models/cnn/test_data_set_0",
//              "check": "../models/cnn/test_data_set_0", "rtol": 1e-3, "atol": 1e-5 } }
//
// Relative paths are relative to the session file. Unknown fields, wrong types and newer
// versions are errors naming the file and the field (JSON pointer), never ignored.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_SESSIONS_SESSION_H
#define LOUPE_SESSIONS_SESSION_H

#include "loupe/ral/Status.h"

#include <cstdint>
#include <string>

namespace loupe::sessions {

inline constexpr int kSessionVersion = 1;

/// How to run a compiled model.
struct RunSettings {
  int warmup = 2;          ///< Untimed repetitions before measuring.
  int reps = 20;           ///< Measured repetitions (>= 1).
  uint64_t seed = 0;       ///< Seed of random inputs, when `inputsDir` is empty.
  std::string inputsDir;   ///< ONNX test-data folder with input_N.pb|.npy; empty: random.
  std::string checkDir;    ///< Folder with expected output_N.pb|.npy; empty: no check.
  double rtol = 1e-3;      ///< Check passes when |actual - expected| <= atol + rtol*|expected|.
  double atol = 1e-5;
};

struct Session {
  std::string name;                  ///< Defaults to the file's stem.
  std::string model;                 ///< .mlir, .onnx or a compiled .so; absolute after load.
  std::string target = "cpu";        ///< Compile target.
  std::string phaseTo = "artifact";  ///< Last pipeline phase.
  RunSettings run;
  std::string path;                  ///< The file it was loaded from / saved to.
};

/// Parses session JSON. `path` names the file in errors and anchors relative paths.
ral::StatusOr<Session> parseSession(const std::string &text, const std::string &path);
/// Reads and parses the session file at `path`.
ral::StatusOr<Session> loadSession(const std::string &path);
/// Serialises `session`, with paths relative to the directory of `path`.
std::string sessionToJson(const Session &session, const std::string &path);
/// Writes `session` to `path` (atomically: temp file then rename).
ral::Status saveSession(const Session &session, const std::string &path);

} // namespace loupe::sessions

#endif // LOUPE_SESSIONS_SESSION_H
