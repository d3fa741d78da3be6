//===- Attribution.h - Which pass made two compiles differ for some ops -*- C++ -*-===//
//
// Perf change -> pass attribution: for a dispatch whose time changed between two compiles, the
// first pass after which their IR differs for the source ops it computes. Each compile keeps,
// per pass, a hash of the ops of every source op that pass changed (PassRecord::locHashes,
// compiler LocHashes.h); replaying both lists side by side finds the first index where the
// hashes of some source op of the dispatch disagree. Shown by `loupe replay`, `loupe compare`
// and `loupe report` next to every FASTER or SLOWER row.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_SESSIONS_ATTRIBUTION_H
#define LOUPE_SESSIONS_ATTRIBUTION_H

#include "loupe/profiler/Records.h"

#include <string>
#include <vector>

namespace loupe::sessions {

struct RunComparison;

struct PassAttribution {
  /// Index of the first pass after which the IR of the source ops differs; -1 when it never
  /// does (the same code, so the change is the machine's) or cannot be told (`note`).
  int64_t index = -1;
  std::string pass, phase; ///< The pass at `index` (the baseline's when the pipelines differ).
  std::string sourceOp;    ///< The first source op (in loc order) whose IR differs there.
  /// Why there is no index, or that the pipelines themselves part at `index`
  /// ("pipelines differ: a runs X, b runs Y").
  std::string note;
};

/// The source ops of a dispatch's loc, in order: "conv1,relu1" -> {"conv1", "relu1"}.
std::vector<std::string> splitSourceOps(const std::string &loc);

/// Where compiles `a` and `b` first differ for the source ops of `loc` (comma-separated, as a
/// dispatch's loc).
PassAttribution attributePass(const profiler::CompileRecord &a, const profiler::CompileRecord &b,
                              const std::string &loc);

/// Attributes every FASTER or SLOWER row and source-op group of `comparison`
/// (DispatchComparison::attribution).
void attributeChanges(RunComparison &comparison, const profiler::CompileRecord &baseline,
                      const profiler::CompileRecord &candidate);

/// "pass #23 loupe-fuse-clusters (cluster), source op conv1", or the note.
std::string describe(const PassAttribution &a);

} // namespace loupe::sessions

#endif // LOUPE_SESSIONS_ATTRIBUTION_H
