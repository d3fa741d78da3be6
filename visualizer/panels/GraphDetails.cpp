//===- GraphDetails.cpp - The graph panel's pane: op, cluster explainer, kernel ===//
#include "loupe/visualizer/panels/GraphDetails.h"

#include "loupe/visualizer/Format.h"
#include "loupe/visualizer/clusters/ClusterMatch.h"
#include "loupe/visualizer/graph/GraphView.h"

namespace loupe::visualizer {

namespace {
constexpr ImU32 kGrey = IM_COL32(130, 130, 130, 255);

/// Starts a two-column name/value table whose values wrap at the pane's edge.
bool beginFacts(const char *id) {
  if (!ImGui::BeginTable(id, 2, ImGuiTableFlags_SizingFixedFit))
    return false;
  ImGui::TableSetupColumn("k", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("kernel op").x);
  ImGui::TableSetupColumn("v", ImGuiTableColumnFlags_WidthStretch);
  ImGui::PushTextWrapPos(0);
  return true;
}

void endFacts() {
  ImGui::PopTextWrapPos();
  ImGui::EndTable();
}

void fact(const char *name, const std::string &value, ImU32 color = 0) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextDisabled("%s", name);
  ImGui::TableNextColumn();
  if (color)
    textColored(color, value);
  else
    showText(value);
}

std::string clusterLabel(const compiler::ClusterSummary &s) {
  return "cluster " + std::to_string(s.id) + "  " + s.kind + " on " + s.backend;
}

std::string plural(size_t n, const char *word, const char *suffix = "s") {
  return std::to_string(n) + " " + word + (n == 1 ? "" : suffix);
}
} // namespace

ScreenRect GraphDetails::linkRect(const std::string &key) const {
  auto it = rects_.find(key);
  return it == rects_.end() ? ScreenRect{} : it->second;
}

void GraphDetails::draw(ViewModel &vm, const graph::GraphModel &model) {
  rects_.clear();
  shownMedians_.clear();
  const Navigation &nav = vm.nav;
  bool shown = false;
  if (nav.selectedNode >= 0 && size_t(nav.selectedNode) < model.nodes.size()) {
    drawOp(vm, model);
    shown = true;
  }
  if (int c = model.clusterIndex(nav.selectedCluster); c >= 0) {
    drawCluster(vm, model, c);
    shown = true;
  }
  if (int d = model.dispatchIndex(nav.selectedDispatch); d >= 0) {
    drawKernel(vm, model, d);
    shown = true;
  }
  if (!shown)
    ImGui::TextDisabled("Click an op or a cluster's outline.");
}

void GraphDetails::drawOp(ViewModel &vm, const graph::GraphModel &model) {
  Navigation &nav = vm.nav;
  const graph::NodeEntry &n = model.nodes[nav.selectedNode];
  ImGui::TextUnformatted("op");
  if (beginFacts("op_facts")) {
    fact("name", n.node.name);
    fact("op", n.node.op);
    fact("type", n.node.type);
    endFacts();
  }
  ImGui::TextDisabled("in %s (* drawn in)", plural(n.clusters.size(), "cluster").c_str());
  for (int c : n.clusters) {
    const compiler::ClusterSummary &s = model.clusters[c].summary;
    ImGui::PushID(c);
    if (ImGui::Selectable(((c == n.cluster ? "* " : "  ") + clusterLabel(s)).c_str(),
                          s.id == nav.selectedCluster))
      nav.selectedCluster = s.id;
    ImGui::PopID();
  }
  ImGui::TextDisabled("in %s", plural(n.dispatches.size(), "dispatch", "es").c_str());
  for (int d : n.dispatches) {
    const compiler::DispatchSummary &s = model.dispatches[d].summary;
    ImGui::PushID(d);
    if (ImGui::Selectable(((d == n.dispatch ? "* " : "  ") + s.name + " (" + s.backend + ")").c_str(),
                          s.id == nav.selectedDispatch))
      nav.selectedDispatch = s.id;
    ImGui::PopID();
  }
  ImGui::Separator();
}

void GraphDetails::drawCluster(ViewModel &vm, const graph::GraphModel &model, int cluster) {
  const graph::ClusterEntry &c = model.clusters[cluster];
  const compiler::ClusterSummary &s = c.summary;
  ImVec2 p = ImGui::GetCursorScreenPos();
  float h = ImGui::GetTextLineHeight();
  ImGui::GetWindowDrawList()->AddRectFilled(p, ImVec2(p.x + h, p.y + h),
                                            graph::GraphView::clusterColor(model, cluster), 2);
  ImGui::Dummy(ImVec2(h, h));
  ImGui::SameLine();
  ImGui::Text("cluster %lld", static_cast<long long>(s.id));
  if (beginFacts("cluster_facts")) {
    fact("kind", c.kind.empty() ? s.kind : c.kind + " (" + s.kind + ")");
    fact("backend", s.backend, backendColor(s.backend));
    fact("pattern", s.pattern);
    fact("plevel", std::to_string(s.plevel));
    fact("reason", s.reason);
    fact("loc", s.loc);
    endFacts();
  }
  ImGui::TextDisabled("%s", plural(s.ops.size(), "op").c_str());
  for (size_t i = 0; i < s.ops.size(); ++i) {
    auto [op, loc] = graph::splitClusterOp(s.ops[i]);
    std::vector<std::string> names = graph::splitLoc(loc);
    int node = names.empty() ? -1 : model.nodeNamed(names.front());
    ImGui::PushID(static_cast<int>(i));
    if (ImGui::Selectable((op + "  " + loc).c_str()) && node >= 0) {
      vm.nav.selectedNode = node; // the cluster stays the one explained
      vm.nav.graphFocus = true;
    }
    rects_["op:" + std::to_string(i)] = lastItemRect();
    ImGui::PopID();
  }
  drawClusterKernels(vm, model, c);
  drawRefusedMerges(vm, model, c);
  ImGui::Separator();
}

void GraphDetails::drawClusterKernels(ViewModel &vm, const graph::GraphModel &model,
                                      const graph::ClusterEntry &c) {
  const clusters::RunClusters *run = run_.get(vm);
  std::string from = run ? ", medians of run #" + std::to_string(vm.profile->run.id) : "";
  ImGui::TextDisabled("%s%s", plural(c.dispatches.size(), "kernel").c_str(), from.c_str());
  if (c.dispatches.empty()) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("Its ops were folded, or lowered to copies that belong to no cluster.");
    ImGui::PopTextWrapPos();
    return;
  }
  if (!ImGui::BeginTable("cluster_kernels", 4, ImGuiTableFlags_SizingFixedFit))
    return;
  ImGui::TableSetupColumn("id");
  ImGui::TableSetupColumn("kernel", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("backend");
  ImGui::TableSetupColumn("median");
  double sum = 0;
  bool complete = run != nullptr;
  for (int d : c.dispatches) {
    const compiler::DispatchSummary &s = model.dispatches[d].summary;
    ImGui::PushID(d);
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    if (linkButton("#" + std::to_string(s.id)))
      vm.nav.selectedDispatch = s.id;
    rects_["kernel:" + std::to_string(s.id)] = lastItemRect();
    ImGui::TableNextColumn();
    showText(graph::kernelKind(s.name));
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s\n%s  loc %s", s.name.c_str(), s.op.c_str(), s.loc.c_str());
    ImGui::TableNextColumn();
    textColored(backendColor(s.backend), s.backend);
    ImGui::TableNextColumn();
    if (run) {
      auto it = run->medianOfDispatch.find(s.id);
      std::string text = it == run->medianOfDispatch.end() ? "-" : formatNs(it->second);
      complete &= it != run->medianOfDispatch.end();
      sum += it == run->medianOfDispatch.end() ? 0 : it->second;
      showText(text);
      if (text == "-" && ImGui::IsItemHovered())
        ImGui::SetTooltip("The run shown clustered these ops otherwise (another schedule).");
      shownMedians_[s.id] = text;
    }
    ImGui::PopID();
  }
  if (complete && c.dispatches.size() > 1) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TableNextColumn();
    ImGui::TextDisabled("sum");
    ImGui::TableNextColumn();
    ImGui::TableNextColumn();
    showText(formatNs(sum));
  }
  ImGui::EndTable();
}

void GraphDetails::drawRefusedMerges(ViewModel &vm, const graph::GraphModel &model,
                                     const graph::ClusterEntry &c) {
  ImGui::TextDisabled("%s", plural(c.refusedMerges.size(), "refused merge").c_str());
  for (int index : c.refusedMerges) {
    const compiler::RefusedMerge &r = model.refusedMerges[index];
    bool producer = r.producerCluster == c.summary.id;
    int64_t other = producer ? r.consumerCluster : r.producerCluster;
    ImGui::PushID(index);
    ImGui::TextDisabled(producer ? "into" : "from");
    ImGui::SameLine();
    std::string label = "cluster " + std::to_string(other);
    if (model.clusterIndex(other) < 0) {
      showText(label);
    } else {
      if (linkButton(label)) {
        vm.nav.selectCluster(model, other);
        vm.nav.graphFocus = true;
      }
      rects_["cluster:" + std::to_string(other)] = lastItemRect();
    }
    ImGui::SameLine();
    // The other side's op; the whole merge in the tooltip.
    ImGui::TextDisabled("%s %s", (producer ? r.consumer : r.producer).c_str(),
                        (producer ? r.consumerOp : r.producerOp).c_str());
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s %s (cluster %lld) -> %s %s (cluster %lld)", r.producer.c_str(),
                        r.producerOp.c_str(), static_cast<long long>(r.producerCluster),
                        r.consumer.c_str(), r.consumerOp.c_str(),
                        static_cast<long long>(r.consumerCluster));
    ImGui::Indent();
    ImGui::PushTextWrapPos(0);
    textColored(IM_COL32(225, 190, 120, 255), r.rule);
    ImGui::PopTextWrapPos();
    ImGui::Unindent();
    ImGui::PopID();
  }
}

void GraphDetails::drawKernel(ViewModel &vm, const graph::GraphModel &model, int dispatch) {
  const graph::DispatchEntry &e = model.dispatches[dispatch];
  const compiler::DispatchSummary &s = e.summary;
  ImGui::TextUnformatted("kernel");
  if (beginFacts("kernel_facts")) {
    fact("dispatch", "#" + std::to_string(s.id) + " " + s.name);
    fact("kind", s.kind.empty() ? e.kind : e.kind + " (" + s.kind + ")");
    fact("kernel op", s.op);
    fact("backend", s.backend, backendColor(s.backend));
    fact("plevel", std::to_string(e.plevel));
    fact("reason", s.reason.empty() ? "codegen runs every op; no library backend runs " + e.kind +
                                          " kernels"
                                    : s.reason);
    fact("loc", s.loc);
    fact("fallbacks", s.fallbacks.empty() ? "none" : clusters::joinNames(s.fallbacks, ", "));
    endFacts();
  }
  if (!e.alternatives.empty()) {
    ImGui::TextDisabled("alternatives for %s", e.opKind.c_str());
    for (const graph::Alternative &a : e.alternatives) {
      std::string line = (a.backend == s.backend ? "> " : "  ") + a.backend + " " +
                         std::to_string(a.plevel) + (a.available ? "" : "  (unavailable: " + a.why + ")");
      textColored(a.available ? backendColor(a.backend) : kGrey, line);
    }
  }
  if (ImGui::Button("Show in the dispatch table"))
    vm.nav.tabRequest = Tab::Dispatches;
}

} // namespace loupe::visualizer
