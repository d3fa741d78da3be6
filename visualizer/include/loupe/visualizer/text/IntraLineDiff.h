//===- IntraLineDiff.h - Changed spans inside a replaced line --------*- C++ -*-===//
#ifndef LOUPE_VISUALIZER_TEXT_INTRALINEDIFF_H
#define LOUPE_VISUALIZER_TEXT_INTRALINEDIFF_H

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace loupe::visualizer::text {

/// Bytes [begin, end) of a line.
struct ByteSpan {
  uint32_t begin = 0;
  uint32_t end = 0;
  bool operator==(const ByteSpan &o) const { return begin == o.begin && end == o.end; }
};

struct IntraLineDiff {
  std::vector<ByteSpan> oldChanged; ///< Sorted, disjoint, merged when adjacent.
  std::vector<ByteSpan> newChanged;
};

/// Word-level diff of a Changed row's two lines: both are split into words (runs of
/// `[A-Za-z0-9_.$]`, with a leading `%`, `^`, `#`, `@` or `!` sigil), runs of spaces, and
/// single other characters, then diffed with myersDiff. When the work exceeds `maxCost` the
/// leftover parts are marked wholly changed. O((W1 + W2) * D) for W words; the panel calls it
/// for the Changed rows on screen and caches the answer.
IntraLineDiff intraLineDiff(std::string_view oldLine, std::string_view newLine,
                            uint64_t maxCost = 200'000);

} // namespace loupe::visualizer::text

#endif // LOUPE_VISUALIZER_TEXT_INTRALINEDIFF_H
