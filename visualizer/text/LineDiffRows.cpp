//===- LineDiffRows.cpp - Hunks, side-by-side and unified rows, navigation --===//

#include "loupe/visualizer/text/LineDiff.h"

#include <algorithm>
#include <cstdio>

namespace loupe::visualizer::text {

static bool isChange(const DiffOp &op) { return op.kind != DiffOpKind::Equal && !op.ignored; }

void LineDiff::buildHunks(size_t context) {
  const size_t n = ops_.size();
  // equalBefore[p]: Equal ops in ops_[0, p).
  std::vector<size_t> equalBefore(n + 1, 0);
  for (size_t p = 0; p < n; ++p)
    equalBefore[p + 1] = equalBefore[p] + (ops_[p].kind == DiffOpKind::Equal);

  auto close = [&](size_t first, size_t last) {
    size_t begin = first;
    for (size_t k = 0; begin > 0 && k < context;)
      k += ops_[--begin].kind == DiffOpKind::Equal;
    size_t end = last + 1;
    for (size_t k = 0; end < n && k < context; ++end)
      k += ops_[end].kind == DiffOpKind::Equal;
    DiffHunk h;
    h.opBegin = begin;
    h.opEnd = end;
    h.oldBegin = ops_[begin].oldLine;
    h.newBegin = ops_[begin].newLine;
    for (size_t p = begin; p < end; ++p) {
      const DiffOp &op = ops_[p];
      h.oldCount += op.kind != DiffOpKind::Insert;
      h.newCount += op.kind != DiffOpKind::Delete;
      h.deleted += op.kind == DiffOpKind::Delete && !op.ignored;
      h.inserted += op.kind == DiffOpKind::Insert && !op.ignored;
    }
    hunks_.push_back(h);
  };

  size_t first = n, last = n;
  for (size_t p = 0; p < n; ++p) {
    if (!isChange(ops_[p]))
      continue;
    if (first == n) {
      first = last = p;
    } else if (equalBefore[p] - equalBefore[last + 1] <= 2 * context) {
      last = p;
    } else {
      close(first, last);
      first = last = p;
    }
  }
  if (first != n)
    close(first, last);
}

void LineDiff::buildRows(bool collapse) {
  const size_t n = ops_.size();
  sideBySide_.reserve(n);
  unified_.reserve(n);
  hunkRowSideBySide_.assign(hunks_.size(), 0);
  hunkRowUnified_.assign(hunks_.size(), 0);
  std::vector<uint8_t> seenSide(hunks_.size(), 0), seenUnified(hunks_.size(), 0);

  auto add = [&](std::vector<DiffRow> &rows, std::vector<size_t> &firstRow,
                 std::vector<uint8_t> &seen, DiffRow row) {
    if (row.hunk >= 0 && !seen[row.hunk] &&
        (row.kind == DiffRowKind::Changed || row.kind == DiffRowKind::Deleted ||
         row.kind == DiffRowKind::Inserted)) {
      seen[row.hunk] = 1;
      firstRow[row.hunk] = rows.size();
    }
    rows.push_back(row);
  };
  auto addSide = [&](DiffRow r) { add(sideBySide_, hunkRowSideBySide_, seenSide, r); };
  auto addUnified = [&](DiffRow r) { add(unified_, hunkRowUnified_, seenUnified, r); };

  auto emit = [&](size_t begin, size_t end, int32_t hunk) {
    for (size_t p = begin; p < end; ++p) {
      const DiffOp &op = ops_[p];
      DiffRow r;
      r.hunk = hunk;
      if (op.kind == DiffOpKind::Equal) {
        r.oldLine = static_cast<int32_t>(op.oldLine);
        r.newLine = static_cast<int32_t>(op.newLine);
        r.kind = DiffRowKind::Equal;
      } else if (op.kind == DiffOpKind::Delete) {
        r.oldLine = static_cast<int32_t>(op.oldLine);
        r.kind = op.ignored ? DiffRowKind::Ignored : DiffRowKind::Deleted;
      } else {
        r.newLine = static_cast<int32_t>(op.newLine);
        r.kind = op.ignored ? DiffRowKind::Ignored : DiffRowKind::Inserted;
      }
      addUnified(r);
    }
    // Side by side: pair the deletions and insertions of each block.
    std::vector<int32_t> dels, ins;
    for (size_t p = begin; p < end;) {
      const DiffOp &op = ops_[p];
      if (op.kind == DiffOpKind::Equal) {
        DiffRow r;
        r.oldLine = static_cast<int32_t>(op.oldLine);
        r.newLine = static_cast<int32_t>(op.newLine);
        r.hunk = hunk;
        addSide(r);
        ++p;
        continue;
      }
      dels.clear();
      ins.clear();
      const bool ignored = op.ignored;
      for (; p < end && ops_[p].kind != DiffOpKind::Equal && ops_[p].ignored == ignored; ++p) {
        if (ops_[p].kind == DiffOpKind::Delete)
          dels.push_back(static_cast<int32_t>(ops_[p].oldLine));
        else
          ins.push_back(static_cast<int32_t>(ops_[p].newLine));
      }
      for (size_t k = 0; k < std::max(dels.size(), ins.size()); ++k) {
        DiffRow r;
        r.hunk = hunk;
        r.oldLine = k < dels.size() ? dels[k] : -1;
        r.newLine = k < ins.size() ? ins[k] : -1;
        r.kind = ignored                                ? DiffRowKind::Ignored
                 : (r.oldLine >= 0 && r.newLine >= 0) ? DiffRowKind::Changed
                 : r.oldLine >= 0                      ? DiffRowKind::Deleted
                                                       : DiffRowKind::Inserted;
        addSide(r);
      }
    }
  };

  size_t p = 0;
  for (size_t h = 0; p < n || h < hunks_.size();) {
    if (h < hunks_.size() && p == hunks_[h].opBegin) {
      emit(p, hunks_[h].opEnd, static_cast<int32_t>(h));
      p = hunks_[h++].opEnd;
      continue;
    }
    size_t end = h < hunks_.size() ? hunks_[h].opBegin : n;
    if (collapse && end > p) {
      DiffRow r;
      r.oldLine = static_cast<int32_t>(ops_[p].oldLine);
      r.newLine = static_cast<int32_t>(ops_[p].newLine);
      r.count = static_cast<uint32_t>(end - p);
      r.kind = DiffRowKind::Skipped;
      addSide(r);
      addUnified(r);
    } else {
      emit(p, end, -1);
    }
    p = end;
  }
}

size_t LineDiff::hunkRow(DiffLayout layout, size_t h) const {
  return layout == DiffLayout::SideBySide ? hunkRowSideBySide_[h] : hunkRowUnified_[h];
}

std::optional<size_t> LineDiff::nextHunk(DiffLayout layout, size_t row) const {
  const std::vector<size_t> &first =
      layout == DiffLayout::SideBySide ? hunkRowSideBySide_ : hunkRowUnified_;
  auto it = std::upper_bound(first.begin(), first.end(), row);
  if (it == first.end())
    return std::nullopt;
  return *it;
}

std::optional<size_t> LineDiff::previousHunk(DiffLayout layout, size_t row) const {
  const std::vector<size_t> &first =
      layout == DiffLayout::SideBySide ? hunkRowSideBySide_ : hunkRowUnified_;
  auto it = std::lower_bound(first.begin(), first.end(), row);
  if (it == first.begin())
    return std::nullopt;
  return *std::prev(it);
}

std::string LineDiff::hunkHeader(size_t h) const {
  const DiffHunk &k = hunks_[h];
  // Unified diff: 1-based first line; an empty range names the line before it.
  unsigned oldStart = k.oldCount ? k.oldBegin + 1 : k.oldBegin;
  unsigned newStart = k.newCount ? k.newBegin + 1 : k.newBegin;
  char buf[96];
  std::snprintf(buf, sizeof buf, "@@ -%u,%u +%u,%u @@", oldStart, k.oldCount, newStart,
                k.newCount);
  return buf;
}

} // namespace loupe::visualizer::text
