//===- LineDiffScript.cpp - Normalise, intern, trim, Myers: the edit script -===//

#include "loupe/visualizer/text/IrDocument.h"
#include "loupe/visualizer/text/LineDiff.h"
#include "loupe/visualizer/text/LineNormalizer.h"
#include "loupe/visualizer/text/MyersDiff.h"

#include "LineHash.h"

#include <deque>
#include <unordered_map>

namespace loupe::visualizer::text {

namespace {

/// Maps each distinct (normalised) line to a small integer.
class Interner {
public:
  explicit Interner(size_t expected) { ids_.reserve(expected); }
  /// `line` must outlive the interner.
  uint32_t stable(std::string_view line) {
    return ids_.try_emplace(line, static_cast<uint32_t>(ids_.size())).first->second;
  }
  /// `line` is a temporary: copied when new.
  uint32_t copy(const std::string &line) {
    auto it = ids_.find(line);
    if (it != ids_.end())
      return it->second;
    storage_.push_back(line);
    return ids_.emplace(storage_.back(), static_cast<uint32_t>(ids_.size())).first->second;
  }

private:
  std::unordered_map<std::string_view, uint32_t> ids_;
  std::deque<std::string> storage_;
};

/// True when every pair (i, j) that `r` leaves unmarked satisfies equal(i, j).
template <typename Equal>
bool alignedPairsEqual(const MyersResult &r, size_t n, size_t m, Equal equal) {
  size_t i = 0, j = 0;
  while (true) {
    while (i < n && r.deleted[i])
      ++i;
    while (j < m && r.inserted[j])
      ++j;
    if (i == n || j == m)
      return i == n && j == m;
    if (!equal(i, j))
      return false;
    ++i, ++j;
  }
}

std::vector<std::string_view> linesOf(const IrDocument &doc) {
  std::vector<std::string_view> lines(doc.lineCount());
  for (size_t i = 0; i < lines.size(); ++i)
    lines[i] = doc.line(i);
  return lines;
}

} // namespace

LineDiff LineDiff::compute(const IrDocument &oldDoc, const IrDocument &newDoc,
                           const DiffOptions &options) {
  return compute(linesOf(oldDoc), linesOf(newDoc), options);
}

LineDiff LineDiff::compute(const std::vector<std::string_view> &oldLines,
                           const std::vector<std::string_view> &newLines,
                           const DiffOptions &options) {
  LineDiff diff;
  const bool norm = normalizes(options);

  // 1. The lines that take part in the comparison (original indices).
  auto compared = [&](const std::vector<std::string_view> &lines) {
    std::vector<uint32_t> idx;
    idx.reserve(lines.size());
    for (size_t i = 0; i < lines.size(); ++i)
      if (!isIgnoredLine(lines[i], options))
        idx.push_back(static_cast<uint32_t>(i));
    return idx;
  };
  const std::vector<uint32_t> aIdx = compared(oldLines);
  const std::vector<uint32_t> bIdx = compared(newLines);
  const size_t aN = aIdx.size(), bN = bIdx.size();

  // 2. Trim the common prefix and suffix; raw equality implies normalised equality.
  std::string bufA, bufB;
  auto equal = [&](std::string_view x, std::string_view y) {
    if (x == y)
      return true;
    if (!norm)
      return false;
    normalizeLine(x, options, bufA);
    normalizeLine(y, options, bufB);
    return bufA == bufB;
  };
  size_t pre = 0;
  while (pre < aN && pre < bN && equal(oldLines[aIdx[pre]], newLines[bIdx[pre]]))
    ++pre;
  size_t suf = 0;
  while (suf < aN - pre && suf < bN - pre &&
         equal(oldLines[aIdx[aN - 1 - suf]], newLines[bIdx[bN - 1 - suf]]))
    ++suf;

  // 3. Hash the middle lines and run Myers on the hashes. Every pair Myers aligns is then
  //    checked for real equality; on a hash collision there, rerun with exact interning.
  //    Hashing reads the text sequentially, where interning costs a cache miss per line.
  const size_t aMid = aN - pre - suf, bMid = bN - pre - suf;
  // 32-bit keys: half the memory traffic of 64-bit ones in the search; a collision is caught
  // by the check below.
  auto keyOf = [&](std::string_view line) {
    if (!norm)
      return lineKey32(line);
    normalizeLine(line, options, bufA);
    return lineKey32(bufA);
  };
  std::vector<uint32_t> aKeys(aMid), bKeys(bMid);
  for (size_t k = 0; k < aMid; ++k)
    aKeys[k] = keyOf(oldLines[aIdx[pre + k]]);
  for (size_t k = 0; k < bMid; ++k)
    bKeys[k] = keyOf(newLines[bIdx[pre + k]]);
  MyersResult myers = myersDiff(aKeys.data(), aMid, bKeys.data(), bMid, options.maxCost);
  if (!alignedPairsEqual(myers, aMid, bMid, [&](size_t i, size_t j) {
        return equal(oldLines[aIdx[pre + i]], newLines[bIdx[pre + j]]);
      })) {
    Interner interner(aMid + bMid);
    auto intern = [&](std::string_view line) {
      if (!norm)
        return interner.stable(line);
      normalizeLine(line, options, bufA);
      return interner.copy(bufA);
    };
    std::vector<uint32_t> aIds(aMid), bIds(bMid);
    for (size_t k = 0; k < aMid; ++k)
      aIds[k] = intern(oldLines[aIdx[pre + k]]);
    for (size_t k = 0; k < bMid; ++k)
      bIds[k] = intern(newLines[bIdx[pre + k]]);
    myers = myersDiff(aIds.data(), aMid, bIds.data(), bMid, options.maxCost);
  }
  diff.approximate_ = myers.approximate;
  auto deletedAt = [&](size_t ai) { return ai >= pre && ai < pre + aMid && myers.deleted[ai - pre]; };
  auto insertedAt = [&](size_t bj) { return bj >= pre && bj < pre + bMid && myers.inserted[bj - pre]; };

  // 4. Merge into one script over all lines, ignored lines where they sit.
  std::vector<DiffOp> &ops = diff.ops_;
  ops.reserve(std::max(oldLines.size(), newLines.size()) + 16);
  uint32_t oNext = 0, nNext = 0;
  auto flushOld = [&](size_t upto) {
    for (; oNext < upto; ++oNext)
      ops.push_back(DiffOp{DiffOpKind::Delete, true, oNext, nNext});
  };
  auto flushNew = [&](size_t upto) {
    for (; nNext < upto; ++nNext)
      ops.push_back(DiffOp{DiffOpKind::Insert, true, oNext, nNext});
  };
  size_t ai = 0, bj = 0;
  while (ai < aN || bj < bN) {
    if (ai < aN && (deletedAt(ai) || bj == bN)) {
      flushOld(aIdx[ai]);
      ops.push_back(DiffOp{DiffOpKind::Delete, false, aIdx[ai], nNext});
      oNext = aIdx[ai++] + 1;
      ++diff.deleted_;
    } else if (bj < bN && (insertedAt(bj) || ai == aN)) {
      flushNew(bIdx[bj]);
      ops.push_back(DiffOp{DiffOpKind::Insert, false, oNext, bIdx[bj]});
      nNext = bIdx[bj++] + 1;
      ++diff.inserted_;
    } else {
      flushOld(aIdx[ai]);
      flushNew(bIdx[bj]);
      ops.push_back(DiffOp{DiffOpKind::Equal, false, aIdx[ai], bIdx[bj]});
      oNext = aIdx[ai++] + 1;
      nNext = bIdx[bj++] + 1;
    }
  }
  flushOld(oldLines.size());
  flushNew(newLines.size());

  diff.buildHunks(options.context);
  diff.buildRows(options.collapseUnchanged);
  return diff;
}

} // namespace loupe::visualizer::text
