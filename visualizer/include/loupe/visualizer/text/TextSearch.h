//===- TextSearch.h - Find a plain string in a large text -------------*- C++ -*-===//
//
// Horspool's variant of Boyer-Moore (R. N. Horspool, "Practical fast searching in strings",
// Software: Practice and Experience 10(6), 1980) over the whole text buffer, forwards or
// backwards, with an ASCII case fold. Sublinear on average (about n / query length byte
// inspections), O(n * m) worst case. Matches never span lines.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_TEXT_TEXTSEARCH_H
#define LOUPE_VISUALIZER_TEXT_TEXTSEARCH_H

#include "loupe/visualizer/text/LineIndex.h"

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace loupe::visualizer::text {

/// A match: `length` bytes at byte `column` of `line` (0-based).
struct TextMatch {
  size_t line = 0;
  size_t column = 0;
  size_t length = 0;
  bool operator==(const TextMatch &o) const {
    return line == o.line && column == o.column && length == o.length;
  }
};

struct FindAllResult {
  std::vector<TextMatch> matches; ///< Non-overlapping, in text order, at most the cap.
  bool truncated = false;         ///< More matches exist than were returned.
};

/// The next match of `query` from the cursor (fromLine, fromCol), wrapping around the end:
/// forward, the first match starting at or after the cursor, else the first in the text;
/// backward, the last match starting before the cursor, else the last in the text.
/// A column past the end of its line means the end of that line. nullopt when there is no
/// match, the query is empty or holds a line break. caseSensitive=false folds ASCII only.
/// Time: proportional to the distance scanned (at most the whole text once).
std::optional<TextMatch> findNext(std::string_view text, const LineIndex &lines,
                                  std::string_view query, size_t fromLine, size_t fromCol,
                                  bool forward, bool caseSensitive);

/// Every non-overlapping match, stopping after `maxMatches` (then truncated = true). O(n).
FindAllResult findAll(std::string_view text, const LineIndex &lines, std::string_view query,
                      bool caseSensitive, size_t maxMatches);

/// Columns of the non-overlapping matches in one line (to highlight the lines on screen).
std::vector<size_t> findInLine(std::string_view line, std::string_view query, bool caseSensitive);

} // namespace loupe::visualizer::text

#endif // LOUPE_VISUALIZER_TEXT_TEXTSEARCH_H
