//===- LineNormalizer.cpp - Rename SSA names, drop locs and whitespace ------===//

#include "loupe/visualizer/text/LineNormalizer.h"

#include "loupe/visualizer/text/Location.h"

#include "Lexing.h"

#include <array>
#include <cstdint>
#include <vector>

namespace loupe::visualizer::text {

using namespace lex;

bool isIgnoredLine(std::string_view line, const DiffOptions &options) {
  return options.ignoreLocations && !line.empty() && line[0] == '#' &&
         parseLocAliasDefinition(line).has_value();
}

namespace {

/// Names seen so far in a line, per sigil; the index is the placeholder number. No allocation
/// for lines with up to 32 names.
class NameNumbering {
public:
  size_t number(char sigil, std::string_view name) {
    size_t next = 0;
    for (size_t i = 0; i < size_; ++i) {
      const Entry &e = at(i);
      if (e.sigil != sigil)
        continue;
      if (e.name() == name)
        return e.number;
      ++next;
    }
    Entry e{sigil, static_cast<uint32_t>(next), name.data(), name.size()};
    if (size_ < kInline)
      inline_[size_] = e;
    else
      overflow_.push_back(e);
    ++size_;
    return next;
  }

private:
  struct Entry { // trivial: the inline array is not zeroed per line
    char sigil;
    uint32_t number;
    const char *data;
    size_t size;
    std::string_view name() const { return {data, size}; }
  };
  static constexpr size_t kInline = 32;
  const Entry &at(size_t i) const { return i < kInline ? inline_[i] : overflow_[i - kInline]; }
  Entry inline_[kInline];
  std::vector<Entry> overflow_;
  size_t size_ = 0;
};

void appendNumber(std::string &out, size_t n) {
  char buf[24];
  size_t len = 0;
  do {
    buf[len++] = static_cast<char>('0' + n % 10);
    n /= 10;
  } while (n);
  while (len)
    out += buf[--len];
}

/// End of the `loc(...)` group starting at pos (balanced, strings skipped), or npos.
size_t locGroupEnd(std::string_view s, size_t pos) {
  int depth = 0;
  for (size_t i = pos + 3; i < s.size(); ++i) {
    char c = s[i];
    if (c == '"')
      i = scanString(s, i, true) - 1;
    else if (c == '(')
      ++depth;
    else if (c == ')' && --depth == 0)
      return i + 1;
  }
  return std::string_view::npos;
}

using ByteClasses = std::array<uint8_t, 256>;

/// Bytes that may start something normalizeLine rewrites, for one combination of options.
constexpr ByteClasses makeClasses(int flags) {
  ByteClasses c{};
  c['"'] = 1;
  if (flags & 1)
    c[' '] = c['\t'] = 1;
  if (flags & 2)
    c['l'] = 1;
  if (flags & 4)
    c['%'] = c['^'] = c['#'] = c['!'] = 1;
  return c;
}
constexpr std::array<ByteClasses, 8> kClasses = {makeClasses(0), makeClasses(1), makeClasses(2),
                                                 makeClasses(3), makeClasses(4), makeClasses(5),
                                                 makeClasses(6), makeClasses(7)};

} // namespace

void normalizeLine(std::string_view s, const DiffOptions &o, std::string &out) {
  out.clear();
  out.reserve(s.size());
  const ByteClasses &cls = kClasses[(o.ignoreWhitespace ? 1 : 0) | (o.ignoreLocations ? 2 : 0) |
                                    (o.ignoreSsaNames ? 4 : 0)];
  NameNumbering names;
  const size_t n = s.size();
  for (size_t i = 0; i < n;) {
    // Copy the run of bytes that nothing rewrites at once.
    size_t run = i;
    while (run < n && !cls[static_cast<unsigned char>(s[run])])
      ++run;
    out.append(s.data() + i, run - i);
    if ((i = run) == n)
      break;
    char c = s[i];
    if (c == '"') {
      size_t end = scanString(s, i, true);
      out.append(s.data() + i, end - i);
      i = end;
      continue;
    }
    if (c == ' ' || c == '\t') { // ignoreWhitespace
      ++i;
      continue;
    }
    if (c == 'l') { // ignoreLocations
      if (s.compare(i, 4, "loc(") == 0 && (i == 0 || !isIdentChar(s[i - 1]))) {
        size_t end = locGroupEnd(s, i);
        if (end != std::string_view::npos) {
          while (!out.empty() && (out.back() == ' ' || out.back() == '\t'))
            out.pop_back();
          i = end;
          continue;
        }
      }
      out += c;
      ++i;
      continue;
    }
    // ignoreSsaNames: a sigil.
    size_t end = i;
    if (i + 1 < n) {
      char next = s[i + 1];
      if (c == '%' || c == '^') {
        if (isSuffixChar(next))
          end = scanWhile(s, i + 1, isSuffixChar);
      } else if (c == '#') {
        if (isIdentStart(next)) {
          end = scanWhile(s, i + 1, isSuffixChar);
          if (s.substr(i, end - i).find('.') != std::string_view::npos)
            end = i; // `#dialect.attr`: not an alias
        }
      } else if (c == '!' && isDigit(next)) {
        end = scanWhile(s, i + 1, isDigit);
      }
    }
    if (end > i) {
      out += c;
      appendNumber(out, names.number(c, s.substr(i + 1, end - i - 1)));
      i = end;
    } else {
      out += c;
      ++i;
    }
  }
}

} // namespace loupe::visualizer::text
