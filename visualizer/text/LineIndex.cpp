//===- LineIndex.cpp - Byte offsets of the lines of a text ------------------===//

#include "loupe/visualizer/text/LineIndex.h"

#include <algorithm>
#include <cstring>

namespace loupe::visualizer::text {

LineIndex::LineIndex(std::string_view text) : textSize_(text.size()) {
  if (text.empty())
    return;
  // Roughly one line per 40 bytes of IR; a guess that avoids most regrowth.
  starts_.reserve(text.size() / 40 + 16);
  starts_.push_back(0);
  const char *base = text.data();
  const char *end = base + text.size();
  for (const char *p = base; p < end;) {
    const void *nl = std::memchr(p, '\n', static_cast<size_t>(end - p));
    if (!nl)
      break;
    p = static_cast<const char *>(nl) + 1;
    if (p < end)
      starts_.push_back(static_cast<size_t>(p - base));
  }
  starts_.shrink_to_fit();
}

std::string_view LineIndex::line(std::string_view text, size_t i) const {
  size_t begin = starts_[i];
  size_t end = i + 1 < starts_.size() ? starts_[i + 1] : textSize_;
  if (end > begin && text[end - 1] == '\n')
    --end;
  if (end > begin && text[end - 1] == '\r')
    --end;
  return text.substr(begin, end - begin);
}

size_t LineIndex::lineAtOffset(size_t offset) const {
  if (starts_.empty())
    return 0;
  auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
  return static_cast<size_t>(it - starts_.begin()) - 1;
}

} // namespace loupe::visualizer::text
