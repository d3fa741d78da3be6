//===- IrPanel.cpp - The IR after the selected pass ---------------------------===//
#include "loupe/visualizer/panels/IrPanel.h"

#include "loupe/visualizer/Format.h"

#include "loupe/visualizer/Style.h"
#include "loupe/visualizer/TextDraw.h"

#include <imgui_internal.h> // SetNextWindowScroll: scroll before the child is laid out

#include <algorithm>
#include <cmath>
#include <filesystem>

namespace loupe::visualizer {

namespace {
constexpr ImU32 kCursorLineBg = IM_COL32(255, 255, 255, 20);
constexpr ImU32 kSameLocBg = IM_COL32(90, 160, 230, 40);
constexpr ImU32 kMatchBg = IM_COL32(230, 180, 60, 90);
constexpr ImU32 kCurrentMatchBg = IM_COL32(240, 140, 40, 200);
constexpr ImU32 kLineNumber = IM_COL32(110, 118, 129, 255);
constexpr ImU32 kFoldMarker = IM_COL32(170, 170, 170, 255);

/// "file:line:col" -> (file, line), when `name` has that form.
bool splitFileLoc(const std::string &name, std::string &file, size_t &line) {
  size_t c2 = name.rfind(':');
  if (c2 == std::string::npos || c2 == 0)
    return false;
  size_t c1 = name.rfind(':', c2 - 1);
  if (c1 == std::string::npos)
    return false;
  try {
    line = std::stoul(name.substr(c1 + 1, c2 - c1 - 1));
    (void)std::stoul(name.substr(c2 + 1));
  } catch (...) {
    return false;
  }
  file = name.substr(0, c1);
  return true;
}

/// Whether `file` (as printed in a loc) names the model at `modelPath`.
bool sameFile(const std::string &file, const std::string &modelPath) {
  namespace fs = std::filesystem;
  if (file == modelPath)
    return true;
  return fs::path(file).filename() == fs::path(modelPath).filename();
}
} // namespace

void IrPanel::setDocument(const std::shared_ptr<const text::IrDocument> &doc) {
  doc_ = doc;
  folds_ = doc ? text::FoldState(doc->foldRegions(), doc->lineCount()) : text::FoldState();
  maxColumns_ = 0;
  if (doc)
    for (size_t i = 0; i < doc->lineCount(); ++i) {
      std::string_view l = doc->line(i);
      // Fast path: byte length, tabs counted exactly only when present.
      size_t cols = l.find('\t') == std::string_view::npos ? l.size() : visualColumns(l);
      maxColumns_ = std::max(maxColumns_, cols);
    }
  // Keep the cursor on the same line number: stepping through passes stays in place.
  size_t lines = doc ? doc->lineCount() : 0;
  cursorLine_ = lines ? std::min(cursorLine_, lines - 1) : 0;
  cursorCol_ = 0;
  currentMatch_.reset();
  matchesFor_.reset();
  cursorLocsFor_ = static_cast<size_t>(-1);
}

void IrPanel::gotoLine(size_t line) {
  if (!doc_ || doc_->lineCount() == 0)
    return;
  cursorLine_ = std::min(line, doc_->lineCount() - 1);
  cursorCol_ = 0;
  folds_.reveal(cursorLine_);
  scrollCursorIntoView_ = true;
}

bool IrPanel::findNext(bool forward) {
  if (!doc_ || search_.empty())
    return false;
  size_t fromCol = cursorCol_;
  if (currentMatch_ && currentMatch_->line == cursorLine_ && forward)
    fromCol = currentMatch_->column + 1;
  auto match = doc_->find(search_, cursorLine_, fromCol, forward, caseSensitive_);
  if (!match)
    return false;
  currentMatch_ = match;
  gotoLine(match->line);
  cursorCol_ = match->column;
  return true;
}

long IrPanel::matchCount() {
  if (!doc_ || search_.empty())
    return -1;
  if (!matchesFor_ || matchesFor_->first != doc_.get() || matchesFor_->second != search_) {
    text::FindAllResult all = doc_->findAll(search_, caseSensitive_);
    matchCount_ = static_cast<long>(all.matches.size());
    matchesTruncated_ = all.truncated;
    matchesFor_ = std::make_pair(doc_.get(), search_);
  }
  return matchCount_;
}

void IrPanel::drawToolbar(const std::string &title) {
  showText(title);
  if (doc_) {
    ImGui::SameLine();
    ImGui::TextDisabled("%zu lines", doc_->lineCount());
  }
  if (pending_) {
    ImGui::SameLine();
    ImGui::TextDisabled("(indexing...)");
  }
  ImGuiIO &io = ImGui::GetIO();
  bool focused = ImGui::IsWindowFocused(ImGuiFocusedFlags_ChildWindows);
  // Ctrl+F: GLFW's key codes for letters are their ASCII capitals.
  if (focused && io.KeyCtrl && ImGui::IsKeyPressed('F', false))
    focusSearch_ = true;
  if (focusSearch_) {
    ImGui::SetKeyboardFocusHere();
    focusSearch_ = false;
  }
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 16);
  if (inputTextWithHint("##ir_search", "search (Enter: next)", search_,
                        ImGuiInputTextFlags_EnterReturnsTrue)) {
    findNext(!io.KeyShift);
    focusSearch_ = true; // keep typing / pressing Enter
  }
  if (ImGui::IsItemEdited())
    matchesFor_.reset();
  ImGui::SameLine();
  if (ImGui::ArrowButton("##prev", ImGuiDir_Up))
    findNext(false);
  ImGui::SameLine();
  if (ImGui::ArrowButton("##next", ImGuiDir_Down))
    findNext(true);
  ImGui::SameLine();
  if (ImGui::Checkbox("Aa", &caseSensitive_))
    matchesFor_.reset();
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("case sensitive");
  long count = matchCount();
  if (count >= 0) {
    ImGui::SameLine();
    if (count == 0)
      textColored(IM_COL32(235, 90, 80, 255), "no match");
    else
      ImGui::TextDisabled("%ld%s matches", count, matchesTruncated_ ? "+" : "");
  }
  ImGui::SameLine();
  ImGui::TextDisabled("|");
  ImGui::SameLine();
  if (ImGui::SmallButton("fold all"))
    folds_.foldAll();
  ImGui::SameLine();
  if (ImGui::SmallButton("functions"))
    folds_.foldDepth(1);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("fold every region at depth 1 (function bodies)");
  ImGui::SameLine();
  if (ImGui::SmallButton("unfold all"))
    folds_.unfoldAll();
}

void IrPanel::drawLine(ImDrawList *dl, size_t line, ImVec2 pos, float charW, float clipRight) {
  std::string_view l = doc_->line(line);
  drawTokenizedLine(dl, pos, l, doc_->tokens(line), charW, clipRight);
}

void IrPanel::drawText() {
  drawnRows_ = 0;
  if (!doc_) {
    ImGui::TextDisabled(pending_ ? "indexing..." : "no IR");
    return;
  }
  ImGuiIO &io = ImGui::GetIO();
  const float lineH = ImGui::GetTextLineHeight();
  const float charW = monospaceWidth();
  size_t digits = std::to_string(std::max<size_t>(doc_->lineCount(), 1)).size();
  const float foldW = charW * 2;
  const float gutterW = static_cast<float>(digits + 1) * charW + foldW;
  const float locBarH = ImGui::GetFrameHeightWithSpacing() + 2;

  size_t rows = folds_.visibleLineCount();
  // Explicit content size: the scroll range is right from the first frame (a scroll request
  // made before any frame is not clamped to an empty window).
  ImGui::SetNextWindowContentSize(ImVec2(gutterW + static_cast<float>(maxColumns_ + 4) * charW,
                                         static_cast<float>(rows) * lineH));
  if (scrollRequest_) {
    ImGui::SetNextWindowScroll(ImVec2(-1.0f, static_cast<float>(*scrollRequest_) * lineH));
    scrollRequest_.reset();
  }
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
  ImGui::BeginChild("ir_text", ImVec2(0, -locBarH), true,
                    ImGuiWindowFlags_HorizontalScrollbar | ImGuiWindowFlags_NoNav);
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(0, 0));
  ImDrawList *dl = ImGui::GetWindowDrawList();
  const float winX = ImGui::GetWindowPos().x;
  const float clipRight = winX + ImGui::GetWindowWidth();
  const float textX0 = winX + gutterW; // gutter stays put when scrolling horizontally

  // Keyboard: move the cursor while the text has focus.
  if (ImGui::IsWindowFocused() && !ImGui::IsAnyItemActive()) {
    size_t visible = folds_.documentToVisibleLine(cursorLine_);
    size_t page = std::max<size_t>(1, static_cast<size_t>(ImGui::GetWindowHeight() / lineH) - 1);
    size_t target = visible;
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_DownArrow)))
      target = std::min(rows - 1, visible + 1);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_UpArrow)))
      target = visible > 0 ? visible - 1 : 0;
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_PageDown)))
      target = std::min(rows - 1, visible + page);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_PageUp)))
      target = visible > page ? visible - page : 0;
    if (target != visible) {
      cursorLine_ = folds_.visibleToDocumentLine(target);
      scrollCursorIntoView_ = true;
    }
  }

  std::vector<size_t> matchCols;
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(rows), lineH);
  while (clipper.Step()) {
    ImVec2 start = ImGui::GetCursorScreenPos();
    int n = clipper.DisplayEnd - clipper.DisplayStart;
    if (drawnRows_ == 0)
      firstRow_ = static_cast<size_t>(clipper.DisplayStart);
    // The whole block is one item: clicks are mapped to rows by their position.
    ImGui::InvisibleButton("##rows", ImVec2(std::max(1.0f, ImGui::GetContentRegionAvail().x),
                                            std::max(1.0f, lineH * static_cast<float>(n))));
    bool clicked = ImGui::IsItemClicked(ImGuiMouseButton_Left);
    bool doubleClicked = ImGui::IsItemHovered() && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left);
    for (int v = clipper.DisplayStart; v < clipper.DisplayEnd; ++v) {
      size_t line = folds_.visibleToDocumentLine(static_cast<size_t>(v));
      float y = start.y + static_cast<float>(v - clipper.DisplayStart) * lineH;
      std::string_view l = doc_->line(line);
      // Backgrounds: cursor line, lines sharing the cursor's loc, search matches.
      if (line == cursorLine_)
        dl->AddRectFilled(ImVec2(winX, y), ImVec2(clipRight, y + lineH), kCursorLineBg);
      else if (!sameLocLines_.empty() &&
               std::binary_search(sameLocLines_.begin(), sameLocLines_.end(), line))
        dl->AddRectFilled(ImVec2(winX, y), ImVec2(clipRight, y + lineH), kSameLocBg);
      float textX = start.x + gutterW;
      if (!search_.empty()) {
        matchCols = text::findInLine(l, search_, caseSensitive_);
        for (size_t col : matchCols) {
          float x0 = textX + static_cast<float>(visualColumnOf(l, col)) * charW;
          float x1 = x0 + static_cast<float>(search_.size()) * charW;
          bool current = currentMatch_ && currentMatch_->line == line && currentMatch_->column == col;
          dl->AddRectFilled(ImVec2(x0, y), ImVec2(x1, y + lineH), current ? kCurrentMatchBg : kMatchBg);
        }
      }
      dl->PushClipRect(ImVec2(textX0, y), ImVec2(clipRight, y + lineH), true);
      drawLine(dl, line, ImVec2(textX, y), charW, clipRight);
      if (folds_.isFolded(line)) {
        // Show what is hidden after the `{`.
        auto region = folds_.regionStartingAt(line);
        const text::FoldRegion &r = folds_.regions()[*region];
        char more[48];
        std::snprintf(more, sizeof more, " ... %u lines }", r.endLine - r.startLine - 1);
        float x = textX + static_cast<float>(visualColumns(l) + 1) * charW;
        ImVec2 sz = ImGui::CalcTextSize(more);
        dl->AddRectFilled(ImVec2(x, y), ImVec2(x + sz.x, y + lineH), IM_COL32(80, 80, 90, 200), 3);
        dl->AddText(ImVec2(x, y), IM_COL32(200, 200, 200, 255), more);
      }
      dl->PopClipRect();
      // Gutter: line number and fold marker, fixed on the left.
      dl->AddRectFilled(ImVec2(winX, y), ImVec2(textX0, y + lineH), IM_COL32(26, 28, 32, 255));
      char number[24];
      int len = std::snprintf(number, sizeof number, "%zu", line + 1);
      dl->AddText(ImVec2(winX + static_cast<float>(digits - len) * charW, y),
                  line == cursorLine_ ? IM_COL32(220, 220, 220, 255) : kLineNumber, number);
      if (folds_.regionStartingAt(line)) {
        float cx = winX + static_cast<float>(digits) * charW + foldW * 0.5f;
        float cy = y + lineH * 0.5f;
        float s = lineH * 0.28f;
        if (folds_.isFolded(line))
          dl->AddTriangleFilled(ImVec2(cx - s * 0.6f, cy - s), ImVec2(cx - s * 0.6f, cy + s),
                                ImVec2(cx + s * 0.8f, cy), kFoldMarker);
        else
          dl->AddTriangleFilled(ImVec2(cx - s, cy - s * 0.6f), ImVec2(cx + s, cy - s * 0.6f),
                                ImVec2(cx, cy + s * 0.8f), kFoldMarker);
      }
      ++drawnRows_;
    }
    if (clicked || doubleClicked) {
      int v = clipper.DisplayStart + static_cast<int>((io.MousePos.y - start.y) / lineH);
      if (v >= clipper.DisplayStart && v < clipper.DisplayEnd) {
        size_t line = folds_.visibleToDocumentLine(static_cast<size_t>(v));
        if (io.MousePos.x < textX0 && io.MousePos.x >= textX0 - foldW - charW * 0.5f &&
            folds_.regionStartingAt(line)) {
          folds_.toggle(line);
        } else {
          cursorLine_ = line;
          float col = (io.MousePos.x - (start.x + gutterW)) / charW;
          cursorCol_ = col > 0 ? static_cast<size_t>(col) : 0;
          if (doubleClicked && folds_.regionStartingAt(line))
            folds_.toggle(line);
        }
      }
    }
  }
  ImGui::PopStyleVar();

  if (scrollCursorIntoView_) {
    scrollCursorIntoView_ = false;
    float y = static_cast<float>(folds_.documentToVisibleLine(cursorLine_)) * lineH;
    float top = ImGui::GetScrollY();
    float height = ImGui::GetWindowHeight() - ImGui::GetStyle().ScrollbarSize;
    if (y < top || y + lineH > top + height)
      ImGui::SetScrollY(std::max(0.0f, y - height / 3));
  }
  ImGui::EndChild();
  ImGui::PopStyleVar();
}

/// The weight the cursor line reads (`dense_resource<name>`, or a ral.constant located at the
/// weight's name): its type, shape and size, its statistics in a tooltip. Never its bytes.
void IrPanel::drawWeightOfLine(const std::vector<compiler::WeightSummary> &weights) {
  if (weights.empty() || cursorLine_ >= doc_->lineCount())
    return;
  std::string_view line = doc_->line(cursorLine_);
  const compiler::WeightSummary *weight = nullptr;
  for (const compiler::WeightSummary &w : weights) {
    bool named = line.find("dense_resource<" + w.name + ">") != std::string_view::npos ||
                 (line.find("ral.constant") != std::string_view::npos && !cursorLocs_.empty() &&
                  cursorLocs_.front() == w.name);
    if (named) {
      weight = &w;
      break;
    }
  }
  if (!weight)
    return;
  std::string shape;
  for (int64_t d : weight->shape)
    shape += (shape.empty() ? "" : "x") + std::to_string(d);
  textColored(IM_COL32(120, 200, 160, 255),
              "weight " + weight->name + ": " + weight->dtype + "[" + shape + "], " +
                  formatBytes(static_cast<double>(weight->bytes)));
  if (ImGui::IsItemHovered()) {
    if (std::isnan(weight->mean))
      ImGui::SetTooltip("no statistics for %s", weight->dtype.c_str());
    else
      ImGui::SetTooltip("min %.4g  max %.4g\nmean %.4g  std %.4g\n%lld zeros", weight->min,
                        weight->max, weight->mean, weight->stddev,
                        static_cast<long long>(weight->zeros));
  }
  ImGui::SameLine();
}

void IrPanel::drawLocBar(ViewModel *vm) {
  if (!doc_)
    return;
  if (cursorLocsFor_ != cursorLine_) { // recomputed only when the cursor moves
    cursorLocsFor_ = cursorLine_;
    cursorLocs_ = cursorLine_ < doc_->lineCount() ? doc_->locationOfLine(cursorLine_)
                                                  : std::vector<std::string>();
    sameLocLines_ = cursorLocs_.empty() ? std::vector<size_t>()
                                        : doc_->linesWithLocation(cursorLocs_.front());
  }
  ImGui::Text("line %zu", cursorLine_ + 1);
  ImGui::SameLine();
  if (vm && vm->compile)
    drawWeightOfLine(vm->compile->result.weights);
  if (cursorLocs_.empty()) {
    ImGui::TextDisabled("no loc");
    return;
  }
  std::string locs;
  for (const std::string &l : cursorLocs_)
    locs += (locs.empty() ? "" : ", ") + l;
  ImGui::TextDisabled("loc:");
  ImGui::SameLine();
  textColored(IM_COL32(230, 190, 100, 255), locs);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("The op's location: an ONNX node name or file:line:col of the source");

  // Jump to the source op: the model's line for file locations of a .mlir model, else the op
  // with this loc in the import snapshot (pass 0).
  if (vm && vm->compile) {
    const std::string &name = cursorLocs_.front();
    std::string file;
    size_t line = 0;
    ImGui::SameLine();
    if (splitFileLoc(name, file, line) && vm->compile->hasSource() &&
        sameFile(file, vm->compile->modelPath)) {
      if (ImGui::SmallButton("source op"))
        vm->showIrLine(kSourcePass, static_cast<int>(line) - 1);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Show line %zu of %s", line, file.c_str());
    } else if (vm->compile->hasSource()) {
      // A named loc of a .mlir model: the op carrying the same loc in the source.
      if (ImGui::SmallButton("source op"))
        vm->showIrLocation(kSourcePass, name);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Show the op with loc '%s' in the model source", name.c_str());
    } else if (vm->compile->passCount() > 0) {
      if (ImGui::SmallButton("source op"))
        vm->showIrLocation(0, name);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Show the op imported from '%s' (pass 0, %s)", name.c_str(),
                          vm->compile->result.snapshots[0].pass.c_str());
    }
  }
  ImGui::SameLine();
  size_t n = sameLocLines_.size();
  auto here = std::lower_bound(sameLocLines_.begin(), sameLocLines_.end(), cursorLine_);
  ImGui::BeginDisabled(n < 2);
  if (ImGui::SmallButton("<##loc_prev") && n > 0)
    gotoLine(here == sameLocLines_.begin() ? sameLocLines_.back() : *std::prev(here));
  ImGui::SameLine();
  if (ImGui::SmallButton(">##loc_next") && n > 0) {
    auto next = std::upper_bound(sameLocLines_.begin(), sameLocLines_.end(), cursorLine_);
    gotoLine(next == sameLocLines_.end() ? sameLocLines_.front() : *next);
  }
  ImGui::EndDisabled();
  ImGui::SameLine();
  char label[64];
  std::snprintf(label, sizeof label, "%zu lines with this loc", n);
  if (ImGui::SmallButton(label))
    ImGui::OpenPopup("same_loc");
  if (ImGui::BeginPopup("same_loc")) {
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(n));
    while (clipper.Step())
      for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
        size_t line = sameLocLines_[i];
        std::string_view l = doc_->line(line);
        size_t lead = l.find_first_not_of(" \t");
        l = lead == std::string_view::npos ? std::string_view() : l.substr(lead, 100);
        std::string item = std::to_string(line + 1) + ": " + std::string(l);
        if (ImGui::Selectable(item.c_str(), line == cursorLine_))
          gotoLine(line);
      }
    ImGui::EndPopup();
  }
}

void IrPanel::drawDocument(const std::shared_ptr<const text::IrDocument> &document,
                           const std::string &title) {
  if (document != doc_)
    setDocument(document);
  pending_ = false;
  drawToolbar(title);
  drawText();
  drawLocBar(nullptr);
}

void IrPanel::draw(ViewModel &vm, Actions &actions) {
  (void)actions;
  if (!vm.compile) {
    ImGui::TextDisabled(vm.compiling ? "compiling..." : "Open a model to see its IR after every pass.");
    return;
  }
  const CompileView &c = *vm.compile;
  int pass = vm.nav.selectedPass;
  auto doc = documents_.get(vm.compile, pass, &pending_);
  if (doc && doc != doc_)
    setDocument(doc);
  if (!doc && !pending_ && doc_)
    setDocument(nullptr);

  // Navigation requests (Log panel, loc jumps) once the right document is shown.
  if (doc && doc == doc_) {
    if (vm.nav.irGotoLine >= 0) {
      gotoLine(static_cast<size_t>(vm.nav.irGotoLine));
      vm.nav.irGotoLine = -1;
    }
    if (!vm.nav.irGotoLocation.empty()) {
      std::vector<size_t> lines = doc_->linesWithLocation(vm.nav.irGotoLocation);
      if (!lines.empty())
        gotoLine(lines.front());
      else
        vm.log.add(LogLevel::Warning, "ir",
                   "no op with loc '" + vm.nav.irGotoLocation + "' after " + c.passLabel(pass));
      vm.nav.irGotoLocation.clear();
    }
  }

  std::string title = c.passLabel(pass);
  if (pass >= 0 && pass < c.passCount()) {
    const compiler::PassSnapshot &s = c.result.snapshots[pass];
    int holder = c.irSource[pass];
    if (!s.changed && !s.failed && holder != pass)
      title += holder == kSourcePass ? "  (unchanged: the source)"
                                     : "  (unchanged: IR of pass " + std::to_string(holder) + ")";
    if (s.failed)
      title += "  (FAILED: generic form)";
  }
  drawToolbar(title);
  drawText();
  drawLocBar(&vm);
}

} // namespace loupe::visualizer
