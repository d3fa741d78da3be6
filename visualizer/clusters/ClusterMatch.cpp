//===- ClusterMatch.cpp - Clusters of two programs matched by their source ops ===//
#include "loupe/visualizer/clusters/ClusterMatch.h"

#include "loupe/visualizer/graph/GraphModel.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

namespace loupe::visualizer::clusters {

namespace {
void addKernel(KernelCluster &c, const std::vector<KernelRef> &kernels, int k) {
  const KernelRef &kernel = kernels[k];
  c.kernels.push_back(k);
  for (const std::string &name : graph::splitLoc(kernel.loc))
    if (!std::binary_search(c.sources.begin(), c.sources.end(), name))
      c.sources.insert(std::upper_bound(c.sources.begin(), c.sources.end(), name), name);
  c.kernelKinds.push_back(graph::kernelKind(kernel.name));
  if (std::find(c.backends.begin(), c.backends.end(), kernel.backend) == c.backends.end())
    c.backends.push_back(kernel.backend);
}

/// Disjoint sets over indices (union by size is not needed at these sizes).
struct DisjointSets {
  std::vector<int> parent;
  explicit DisjointSets(int n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  int find(int x) { return parent[x] == x ? x : parent[x] = find(parent[x]); }
  void join(int x, int y) { parent[find(x)] = find(y); }
};
} // namespace

std::string joinNames(const std::vector<std::string> &names, const char *separator) {
  std::string out;
  for (const std::string &n : names)
    out += (out.empty() ? "" : separator) + n;
  return out;
}

std::vector<KernelCluster> clustersOfKernels(const std::vector<KernelRef> &kernels) {
  std::map<int64_t, KernelCluster> byId;
  for (size_t k = 0; k < kernels.size(); ++k)
    if (kernels[k].cluster >= 0) {
      KernelCluster &c = byId[kernels[k].cluster];
      c.id = kernels[k].cluster;
      addKernel(c, kernels, static_cast<int>(k));
    }
  std::vector<KernelCluster> out;
  for (auto &[id, c] : byId)
    out.push_back(std::move(c));
  return out;
}

KernelCluster kernelsOutsideClusters(const std::vector<KernelRef> &kernels) {
  KernelCluster c;
  for (size_t k = 0; k < kernels.size(); ++k)
    if (kernels[k].cluster < 0)
      addKernel(c, kernels, static_cast<int>(k));
  return c;
}

std::vector<ClusterMatch> matchClusters(const std::vector<KernelCluster> &a,
                                        const std::vector<KernelCluster> &b) {
  std::vector<ClusterMatch> out;
  std::vector<bool> usedA(a.size(), false), usedB(b.size(), false);
  auto pass = [&](auto key, bool sameKernels) { // pairs equal keys, in program order
    std::multimap<std::string, int> byKey;
    for (size_t j = 0; j < b.size(); ++j)
      if (!usedB[j])
        byKey.emplace(key(b[j]), static_cast<int>(j));
    for (size_t i = 0; i < a.size(); ++i) {
      if (usedA[i])
        continue;
      auto it = byKey.find(key(a[i])); // the first of equal keys: insertion order
      if (it == byKey.end())
        continue;
      usedA[i] = usedB[it->second] = true;
      out.push_back({{static_cast<int>(i)}, {it->second}, true, sameKernels});
      byKey.erase(it);
    }
  };
  auto sources = [](const KernelCluster &c) { return joinNames(c.sources); };
  auto kernels = [&](const KernelCluster &c) { return sources(c) + "|" + joinNames(c.kernelKinds); };
  pass([&](const KernelCluster &c) { return std::to_string(c.id) + "|" + kernels(c); }, true);
  pass(kernels, true);
  pass(sources, false);

  // The rest: clusters that share a source op, on either side, form one group.
  int na = static_cast<int>(a.size());
  DisjointSets sets(na + static_cast<int>(b.size()));
  std::map<std::string, int> firstWith;
  auto link = [&](const KernelCluster &c, int index) {
    for (const std::string &s : c.sources)
      if (auto [it, added] = firstWith.emplace(s, index); !added)
        sets.join(index, it->second);
  };
  for (int i = 0; i < na; ++i)
    if (!usedA[i])
      link(a[i], i);
  for (size_t j = 0; j < b.size(); ++j)
    if (!usedB[j])
      link(b[j], na + static_cast<int>(j));
  std::map<int, ClusterMatch> groups;
  for (int i = 0; i < na; ++i)
    if (!usedA[i])
      groups[sets.find(i)].a.push_back(i);
  for (size_t j = 0; j < b.size(); ++j)
    if (!usedB[j])
      groups[sets.find(na + static_cast<int>(j))].b.push_back(static_cast<int>(j));
  for (auto &[root, group] : groups)
    out.push_back(std::move(group));

  auto order = [&](const ClusterMatch &m) {
    return m.a.empty() ? std::pair{1, b[m.b.front()].id} : std::pair{0, a[m.a.front()].id};
  };
  std::stable_sort(out.begin(), out.end(),
                   [&](const ClusterMatch &x, const ClusterMatch &y) { return order(x) < order(y); });
  return out;
}

} // namespace loupe::visualizer::clusters
