//===- DispatchPanel.cpp - Every dispatch, its backend and overrides ----------===//
#include "loupe/visualizer/panels/DispatchPanel.h"

#include "loupe/visualizer/Format.h"
#include "loupe/visualizer/Style.h"
#include "loupe/visualizer/clusters/ClusterMatch.h"
#include "loupe/visualizer/panels/BackendSettings.h"
#include "loupe/sessions/Tune.h"

#include <algorithm>

namespace loupe::visualizer {

namespace {
enum Column { ColId, ColName, ColLoc, ColKind, ColCluster, ColBackend, ColSchedule, ColPlevel,
              ColOverride, ColWhy, ColAlternatives, ColTuned, ColOp, ColCount };

/// The reason in a word or two for the table (the whole reason is in the tooltip and under
/// the table): the rule of BackendRegistry::select that decided.
std::string shortReason(const std::string &reason) {
  if (reason.empty())
    return "codegen only";
  if (reason.find("override for") != std::string::npos)
    return "override";
  if (reason.find("first of --backends") != std::string::npos)
    return "backend order";
  if (reason.find("highest plevel") != std::string::npos)
    return "highest plevel";
  if (reason.find("tuned: ") != std::string::npos)
    return "tuned";
  return reason.substr(0, 24);
}
} // namespace

ScreenRect DispatchPanel::overrideRect(int64_t id) const {
  auto it = overrideRects_.find(id);
  return it == overrideRects_.end() ? ScreenRect{} : it->second;
}

std::string DispatchPanel::tunedBackend(int64_t id) const {
  auto it = tunedShown_.find(id);
  return it == tunedShown_.end() ? "" : it->second;
}

ScreenRect DispatchPanel::clusterRect(int64_t id) const {
  auto it = clusterRects_.find(id);
  return it == clusterRects_.end() ? ScreenRect{} : it->second;
}

ScreenRect DispatchPanel::popupItemRect(const std::string &backend) const {
  auto it = popupRects_.find(backend);
  return it == popupRects_.end() ? ScreenRect{} : it->second;
}

void DispatchPanel::syncWithSession(const ViewModel &vm) {
  // The session's overrides changed elsewhere (another session opened, Save, Recompile): the
  // edits start over from them.
  if (!synced_ || basis_ != vm.session.pipeline.backendOverrides) {
    basis_ = edited_ = vm.session.pipeline.backendOverrides;
    synced_ = true;
  }
}

bool DispatchPanel::hasPendingEdits(const ViewModel &vm) const {
  return synced_ && edited_ != vm.session.pipeline.backendOverrides;
}

void DispatchPanel::setOverride(const std::string &loc, const std::string &backend) {
  if (backend.empty())
    edited_.erase(loc);
  else
    edited_[loc] = backend;
}

void DispatchPanel::recompile(ViewModel &vm, Actions &actions) {
  if (vm.session.pipeline.backendOverrides != edited_) {
    vm.session.pipeline.backendOverrides = edited_;
    vm.sessionDirty = true;
  }
  basis_ = edited_;
  actions.compile();
}

void DispatchPanel::save(ViewModel &vm) {
  if (vm.session.pipeline.backendOverrides != edited_) {
    vm.session.pipeline.backendOverrides = edited_;
    vm.sessionDirty = true;
  }
  basis_ = edited_;
  if (save_)
    save_();
}

void DispatchPanel::drawToolbar(ViewModel &vm, Actions &actions) {
  bool pending = hasPendingEdits(vm);
  ImGui::BeginDisabled(!vm.hasModel() || vm.compiling);
  std::string label = pending ? "Recompile (overrides changed)" : "Recompile";
  if (ImGui::Button(label.c_str()))
    recompile(vm, actions);
  recompileRect_ = lastItemRect();
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(!vm.hasModel());
  if (ImGui::Button("Save"))
    save(vm);
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Write the overrides, backend order and fusion into the session file");
  ImGui::SameLine();
  ImGui::BeginDisabled(!pending);
  if (ImGui::Button("Revert"))
    edited_ = vm.session.pipeline.backendOverrides;
  ImGui::EndDisabled();
  ImGui::SameLine();
  const graph::GraphModel &model = *vm.compile->graph;
  std::map<std::string, int> byBackend;
  for (const graph::DispatchEntry &d : model.dispatches)
    ++byBackend[d.summary.backend];
  std::string counts;
  for (const auto &[backend, n] : byBackend)
    counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + backend;
  ImGui::TextDisabled("%zu dispatches in %zu clusters: %s; %zu override%s",
                      model.dispatches.size(), model.clusters.size(), counts.c_str(),
                      edited_.size(), edited_.size() == 1 ? "" : "s");
  if (ImGui::CollapsingHeader("session backends: order and fusion")) {
    ImGui::Indent();
    if (drawBackendSettings(vm.session.pipeline))
      vm.sessionDirty = true;
    ImGui::TextDisabled("Recompile applies them; runs use them as they are.");
    ImGui::Unindent();
  }
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 16);
  inputTextWithHint("##filter", "filter (name, op, loc, backend)", filter_);
}

void DispatchPanel::drawClusterCell(ViewModel &vm, const compiler::DispatchSummary &s) {
  const graph::GraphModel &model = *vm.compile->graph;
  int c = model.clusterIndex(s.cluster);
  if (c < 0) {
    ImGui::TextDisabled("-");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("In no cluster: a copy bufferization added");
    return;
  }
  if (linkButton(std::to_string(s.cluster) + "##cluster")) {
    vm.nav.selectCluster(model, s.cluster);
    vm.nav.selectedDispatch = s.id;
    vm.nav.showInGraph();
  }
  clusterRects_[s.id] = lastItemRect();
  if (ImGui::IsItemHovered()) {
    const graph::ClusterEntry &e = model.clusters[c];
    ImGui::SetTooltip("cluster %lld: %s on %s, %zu kernel%s\n%s\nclick: explain it in the graph",
                      static_cast<long long>(s.cluster), e.summary.kind.c_str(),
                      e.summary.backend.c_str(), e.dispatches.size(),
                      e.dispatches.size() == 1 ? "" : "s", e.summary.reason.c_str());
  }
}

void DispatchPanel::drawTunedCell(const ViewModel &vm, const compiler::DispatchSummary &s) {
  tunedShown_.erase(s.id);
  const profiler::TuningRecord *tuned = nullptr;
  if (vm.runs && !s.signature.empty())
    if (auto it = vm.runs->tuning.find(s.signature); it != vm.runs->tuning.end())
      tuned = &it->second;
  if (!tuned) {
    ImGui::TextDisabled("-");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s", s.signature.empty()
                                  ? "only one backend runs this kernel"
                                  : ("not tuned: `loupe tune` measures every backend of " +
                                     s.signature + " and keeps the fastest")
                                        .c_str());
    return;
  }
  const profiler::TuningRecord &t = *tuned;
  tunedShown_[s.id] = t.backend;
  textColored(backendColor(t.backend), "kept " + t.backend);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("loupe tune, %s:\n%s%s", t.signature.c_str(),
                      sessions::describeTuning(t).c_str(),
                      t.backend == s.backend ? "" : "\n(this compile chose another: --backends auto uses the table)");
}

void DispatchPanel::drawTable(ViewModel &vm) {
  const graph::GraphModel &model = *vm.compile->graph;
  std::vector<int> rows;
  for (size_t i = 0; i < model.dispatches.size(); ++i) {
    const compiler::DispatchSummary &s = model.dispatches[i].summary;
    if (filter_.empty() || containsIgnoreCase(s.name, filter_) ||
        containsIgnoreCase(s.op, filter_) || containsIgnoreCase(s.loc, filter_) ||
        containsIgnoreCase(s.backend, filter_))
      rows.push_back(static_cast<int>(i));
  }
  ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY |
                          ImGuiTableFlags_ScrollX | ImGuiTableFlags_BordersInnerV |
                          ImGuiTableFlags_Resizable | ImGuiTableFlags_SizingFixedFit |
                          ImGuiTableFlags_Hideable;
  float reasonHeight = ImGui::GetTextLineHeightWithSpacing() * 2.5f;
  if (!ImGui::BeginTable("dispatch_table", ColCount, flags,
                         ImVec2(0, ImGui::GetContentRegionAvail().y - reasonHeight)))
    return;
  ImGui::TableSetupScrollFreeze(2, 1);
  ImGui::TableSetupColumn("id");
  ImGui::TableSetupColumn("dispatch");
  ImGui::TableSetupColumn("loc");
  ImGui::TableSetupColumn("kind");
  ImGui::TableSetupColumn("cluster");
  ImGui::TableSetupColumn("backend");
  ImGui::TableSetupColumn("schedule");
  ImGui::TableSetupColumn("plevel");
  ImGui::TableSetupColumn("override");
  ImGui::TableSetupColumn("why");
  ImGui::TableSetupColumn("alternatives");
  ImGui::TableSetupColumn("tuned");
  ImGui::TableSetupColumn("kernel op");
  ImGui::TableHeadersRow();

  overrideRects_.clear();
  clusterRects_.clear();
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(rows.size()));
  while (clipper.Step())
    for (int r = clipper.DisplayStart; r < clipper.DisplayEnd; ++r) {
      const graph::DispatchEntry &d = model.dispatches[rows[r]];
      const compiler::DispatchSummary &s = d.summary;
      ImGui::PushID(rows[r]);
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      if (ImGui::Selectable(std::to_string(s.id).c_str(), s.id == vm.nav.selectedDispatch,
                            ImGuiSelectableFlags_SpanAllColumns |
                                ImGuiSelectableFlags_AllowItemOverlap |
                                ImGuiSelectableFlags_AllowDoubleClick)) {
        vm.nav.selectedDispatch = s.id;
        vm.nav.selectedNode = -1;
        if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
          vm.nav.tabRequest = Tab::Graph;
          vm.nav.graphFocus = true;
        }
      }
      if (ImGui::BeginPopupContextItem()) {
        if (ImGui::MenuItem("Show in the graph")) {
          vm.nav.selectedDispatch = s.id;
          vm.nav.selectedNode = -1;
          vm.nav.tabRequest = Tab::Graph;
          vm.nav.graphFocus = true;
        }
        ImGui::EndPopup();
      }
      ImGui::TableNextColumn();
      showText(s.name);
      ImGui::TableNextColumn();
      showText(s.loc);
      ImGui::TableNextColumn();
      showText(d.kind);
      ImGui::TableNextColumn();
      drawClusterCell(vm, s);
      ImGui::TableNextColumn();
      textColored(backendColor(s.backend), s.backend);
      ImGui::TableNextColumn();
      if (s.schedule.empty())
        ImGui::TextDisabled("-");
      else
        showText(s.schedule);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", s.schedule.empty() ? "not a code-generated kernel"
                                : s.launch.empty() ? s.schedule.c_str()
                                                   : (s.schedule + ": " + s.launch).c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%d", d.plevel);
      ImGui::TableNextColumn();
      if (!d.opKind.empty()) {
        auto edited = edited_.find(d.overrideLoc);
        auto applied = vm.session.pipeline.backendOverrides.find(d.overrideLoc);
        std::string current = edited == edited_.end() ? "" : edited->second;
        std::string was = applied == vm.session.pipeline.backendOverrides.end() ? "" : applied->second;
        std::string preview = (current.empty() ? std::string("default") : current) +
                              (current != was ? " *" : "");
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
        if (current != was)
          ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(250, 200, 80, 255));
        bool open = ImGui::BeginCombo("##override", preview.c_str());
        if (current != was)
          ImGui::PopStyleColor();
        overrideRects_[s.id] = lastItemRect();
        if (ImGui::IsItemHovered() && !open)
          ImGui::SetTooltip("Backend of %s (%s); '*': not compiled yet", d.overrideLoc.c_str(),
                            d.opKind.c_str());
        if (open) {
          popupRects_.clear();
          if (ImGui::Selectable("default", current.empty()))
            setOverride(d.overrideLoc, "");
          popupRects_[""] = lastItemRect();
          for (const graph::Alternative &alt : d.alternatives) {
            ImGui::BeginDisabled(!alt.available);
            std::string item = alt.backend + " (" + std::to_string(alt.plevel) + ")";
            if (ImGui::Selectable(item.c_str(), current == alt.backend))
              setOverride(d.overrideLoc, alt.backend);
            popupRects_[alt.backend] = lastItemRect();
            ImGui::EndDisabled();
            if (!alt.available && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
              ImGui::SetTooltip("unavailable: %s", alt.why.c_str());
          }
          ImGui::EndCombo();
        }
      }
      ImGui::TableNextColumn();
      if (s.reason.empty())
        ImGui::TextDisabled("-");
      else
        showText(shortReason(s.reason));
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", s.reason.empty() ? "no library backend runs this kernel"
                                                 : s.reason.c_str());
      ImGui::TableNextColumn();
      if (d.alternatives.empty())
        ImGui::TextDisabled("codegen only");
      for (size_t a = 0; a < d.alternatives.size(); ++a) {
        const graph::Alternative &alt = d.alternatives[a];
        if (a)
          ImGui::SameLine(0, 8);
        textColored(alt.available ? backendColor(alt.backend) : IM_COL32(110, 110, 110, 255),
                    alt.backend + " " + std::to_string(alt.plevel) + (alt.available ? "" : " (n/a)"));
        if (ImGui::IsItemHovered())
          ImGui::SetTooltip("%s %s, plevel %d, kernel %s\n%s", alt.backend.c_str(),
                            d.opKind.c_str(), alt.plevel,
                            alt.kernel.empty() ? "(generated)" : alt.kernel.c_str(),
                            alt.available ? "runs here" : ("unavailable: " + alt.why).c_str());
      }
      if (!s.fallbacks.empty()) {
        ImGui::SameLine(0, 12);
        ImGui::TextDisabled("fallbacks: %s", clusters::joinNames(s.fallbacks, ", ").c_str());
        if (ImGui::IsItemHovered())
          ImGui::SetTooltip("If its kernel fails at run time, the runtime calls these instead, "
                            "in order (a run's Profile lists the fallbacks that happened)");
      }
      ImGui::TableNextColumn();
      drawTunedCell(vm, s);
      ImGui::TableNextColumn();
      showText(s.op + (s.math.empty() ? "" : "  [" + s.math + "]"));
      if (ImGui::IsItemHovered() && !s.math.empty())
        ImGui::SetTooltip("Transcendental math: %s\n(polynomial: loupe-approximate-math, within "
                          "1-5 ulps of libm; libm: --math libm)",
                          s.math.c_str());
      ImGui::PopID();
    }
  ImGui::EndTable();
  // The selected dispatch's whole reason.
  if (int d = model.dispatchIndex(vm.nav.selectedDispatch); d >= 0) {
    const compiler::DispatchSummary &s = model.dispatches[d].summary;
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("#%lld %s on %s: %s", static_cast<long long>(s.id), s.name.c_str(),
                        s.backend.c_str(),
                        s.reason.empty() ? "codegen runs every op; no library backend runs it"
                                         : s.reason.c_str());
    ImGui::PopTextWrapPos();
  } else {
    ImGui::TextDisabled("Select a row for the whole reason; double-click shows it in the graph.");
  }
}

void DispatchPanel::draw(ViewModel &vm, Actions &actions) {
  syncWithSession(vm);
  if (!vm.compile) {
    ImGui::TextDisabled(vm.compiling ? "compiling..." : "Open a model to see its dispatches.");
    return;
  }
  drawToolbar(vm, actions);
  if (vm.compile->graph->dispatches.empty()) {
    ImGui::TextDisabled("No dispatches: compile up to the ral phase (or further) to see them.");
    return;
  }
  drawTable(vm);
}

} // namespace loupe::visualizer
