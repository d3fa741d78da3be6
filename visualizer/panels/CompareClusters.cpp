//===- CompareClusters.cpp - The Compare panel's cluster-by-cluster table -----===//
#include "loupe/visualizer/Format.h"
#include "loupe/visualizer/Style.h"
#include "loupe/visualizer/clusters/ClusterMatch.h"
#include "loupe/visualizer/panels/ComparePanel.h"

#include <cmath>

namespace loupe::visualizer {

namespace {
std::string ids(const std::vector<int64_t> &clusterIds) {
  std::vector<std::string> names;
  for (int64_t id : clusterIds)
    names.push_back(std::to_string(id));
  return names.empty() ? "-" : clusters::joinNames(names);
}

/// "3", "3 -> 5", "3 -> 5,6,7": the clusters of each side.
std::string clusterText(const clusters::ClusterComparisonRow &r) {
  if (r.outsideClusters)
    return "none";
  std::string a = ids(r.baselineClusters), b = ids(r.candidateClusters);
  return a == b ? a : a + " -> " + b;
}

/// How the two sides' clusters relate, in a few words.
const char *matchText(const clusters::ClusterComparisonRow &r) {
  if (r.outsideClusters)
    return "not clustered";
  if (r.baselineClusters.empty())
    return "candidate only";
  if (r.candidateClusters.empty())
    return "baseline only";
  if (r.sameKernels)
    return "same";
  return r.corresponds ? "other kernels" : "clustered otherwise";
}
} // namespace

void ComparePanel::drawClusters(const clusters::ClusterComparison &c) {
  if (!c.recorded) {
    ImGui::TextDisabled("A run stored no clusters (runs before Loupe recorded them): compare "
                        "newer runs to see clusters.");
    return;
  }
  size_t otherwise = c.rows.size() - static_cast<size_t>(c.corresponding);
  ImGui::TextDisabled("%d clusters correspond; %zu group%s do not (clustered otherwise, e.g. "
                      "fusion on vs off, or kernels in no cluster)",
                      c.corresponding, otherwise, otherwise == 1 ? "" : "s");
  ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY |
                          ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_Resizable |
                          ImGuiTableFlags_SizingFixedFit;
  float height = std::max(100.0f, ImGui::GetContentRegionAvail().y * 0.5f);
  if (!ImGui::BeginTable("compare_clusters", 9, flags, ImVec2(0, height)))
    return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("cluster");
  ImGui::TableSetupColumn("match");
  ImGui::TableSetupColumn("backend");
  ImGui::TableSetupColumn("kernels");
  ImGui::TableSetupColumn("baseline");
  ImGui::TableSetupColumn("candidate");
  ImGui::TableSetupColumn("ratio");
  ImGui::TableSetupColumn("verdict");
  ImGui::TableSetupColumn("source ops", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(c.rows.size()));
  while (clipper.Step())
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const clusters::ClusterComparisonRow &r = c.rows[i];
      ImGui::PushID(i);
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      showText(clusterText(r));
      ImGui::TableNextColumn();
      const char *match = matchText(r);
      if (r.corresponds)
        ImGui::TextDisabled("%s", match);
      else
        textColored(IM_COL32(225, 190, 120, 255), match);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", r.corresponds
                                    ? "One cluster on each side with the same source ops"
                                    : "The two programs clustered these source ops otherwise: "
                                      "compared as the sums of all their kernels");
      ImGui::TableNextColumn();
      backendPair(r.baselineBackend, r.candidateBackend);
      ImGui::TableNextColumn();
      ImGui::Text(r.baselineKernels == r.candidateKernels ? "%zu" : "%zu -> %zu",
                  r.baselineKernels, r.candidateKernels);
      timingCells(r.comparison, r.baselineKernels > 0, r.candidateKernels > 0, r.ratio);
      ImGui::TableNextColumn();
      showText(r.sources);
      ImGui::PopID();
    }
  ImGui::EndTable();
}

} // namespace loupe::visualizer
