//===- IrPanel.h - The IR after the selected pass -----------------*- C++ -*-===//
//
// Shows a text::IrDocument: syntax colours (tokens of the drawn lines only, cached by the
// document), line numbers, fold markers, search (next/previous, every match on screen
// highlighted), fold/unfold, and the `loc` of the selected line: its source op or ONNX node,
// jump to the source line (.mlir models), and the other lines with the same loc.
//
// Cost per frame is independent of the document's size: an ImGuiListClipper runs over the
// visible (unfolded) rows, each mapped to its document line by the FoldState (O(log folds)),
// and each drawn line costs its tokens' AddText calls. Nothing is laid out for lines off screen.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_PANELS_IRPANEL_H
#define LOUPE_VISUALIZER_PANELS_IRPANEL_H

#include "loupe/visualizer/Actions.h"
#include "loupe/visualizer/DocumentCache.h"
#include "loupe/visualizer/ViewModel.h"
#include "loupe/visualizer/text/FoldState.h"
#include "loupe/visualizer/text/IrDocument.h"

#include <imgui.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace loupe::visualizer {

class IrPanel {
public:
  explicit IrPanel(DocumentCache &documents) : documents_(documents) {}

  /// Draws the IR after vm.nav.selectedPass into the current window.
  void draw(ViewModel &vm, Actions &actions);
  /// Draws `document` alone (benchmarks, tests): toolbar, text and loc bar, no view model.
  void drawDocument(const std::shared_ptr<const text::IrDocument> &document, const std::string &title);

  // --- State and commands (what the toolbar and keys do) -----------------------------------
  const std::shared_ptr<const text::IrDocument> &document() const { return doc_; }
  /// Document line (0-based) of the cursor.
  size_t cursorLine() const { return cursorLine_; }
  /// Puts the cursor on `line`, unfolds what hides it and scrolls it into view.
  void gotoLine(size_t line);
  void setSearch(std::string query) { search_ = std::move(query); matchesFor_.reset(); }
  const std::string &search() const { return search_; }
  void setCaseSensitive(bool on) { caseSensitive_ = on; matchesFor_.reset(); }
  /// Moves to the next/previous match from the cursor (wrapping); false when none.
  bool findNext(bool forward = true);
  /// Total matches of the search in the document (capped at 100000), -1 when no search.
  long matchCount();
  text::FoldState &folds() { return folds_; }
  void foldAll() { folds_.foldAll(); }
  void unfoldAll() { folds_.unfoldAll(); }
  /// Scrolls so that visible row `row` is at the top (bench: the middle of a document).
  void scrollToRow(size_t row) { scrollRequest_ = row; }
  /// Rows drawn by the last frame (the clipper's visible range).
  int lastDrawnRows() const { return drawnRows_; }
  /// First visible row drawn in the last frame.
  size_t lastFirstRow() const { return firstRow_; }
  /// Location names of the cursor line (empty when it has none).
  const std::vector<std::string> &cursorLocations() const { return cursorLocs_; }

private:
  void setDocument(const std::shared_ptr<const text::IrDocument> &doc);
  void drawToolbar(const std::string &title);
  void drawText();
  void drawLocBar(ViewModel *vm);
  void drawWeightOfLine(const std::vector<compiler::WeightSummary> &weights);
  void drawLine(ImDrawList *dl, size_t line, ImVec2 pos, float charW, float clipRight);

  DocumentCache &documents_;
  std::shared_ptr<const text::IrDocument> doc_;
  text::FoldState folds_;
  size_t maxColumns_ = 0;
  size_t cursorLine_ = 0;
  size_t cursorCol_ = 0;
  std::optional<size_t> scrollRequest_;   ///< Visible row to bring to the top.
  bool scrollCursorIntoView_ = false;
  std::string search_;
  bool caseSensitive_ = false;
  bool focusSearch_ = false;
  std::optional<text::TextMatch> currentMatch_;
  std::optional<std::pair<const text::IrDocument *, std::string>> matchesFor_;
  long matchCount_ = -1;
  bool matchesTruncated_ = false;
  std::vector<std::string> cursorLocs_;
  size_t cursorLocsFor_ = static_cast<size_t>(-1);
  std::vector<size_t> sameLocLines_;
  int drawnRows_ = 0;
  size_t firstRow_ = 0;
  int shownPass_ = kNoPass;
  const CompileView *shownCompile_ = nullptr;
  bool pending_ = false;
};

} // namespace loupe::visualizer

#endif // LOUPE_VISUALIZER_PANELS_IRPANEL_H
