//===- ProfileClusters.cpp - The Profile panel's clusters, fallbacks and links -===//
#include "loupe/visualizer/Format.h"
#include "loupe/visualizer/panels/ProfilePanel.h"

#include <algorithm>
#include <numeric>

namespace loupe::visualizer {

const std::vector<int> &ProfilePanel::clusterOrder(const ViewModel &vm) {
  const clusters::RunClusters *run = clusters_.get(vm);
  if (!run) {
    clusterOrder_.clear();
    clusterOrderFor_ = 0;
    return clusterOrder_;
  }
  if (clusterOrderFor_ == clusters_.generation())
    return clusterOrder_;
  clusterOrderFor_ = clusters_.generation();
  clusterOrder_.resize(run->clusters.size());
  std::iota(clusterOrder_.begin(), clusterOrder_.end(), 0);
  std::stable_sort(clusterOrder_.begin(), clusterOrder_.end(), [&](int a, int b) {
    return run->clusters[a].medianSumNs > run->clusters[b].medianSumNs;
  });
  return clusterOrder_;
}

void ProfilePanel::clusterLink(ViewModel &vm, const clusters::RunClusters &run, int cluster,
                               const std::string &key) {
  const clusters::ClusterTiming &t = run.clusters[cluster];
  if (t.id < 0) {
    ImGui::TextDisabled("none");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("In no cluster: copies bufferization added");
    return;
  }
  std::string label = std::to_string(t.id);
  if (t.compileCluster < 0 || !vm.compile) {
    ImGui::TextDisabled("%s", label.c_str());
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("No cluster of the compile shown has these source ops (%s): recompile "
                        "with this run's settings to see it in the graph",
                        t.sources.c_str());
    return;
  }
  const graph::GraphModel &model = *vm.compile->graph;
  const compiler::ClusterSummary &s = model.clusters[t.compileCluster].summary;
  if (linkButton(label + "##cluster")) {
    vm.nav.selectCluster(model, s.id);
    vm.nav.showInGraph();
  }
  rects_[key] = lastItemRect();
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("cluster %lld of the compile shown%s: %s on %s\n%s\nclick: explain it in "
                      "the graph",
                      static_cast<long long>(s.id),
                      s.id == t.id ? "" : (" (" + label + " in this run)").c_str(), s.kind.c_str(),
                      s.backend.c_str(), s.reason.c_str());
}

void ProfilePanel::locLink(ViewModel &vm, const DispatchRow &row) {
  if (!vm.compile || row.loc.empty()) {
    showText(row.loc);
    return;
  }
  if (linkButton(row.loc))
    ImGui::OpenPopup("source_ops");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s: the kernel's source ops (loc); click to show one in the graph or the IR",
                      row.loc.c_str());
  if (!ImGui::BeginPopup("source_ops"))
    return;
  const graph::GraphModel &model = *vm.compile->graph;
  for (const std::string &name : graph::splitLoc(row.loc)) {
    int node = model.nodeNamed(name);
    ImGui::PushID(name.c_str());
    if (ImGui::MenuItem((name + ": show in the graph").c_str(), nullptr, false, node >= 0)) {
      vm.nav.selectOp(model, node);
      vm.nav.showInGraph();
    }
    if (ImGui::MenuItem((name + ": show in the IR").c_str()))
      vm.showIrLocation(std::max(vm.nav.selectedPass, 0), name);
    ImGui::PopID();
  }
  ImGui::EndPopup();
}

void ProfilePanel::drawClusters(ViewModel &vm, float height) {
  const clusters::RunClusters *run = clusters_.get(vm);
  if (!run || run->unknown) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("This run stored no cluster ids (it predates them): they come from the "
                        "compile shown once it is the run's program (recompile with its settings).");
    ImGui::PopTextWrapPos();
    return;
  }
  ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY |
                          ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_Resizable |
                          ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("clusters", 7, flags, ImVec2(0, height)))
    return;
  ImGui::TableSetupScrollFreeze(0, 1);
  // Widths for the longest values: the table may first draw before the compile describes them.
  ImGui::TableSetupColumn("cluster");
  ImGui::TableSetupColumn("kind", 0, ImGui::CalcTextSize("kRowReduction").x);
  ImGui::TableSetupColumn("backend", 0, ImGui::CalcTextSize("onednn+codegen").x);
  ImGui::TableSetupColumn("kernels");
  ImGui::TableSetupColumn("sum of medians", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("share");
  ImGui::TableSetupColumn("source ops");
  ImGui::TableHeadersRow();
  const std::vector<int> &order = clusterOrder(vm);
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(order.size()));
  while (clipper.Step())
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const clusters::ClusterTiming &t = run->clusters[order[i]];
      ImGui::PushID(order[i]);
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      clusterLink(vm, *run, order[i], "cluster:" + std::to_string(t.id));
      ImGui::TableNextColumn();
      if (t.kind.empty())
        ImGui::TextDisabled("-");
      else
        showText(t.kind);
      if (t.kind.empty() && t.id >= 0 && ImGui::IsItemHovered())
        ImGui::SetTooltip("The compile shown has no cluster with these kernels");
      ImGui::TableNextColumn();
      textColored(backendColor(t.backend), t.backend);
      ImGui::TableNextColumn();
      ImGui::Text("%zu", t.rows.size());
      ImGui::TableNextColumn();
      ImVec2 cell = ImGui::GetCursorScreenPos();
      float w = ImGui::GetContentRegionAvail().x;
      ImGui::GetWindowDrawList()->AddRectFilled(
          cell, ImVec2(cell.x + w * static_cast<float>(t.share), cell.y + ImGui::GetTextLineHeight()),
          t.id < 0 ? IM_COL32(110, 110, 110, 80)
                   : (paletteColor(static_cast<int>(t.id)) & 0x00FFFFFF) | 0x50000000);
      showText(formatNs(t.medianSumNs));
      ImGui::TableNextColumn();
      showText(formatPercent(t.share));
      ImGui::TableNextColumn();
      showText(t.sources);
      ImGui::PopID();
    }
  ImGui::EndTable();
}

void ProfilePanel::drawFallbacks(const ViewModel &vm) {
  const ProfileView &p = *vm.profile;
  float line = ImGui::GetTextLineHeightWithSpacing();
  float height = line * (std::min<float>(static_cast<float>(p.fallbacks.size()), 4) + 1.5f);
  ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY |
                          ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_Resizable |
                          ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("fallbacks", 5, flags, ImVec2(0, height)))
    return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("dispatch");
  ImGui::TableSetupColumn("failed kernel");
  ImGui::TableSetupColumn("ran instead");
  ImGui::TableSetupColumn("executions");
  ImGui::TableSetupColumn("message", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();
  for (const profiler::FallbackRecord &f : p.fallbacks) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    auto row = std::find_if(p.rows.begin(), p.rows.end(),
                            [&](const DispatchRow &r) { return r.id == f.dispatchId; });
    showText(std::to_string(f.dispatchId) +
             (row == p.rows.end() ? "" : " " + graph::kernelKind(row->name)));
    ImGui::TableNextColumn();
    textColored(IM_COL32(235, 90, 80, 255), f.failedKernel);
    ImGui::TableNextColumn();
    showText(f.fallbackKernel);
    ImGui::TableNextColumn();
    ImGui::Text("%lld", static_cast<long long>(f.executions));
    ImGui::TableNextColumn();
    showText(f.message);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s", f.message.c_str());
  }
  ImGui::EndTable();
}

} // namespace loupe::visualizer
