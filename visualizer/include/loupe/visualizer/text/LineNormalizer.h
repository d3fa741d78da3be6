//===- LineNormalizer.h - The form of a line that a diff compares ----*- C++ -*-===//
#ifndef LOUPE_VISUALIZER_TEXT_LINENORMALIZER_H
#define LOUPE_VISUALIZER_TEXT_LINENORMALIZER_H

#include "loupe/visualizer/text/DiffOptions.h"

#include <string>
#include <string_view>

namespace loupe::visualizer::text {

/// True when the options leave the line out of the comparison (a `#name = loc(...)` alias
/// definition under ignoreLocations).
bool isIgnoredLine(std::string_view line, const DiffOptions &options);

/// True when the options change how lines compare (any ignore flag is set).
inline bool normalizes(const DiffOptions &o) {
  return o.ignoreSsaNames || o.ignoreLocations || o.ignoreWhitespace;
}

/// Writes the normalised form of `line` into `out` (cleared first) as DiffOptions describes;
/// string literals are kept verbatim. O(line length) (plus O(k^2) for k distinct names).
void normalizeLine(std::string_view line, const DiffOptions &options, std::string &out);

} // namespace loupe::visualizer::text

#endif // LOUPE_VISUALIZER_TEXT_LINENORMALIZER_H
