//===- FoldRegions.cpp - Brace matcher over a whole text --------------------===//

#include "loupe/visualizer/text/FoldRegion.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace loupe::visualizer::text {

std::vector<FoldRegion> computeFoldRegions(std::string_view text, Language language) {
  std::vector<FoldRegion> regions;
  if (language == Language::PlainText)
    return regions;
  const bool escapes = language != Language::LlvmIr;
  const char comment = language == Language::Mlir ? '/' : language == Language::LlvmIr ? ';' : '#';
  // Byte classes: 1 = stops the main scan, 2 = stops a string scan.
  std::array<uint8_t, 256> cls{};
  for (char c : {'\n', '"', '{', '}', comment})
    cls[static_cast<unsigned char>(c)] |= 1;
  for (char c : {'\n', '"', '\\'})
    cls[static_cast<unsigned char>(c)] |= 2;
  auto at = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  std::vector<uint32_t> open; // lines of unmatched '{'
  uint32_t line = 0;
  const size_t n = text.size();
  for (size_t i = 0; i < n; ++i) {
    while (i < n && !(cls[at(i)] & 1))
      ++i;
    if (i >= n)
      break;
    char c = text[i];
    switch (c) {
    case '\n':
      ++line;
      break;
    case '"':
      // Strings never span lines: stop at the closing quote or the end of the line.
      for (++i; i < n; ++i) {
        while (i < n && !(cls[at(i)] & 2))
          ++i;
        if (i >= n || text[i] != '\\')
          break; // the closing quote, the end of the line or of the text
        if (escapes && i + 1 < n && text[i + 1] != '\n')
          ++i; // skip the escaped byte
      }
      if (i < n && text[i] == '\n')
        ++line;
      break;
    case '{':
      open.push_back(line);
      break;
    case '}':
      if (!open.empty()) {
        uint32_t start = open.back();
        open.pop_back();
        if (line >= start + 2)
          regions.push_back(FoldRegion{start, line, 0});
      }
      break;
    default: // the comment character
      if (comment != '/' || (i + 1 < n && text[i + 1] == '/')) {
        const void *nl = std::memchr(text.data() + i, '\n', n - i);
        i = nl ? static_cast<size_t>(static_cast<const char *>(nl) - text.data()) - 1 : n;
      }
      break;
    }
  }
  // Closing order is inner-first; sort by start, outermost first on a shared start line.
  std::sort(regions.begin(), regions.end(), [](const FoldRegion &a, const FoldRegion &b) {
    return a.startLine != b.startLine ? a.startLine < b.startLine : a.endLine > b.endLine;
  });
  regions.erase(std::unique(regions.begin(), regions.end(),
                            [](const FoldRegion &a, const FoldRegion &b) {
                              return a.startLine == b.startLine;
                            }),
                regions.end());
  std::vector<uint32_t> enclosing; // end lines of the regions enclosing the current one
  for (FoldRegion &r : regions) {
    while (!enclosing.empty() && enclosing.back() <= r.startLine)
      enclosing.pop_back();
    r.depth = static_cast<uint32_t>(enclosing.size());
    enclosing.push_back(r.endLine);
  }
  return regions;
}

} // namespace loupe::visualizer::text
