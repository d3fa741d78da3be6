//===- LogPanel.cpp - Diagnostics and job messages -----------------------------===//
#include "loupe/visualizer/panels/LogPanel.h"

#include "loupe/visualizer/Style.h"

#include <filesystem>
#include <sstream>

namespace loupe::visualizer {

namespace {
ImU32 levelColor(LogLevel level) {
  switch (level) {
  case LogLevel::Info:
    return IM_COL32(170, 170, 170, 255);
  case LogLevel::Warning:
    return IM_COL32(230, 180, 60, 255);
  case LogLevel::Error:
    return IM_COL32(235, 90, 80, 255);
  }
  return IM_COL32(170, 170, 170, 255);
}

bool sameFile(const std::string &file, const std::string &path) {
  namespace fs = std::filesystem;
  return file == path || fs::path(file).filename() == fs::path(path).filename();
}
} // namespace

void LogPanel::reparse(const ViewModel &vm) {
  const std::vector<LogEntry> &entries = vm.log.entries();
  if (parsedGeneration_ == vm.log.generation() && diagnostics_.size() == entries.size())
    return;
  // Entries are append-only between clears: parse only the new ones.
  if (diagnostics_.size() > entries.size())
    diagnostics_.clear();
  for (size_t i = diagnostics_.size(); i < entries.size(); ++i)
    diagnostics_.push_back(text::parseDiagnostics(entries[i].text));
  parsedGeneration_ = vm.log.generation();
}

const std::vector<text::Diagnostic> &LogPanel::diagnostics(const ViewModel &vm, size_t entry) {
  reparse(vm);
  return diagnostics_.at(entry);
}

bool LogPanel::follow(ViewModel &vm, size_t entry, const text::Diagnostic &d) {
  if (!vm.compile)
    return false;
  const CompileView &c = *vm.compile;
  int pass = vm.log.entries()[entry].pass;
  if (!d.file.empty() && d.line > 0) {
    if (c.hasSource() && sameFile(d.file, c.modelPath)) {
      vm.showIrLine(kSourcePass, static_cast<int>(d.line) - 1);
      return true;
    }
    // A file location of an op in a snapshot: find the op carrying it.
    std::string name = d.file + ":" + std::to_string(d.line) +
                       (d.column ? ":" + std::to_string(d.column) : "");
    vm.showIrLocation(pass != kNoPass ? pass : std::max(vm.nav.selectedPass, 0), name);
    return true;
  }
  if (!d.locationNames.empty()) {
    vm.showIrLocation(pass != kNoPass ? pass : std::max(vm.nav.selectedPass, 0),
                      d.locationNames.front());
    return true;
  }
  if (pass != kNoPass) {
    vm.showIrLine(pass, 0);
    return true;
  }
  return false;
}

void LogPanel::draw(ViewModel &vm, Actions &actions) {
  (void)actions;
  reparse(vm);
  links_.clear();
  const std::vector<LogEntry> &entries = vm.log.entries();
  if (ImGui::SmallButton("Clear")) {
    vm.log.clear();
    diagnostics_.clear();
    lastCount_ = 0;
    return;
  }
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9);
  ImGui::Combo("##level", &levelFilter_, "everything\0warnings+errors\0errors\0");
  ImGui::SameLine();
  ImGui::Checkbox("follow", &autoScroll_);
  ImGui::SameLine();
  ImGui::TextDisabled("%zu messages, %zu errors", entries.size(), vm.log.errorCount());

  ImGui::BeginChild("log_lines", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
  for (size_t i = 0; i < entries.size(); ++i) {
    const LogEntry &e = entries[i];
    if ((levelFilter_ == 1 && e.level == LogLevel::Info) ||
        (levelFilter_ == 2 && e.level != LogLevel::Error))
      continue;
    ImGui::PushID(static_cast<int>(i));
    textColored(levelColor(e.level), "[" + e.source + "]");
    ImGui::SameLine();
    const std::vector<text::Diagnostic> &diags = diagnostics_[i];
    // Lines of the message; those starting a diagnostic with a location are links.
    std::istringstream lines(e.text);
    std::string line;
    size_t lineNo = 0, nextDiag = 0;
    bool firstLine = true;
    while (std::getline(lines, line)) {
      if (!firstLine)
        ImGui::TextUnformatted("  "), ImGui::SameLine();
      firstLine = false;
      while (nextDiag < diags.size() && diags[nextDiag].logLine < lineNo)
        ++nextDiag;
      const text::Diagnostic *d =
          nextDiag < diags.size() && diags[nextDiag].logLine == lineNo ? &diags[nextDiag] : nullptr;
      bool linkable = d && (!d->file.empty() || !d->locationNames.empty() || e.pass != kNoPass);
      if (linkable) {
        ImGui::PushID(static_cast<int>(lineNo));
        ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(120, 180, 240, 255));
        if (ImGui::Selectable(line.c_str(), false, 0))
          follow(vm, i, *d);
        ImGui::PopStyleColor();
        ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
        links_.push_back({i, lineNo, a, b});
        ImGui::GetWindowDrawList()->AddLine(ImVec2(a.x, b.y - 1), ImVec2(a.x + ImGui::CalcTextSize(line.c_str()).x, b.y - 1),
                                            IM_COL32(120, 180, 240, 160));
        if (ImGui::IsItemHovered())
          ImGui::SetTooltip("Show in the IR panel");
        ImGui::PopID();
      } else if (e.level == LogLevel::Info) {
        ImGui::TextUnformatted(line.c_str());
      } else {
        textColored(levelColor(e.level), line);
      }
      ++lineNo;
    }
    if (firstLine)
      ImGui::NewLine();
    ImGui::PopID();
  }
  if (autoScroll_ && entries.size() != lastCount_)
    ImGui::SetScrollHereY(1.0f);
  lastCount_ = entries.size();
  ImGui::EndChild();
}

} // namespace loupe::visualizer
