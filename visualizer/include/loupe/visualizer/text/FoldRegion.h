//===- FoldRegion.h - Brace-delimited regions that span lines --------*- C++ -*-===//
#ifndef LOUPE_VISUALIZER_TEXT_FOLDREGION_H
#define LOUPE_VISUALIZER_TEXT_FOLDREGION_H

#include "loupe/visualizer/text/Token.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace loupe::visualizer::text {

/// A `{` ... `}` pair on different lines: a module, function body or op region. Folding it
/// hides the lines strictly between the two braces; both brace lines stay visible.
struct FoldRegion {
  uint32_t startLine = 0; ///< Line of the `{`.
  uint32_t endLine = 0;   ///< Line of the matching `}`; endLine >= startLine + 2.
  uint32_t depth = 0;     ///< Nesting among fold regions: 0 for the outermost.
  /// Lines hidden when folded: [startLine + 1, endLine - 1].
  uint32_t firstHidden() const { return startLine + 1; }
  uint32_t lastHidden() const { return endLine - 1; }
};

/// All fold regions of `text`, sorted by startLine, at most one per start line (the outermost
/// when several open on the same line). Braces inside string literals and comments (`//` in
/// MLIR, `;` in LLVM IR, `#` in assembly) are ignored; unmatched braces are dropped. Pairs
/// whose braces are on the same or adjacent lines are not regions (nothing to hide).
/// Regions nest properly: two regions are disjoint or one contains the other.
/// O(text bytes) time, O(max nesting) extra space.
std::vector<FoldRegion> computeFoldRegions(std::string_view text, Language language);

} // namespace loupe::visualizer::text

#endif // LOUPE_VISUALIZER_TEXT_FOLDREGION_H
