//===- FoldState.cpp - Folded regions and the visible-line mapping ----------===//

#include "loupe/visualizer/text/FoldState.h"

#include <algorithm>

namespace loupe::visualizer::text {

FoldState::FoldState(std::vector<FoldRegion> regions, size_t lineCount)
    : regions_(std::move(regions)), folded_(regions_.size(), 0), lineCount_(lineCount) {}

std::optional<size_t> FoldState::regionStartingAt(size_t line) const {
  auto it = std::lower_bound(regions_.begin(), regions_.end(), line,
                             [](const FoldRegion &r, size_t l) { return r.startLine < l; });
  if (it == regions_.end() || it->startLine != line)
    return std::nullopt;
  return static_cast<size_t>(it - regions_.begin());
}

bool FoldState::isFolded(size_t startLine) const {
  auto r = regionStartingAt(startLine);
  return r && folded_[*r];
}

bool FoldState::fold(size_t startLine) {
  auto r = regionStartingAt(startLine);
  if (!r)
    return false;
  if (!folded_[*r]) {
    folded_[*r] = 1;
    rebuild();
  }
  return true;
}

bool FoldState::unfold(size_t startLine) {
  auto r = regionStartingAt(startLine);
  if (!r)
    return false;
  if (folded_[*r]) {
    folded_[*r] = 0;
    rebuild();
  }
  return true;
}

bool FoldState::toggle(size_t startLine) {
  auto r = regionStartingAt(startLine);
  if (!r)
    return false;
  folded_[*r] = !folded_[*r];
  rebuild();
  return true;
}

void FoldState::foldDepth(uint32_t depth) {
  for (size_t i = 0; i < regions_.size(); ++i)
    if (regions_[i].depth == depth)
      folded_[i] = 1;
  rebuild();
}

void FoldState::foldAll() {
  std::fill(folded_.begin(), folded_.end(), 1);
  rebuild();
}

void FoldState::unfoldAll() {
  std::fill(folded_.begin(), folded_.end(), 0);
  rebuild();
}

bool FoldState::reveal(size_t line) {
  bool changed = false;
  for (size_t i = 0; i < regions_.size() && regions_[i].startLine < line; ++i) {
    if (folded_[i] && regions_[i].firstHidden() <= line && line <= regions_[i].lastHidden()) {
      folded_[i] = 0;
      changed = true;
    }
  }
  if (changed)
    rebuild();
  return changed;
}

void FoldState::rebuild() {
  hidden_.clear();
  hiddenTotal_ = 0;
  for (size_t i = 0; i < regions_.size(); ++i) {
    if (!folded_[i])
      continue;
    const FoldRegion &r = regions_[i];
    if (r.lastHidden() >= lineCount_ || r.firstHidden() > r.lastHidden())
      continue; // stale region for another document: ignore
    if (!hidden_.empty() && r.firstHidden() <= hidden_.back().last)
      continue; // nested in a folded region (regions nest properly)
    hidden_.push_back(HiddenRange{r.firstHidden(), r.lastHidden(), hiddenTotal_});
    hiddenTotal_ += r.lastHidden() - r.firstHidden() + 1;
  }
}

bool FoldState::isHidden(size_t line) const {
  auto it = std::upper_bound(hidden_.begin(), hidden_.end(), line,
                             [](size_t l, const HiddenRange &h) { return l < h.first; });
  return it != hidden_.begin() && line <= std::prev(it)->last;
}

size_t FoldState::visibleToDocumentLine(size_t v) const {
  // Range j ends before the document line v + (hidden lines up to j) when its first line's
  // would-be visible row (first - hiddenBefore) is <= v.
  auto it = std::upper_bound(hidden_.begin(), hidden_.end(), v, [](size_t row, const HiddenRange &h) {
    return row < h.first - h.hiddenBefore;
  });
  if (it == hidden_.begin())
    return v;
  const HiddenRange &h = *std::prev(it);
  return v + h.hiddenBefore + (h.last - h.first + 1);
}

size_t FoldState::documentToVisibleLine(size_t d) const {
  auto it = std::upper_bound(hidden_.begin(), hidden_.end(), d,
                             [](size_t l, const HiddenRange &h) { return l < h.first; });
  if (it == hidden_.begin())
    return d;
  const HiddenRange &h = *std::prev(it);
  if (d <= h.last) // hidden: the `{` line just above the range
    return (h.first - 1) - h.hiddenBefore;
  return d - h.hiddenBefore - (h.last - h.first + 1);
}

} // namespace loupe::visualizer::text
