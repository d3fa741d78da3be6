//===- ClusterComparison.cpp - Two runs compared cluster by cluster ------------===//
#include "loupe/visualizer/clusters/ClusterComparison.h"

#include "loupe/visualizer/clusters/ClusterMatch.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace loupe::visualizer::clusters {

namespace {
/// One run's kernels and their samples.
struct Side {
  const profiler::RunData &data;
  std::vector<KernelRef> kernels;
  std::vector<KernelCluster> clusters;
  int64_t reps = 0;

  explicit Side(const profiler::RunData &run) : data(run) {
    for (const profiler::DispatchRecord &d : run.dispatches)
      kernels.push_back({d.dispatchId, d.name, d.loc, d.backend, d.clusterId});
    clusters = clustersOfKernels(kernels);
    for (const auto &[id, samples] : run.samples)
      for (const profiler::SampleRecord &s : samples)
        reps = std::max(reps, s.rep + 1);
  }
  bool recorded() const { return !clusters.empty(); }

  /// Per repetition, the summed durations of the kernels of `members` (ns); empty when none of
  /// them was measured.
  std::vector<int64_t> repSums(const std::vector<const KernelCluster *> &members) const {
    std::vector<int64_t> sums(static_cast<size_t>(reps), 0);
    bool any = false;
    for (const KernelCluster *c : members)
      for (int k : c->kernels)
        if (auto it = data.samples.find(kernels[k].id); it != data.samples.end())
          for (const profiler::SampleRecord &s : it->second) {
            sums[s.rep] += s.durationNs();
            any = true;
          }
    return any ? sums : std::vector<int64_t>();
  }
};

/// Fills one side's part of `row` from `members` and returns its repetition sums.
std::vector<int64_t> describe(const Side &side, const std::vector<const KernelCluster *> &members,
                              std::vector<int64_t> &ids, size_t &kernels, std::string &backend,
                              std::set<std::string> &sources) {
  std::vector<std::string> backends;
  for (const KernelCluster *c : members) {
    if (c->id >= 0)
      ids.push_back(c->id);
    kernels += c->kernels.size();
    sources.insert(c->sources.begin(), c->sources.end());
    for (const std::string &b : c->backends)
      if (std::find(backends.begin(), backends.end(), b) == backends.end())
        backends.push_back(b);
  }
  backend = joinNames(backends, "+");
  return side.repSums(members);
}

std::vector<const KernelCluster *> pick(const std::vector<KernelCluster> &clusters,
                                        const std::vector<int> &indices) {
  std::vector<const KernelCluster *> out;
  for (int i : indices)
    out.push_back(&clusters[i]);
  return out;
}
} // namespace

ClusterComparison compareClusters(const profiler::RunData &baseline,
                                  const profiler::RunData &candidate, double threshold) {
  ClusterComparison out;
  Side a(baseline), b(candidate);
  out.recorded = a.recorded() && b.recorded();
  if (!out.recorded)
    return out;
  auto add = [&](const std::vector<const KernelCluster *> &inA,
                 const std::vector<const KernelCluster *> &inB, ClusterComparisonRow row) {
    std::set<std::string> sources;
    std::vector<int64_t> sumsA = describe(a, inA, row.baselineClusters, row.baselineKernels,
                                          row.baselineBackend, sources);
    std::vector<int64_t> sumsB = describe(b, inB, row.candidateClusters, row.candidateKernels,
                                          row.candidateBackend, sources);
    row.sources = joinNames({sources.begin(), sources.end()});
    row.comparison = profiler::compare(sumsA, sumsB, threshold);
    const profiler::Comparison &c = row.comparison;
    row.ratio = c.baseline.count == 0 || c.candidate.count == 0 || c.baseline.median == 0
                    ? std::nan("")
                    : c.candidate.median / c.baseline.median;
    out.corresponding += row.corresponds ? 1 : 0;
    out.rows.push_back(std::move(row));
  };
  for (const ClusterMatch &m : matchClusters(a.clusters, b.clusters)) {
    ClusterComparisonRow row;
    row.corresponds = m.corresponds;
    row.sameKernels = m.sameKernels;
    add(pick(a.clusters, m.a), pick(b.clusters, m.b), std::move(row));
  }
  KernelCluster outsideA = kernelsOutsideClusters(a.kernels);
  KernelCluster outsideB = kernelsOutsideClusters(b.kernels);
  if (!outsideA.kernels.empty() || !outsideB.kernels.empty()) {
    ClusterComparisonRow row;
    row.outsideClusters = true;
    auto members = [](const KernelCluster &c) {
      return c.kernels.empty() ? std::vector<const KernelCluster *>() : std::vector{&c};
    };
    add(members(outsideA), members(outsideB), std::move(row));
  }
  return out;
}

} // namespace loupe::visualizer::clusters
