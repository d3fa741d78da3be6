//===- GraphModel.cpp - Ops, clusters, dispatches and backend choices ---------===//
#include "loupe/visualizer/graph/GraphModel.h"

#include "GraphClusters.h"

#include "loupe/Backends/BackendRegistry.h"
#include "loupe/sessions/BackendAvailability.h"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <set>
#include <sstream>

namespace loupe::visualizer::graph {

namespace {
bool contains(const std::string &s, const char *part) { return s.find(part) != std::string::npos; }

/// "tosa.max_pool2d" -> "max", "tosa.conv2d" -> "conv": the op's leading word.
std::string opStem(const std::string &op) {
  std::string s = op.substr(op.find('.') == std::string::npos ? 0 : op.find('.') + 1);
  size_t end = 0;
  while (end < s.size() && std::isalpha(static_cast<unsigned char>(s[end])))
    ++end;
  return s.substr(0, end);
}

/// How well dispatch `d` stands for op `node` (the higher, the better).
int affinity(const compiler::GraphNode &node, const DispatchEntry &d) {
  int score = 0;
  if (!libraryOpKind(node.op, d.summary).empty())
    score += 8;
  std::string stem = opStem(node.op);
  if (!stem.empty() && contains(kernelKind(d.summary.name), stem.c_str()))
    score += 4;
  if (splitLoc(d.summary.loc).size() > 1)
    score += 2; // a fusion
  std::string kind = kernelKind(d.summary.name);
  if (kind != "transpose" && kind != "fill" && kind != "copy" && kind != "map")
    score += 1; // compute rather than data movement
  return score;
}
} // namespace

std::string kernelKind(const std::string &name) {
  if (name.rfind("dispatch_", 0) != 0)
    return name;
  size_t end = name.find('_', 9);
  return end == std::string::npos ? name : name.substr(end + 1);
}

std::pair<std::string, std::string> splitClusterOp(const std::string &op) {
  size_t at = op.find('@');
  return at == std::string::npos ? std::pair{op, std::string()}
                                 : std::pair{op.substr(0, at), op.substr(at + 1)};
}

std::vector<std::string> splitLoc(const std::string &loc) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(loc);
  while (std::getline(in, item, ','))
    if (!item.empty())
      out.push_back(item);
  return out;
}

std::string deviceOfTarget(const std::string &target) {
  return target == "cuda" ? "gpu" : target;
}

std::vector<Alternative> alternativesFor(const std::string &opKind, const std::string &device) {
  static std::mutex mutex;
  static std::map<std::pair<std::string, std::string>, std::vector<Alternative>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto key = std::make_pair(opKind, device);
  if (auto it = cache.find(key); it != cache.end())
    return it->second;
  std::vector<Alternative> out;
  for (const backends::Selection &s :
       backends::BackendRegistry::global().candidates(opKind, device)) {
    std::string why = sessions::unavailableReason(s.backend, s.kernel, device);
    out.push_back({s.backend, s.kernel, s.plevel, why.empty(), why});
  }
  cache[key] = out;
  return out;
}

std::string libraryOpKind(const std::string &graphOp, const compiler::DispatchSummary &d) {
  bool library = d.op == "ral.dispatch";
  if (graphOp == "tosa.conv2d" && (library || contains(d.name, "conv"))) {
    bool int8 = contains(d.name, "qconv") || contains(d.name, "fhwc_q");
    return int8 ? "quantized_conv2d" : "conv2d";
  }
  if (graphOp == "linalg.quantized_batch_matmul" &&
      (library || contains(d.name, "matmul") || contains(d.name, "gemm")))
    return "quantized_batch_matmul";
  if (graphOp == "tosa.max_pool2d" && (library || d.kind == "kInput")) // The window's kernel.
    return "max_pool2d";
  if (graphOp == "tosa.matmul" &&
      (library || contains(d.name, "matmul") || contains(d.name, "gemm")))
    return contains(d.name, "batch") ? "batch_matmul" : "matmul";
  return "";
}

std::string fusionKindName(const std::string &kind) {
  static const std::map<std::string, std::string> kNames = {
      {"kLoop", "loop"},       {"kRowReduction", "row reduction"},
      {"kColReduction", "column reduction"}, {"kLibrary", "library"},
      {"kInput", "input fusion"}, {"kStitch", "stitch"}};
  if (auto it = kNames.find(kind); it != kNames.end())
    return it->second;
  if (kind.size() > 1 && kind[0] == 'k') {
    std::string word = kind.substr(1);
    word[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(word[0])));
    return word;
  }
  return "";
}

std::string dispatchKind(const compiler::DispatchSummary &d) {
  if (std::string name = fusionKindName(d.kind); !name.empty())
    return name;
  if (d.op == "ral.dispatch")
    return "library";
  if (contains(d.name, "reduce") || contains(d.name, "pooling") || d.op == "linalg.reduce")
    return "reduction";
  if (d.op == "memref.copy")
    return "copy";
  return "loop";
}

int GraphModel::dispatchIndex(int64_t id) const {
  if (id >= 0 && size_t(id) < dispatches.size() && dispatches[id].summary.id == id)
    return static_cast<int>(id); // ids are dense in program order
  for (size_t i = 0; i < dispatches.size(); ++i)
    if (dispatches[i].summary.id == id)
      return static_cast<int>(i);
  return -1;
}

int GraphModel::clusterIndex(int64_t id) const {
  if (id >= 0 && size_t(id) < clusters.size() && clusters[id].summary.id == id)
    return static_cast<int>(id);
  for (size_t i = 0; i < clusters.size(); ++i)
    if (clusters[i].summary.id == id)
      return static_cast<int>(i);
  return -1;
}

int GraphModel::nodeNamed(const std::string &name) const {
  int first = -1;
  for (auto [it, end] = nodesByName.equal_range(name); it != end; ++it) {
    const NodeEntry &n = nodes[it->second];
    if (n.dispatch >= 0 && !dispatches[n.dispatch].opKind.empty())
      return it->second;
    if (first < 0 || it->second < first)
      first = it->second;
  }
  return first;
}

std::shared_ptr<const GraphModel> buildGraphModel(const compiler::CompileResult &result,
                                                  const std::string &target) {
  auto model = std::make_shared<GraphModel>();
  model->device = deviceOfTarget(target);
  std::map<int, int> indexOfId;
  for (const compiler::GraphNode &n : result.graph.nodes) {
    indexOfId[n.id] = static_cast<int>(model->nodes.size());
    model->nodesByName.emplace(n.name, static_cast<int>(model->nodes.size()));
    model->nodes.push_back({n, {}, -1, {}, -1, ""});
  }
  for (auto [from, to] : result.graph.edges) {
    auto a = indexOfId.find(from), b = indexOfId.find(to);
    if (a != indexOfId.end() && b != indexOfId.end())
      model->edges.push_back({a->second, b->second});
  }
  for (const compiler::DispatchSummary &s : result.dispatches) {
    DispatchEntry d;
    d.summary = s;
    d.kind = dispatchKind(s);
    std::set<int> nodes;
    for (const std::string &name : splitLoc(s.loc))
      for (auto [it, end] = model->nodesByName.equal_range(name); it != end; ++it) {
        nodes.insert(it->second);
        std::string kind = libraryOpKind(model->nodes[it->second].node.op, s);
        if (d.opKind.empty() && !kind.empty()) {
          d.opKind = kind;
          d.overrideLoc = name;
        }
      }
    d.nodes.assign(nodes.begin(), nodes.end());
    if (!d.opKind.empty()) {
      d.alternatives = alternativesFor(d.opKind, model->device);
      for (const Alternative &a : d.alternatives)
        if (a.backend == s.backend)
          d.plevel = a.plevel;
    }
    int index = static_cast<int>(model->dispatches.size());
    for (int n : d.nodes)
      model->nodes[n].dispatches.push_back(index);
    model->dispatches.push_back(std::move(d));
  }
  for (NodeEntry &n : model->nodes) {
    int best = -1, bestScore = -1;
    for (int d : n.dispatches) {
      int score = affinity(n.node, model->dispatches[d]);
      if (score > bestScore)
        best = d, bestScore = score;
    }
    n.dispatch = best;
    if (best >= 0)
      n.backend = model->dispatches[best].summary.backend;
  }
  addClusters(*model, result);
  return model;
}

} // namespace loupe::visualizer::graph
