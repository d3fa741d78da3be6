//===- PipelinePanel.cpp - Every pass of the last compile ---------------------===//
#include "loupe/visualizer/panels/PipelinePanel.h"

#include "loupe/visualizer/Format.h"
#include "loupe/visualizer/Style.h"

#include <algorithm>
#include <filesystem>

namespace loupe::visualizer {

void PipelinePanel::refilter(const ViewModel &vm) {
  rows_.clear();
  filteredFor_ = vm.compile.get();
  dirty_ = false;
  if (!vm.compile)
    return;
  const CompileView &c = *vm.compile;
  if (c.hasSource() && !changedOnly_ && containsIgnoreCase("source", search_))
    rows_.push_back(kSourcePass);
  for (const compiler::PassSnapshot &s : c.result.snapshots) {
    if (changedOnly_ && !s.changed && !s.failed)
      continue;
    if (!search_.empty() && !containsIgnoreCase(s.pass, search_) &&
        !containsIgnoreCase(s.options, search_) && !containsIgnoreCase(s.phase, search_) &&
        !containsIgnoreCase(s.anchor, search_))
      continue;
    rows_.push_back(s.index);
  }
}

const std::vector<int> &PipelinePanel::visibleRows(const ViewModel &vm) {
  if (dirty_ || filteredFor_ != vm.compile.get())
    refilter(vm);
  return rows_;
}

int PipelinePanel::step(ViewModel &vm, int delta) {
  const std::vector<int> &rows = visibleRows(vm);
  if (rows.empty())
    return vm.nav.selectedPass;
  auto it = std::find(rows.begin(), rows.end(), vm.nav.selectedPass);
  int pos;
  if (it == rows.end()) {
    // The selection is filtered out: go to the nearest visible row in the step's direction.
    auto next = std::lower_bound(rows.begin(), rows.end(), vm.nav.selectedPass);
    pos = static_cast<int>(next - rows.begin()) + (delta > 0 ? 0 : -1);
  } else {
    pos = static_cast<int>(it - rows.begin()) + delta;
  }
  pos = std::clamp(pos, 0, static_cast<int>(rows.size()) - 1);
  vm.selectPass(rows[pos]);
  scrollToSelection_ = true;
  return vm.nav.selectedPass;
}

std::string PipelinePanel::cacheSummary(const compiler::CompileResult &result,
                                        const compiler::CompileCacheStats &stats) {
  if (result.cache.empty())
    return "";
  return "compile cache: " + (result.cache == "miss" ? result.cache : result.cache + " hit") +
         " (" + std::to_string(stats.memoryHits + stats.diskHits) + " hits, " +
         std::to_string(stats.misses) + " misses)";
}

void PipelinePanel::draw(ViewModel &vm, Actions &actions) {
  // Header: what was compiled, how far, and the phase to stop after.
  if (!vm.hasModel()) {
    ImGui::TextDisabled("No model. File > Open a model (.mlir, .onnx) or a session (.json).");
    return;
  }
  showText(std::filesystem::path(vm.session.model).filename().string());
  ImGui::SameLine();
  if (vm.compiling) {
    ImGui::TextDisabled("compiling...");
  } else if (vm.compile) {
    const compiler::CompileResult &r = vm.compile->result;
    ImGui::TextDisabled("%d passes, %s", vm.compile->passCount(), formatNs(r.totalNs).c_str());
    if (std::string cache = cacheSummary(r, compiler::compileCacheStats()); !cache.empty()) {
      ImGui::SameLine();
      ImGui::TextDisabled("| %s", cache.c_str());
    }
    if (!r.ok()) {
      ImGui::SameLine();
      textColored(IM_COL32(235, 90, 80, 255), "failed");
    }
  }

  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
  if (ImGui::BeginCombo("##phase_to", vm.session.pipeline.phaseTo.c_str())) {
    for (const std::string &phase : compiler::phaseNames())
      if (ImGui::Selectable(phase.c_str(), phase == vm.session.pipeline.phaseTo) &&
          phase != vm.session.pipeline.phaseTo) {
        vm.session.pipeline.phaseTo = phase;
        vm.sessionDirty = true;
        actions.compile();
      }
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Last phase of the pipeline (session: pipeline.phase_to)");
  ImGui::SameLine();
  ImGui::BeginDisabled(vm.compiling);
  if (ImGui::Button("Recompile"))
    actions.compile();
  ImGui::EndDisabled();

  if (ImGui::Checkbox("changed only", &changedOnly_))
    dirty_ = true;
  ImGui::SameLine();
  ImGui::SetNextItemWidth(-1);
  if (inputTextWithHint("##pass_search", "search passes", search_))
    dirty_ = true;

  if (!vm.compile)
    return;
  const CompileView &c = *vm.compile;
  const std::vector<int> &rows = visibleRows(vm);

  // Keyboard: step through the visible rows while this window has focus.
  if (ImGui::IsWindowFocused(ImGuiFocusedFlags_ChildWindows) && !ImGui::IsAnyItemActive()) {
    int page = std::max(1, static_cast<int>(ImGui::GetContentRegionAvail().y /
                                            ImGui::GetTextLineHeightWithSpacing()) -
                               2);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_DownArrow)))
      step(vm, 1);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_UpArrow)))
      step(vm, -1);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_PageDown)))
      step(vm, page);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_PageUp)))
      step(vm, -page);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Home)))
      step(vm, -static_cast<int>(rows.size()));
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_End)))
      step(vm, static_cast<int>(rows.size()));
  }

  ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY |
                          ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_Resizable |
                          ImGuiTableFlags_Hideable | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("passes", 6, flags))
    return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("#", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("phase", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("pass", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("anchor", ImGuiTableColumnFlags_WidthFixed |
                                        ImGuiTableColumnFlags_DefaultHide);
  ImGui::TableSetupColumn("time", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("changed", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableHeadersRow();

  int selectedRow = -1;
  if (scrollToSelection_) {
    auto it = std::find(rows.begin(), rows.end(), vm.nav.selectedPass);
    if (it != rows.end())
      selectedRow = static_cast<int>(it - rows.begin());
  }
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(rows.size()));
  if (selectedRow >= 0)
    clipper.ForceDisplayRangeByIndices(selectedRow, selectedRow + 1);
  while (clipper.Step()) {
    for (int r = clipper.DisplayStart; r < clipper.DisplayEnd; ++r) {
      int index = rows[r];
      bool selected = index == vm.nav.selectedPass;
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushID(index);
      char label[16];
      if (index == kSourcePass)
        std::snprintf(label, sizeof label, "-");
      else
        std::snprintf(label, sizeof label, "%d", index);
      if (ImGui::Selectable(label, selected,
                            ImGuiSelectableFlags_SpanAllColumns |
                                ImGuiSelectableFlags_AllowItemOverlap)) {
        vm.selectPass(index);
      }
      if (ImGui::BeginPopupContextItem("pass_menu")) {
        if (ImGui::MenuItem("Diff against this pass (A)"))
          vm.nav.diffBase = index;
        if (ImGui::MenuItem("Diff: previous pass as A", nullptr, false, vm.nav.diffBase.has_value()))
          vm.nav.diffBase.reset();
        ImGui::EndPopup();
      }
      if (selected && scrollToSelection_) {
        ImVec2 min = ImGui::GetItemRectMin(), max = ImGui::GetItemRectMax();
        float header = ImGui::GetTextLineHeightWithSpacing();
        ImVec2 wmin = ImGui::GetWindowPos();
        float top = wmin.y + header, bottom = wmin.y + ImGui::GetWindowHeight();
        if (min.y < top || max.y > bottom)
          ImGui::SetScrollHereY(0.5f);
        scrollToSelection_ = false;
      }
      if (index == kSourcePass) {
        ImGui::TableNextColumn();
        ImGui::TextDisabled("-");
        ImGui::TableNextColumn();
        showText(std::filesystem::path(c.modelPath).filename().string());
        ImGui::TableNextColumn();
        ImGui::TableNextColumn();
        ImGui::TableNextColumn();
        ImGui::PopID();
        continue;
      }
      const compiler::PassSnapshot &s = c.result.snapshots[index];
      ImGui::TableNextColumn();
      textColored(phaseColor(s.phase), s.phase);
      ImGui::TableNextColumn();
      if (s.failed)
        textColored(IM_COL32(235, 90, 80, 255), s.pass + " (failed)");
      else if (s.changed)
        showText(s.pass);
      else
        ImGui::TextDisabled("%s", s.pass.c_str());
      if (ImGui::IsItemHovered() && (!s.options.empty() || !s.anchor.empty()))
        ImGui::SetTooltip("%s\non %s", s.options.c_str(), s.anchor.c_str());
      ImGui::TableNextColumn();
      ImGui::TextDisabled("%s", s.anchor.c_str());
      ImGui::TableNextColumn();
      showText(formatNs(static_cast<double>(s.durationNs)));
      ImGui::TableNextColumn();
      if (s.changed)
        textColored(IM_COL32(90, 200, 110, 255), "changed");
      else
        ImGui::TextDisabled("-");
      ImGui::PopID();
    }
  }
  ImGui::EndTable();
}

} // namespace loupe::visualizer
