//===- IntraLineDiff.cpp - Word-level diff of two lines ---------------------===//

#include "loupe/visualizer/text/IntraLineDiff.h"

#include "loupe/visualizer/text/MyersDiff.h"

#include "Lexing.h"

#include <unordered_map>

namespace loupe::visualizer::text {

using namespace lex;

namespace {

std::vector<ByteSpan> splitWords(std::string_view s) {
  std::vector<ByteSpan> words;
  for (size_t i = 0; i < s.size();) {
    size_t end = i + 1;
    char c = s[i];
    if (c == ' ' || c == '\t') {
      end = scanWhile(s, i, [](char ch) { return ch == ' ' || ch == '\t'; });
    } else if (isIdentChar(c) || ((c == '%' || c == '^' || c == '#' || c == '@' || c == '!') &&
                                  end < s.size() && isIdentChar(s[end]))) {
      end = scanWhile(s, end, isIdentChar);
    }
    words.push_back(ByteSpan{static_cast<uint32_t>(i), static_cast<uint32_t>(end)});
    i = end;
  }
  return words;
}

std::vector<ByteSpan> changedSpans(const std::vector<ByteSpan> &words,
                                   const std::vector<uint8_t> &changed) {
  std::vector<ByteSpan> spans;
  for (size_t k = 0; k < words.size(); ++k) {
    if (!changed[k])
      continue;
    if (!spans.empty() && spans.back().end == words[k].begin)
      spans.back().end = words[k].end;
    else
      spans.push_back(words[k]);
  }
  return spans;
}

} // namespace

IntraLineDiff intraLineDiff(std::string_view oldLine, std::string_view newLine,
                            uint64_t maxCost) {
  std::vector<ByteSpan> a = splitWords(oldLine), b = splitWords(newLine);
  std::unordered_map<std::string_view, uint32_t> ids;
  auto idsOf = [&](std::string_view s, const std::vector<ByteSpan> &words) {
    std::vector<uint32_t> out(words.size());
    for (size_t k = 0; k < words.size(); ++k)
      out[k] = ids.try_emplace(s.substr(words[k].begin, words[k].end - words[k].begin),
                               static_cast<uint32_t>(ids.size()))
                   .first->second;
    return out;
  };
  std::vector<uint32_t> aIds = idsOf(oldLine, a), bIds = idsOf(newLine, b);
  MyersResult r = myersDiff(aIds.data(), aIds.size(), bIds.data(), bIds.size(), maxCost);
  return IntraLineDiff{changedSpans(a, r.deleted), changedSpans(b, r.inserted)};
}

} // namespace loupe::visualizer::text
