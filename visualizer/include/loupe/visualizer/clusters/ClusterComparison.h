//===- ClusterComparison.h - Two runs compared cluster by cluster -*- C++ -*-===//
//
// The Compare panel's per-cluster view: the clusters of two stored runs matched by their
// source ops (matchClusters: ids differ between schedules), each match compared with
// profiler::compare on the per-repetition sums of its kernels' durations (the same test and
// threshold as dispatches). Matches that do not correspond (the two programs clustered the
// source ops otherwise, e.g. fusion on vs off) are compared as sums too and say so. No ImGui.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_CLUSTERS_CLUSTERCOMPARISON_H
#define LOUPE_VISUALIZER_CLUSTERS_CLUSTERCOMPARISON_H

#include "loupe/profiler/Records.h"
#include "loupe/profiler/Statistics.h"

#include <cstdint>
#include <string>
#include <vector>

namespace loupe::visualizer::clusters {

/// The clusters of the two runs that stand for the same source ops, compared.
struct ClusterComparisonRow {
  std::vector<int64_t> baselineClusters, candidateClusters; ///< Cluster ids; either may be empty.
  bool outsideClusters = false; ///< The kernels in no cluster (copies bufferization added).
  bool corresponds = false;     ///< One cluster each, same source ops (ClusterMatch).
  bool sameKernels = false;     ///< ...and the same kernels.
  std::string sources;          ///< Source ops of both sides, comma-separated, sorted.
  size_t baselineKernels = 0, candidateKernels = 0;
  std::string baselineBackend, candidateBackend; ///< Their kernels' backends, "+"-joined.
  /// profiler::compare of the per-repetition sums of each side's kernel durations, ns.
  profiler::Comparison comparison;
  double ratio = 0; ///< Candidate median / baseline median; NaN when either is missing.
};

struct ClusterComparison {
  std::vector<ClusterComparisonRow> rows; ///< matchClusters order, the kernels in no cluster last.
  int corresponding = 0;   ///< Rows that correspond.
  /// Both runs recorded their kernels' clusters (runs stored before Loupe did have none).
  bool recorded = false;
};

/// Compares the clusters of `candidate` with those of `baseline`; `threshold` is the smallest
/// median change that counts (0.05 = 5%).
ClusterComparison compareClusters(const profiler::RunData &baseline,
                                  const profiler::RunData &candidate, double threshold);

} // namespace loupe::visualizer::clusters

#endif // LOUPE_VISUALIZER_CLUSTERS_CLUSTERCOMPARISON_H
