//===- TextDraw.h - Drawing syntax-coloured monospace lines -------*- C++ -*-===//
#ifndef LOUPE_VISUALIZER_TEXTDRAW_H
#define LOUPE_VISUALIZER_TEXTDRAW_H

#include "loupe/visualizer/text/Token.h"

#include <imgui.h>

#include <string_view>
#include <vector>

namespace loupe::visualizer {

/// Tab stops every this many columns.
inline constexpr int kTabWidth = 8;

/// Columns `line` occupies with tabs expanded.
size_t visualColumns(std::string_view line);
/// Visual column of byte `byte` of `line`.
size_t visualColumnOf(std::string_view line, size_t byte);

/// Draws `line` at `pos` (top-left of column 0) with the colours of its `tokens`, one glyph
/// `charW` wide (the font is monospace); tokens entirely right of `clipRight` are skipped.
void drawTokenizedLine(ImDrawList *dl, ImVec2 pos, std::string_view line,
                       const std::vector<text::Token> &tokens, float charW, float clipRight);

/// Monospace glyph width of the current font.
float monospaceWidth();

} // namespace loupe::visualizer

#endif // LOUPE_VISUALIZER_TEXTDRAW_H
