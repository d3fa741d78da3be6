//===- DiffPanel.h - IR after pass A vs after pass B ---------------*- C++ -*-===//
//
// A line diff (text::LineDiff: Myers with hunks and row models) of two snapshots, side by side
// or unified, with changed-line backgrounds, word-level highlights inside changed lines
// (text::intraLineDiff, computed for the rows on screen and cached), next/previous hunk, and
// the toggles "ignore SSA value names", "ignore locations", "ignore whitespace" and "only
// changes". B defaults to the selected pass and A to the pass before it. With two runs
// compared, "across compiles" diffs the same pass of the two runs' compiles instead (what a
// regressed row of the Compare panel opens on its first differing pass). Large diffs are
// computed on the text worker; the panel keeps drawing meanwhile.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_PANELS_DIFFPANEL_H
#define LOUPE_VISUALIZER_PANELS_DIFFPANEL_H

#include "loupe/visualizer/Actions.h"
#include "loupe/visualizer/DocumentCache.h"
#include "loupe/visualizer/Style.h"
#include "loupe/visualizer/ViewModel.h"
#include "loupe/visualizer/text/IntraLineDiff.h"
#include "loupe/visualizer/text/LineDiff.h"

#include <map>
#include <memory>
#include <optional>

namespace loupe::visualizer {

class DiffPanel {
public:
  /// Documents whose line counts add up to less than this are diffed on the UI thread.
  static constexpr size_t kSyncLines = 20000;

  explicit DiffPanel(DocumentCache &documents) : documents_(documents) {}

  void draw(ViewModel &vm, Actions &actions);
  /// Diffs two documents and draws them without a view model (benchmarks, tests).
  void drawDocuments(const std::shared_ptr<const text::IrDocument> &a,
                     const std::shared_ptr<const text::IrDocument> &b, const std::string &titleA,
                     const std::string &titleB);

  void setLayout(text::DiffLayout layout) { layout_ = layout; }
  text::DiffLayout layout() const { return layout_; }
  void setOptions(const text::DiffOptions &options) { options_ = options; }
  const text::DiffOptions &options() const { return options_; }

  /// The diff shown (null before the first one is ready).
  const std::shared_ptr<const text::LineDiff> &diff() const { return diff_; }
  /// True while a diff for the current inputs is being computed.
  bool computing() const { return computing_; }
  size_t hunkCount() const { return diff_ ? diff_->hunks().size() : 0; }
  /// Index of the hunk the cursor row is in or after, -1 before the first.
  int currentHunk() const;
  /// Moves to the next/previous hunk (wrapping); false when there is none.
  bool nextHunk();
  bool previousHunk();
  /// Row (in the current layout) the cursor is on.
  size_t cursorRow() const { return cursorRow_; }
  int lastDrawnRows() const { return drawnRows_; }
  /// Passes of the last diff requested by draw(vm).
  int passA() const { return passA_; }
  int passB() const { return passB_; }
  /// The "across compiles" mode button (drawn when two runs are compared).
  ScreenRect modeRect() const { return modeRect_; }

private:
  struct Key {
    const text::IrDocument *a = nullptr;
    const text::IrDocument *b = nullptr;
    bool ssa = false, locs = false, ws = false, collapse = false;
    bool operator==(const Key &o) const {
      return a == o.a && b == o.b && ssa == o.ssa && locs == o.locs && ws == o.ws &&
             collapse == o.collapse;
    }
  };
  /// This compile's passes vs the compared runs' compiles; true for the latter.
  bool drawModePicker(ViewModel &vm);
  /// The same pass of the two compared runs' compiles (ViewModel::crossCompile).
  void drawAcross(ViewModel &vm, Actions &actions);
  void request(const std::shared_ptr<const text::IrDocument> &a,
               const std::shared_ptr<const text::IrDocument> &b);
  void drawToolbar();
  void drawRows();
  const text::IntraLineDiff &intra(size_t row);
  void scrollTo(size_t row);

  DocumentCache &documents_;
  text::DiffLayout layout_ = text::DiffLayout::SideBySide;
  text::DiffOptions options_;
  std::shared_ptr<const text::IrDocument> docA_, docB_;
  std::shared_ptr<const text::LineDiff> diff_;
  Key shownKey_, wantedKey_;
  bool computing_ = false;
  uint64_t requestSerial_ = 0;
  std::map<size_t, text::IntraLineDiff> intraCache_;
  text::DiffLayout intraLayout_ = text::DiffLayout::SideBySide;
  size_t maxColumns_ = 0; ///< Widest line of the two documents, in columns.
  size_t cursorRow_ = 0;
  std::optional<size_t> scrollRequest_;
  int drawnRows_ = 0;
  int passA_ = kNoPass, passB_ = kNoPass;
  ScreenRect modeRect_;
  std::string titleA_, titleB_;
};

} // namespace loupe::visualizer

#endif // LOUPE_VISUALIZER_PANELS_DIFFPANEL_H
