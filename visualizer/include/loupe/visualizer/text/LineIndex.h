//===- LineIndex.h - Byte offsets of the lines of a text -------------*- C++ -*-===//
#ifndef LOUPE_VISUALIZER_TEXT_LINEINDEX_H
#define LOUPE_VISUALIZER_TEXT_LINEINDEX_H

#include <cstddef>
#include <string_view>
#include <vector>

namespace loupe::visualizer::text {

/// The start offset of every line of a text, built once in O(n) bytes (memchr for '\n').
/// Lines end at '\n'; a trailing "\r" is not part of a line; a final '\n' does not start an
/// extra empty line, so "a\nb\n" and "a\nb" both have 2 lines and "" has 0. Does not own the text.
class LineIndex {
public:
  LineIndex() = default;
  explicit LineIndex(std::string_view text);

  size_t lineCount() const { return starts_.size(); }
  /// Line i without its line terminator; i < lineCount(). O(1).
  std::string_view line(std::string_view text, size_t i) const;
  /// Byte offset of the first character of line i; lineStart(lineCount()) is the text size.
  size_t lineStart(size_t i) const { return i < starts_.size() ? starts_[i] : textSize_; }
  /// The line holding byte `offset` (a '\n' belongs to the line it ends). O(log lines).
  size_t lineAtOffset(size_t offset) const;

private:
  std::vector<size_t> starts_;
  size_t textSize_ = 0;
};

} // namespace loupe::visualizer::text

#endif // LOUPE_VISUALIZER_TEXT_LINEINDEX_H
