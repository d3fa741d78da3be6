//===- GraphPanel.cpp - The op graph coloured by cluster and backend ----------===//
#include "loupe/common/Fnv1a.h"
#include "loupe/visualizer/panels/GraphPanel.h"

#include "loupe/Backends/BackendRegistry.h"
#include "loupe/visualizer/Format.h"
#include "loupe/visualizer/Style.h"

#include <algorithm>
#include <map>

namespace loupe::visualizer {

namespace {
constexpr size_t kCacheEntries = 4;
constexpr float kDetailsWidth = 380;

} // namespace

graph::LayoutInput GraphPanel::layoutInput(const graph::GraphModel &model, bool scopes) {
  // Two label lines: the op, then its backend (or the input's name). The width allows the
  // longest registered backend name, so a recompile that changes backends keeps the layout.
  float widest = ImGui::CalcTextSize("codegen").x;
  for (const auto &b : backends::BackendRegistry::global().backends())
    widest = std::max(widest, ImGui::CalcTextSize(b->name().c_str()).x);
  float pad = 6, line = ImGui::GetFontSize();
  graph::LayoutInput input;
  input.sizes.reserve(model.nodes.size());
  for (const graph::NodeEntry &n : model.nodes) {
    std::string op = n.node.op == "input" ? n.node.name : graph::shortOp(n.node.op);
    float w = std::max(widest, ImGui::CalcTextSize(op.c_str()).x) + 2 * pad + 4;
    input.sizes.push_back({std::min(w, 260.0f), 2 * line + 1.2f * pad});
  }
  input.edges = model.edges;
  if (scopes)
    groupByScope(model, input);
  return input;
}

/// The name scope of op `name` at `depth`: "/layer1/layer1.0/conv1/Conv" at depth 2 is
/// "layer1/layer1.0"; "" when the name has no scope that deep (or is not a scoped name).
static std::string scopeOf(const std::string &name, size_t depth) {
  if (name.empty() || name[0] != '/')
    return "";
  size_t at = 0;
  for (size_t d = 0; d < depth; ++d) {
    at = name.find('/', at + 1);
    if (at == std::string::npos)
      return ""; // the last part is the op itself, not a scope
  }
  return name.substr(1, at - 1);
}

void GraphPanel::groupByScope(const graph::GraphModel &model, graph::LayoutInput &input) {
  // The shallowest depth that splits the model into at least 4 scopes (ResNet's blocks at
  // depth 2, "layer1/layer1.0"; an encoder's layers at depth 2, "encoder/layers.0").
  for (size_t depth = 1; depth <= 4; ++depth) {
    std::map<std::string, int> index;
    std::vector<int> groups(model.nodes.size(), -1);
    for (size_t i = 0; i < model.nodes.size(); ++i)
      if (std::string scope = scopeOf(model.nodes[i].node.name, depth); !scope.empty())
        groups[i] = index.try_emplace(scope, static_cast<int>(index.size())).first->second;
    if (index.size() < 4)
      continue;
    input.groups = std::move(groups);
    input.groupNames.resize(index.size());
    for (const auto &[scope, i] : index)
      input.groupNames[i] = scope;
    return;
  }
}

uint64_t GraphPanel::keyOf(const graph::LayoutInput &input) {
  uint64_t h = fnv1a(input.sizes.data(), input.sizes.size() * sizeof(input.sizes[0]));
  h = fnv1a(input.groups.data(), input.groups.size() * sizeof(input.groups[0]), h);
  return fnv1a(input.edges.data(), input.edges.size() * sizeof(input.edges[0]), h);
}

std::shared_ptr<const graph::GraphLayout>
GraphPanel::request(const std::shared_ptr<const graph::GraphModel> &model) {
  graph::LayoutInput input;
  if (keyedModel_ != model || keyedScopes_ != groupScopes_) {
    input = layoutInput(*model, groupScopes_);
    keyedModel_ = model;
    keyedScopes_ = groupScopes_;
    modelKey_ = keyOf(input);
  }
  for (auto it = cache_.begin(); it != cache_.end(); ++it)
    if (it->key == modelKey_) {
      cache_.splice(cache_.begin(), cache_, it);
      return cache_.front().layout;
    }
  if (input.sizes.empty() && !model->nodes.empty())
    input = layoutInput(*model, groupScopes_); // evicted: lay out again
  uint64_t key = modelKey_;
  cache_.push_front({key, nullptr});
  ++computed_;
  worker_.post("layout", [this, key, input = std::move(input)](JobContext &ctx) {
    ctx.progress("layout", 0);
    auto layout = std::make_shared<const graph::GraphLayout>(graph::layoutGraph(input));
    ctx.deliver([this, key, layout] {
      for (Entry &e : cache_)
        if (e.key == key && !e.layout)
          e.layout = layout;
    });
  });
  while (cache_.size() > kCacheEntries && cache_.back().layout)
    cache_.pop_back();
  return nullptr;
}

const std::shared_ptr<const graph::GraphModel> &GraphPanel::shown(const ViewModel &vm) {
  const std::shared_ptr<const graph::GraphModel> &model = vm.compile->graph;
  if (!collapse_)
    return model;
  if (collapsedFrom_ != model) {
    collapsed_ = graph::collapseClusters(*model);
    collapsedFrom_ = model;
  }
  return collapsed_;
}

bool GraphPanel::find(ViewModel &vm, const std::string &text) {
  if (!vm.compile || text.empty())
    return false;
  const graph::GraphModel &model = *shown(vm);
  // Best first: the op of that name a library backend could run (a conv rather than the
  // transposes around it), any op of that name, then a name or op containing the text.
  int best = -1, bestScore = 0;
  for (size_t i = 0; i < model.nodes.size() && bestScore < 3; ++i) {
    const graph::NodeEntry &n = model.nodes[i];
    bool exact = n.node.name.size() == text.size() && containsIgnoreCase(n.node.name, text);
    int score = exact ? (n.dispatch >= 0 && !model.dispatches[n.dispatch].opKind.empty() ? 3 : 2)
                : containsIgnoreCase(n.node.name, text) || containsIgnoreCase(n.node.op, text) ? 1
                                                                                            : 0;
    if (score > bestScore)
      best = static_cast<int>(i), bestScore = score;
  }
  if (best < 0)
    return false;
  vm.nav.selectOp(model, best);
  vm.nav.graphFocus = true;
  return true;
}

void GraphPanel::draw(ViewModel &vm, Actions &) {
  if (!vm.compile) {
    ImGui::TextDisabled(vm.compiling ? "compiling..." : "Open a model to see its op graph.");
    return;
  }
  const std::shared_ptr<const graph::GraphModel> &model = shown(vm);
  if (model->nodes.empty()) {
    ImGui::TextDisabled("No op graph: the compile did not reach its graph phase.");
    return;
  }
  std::shared_ptr<const graph::GraphLayout> layout = request(model);

  // Toolbar.
  if (ImGui::Button("Fit"))
    view_.fit();
  ImGui::SameLine();
  if (ImGui::Button("-"))
    view_.setZoom(view_.zoom() / 1.25f);
  ImGui::SameLine();
  if (ImGui::Button("+"))
    view_.setZoom(view_.zoom() * 1.25f);
  ImGui::SameLine();
  ImGui::Text("%.0f%%", 100 * view_.zoom());
  ImGui::SameLine();
  if (ImGui::Checkbox("collapse", &collapse_))
    vm.nav.selectedNode = -1; // op indices differ between the two graphs; clusters stay selected
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("One box per cluster (the kernels), labelled with what it runs");
  ImGui::SameLine();
  ImGui::Checkbox("scopes", &groupScopes_);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Frame the ops of each name scope (/layer1/layer1.0/...), the model's "
                      "blocks, and keep them together in the layout");
  ImGui::SameLine();
  int mode = view_.colorBy == graph::ColorBy::Cluster ? 0 : 1;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9);
  if (ImGui::Combo("##colour", &mode, "colour: cluster\0colour: backend\0"))
    view_.colorBy = mode == 0 ? graph::ColorBy::Cluster : graph::ColorBy::Backend;
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 12);
  if (inputTextWithHint("##find", "find op (name or op)", findText_,
                        ImGuiInputTextFlags_EnterReturnsTrue) &&
      !find(vm, findText_))
    vm.log.add(LogLevel::Warning, "graph", "no op matches '" + findText_ + "'");
  ImGui::SameLine();
  ImGui::TextDisabled(collapse_ ? "%zu boxes, %zu edges, %zu clusters, %zu dispatches"
                                : "%zu ops, %zu edges, %zu clusters, %zu dispatches",
                      model->nodes.size(),
                      model->edges.size(), model->clusters.size(), model->dispatches.size());
  if (layout && layout->ok()) {
    ImGui::SameLine();
    ImGui::TextDisabled("| dot %s%s", formatNs(static_cast<double>(layout->layoutNs)).c_str(),
                        layout->bands > 1 ? (", " + std::to_string(layout->bands) + " bands").c_str()
                                          : "");
  }
  if (model->dispatches.empty())
    ImGui::TextDisabled("No dispatches yet: they appear once the compile reaches the ral phase.");

  if (!layout) {
    ImGui::TextDisabled("laying out %zu ops with Graphviz dot...", model->nodes.size());
    return;
  }
  if (!layout->ok()) {
    textColored(IM_COL32(235, 90, 80, 255), layout->error);
    return;
  }
  if (shownLayout_ != layout.get()) { // another structure (a recompile that only changed
    view_.fitTop();                    // backends keeps its cached layout and the view)
    shownLayout_ = layout.get();
  }
  ImVec2 avail = ImGui::GetContentRegionAvail();
  float details = std::min(kDetailsWidth, avail.x * 0.4f);
  view_.draw(*model, *layout, vm.nav, ImVec2(avail.x - details - 6, avail.y));
  ImGui::SameLine();
  ImGui::BeginChild("graph_details", ImVec2(0, avail.y), true);
  details_.draw(vm, *model);
  ImGui::EndChild();
}

} // namespace loupe::visualizer
