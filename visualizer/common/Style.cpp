//===- Style.cpp - Colours and small drawing helpers shared by panels --------===//
#include "loupe/visualizer/Style.h"

#include <functional>

#include <cstring>

namespace loupe::visualizer {

void applyTheme() {
  ImGui::StyleColorsDark();
  ImGuiStyle &style = ImGui::GetStyle();
  style.WindowRounding = 0;
  style.ChildRounding = 0;
  style.FrameRounding = 2;
  style.TabRounding = 2;
  style.ScrollbarRounding = 2;
  style.WindowBorderSize = 1;
  style.CellPadding = ImVec2(4, 2);
  style.ItemSpacing = ImVec2(6, 4);
  style.WindowPadding = ImVec2(6, 6);
  ImVec4 *c = style.Colors;
  c[ImGuiCol_WindowBg] = ImVec4(0.09f, 0.10f, 0.11f, 1.0f);
  c[ImGuiCol_ChildBg] = ImVec4(0.08f, 0.09f, 0.10f, 1.0f);
  c[ImGuiCol_TitleBg] = ImVec4(0.13f, 0.15f, 0.18f, 1.0f);
  c[ImGuiCol_TitleBgActive] = ImVec4(0.16f, 0.24f, 0.36f, 1.0f);
  c[ImGuiCol_Header] = ImVec4(0.20f, 0.35f, 0.55f, 0.55f);
  c[ImGuiCol_HeaderHovered] = ImVec4(0.24f, 0.42f, 0.65f, 0.70f);
  c[ImGuiCol_HeaderActive] = ImVec4(0.26f, 0.46f, 0.72f, 0.90f);
  c[ImGuiCol_TableRowBgAlt] = ImVec4(1.0f, 1.0f, 1.0f, 0.03f);
}

ImU32 phaseColor(const std::string &phase) {
  static const struct {
    const char *name;
    ImU32 color;
  } kPhases[] = {
      {"import", IM_COL32(150, 150, 160, 255)}, {"graph", IM_COL32(86, 156, 214, 255)},
      {"cluster", IM_COL32(197, 134, 192, 255)}, {"lower", IM_COL32(78, 201, 176, 255)},
      {"ral", IM_COL32(220, 180, 90, 255)},      {"llvm", IM_COL32(206, 145, 120, 255)},
      {"artifact", IM_COL32(230, 110, 110, 255)},
  };
  for (const auto &p : kPhases)
    if (phase == p.name)
      return p.color;
  return IM_COL32(128, 128, 128, 255);
}

ImU32 verdictColor(profiler::Verdict verdict) {
  switch (verdict) {
  case profiler::Verdict::Faster:
    return IM_COL32(90, 200, 110, 255);
  case profiler::Verdict::Slower:
    return IM_COL32(235, 90, 80, 255);
  case profiler::Verdict::Ambiguous:
    return IM_COL32(230, 180, 60, 255);
  case profiler::Verdict::Same:
    return IM_COL32(150, 150, 150, 255);
  }
  return IM_COL32(150, 150, 150, 255);
}

ImU32 tokenColor(text::TokenKind kind) {
  switch (kind) {
  case text::TokenKind::Identifier: return IM_COL32(212, 212, 212, 255);
  case text::TokenKind::Keyword: return IM_COL32(86, 156, 214, 255);
  case text::TokenKind::OpName: return IM_COL32(220, 220, 170, 255);
  case text::TokenKind::SsaValue: return IM_COL32(156, 220, 254, 255);
  case text::TokenKind::BlockLabel: return IM_COL32(197, 134, 192, 255);
  case text::TokenKind::Symbol: return IM_COL32(230, 190, 100, 255);
  case text::TokenKind::Alias: return IM_COL32(140, 140, 140, 255);
  case text::TokenKind::Type: return IM_COL32(78, 201, 176, 255);
  case text::TokenKind::Number: return IM_COL32(181, 206, 168, 255);
  case text::TokenKind::String: return IM_COL32(206, 145, 120, 255);
  case text::TokenKind::Comment: return IM_COL32(106, 153, 85, 255);
  case text::TokenKind::Punctuation: return IM_COL32(160, 160, 160, 255);
  case text::TokenKind::Register: return IM_COL32(156, 220, 254, 255);
  }
  return IM_COL32(212, 212, 212, 255);
}

ImU32 paletteColor(int index) {
  static const ImU32 kPalette[] = {
      IM_COL32(86, 156, 214, 255),  IM_COL32(78, 201, 176, 255),  IM_COL32(197, 134, 192, 255),
      IM_COL32(220, 180, 90, 255),  IM_COL32(206, 145, 120, 255), IM_COL32(120, 180, 90, 255),
      IM_COL32(230, 110, 110, 255), IM_COL32(100, 130, 230, 255), IM_COL32(180, 200, 80, 255),
      IM_COL32(240, 140, 60, 255),  IM_COL32(90, 200, 220, 255),  IM_COL32(200, 100, 160, 255),
  };
  constexpr int n = sizeof(kPalette) / sizeof(kPalette[0]);
  return kPalette[((index % n) + n) % n];
}

ImU32 backendColor(const std::string &backend) {
  if (backend.empty())
    return IM_COL32(120, 120, 120, 255);
  if (backend == "codegen")
    return IM_COL32(110, 150, 200, 255);
  if (backend == "onednn")
    return IM_COL32(240, 150, 60, 255);
  if (backend == "openblas")
    return IM_COL32(120, 200, 100, 255);
  if (backend == "cublas" || backend == "cublaslt")
    return IM_COL32(130, 210, 70, 255);
  if (backend == "cudnn")
    return IM_COL32(220, 200, 70, 255);
  if (backend == "reference")
    return IM_COL32(200, 120, 200, 255);
  return paletteColor(static_cast<int>(std::hash<std::string>{}(backend) % 1000));
}

ImVec4 dimTextColor() {
  ImVec4 c = ImGui::GetStyle().Colors[ImGuiCol_Text];
  c.w *= 0.55f;
  return c;
}

void textColored(ImU32 color, const std::string &s) {
  ImGui::PushStyleColor(ImGuiCol_Text, color);
  showText(s);
  ImGui::PopStyleColor();
}

void helpMarker(const char *description) {
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 35.0f);
    ImGui::TextUnformatted(description);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

bool linkButton(const std::string &label) {
  ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(110, 170, 250, 255));
  ImVec2 size = ImGui::CalcTextSize(label.c_str(), nullptr, true);
  bool pressed = ImGui::Selectable(label.c_str(), false, ImGuiSelectableFlags_None, size);
  ImGui::PopStyleColor();
  if (ImGui::IsItemHovered()) {
    ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    ImGui::GetWindowDrawList()->AddLine(ImVec2(a.x, b.y - 1), ImVec2(a.x + size.x, b.y - 1),
                                        IM_COL32(110, 170, 250, 255));
    ImGui::SetMouseCursor(ImGuiMouseCursor_Hand);
  }
  return pressed;
}

namespace {
int resizeCallback(ImGuiInputTextCallbackData *data) {
  if (data->EventFlag == ImGuiInputTextFlags_CallbackResize) {
    auto *str = static_cast<std::string *>(data->UserData);
    str->resize(static_cast<size_t>(data->BufTextLen));
    data->Buf = str->data();
  }
  return 0;
}
} // namespace

bool inputText(const char *label, std::string &value, int flags) {
  return ImGui::InputText(label, value.data(), value.capacity() + 1,
                          flags | ImGuiInputTextFlags_CallbackResize, resizeCallback, &value);
}

bool inputTextWithHint(const char *label, const char *hint, std::string &value, int flags) {
  return ImGui::InputTextWithHint(label, hint, value.data(), value.capacity() + 1,
                                  flags | ImGuiInputTextFlags_CallbackResize, resizeCallback,
                                  &value);
}

} // namespace loupe::visualizer
