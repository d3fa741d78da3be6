//===- RunClusters.h - A run's kernels by cluster, joined with the compile shown -*- C++ -*-===//
//
// The Profile panel's per-cluster timings and the graph explainer's kernel medians: a stored
// run's kernels grouped by the cluster ids the runner recorded (profiler DispatchRecord
// clusterId), matched with the clusters of the compile the workbench shows by their source ops
// (matchClusters). Where a run cluster has the same source ops and kernels as a compile
// cluster, the compile describes it (kind, backend, pattern) and its kernels' medians are the
// compile's kernels'. No ImGui.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_CLUSTERS_RUNCLUSTERS_H
#define LOUPE_VISUALIZER_CLUSTERS_RUNCLUSTERS_H

#include "loupe/visualizer/ViewModel.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace loupe::visualizer::clusters {

/// One cluster of a run.
struct ClusterTiming {
  int64_t id = -1;          ///< The run's cluster id; -1: the kernels in no cluster.
  std::vector<int> rows;    ///< Its kernels: indices into ProfileView::rows, program order.
  std::string sources;      ///< Source ops of its kernels, comma-separated, sorted.
  double medianSumNs = 0;   ///< Sum of its kernels' medians, ns.
  double share = 0;         ///< medianSumNs / the sum of every kernel's median.
  /// Index into the compile's GraphModel::clusters of the cluster with the same source ops
  /// (matchClusters: corresponds), -1 when none.
  int compileCluster = -1;
  bool sameKernels = false; ///< That cluster also has the same kernels: kind and backend are its.
  std::string kind;         ///< The compile cluster's kind (kLoop, ...) when sameKernels, else "".
  /// The compile cluster's backend when sameKernels, else its kernels' backends ("onednn+codegen").
  std::string backend;
};

/// A run's kernels by cluster.
struct RunClusters {
  std::vector<ClusterTiming> clusters; ///< By id; the kernels in no cluster last, when any.
  std::vector<int> clusterOfRow;       ///< Per ProfileView row: index into clusters.
  /// Run medians (ns) of the compile's kernels, by DispatchSummary::id: the kernels of the
  /// compile clusters that have the same kernels in the run, paired in program order.
  std::map<int64_t, double> medianOfDispatch;
  /// The run's kernels carry no cluster id (stored before runs recorded them) and the compile
  /// shown is not the run's program: kernels are not grouped.
  bool unknown = false;
};

/// Groups `profile`'s kernels by cluster and matches them with `compile`'s clusters (null: no
/// compile). A run stored without cluster ids takes them from `compile` when its dispatch table
/// is the run's (the same ids, names and locs).
RunClusters joinRunClusters(const ProfileView &profile, const graph::GraphModel *compile);

/// joinRunClusters of the run and the compile a ViewModel shows, recomputed only when either
/// snapshot changes (UI thread).
class RunClustersCache {
public:
  /// Null when no run is shown.
  const RunClusters *get(const ViewModel &vm);
  /// Changes whenever get() recomputes (callers cache what they derive from it).
  uint64_t generation() const { return generation_; }

private:
  std::shared_ptr<const ProfileView> profile_;
  std::shared_ptr<const CompileView> compile_;
  std::optional<RunClusters> value_;
  uint64_t generation_ = 0;
};

} // namespace loupe::visualizer::clusters

#endif // LOUPE_VISUALIZER_CLUSTERS_RUNCLUSTERS_H
