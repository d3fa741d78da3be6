//===- RunClusters.cpp - A run's kernels by cluster, joined with the compile shown ===//
#include "loupe/visualizer/clusters/RunClusters.h"

#include "loupe/visualizer/clusters/ClusterMatch.h"

#include <algorithm>

namespace loupe::visualizer::clusters {

namespace {
std::vector<KernelRef> kernelsOf(const ProfileView &profile) {
  std::vector<KernelRef> out;
  for (const DispatchRow &r : profile.rows)
    out.push_back({r.id, r.name, r.loc, r.backend, r.cluster});
  return out;
}

std::vector<KernelRef> kernelsOf(const graph::GraphModel &compile) {
  std::vector<KernelRef> out;
  for (const graph::DispatchEntry &d : compile.dispatches)
    out.push_back({d.summary.id, d.summary.name, d.summary.loc, d.summary.backend, d.summary.cluster});
  return out;
}

/// The compile's dispatch table is the run's: the same ids, names and locs.
bool sameProgram(const std::vector<KernelRef> &run, const std::vector<KernelRef> &compile) {
  if (run.size() != compile.size())
    return false;
  for (size_t i = 0; i < run.size(); ++i)
    if (run[i].id != compile[i].id || run[i].name != compile[i].name || run[i].loc != compile[i].loc)
      return false;
  return true;
}

ClusterTiming timingOf(const KernelCluster &c, const ProfileView &profile) {
  ClusterTiming t;
  t.id = c.id;
  t.rows = c.kernels;
  t.sources = joinNames(c.sources);
  t.backend = joinNames(c.backends, "+");
  for (int row : c.kernels)
    t.medianSumNs += profile.rows[row].medianNs;
  return t;
}
} // namespace

RunClusters joinRunClusters(const ProfileView &profile, const graph::GraphModel *compile) {
  RunClusters out;
  std::vector<KernelRef> run = kernelsOf(profile);
  std::vector<KernelRef> shown = compile ? kernelsOf(*compile) : std::vector<KernelRef>();
  bool recorded = std::any_of(run.begin(), run.end(), [](const KernelRef &k) { return k.cluster >= 0; });
  if (!recorded && compile && sameProgram(run, shown)) {
    for (size_t i = 0; i < run.size(); ++i)
      run[i].cluster = shown[i].cluster;
    recorded = true;
  }
  out.unknown = !recorded && !run.empty();
  out.clusterOfRow.assign(run.size(), -1);
  if (out.unknown)
    return out;

  std::vector<KernelCluster> runClusters = clustersOfKernels(run);
  std::vector<KernelCluster> compileClusters = clustersOfKernels(shown);
  for (const KernelCluster &c : runClusters)
    out.clusters.push_back(timingOf(c, profile));
  if (KernelCluster outside = kernelsOutsideClusters(run); !outside.kernels.empty())
    out.clusters.push_back(timingOf(outside, profile));
  double total = 0;
  for (size_t c = 0; c < out.clusters.size(); ++c) {
    total += out.clusters[c].medianSumNs;
    for (int row : out.clusters[c].rows)
      out.clusterOfRow[row] = static_cast<int>(c);
  }
  for (ClusterTiming &t : out.clusters)
    t.share = total > 0 ? t.medianSumNs / total : 0;

  for (const ClusterMatch &m : matchClusters(runClusters, compileClusters)) {
    if (!m.corresponds)
      continue;
    ClusterTiming &t = out.clusters[m.a[0]];
    const KernelCluster &c = compileClusters[m.b[0]];
    t.compileCluster = compile->clusterIndex(c.id);
    t.sameKernels = m.sameKernels && t.compileCluster >= 0;
    if (!t.sameKernels)
      continue;
    const compiler::ClusterSummary &s = compile->clusters[t.compileCluster].summary;
    t.kind = s.kind;
    t.backend = s.backend;
    for (size_t k = 0; k < c.kernels.size(); ++k)
      out.medianOfDispatch[shown[c.kernels[k]].id] = profile.rows[t.rows[k]].medianNs;
  }
  return out;
}

const RunClusters *RunClustersCache::get(const ViewModel &vm) {
  if (!vm.profile) {
    value_.reset();
    profile_.reset();
    return nullptr;
  }
  if (!value_ || profile_ != vm.profile || compile_ != vm.compile) {
    profile_ = vm.profile;
    compile_ = vm.compile;
    value_ = joinRunClusters(*profile_, compile_ ? compile_->graph.get() : nullptr);
    ++generation_;
  }
  return &*value_;
}

} // namespace loupe::visualizer::clusters
