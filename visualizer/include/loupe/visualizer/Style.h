//===- Style.h - Colours and small drawing helpers shared by panels -*- C++ -*-===//
#ifndef LOUPE_VISUALIZER_STYLE_H
#define LOUPE_VISUALIZER_STYLE_H

#include "loupe/profiler/Statistics.h"
#include "loupe/visualizer/text/Token.h"

#include <imgui.h>

#include <string>

namespace loupe::visualizer {

/// Dark theme with Loupe's tweaks (tighter tables, visible separators). Call once after
/// ImGui::CreateContext.
void applyTheme();

/// Colour of a pipeline phase ("import", "graph", ...); grey for unknown names.
ImU32 phaseColor(const std::string &phase);
/// Colour of a comparison verdict: FASTER green, SLOWER red, AMBIGUOUS amber, SAME grey.
ImU32 verdictColor(profiler::Verdict verdict);
/// Syntax colour of a token kind (IR and Diff panels).
ImU32 tokenColor(text::TokenKind kind);
/// A distinct, stable colour for item `index` (timeline slices, bars).
ImU32 paletteColor(int index);
/// Colour of a backend: codegen blue-grey, library backends warm and distinct; a stable
/// palette colour for other names, grey for "".
ImU32 backendColor(const std::string &backend);
/// Text colour with reduced alpha, for secondary information.
ImVec4 dimTextColor();

/// TextUnformatted for a std::string (no printf formatting of user data).
inline void showText(const std::string &s) { ImGui::TextUnformatted(s.data(), s.data() + s.size()); }
/// Coloured TextUnformatted.
void textColored(ImU32 color, const std::string &s);
/// A "(?)" marker with a tooltip.
void helpMarker(const char *description);
/// InputText on a std::string (ImGui 1.86 has no std::string overload without imgui_stdlib).
bool inputText(const char *label, std::string &value, int flags = 0);
bool inputTextWithHint(const char *label, const char *hint, std::string &value, int flags = 0);
/// Text that navigates somewhere when clicked (link-coloured, underlined when hovered); its ID
/// is `label` (use ## or PushID for repeated labels). True on the frame it is clicked.
bool linkButton(const std::string &label);

/// A rectangle on screen, pixels (tests click on the items panels report).
struct ScreenRect {
  ImVec2 min{0, 0}, max{0, 0};
  ImVec2 center() const { return ImVec2((min.x + max.x) * 0.5f, (min.y + max.y) * 0.5f); }
  bool empty() const { return max.x <= min.x || max.y <= min.y; }
};
/// The last item's rectangle.
inline ScreenRect lastItemRect() { return {ImGui::GetItemRectMin(), ImGui::GetItemRectMax()}; }

} // namespace loupe::visualizer

#endif // LOUPE_VISUALIZER_STYLE_H
