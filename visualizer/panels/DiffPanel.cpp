//===- DiffPanel.cpp - IR after pass A vs after pass B ------------------------===//
#include "loupe/visualizer/panels/DiffPanel.h"

#include "loupe/visualizer/Style.h"
#include "loupe/visualizer/TextDraw.h"

#include <imgui_internal.h> // SetNextWindowScroll

#include <algorithm>

namespace loupe::visualizer {

namespace {
constexpr ImU32 kDeletedBg = IM_COL32(150, 50, 50, 70);
constexpr ImU32 kInsertedBg = IM_COL32(50, 140, 60, 70);
constexpr ImU32 kDeletedSpan = IM_COL32(220, 70, 70, 120);
constexpr ImU32 kInsertedSpan = IM_COL32(70, 200, 90, 110);
constexpr ImU32 kEmptySide = IM_COL32(255, 255, 255, 8);
constexpr ImU32 kCursorRow = IM_COL32(255, 255, 255, 22);
constexpr ImU32 kLineNumber = IM_COL32(110, 118, 129, 255);
} // namespace

int DiffPanel::currentHunk() const {
  if (!diff_ || diff_->hunks().empty())
    return -1;
  const auto &rows = diff_->rows(layout_);
  if (cursorRow_ < rows.size() && rows[cursorRow_].hunk >= 0)
    return rows[cursorRow_].hunk;
  int h = -1;
  for (size_t i = 0; i < diff_->hunks().size(); ++i)
    if (diff_->hunkRow(layout_, i) <= cursorRow_)
      h = static_cast<int>(i);
  return h;
}

bool DiffPanel::nextHunk() {
  if (!diff_ || diff_->hunks().empty())
    return false;
  auto row = diff_->nextHunk(layout_, cursorRow_);
  scrollTo(row ? *row : diff_->hunkRow(layout_, 0)); // wrap to the first
  return true;
}

bool DiffPanel::previousHunk() {
  if (!diff_ || diff_->hunks().empty())
    return false;
  auto row = diff_->previousHunk(layout_, cursorRow_);
  scrollTo(row ? *row : diff_->hunkRow(layout_, diff_->hunks().size() - 1)); // wrap to the last
  return true;
}

void DiffPanel::scrollTo(size_t row) {
  cursorRow_ = row;
  scrollRequest_ = row;
}

void DiffPanel::request(const std::shared_ptr<const text::IrDocument> &a,
                        const std::shared_ptr<const text::IrDocument> &b) {
  Key key{a.get(), b.get(), options_.ignoreSsaNames, options_.ignoreLocations,
          options_.ignoreWhitespace, options_.collapseUnchanged};
  if (key == wantedKey_ && (diff_ || computing_))
    return;
  wantedKey_ = key;
  if (!a || !b)
    return;
  text::DiffOptions options = options_;
  auto apply = [this, key, a, b](std::shared_ptr<const text::LineDiff> diff) {
    if (!(key == wantedKey_))
      return; // superseded
    bool samePair = shownKey_.a == key.a && shownKey_.b == key.b;
    diff_ = std::move(diff);
    docA_ = a;
    docB_ = b;
    shownKey_ = key;
    computing_ = false;
    intraCache_.clear();
    maxColumns_ = 0;
    for (const text::IrDocument *d : {a.get(), b.get()})
      for (size_t i = 0; i < d->lineCount(); ++i) {
        std::string_view l = d->line(i);
        maxColumns_ = std::max(maxColumns_, l.find('\t') == std::string_view::npos ? l.size() : visualColumns(l));
      }
    if (!samePair || cursorRow_ >= diff_->rows(layout_).size()) {
      // A new pair of passes: start at the first change.
      cursorRow_ = 0;
      if (!diff_->hunks().empty())
        scrollTo(diff_->hunkRow(layout_, 0));
      else
        scrollRequest_ = 0;
    }
  };
  if (a->lineCount() + b->lineCount() < kSyncLines) {
    apply(std::make_shared<const text::LineDiff>(text::LineDiff::compute(*a, *b, options)));
    return;
  }
  computing_ = true;
  uint64_t serial = ++requestSerial_;
  documents_.worker().dropQueued("diff");
  documents_.worker().post("diff", [a, b, options, apply, serial, this](JobContext &ctx) {
    auto diff = std::make_shared<const text::LineDiff>(text::LineDiff::compute(*a, *b, options));
    ctx.deliver([apply, diff, serial, this] {
      if (serial == requestSerial_)
        apply(diff);
    });
  });
}

const text::IntraLineDiff &DiffPanel::intra(size_t row) {
  if (intraLayout_ != layout_) {
    intraCache_.clear();
    intraLayout_ = layout_;
  }
  auto it = intraCache_.find(row);
  if (it != intraCache_.end())
    return it->second;
  if (intraCache_.size() > 4096)
    intraCache_.clear(); // bounded: only rows on screen are ever asked for
  const text::DiffRow &r = diff_->rows(layout_)[row];
  text::IntraLineDiff d;
  if (r.oldLine >= 0 && r.newLine >= 0)
    d = text::intraLineDiff(docA_->line(static_cast<size_t>(r.oldLine)),
                            docB_->line(static_cast<size_t>(r.newLine)));
  return intraCache_.emplace(row, std::move(d)).first->second;
}

void DiffPanel::drawToolbar() {
  bool sbs = layout_ == text::DiffLayout::SideBySide;
  if (ImGui::RadioButton("side by side", sbs) && !sbs) {
    // Keep the place: map the cursor's hunk to the other layout.
    int h = currentHunk();
    layout_ = text::DiffLayout::SideBySide;
    if (diff_ && h >= 0)
      scrollTo(diff_->hunkRow(layout_, static_cast<size_t>(h)));
  }
  ImGui::SameLine();
  if (ImGui::RadioButton("unified", !sbs) && sbs) {
    int h = currentHunk();
    layout_ = text::DiffLayout::Unified;
    if (diff_ && h >= 0)
      scrollTo(diff_->hunkRow(layout_, static_cast<size_t>(h)));
  }
  ImGui::SameLine();
  ImGui::TextDisabled("|");
  ImGui::SameLine();
  ImGui::Checkbox("ignore SSA names", &options_.ignoreSsaNames);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Compare lines with %%values, ^blocks and #aliases renumbered in order of "
                      "appearance: a pass that only renumbers shows no change");
  ImGui::SameLine();
  ImGui::Checkbox("ignore locations", &options_.ignoreLocations);
  ImGui::SameLine();
  ImGui::Checkbox("ignore whitespace", &options_.ignoreWhitespace);
  ImGui::SameLine();
  ImGui::Checkbox("only changes", &options_.collapseUnchanged);

  ImGui::BeginDisabled(hunkCount() == 0);
  if (ImGui::ArrowButton("##prev_hunk", ImGuiDir_Up))
    previousHunk();
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("previous hunk (P)");
  ImGui::SameLine();
  if (ImGui::ArrowButton("##next_hunk", ImGuiDir_Down))
    nextHunk();
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("next hunk (N)");
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (computing_)
    ImGui::TextDisabled("diffing...");
  else if (!diff_)
    ImGui::TextDisabled("-");
  else if (diff_->identical())
    ImGui::TextDisabled("identical%s", options_.ignoreSsaNames || options_.ignoreLocations ||
                                               options_.ignoreWhitespace
                                           ? " (with the ignore options)"
                                           : "");
  else {
    int h = currentHunk();
    ImGui::Text("hunk %d/%zu", h + 1, diff_->hunks().size());
    ImGui::SameLine();
    textColored(IM_COL32(235, 90, 80, 255), "-" + std::to_string(diff_->deletedLines()));
    ImGui::SameLine();
    textColored(IM_COL32(90, 200, 110, 255), "+" + std::to_string(diff_->insertedLines()));
    if (diff_->approximate()) {
      ImGui::SameLine();
      ImGui::TextDisabled("(approximate: large change)");
    }
    if (h >= 0) {
      ImGui::SameLine();
      ImGui::TextDisabled("%s", diff_->hunkHeader(static_cast<size_t>(h)).c_str());
    }
  }
}

void DiffPanel::drawRows() {
  drawnRows_ = 0;
  if (!diff_ || !docA_ || !docB_)
    return;
  const std::vector<text::DiffRow> &rows = diff_->rows(layout_);
  const float lineH = ImGui::GetTextLineHeight();
  const float charW = monospaceWidth();
  size_t digits = std::to_string(std::max<size_t>({docA_->lineCount(), docB_->lineCount(), 1})).size();
  const float numW = static_cast<float>(digits + 1) * charW;
  bool sbs = layout_ == text::DiffLayout::SideBySide;

  if (scrollRequest_) {
    // Put the target a few rows below the top, so its context shows.
    float y = static_cast<float>(*scrollRequest_ > 3 ? *scrollRequest_ - 3 : 0) * lineH;
    ImGui::SetNextWindowScroll(ImVec2(-1.0f, y));
    scrollRequest_.reset();
  }
  // Both sides scroll horizontally together; line numbers stay put.
  const float signW = sbs ? 0.0f : charW * 2;
  float avail = ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ScrollbarSize;
  float sideText = numW + signW + static_cast<float>(maxColumns_ + 2) * charW;
  float range = std::max(0.0f, sideText - (sbs ? avail * 0.5f : avail));
  ImGui::SetNextWindowContentSize(ImVec2(avail + range, static_cast<float>(rows.size()) * lineH));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
  ImGui::BeginChild("diff_rows", ImVec2(0, 0), true,
                    ImGuiWindowFlags_NoNav | ImGuiWindowFlags_HorizontalScrollbar);
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(0, 0));
  if (ImGui::IsWindowFocused() && !ImGui::IsAnyItemActive()) {
    // GLFW's key codes for letters are their ASCII capitals.
    if (ImGui::IsKeyPressed('N'))
      nextHunk();
    if (ImGui::IsKeyPressed('P'))
      previousHunk();
  }
  ImDrawList *dl = ImGui::GetWindowDrawList();
  float x0 = ImGui::GetWindowPos().x;
  float width = ImGui::GetWindowWidth() - ImGui::GetStyle().ScrollbarSize;
  float half = sbs ? width * 0.5f : width;
  const float scrollX = ImGui::GetScrollX();

  auto drawSide = [&](float left, float right, float y, const text::IrDocument &doc, int line,
                      ImU32 bg, const std::vector<text::ByteSpan> *spans, ImU32 spanColor,
                      char sign) {
    if (line < 0) {
      dl->AddRectFilled(ImVec2(left, y), ImVec2(right, y + lineH), kEmptySide);
      return;
    }
    if (bg)
      dl->AddRectFilled(ImVec2(left, y), ImVec2(right, y + lineH), bg);
    char number[24];
    int len = std::snprintf(number, sizeof number, "%d", line + 1);
    dl->AddText(ImVec2(left + static_cast<float>(digits - len) * charW, y), kLineNumber, number);
    float textLeft = left + numW + (sign ? charW * 2 : 0);
    float textX = textLeft - scrollX;
    if (sign) {
      char s[2] = {sign, 0};
      dl->AddText(ImVec2(left + numW, y), sign == '-' ? IM_COL32(235, 90, 80, 255) : IM_COL32(90, 200, 110, 255), s);
    }
    std::string_view l = doc.line(static_cast<size_t>(line));
    dl->PushClipRect(ImVec2(textLeft, y), ImVec2(right, y + lineH), true);
    if (spans)
      for (const text::ByteSpan &s : *spans) {
        float a = textX + static_cast<float>(visualColumnOf(l, s.begin)) * charW;
        float b = textX + static_cast<float>(visualColumnOf(l, s.end)) * charW;
        dl->AddRectFilled(ImVec2(a, y), ImVec2(b, y + lineH), spanColor);
      }
    drawTokenizedLine(dl, ImVec2(textX, y), l, doc.tokens(static_cast<size_t>(line)), charW, right);
    dl->PopClipRect();
  };

  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(rows.size()), lineH);
  while (clipper.Step()) {
    ImVec2 start = ImGui::GetCursorScreenPos();
    int n = clipper.DisplayEnd - clipper.DisplayStart;
    ImGui::InvisibleButton("##rows", ImVec2(std::max(1.0f, width + range), std::max(1.0f, lineH * static_cast<float>(n))));
    if (ImGui::IsItemClicked()) {
      int r = clipper.DisplayStart + static_cast<int>((ImGui::GetIO().MousePos.y - start.y) / lineH);
      if (r >= clipper.DisplayStart && r < clipper.DisplayEnd)
        cursorRow_ = static_cast<size_t>(r);
    }
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const text::DiffRow &row = rows[i];
      float y = start.y + static_cast<float>(i - clipper.DisplayStart) * lineH;
      ++drawnRows_;
      if (row.kind == text::DiffRowKind::Skipped) {
        char msg[64];
        std::snprintf(msg, sizeof msg, "... %u unchanged lines ...", row.count);
        dl->AddRectFilled(ImVec2(x0, y), ImVec2(x0 + width, y + lineH), IM_COL32(60, 70, 90, 90));
        dl->AddText(ImVec2(x0 + numW, y), IM_COL32(160, 170, 190, 255), msg);
        continue;
      }
      bool changed = row.kind == text::DiffRowKind::Changed;
      const text::IntraLineDiff *spans = changed ? &intra(static_cast<size_t>(i)) : nullptr;
      if (sbs) {
        ImU32 leftBg = (row.kind == text::DiffRowKind::Deleted || changed) ? kDeletedBg : 0;
        ImU32 rightBg = (row.kind == text::DiffRowKind::Inserted || changed) ? kInsertedBg : 0;
        drawSide(x0, x0 + half - 2, y, *docA_, row.oldLine, leftBg,
                 spans ? &spans->oldChanged : nullptr, kDeletedSpan, 0);
        drawSide(x0 + half + 2, x0 + width, y, *docB_, row.newLine, rightBg,
                 spans ? &spans->newChanged : nullptr, kInsertedSpan, 0);
      } else {
        if (row.kind == text::DiffRowKind::Deleted)
          drawSide(x0, x0 + width, y, *docA_, row.oldLine, kDeletedBg, nullptr, 0, '-');
        else if (row.kind == text::DiffRowKind::Inserted)
          drawSide(x0, x0 + width, y, *docB_, row.newLine, kInsertedBg, nullptr, 0, '+');
        else
          drawSide(x0, x0 + width, y, row.newLine >= 0 ? *docB_ : *docA_,
                   row.newLine >= 0 ? row.newLine : row.oldLine, 0, nullptr, 0, ' ');
      }
      if (row.kind == text::DiffRowKind::Ignored)
        dl->AddRectFilled(ImVec2(x0, y), ImVec2(x0 + width, y + lineH), IM_COL32(0, 0, 0, 90));
      if (static_cast<size_t>(i) == cursorRow_)
        dl->AddRectFilled(ImVec2(x0, y), ImVec2(x0 + width, y + lineH), kCursorRow);
    }
  }
  if (sbs)
    dl->AddLine(ImVec2(x0 + half, ImGui::GetWindowPos().y),
                ImVec2(x0 + half, ImGui::GetWindowPos().y + ImGui::GetWindowHeight()),
                IM_COL32(255, 255, 255, 40));
  ImGui::PopStyleVar();
  ImGui::EndChild();
  ImGui::PopStyleVar();
}

void DiffPanel::drawDocuments(const std::shared_ptr<const text::IrDocument> &a,
                              const std::shared_ptr<const text::IrDocument> &b,
                              const std::string &titleA, const std::string &titleB) {
  request(a, b);
  ImGui::TextDisabled("A:");
  ImGui::SameLine();
  showText(titleA);
  ImGui::SameLine();
  ImGui::TextDisabled("  B:");
  ImGui::SameLine();
  showText(titleB);
  drawToolbar();
  drawRows();
}

bool DiffPanel::drawModePicker(ViewModel &vm) {
  if (!vm.comparison && !vm.nav.diffAcrossCompiles)
    return false;
  if (ImGui::RadioButton("passes of this compile", !vm.nav.diffAcrossCompiles))
    vm.nav.diffAcrossCompiles = false;
  ImGui::SameLine();
  std::string across = vm.comparison ? "across the compared runs' compiles (#" +
                                           std::to_string(vm.comparison->baseline.id) + " vs #" +
                                           std::to_string(vm.comparison->candidate.id) + ")"
                                     : std::string("across compiles");
  if (ImGui::RadioButton(across.c_str(), vm.nav.diffAcrossCompiles))
    vm.nav.diffAcrossCompiles = true;
  modeRect_ = lastItemRect();
  return vm.nav.diffAcrossCompiles;
}

void DiffPanel::drawAcross(ViewModel &vm, Actions &actions) {
  const CrossCompileView *x = vm.crossCompile.get();
  if (!vm.comparison) {
    ImGui::TextDisabled("Compare two runs (Compare tab) to diff their compiles.");
    return;
  }
  if (!x || x->baselineRunId != vm.comparison->baseline.id ||
      x->candidateRunId != vm.comparison->candidate.id) {
    if (vm.crossCompiling) {
      ImGui::TextDisabled("compiling both runs' settings again, with IR text...");
    } else {
      ImGui::TextDisabled("The runs keep IR hashes only: their settings are compiled again.");
      if (ImGui::Button("Compile both"))
        actions.compileCompared();
    }
    return;
  }
  if (!x->error.empty()) {
    textColored(IM_COL32(235, 90, 80, 255), x->error);
    return;
  }
  const CompileView &a = *x->baseline, &b = *x->candidate;
  int pass = std::clamp(vm.nav.crossDiffPass, 0, std::max(0, b.passCount() - 1));
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 22);
  if (ImGui::BeginCombo("pass##across", b.passLabel(pass).c_str(), ImGuiComboFlags_HeightLarge)) {
    for (int i = 0; i < b.passCount(); ++i)
      if (ImGui::Selectable(b.passLabel(i).c_str(), i == pass))
        vm.nav.crossDiffPass = pass = i;
    ImGui::EndCombo();
  }
  passA_ = passB_ = pass;
  if (pass >= a.passCount() || a.result.snapshots[pass].pass != b.result.snapshots[pass].pass) {
    ImGui::TextDisabled("The baseline's pipeline has no pass %d like the candidate's (%s).", pass,
                        b.passLabel(pass).c_str());
    return;
  }
  bool pendingA = false, pendingB = false;
  auto docA = documents_.get(x->baseline, pass, &pendingA);
  auto docB = documents_.get(x->candidate, pass, &pendingB);
  if (!docA || !docB) {
    ImGui::TextDisabled(pendingA || pendingB ? "indexing..." : "no IR for one of the compiles");
    return;
  }
  drawDocuments(docA, docB, "run #" + std::to_string(x->baselineRunId) + " after " + a.passLabel(pass),
                "run #" + std::to_string(x->candidateRunId) + " after " + b.passLabel(pass));
}

void DiffPanel::draw(ViewModel &vm, Actions &actions) {
  if (drawModePicker(vm))
    return drawAcross(vm, actions);
  if (!vm.compile) {
    ImGui::TextDisabled(vm.compiling ? "compiling..." : "Open a model to diff its passes.");
    return;
  }
  const CompileView &c = *vm.compile;
  int first = c.hasSource() ? kSourcePass : 0;
  int b = vm.nav.diffTarget.value_or(vm.nav.selectedPass);
  if (b == kNoPass)
    b = 0;
  int a = vm.nav.diffBase.value_or(b - 1);
  if (a < first)
    a = first;
  passA_ = a;
  passB_ = b;

  // Pass pickers.
  auto picker = [&](const char *label, int current, const char *autoLabel, bool isAuto) {
    int chosen = current;
    bool pickedAuto = false;
    std::string preview = c.passLabel(current) + (isAuto ? std::string("  (") + autoLabel + ")" : "");
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 18);
    if (ImGui::BeginCombo(label, preview.c_str(), ImGuiComboFlags_HeightLarge)) {
      if (ImGui::Selectable(autoLabel, isAuto))
        pickedAuto = true;
      ImGui::Separator();
      for (int i = first; i < c.passCount(); ++i) {
        if (i >= 0 && !c.result.snapshots[i].changed && !c.result.snapshots[i].failed)
          continue; // unchanged passes have their predecessor's IR
        if (ImGui::Selectable(c.passLabel(i).c_str(), i == current && !isAuto))
          chosen = i;
      }
      ImGui::EndCombo();
    }
    return pickedAuto ? std::optional<int>(-100) : (chosen != current ? std::optional<int>(chosen) : std::nullopt);
  };
  if (auto pick = picker("A##diff_a", a, "the pass before B", !vm.nav.diffBase)) {
    if (*pick == -100)
      vm.nav.diffBase.reset();
    else
      vm.nav.diffBase = *pick;
  }
  ImGui::SameLine();
  if (ImGui::ArrowButton("##swap", ImGuiDir_Right)) {
    vm.nav.diffBase = b;
    vm.nav.diffTarget = a;
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("swap A and B");
  ImGui::SameLine();
  if (auto pick = picker("B##diff_b", b, "the selected pass", !vm.nav.diffTarget)) {
    if (*pick == -100)
      vm.nav.diffTarget.reset();
    else
      vm.nav.diffTarget = *pick;
  }

  bool pendingA = false, pendingB = false;
  auto docA = documents_.get(vm.compile, a, &pendingA);
  auto docB = documents_.get(vm.compile, b, &pendingB);
  if (docA && docB)
    request(docA, docB);
  drawToolbar();
  if (!docA || !docB) {
    ImGui::TextDisabled(pendingA || pendingB ? "indexing..." : "no IR for one of the passes");
    return;
  }
  if (b >= 0 && b < c.passCount() && !c.result.snapshots[b].changed && !vm.nav.diffBase &&
      diff_ && diff_->identical()) {
    ImGui::TextDisabled("Pass %d (%s) did not change the IR.", b, c.result.snapshots[b].pass.c_str());
  }
  drawRows();
}

} // namespace loupe::visualizer
