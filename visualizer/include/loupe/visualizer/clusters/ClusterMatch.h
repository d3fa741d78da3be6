//===- ClusterMatch.h - Clusters of two programs matched by their source ops -*- C++ -*-===//
//
// A cluster as its kernels show it (the kernels' cluster ids, names and locs, as a compile's
// dispatch table or a stored run's dispatches give them), and the matching of the clusters of
// two programs of one model: cluster ids are positions in a program, so two schedules (fusion
// on and off, another backend) number them differently; the source ops (ONNX node names) they
// cover do not change. No ImGui.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_CLUSTERS_CLUSTERMATCH_H
#define LOUPE_VISUALIZER_CLUSTERS_CLUSTERMATCH_H

#include <cstdint>
#include <string>
#include <vector>

namespace loupe::visualizer::clusters {

/// A kernel of a dispatch table, whichever table it comes from.
struct KernelRef {
  int64_t id = 0;       ///< Dispatch id.
  std::string name;     ///< "dispatch_3_ral_conv_onednn".
  std::string loc;      ///< Source ops, comma-separated.
  std::string backend;  ///< "codegen", "onednn", ...
  int64_t cluster = -1; ///< Its cluster's id; -1 for kernels in none (copies bufferization added).
};

/// One cluster as its kernels show it.
struct KernelCluster {
  int64_t id = -1;
  std::vector<int> kernels;             ///< Indices into the kernel list, program order.
  std::vector<std::string> sources;     ///< The union of its kernels' locs, sorted.
  std::vector<std::string> kernelKinds; ///< graph::kernelKind() of its kernels, program order.
  std::vector<std::string> backends;    ///< Its kernels' backends, each once, program order.
};

/// The kernels grouped by cluster id, by id; kernels in no cluster are left out.
std::vector<KernelCluster> clustersOfKernels(const std::vector<KernelRef> &kernels);
/// The kernels in no cluster as one pseudo-cluster (id -1); no kernels when there are none.
KernelCluster kernelsOutsideClusters(const std::vector<KernelRef> &kernels);

/// Clusters of two programs that stand for the same source ops.
struct ClusterMatch {
  std::vector<int> a, b; ///< Indices into each side's clusters; either may be empty.
  /// One cluster on each side, with the same source ops. Else the two programs clustered these
  /// source ops otherwise (fusion on vs off: one cluster here, three there) or only one of
  /// them has them.
  bool corresponds = false;
  bool sameKernels = false; ///< Corresponds, with kernels of the same kinds in the same order.
};

/// Matches clusters of program `a` with clusters of program `b`, each cluster once, in passes
/// so that a weaker rule never takes a cluster a stronger one pairs: same id, source ops and
/// kernels (the same program); same source ops and kernels; same source ops (another backend);
/// then the rest are grouped by shared source ops (connected components) into matches that do
/// not correspond. Ordered by the smallest id of side a, then of side b for groups only b has.
std::vector<ClusterMatch> matchClusters(const std::vector<KernelCluster> &a,
                                        const std::vector<KernelCluster> &b);

/// "fc,relu1": names joined with commas.
std::string joinNames(const std::vector<std::string> &names, const char *separator = ",");

} // namespace loupe::visualizer::clusters

#endif // LOUPE_VISUALIZER_CLUSTERS_CLUSTERMATCH_H
