//===- TextSearch.cpp - Horspool search, forwards and backwards -------------===//

#include "loupe/visualizer/text/TextSearch.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace loupe::visualizer::text {

namespace {

/// A query prepared for Horspool search in both directions. The shift is looked up by the
/// bigram at the window's edge (as glibc's memmem does) rather than by one byte: the common
/// bytes of IR (spaces, `%`, `(`) would otherwise allow only short shifts.
class Pattern {
public:
  /// Prepares the shift table of one direction only (each costs a 4 KiB fill).
  Pattern(std::string_view query, bool caseSensitive, bool forward) {
    for (int c = 0; c < 256; ++c)
      fold_[c] = static_cast<unsigned char>(
          !caseSensitive && c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    pattern_.reserve(query.size());
    for (char c : query)
      pattern_.push_back(fold_[static_cast<unsigned char>(c)]);
    const size_t m = pattern_.size();
    if (m < 2)
      return;
    // Shifts are capped at 255 (a shorter shift is always safe), so tables are bytes.
    far_ = static_cast<uint8_t>(std::min<size_t>(m - 1, 255));
    auto cap = [](size_t v) { return static_cast<uint8_t>(std::min<size_t>(v, 255)); };
    shift_.fill(far_);
    if (forward) {
      // Bigram ending at pattern position j (1 <= j <= m-1) -> shift m-1-j; the last bigram
      // gets 0 (verify), and after a verification the window moves by its previous
      // occurrence's shift. Absent bigrams shift by m-1 (the last byte may start a match).
      for (size_t j = 1; j + 1 < m; ++j)
        shift_[hash(pattern_[j - 1], pattern_[j])] = cap(m - 1 - j);
      const size_t last = hash(pattern_[m - 2], pattern_[m - 1]);
      afterMatch_ = shift_[last];
      shift_[last] = 0;
    } else {
      // Mirrored: bigram starting at position j (0 <= j <= m-2) -> shift j.
      for (size_t j = m - 2; j >= 1; --j)
        shift_[hash(pattern_[j], pattern_[j + 1])] = cap(j);
      const size_t first = hash(pattern_[0], pattern_[1]);
      afterMatch_ = shift_[first];
      shift_[first] = 0;
    }
  }

  size_t size() const { return pattern_.size(); }

  /// First match starting in [from, to - m], or npos.
  size_t forward(std::string_view s, size_t from, size_t to) const {
    const size_t m = pattern_.size();
    const unsigned char *t = reinterpret_cast<const unsigned char *>(s.data());
    if (m == 1) {
      for (size_t i = from; i < to; ++i)
        if (fold_[t[i]] == pattern_[0])
          return i;
      return std::string_view::npos;
    }
    const size_t far = far_;
    for (size_t i = from; i + m <= to;) {
      size_t shift = shift_[hash(fold_[t[i + m - 2]], fold_[t[i + m - 1]])];
      // Most windows end in a bigram absent from the query: jump by the constant m-1, so the
      // next load does not wait for this one (glibc's memmem does the same).
      while (shift == far) {
        i += far;
        if (i + m > to)
          return std::string_view::npos;
        shift = shift_[hash(fold_[t[i + m - 2]], fold_[t[i + m - 1]])];
      }
      if (shift) {
        i += shift;
        continue;
      }
      if (matchesAt(t, i))
        return i;
      i += afterMatch_;
    }
    return std::string_view::npos;
  }

  /// Last match starting in [from, to) that fits in s, or npos.
  size_t backward(std::string_view s, size_t from, size_t to) const {
    const size_t m = pattern_.size();
    const unsigned char *t = reinterpret_cast<const unsigned char *>(s.data());
    if (s.size() < m || to <= from)
      return std::string_view::npos;
    const size_t far = far_;
    for (size_t i = std::min(to - 1, s.size() - m) + 1; i-- > from;) {
      if (m == 1) {
        if (fold_[t[i]] == pattern_[0])
          return i;
        continue;
      }
      size_t shift = shift_[hash(fold_[t[i]], fold_[t[i + 1]])];
      while (shift == far) { // as in forward()
        if (i < from + far)
          return std::string_view::npos;
        i -= far;
        shift = shift_[hash(fold_[t[i]], fold_[t[i + 1]])];
      }
      if (shift == 0) {
        if (matchesAt(t, i))
          return i;
        shift = afterMatch_;
      }
      if (i < from + shift)
        return std::string_view::npos;
      i -= shift - 1; // the loop's i-- takes the last step
    }
    return std::string_view::npos;
  }

private:
  static size_t hash(unsigned char a, unsigned char b) { return ((a << 4) ^ b) & 0xFFF; }
  bool matchesAt(const unsigned char *t, size_t i) const {
    for (size_t j = pattern_.size(); j-- > 0;)
      if (fold_[t[i + j]] != pattern_[j])
        return false;
    return true;
  }

  std::array<unsigned char, 256> fold_{};
  std::array<uint8_t, 4096> shift_{};
  size_t far_ = 1;
  size_t afterMatch_ = 1;
  std::vector<unsigned char> pattern_;
};

bool searchable(std::string_view query) {
  return !query.empty() && query.find_first_of("\r\n") == std::string_view::npos;
}

TextMatch toMatch(std::string_view text, const LineIndex &lines, size_t offset, size_t length) {
  (void)text;
  size_t line = lines.lineAtOffset(offset);
  return TextMatch{line, offset - lines.lineStart(line), length};
}

} // namespace

std::optional<TextMatch> findNext(std::string_view text, const LineIndex &lines,
                                  std::string_view query, size_t fromLine, size_t fromCol,
                                  bool forward, bool caseSensitive) {
  if (!searchable(query) || lines.lineCount() == 0)
    return std::nullopt;
  Pattern p(query, caseSensitive, forward);
  size_t cursor = text.size();
  if (fromLine < lines.lineCount())
    cursor = lines.lineStart(fromLine) + std::min(fromCol, lines.line(text, fromLine).size());
  size_t at;
  if (forward) {
    at = p.forward(text, cursor, text.size());
    if (at == std::string_view::npos) // wrap: matches starting before the cursor
      at = p.forward(text, 0, std::min(text.size(), cursor + p.size() - 1));
  } else {
    at = p.backward(text, 0, cursor);
    if (at == std::string_view::npos)
      at = p.backward(text, cursor, text.size());
  }
  if (at == std::string_view::npos)
    return std::nullopt;
  return toMatch(text, lines, at, p.size());
}

FindAllResult findAll(std::string_view text, const LineIndex &lines, std::string_view query,
                      bool caseSensitive, size_t maxMatches) {
  FindAllResult result;
  if (!searchable(query))
    return result;
  Pattern p(query, caseSensitive, true);
  for (size_t at = p.forward(text, 0, text.size()); at != std::string_view::npos;
       at = p.forward(text, at + p.size(), text.size())) {
    if (result.matches.size() == maxMatches) {
      result.truncated = true;
      break;
    }
    result.matches.push_back(toMatch(text, lines, at, p.size()));
  }
  return result;
}

std::vector<size_t> findInLine(std::string_view line, std::string_view query, bool caseSensitive) {
  std::vector<size_t> columns;
  if (!searchable(query))
    return columns;
  Pattern p(query, caseSensitive, true);
  for (size_t at = p.forward(line, 0, line.size()); at != std::string_view::npos;
       at = p.forward(line, at + p.size(), line.size()))
    columns.push_back(at);
  return columns;
}

} // namespace loupe::visualizer::text
