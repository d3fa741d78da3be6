//===- TextDraw.cpp - Drawing syntax-coloured monospace lines -----------------===//
#include "loupe/visualizer/TextDraw.h"

#include "loupe/visualizer/Style.h"

namespace loupe::visualizer {

size_t visualColumns(std::string_view line) { return visualColumnOf(line, line.size()); }

size_t visualColumnOf(std::string_view line, size_t byte) {
  size_t col = 0;
  size_t end = std::min(byte, line.size());
  for (size_t i = 0; i < end; ++i)
    col = line[i] == '\t' ? (col / kTabWidth + 1) * kTabWidth : col + 1;
  return col;
}

void drawTokenizedLine(ImDrawList *dl, ImVec2 pos, std::string_view line,
                       const std::vector<text::Token> &tokens, float charW, float clipRight) {
  size_t col = 0, byte = 0;
  for (const text::Token &t : tokens) {
    // Advance the visual column over the gap (spaces and tabs) before the token.
    for (; byte < t.begin && byte < line.size(); ++byte)
      col = line[byte] == '\t' ? (col / kTabWidth + 1) * kTabWidth : col + 1;
    float x = pos.x + static_cast<float>(col) * charW;
    if (x > clipRight)
      break;
    size_t end = std::min<size_t>(t.end, line.size());
    // Tokens hold no tabs (the tokenizer splits on blanks), so each byte is one column.
    dl->AddText(ImVec2(x, pos.y), tokenColor(t.kind), line.data() + byte, line.data() + end);
    col += end - byte;
    byte = end;
  }
}

float monospaceWidth() { return ImGui::CalcTextSize("M").x; }

} // namespace loupe::visualizer
