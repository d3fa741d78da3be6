//===- ImGuiHarness.cpp - Headless Dear ImGui frames for panel tests ----------===//
#include "ImGuiHarness.h"

#include "loupe/visualizer/Style.h"

#include <chrono>

namespace loupe::visualizer::testing {

ImGuiHarness::ImGuiHarness(float width, float height) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO &io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.LogFilename = nullptr;
  io.DisplaySize = ImVec2(width, height);
  io.DeltaTime = 1.0f / 60.0f;
  // As the OpenGL 3 backend does: draw lists may exceed 64k vertices (a 10,000-op graph).
  io.BackendFlags |= ImGuiBackendFlags_RendererHasVtxOffset;
  unsigned char *pixels = nullptr;
  int w = 0, h = 0;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h); // builds the atlas; no texture is uploaded
  for (int i = 0; i < ImGuiKey_COUNT; ++i)
    io.KeyMap[i] = i;
  applyTheme();
}

ImGuiHarness::~ImGuiHarness() { ImGui::DestroyContext(); }

double ImGuiHarness::rawFrame(const std::function<void()> &body) {
  auto start = std::chrono::steady_clock::now();
  ImGui::NewFrame();
  body();
  ImGui::Render();
  ImGui::GetIO().MouseWheel = 0;
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

double ImGuiHarness::frame(const std::function<void()> &body, bool focus) {
  return rawFrame([&] {
    ImGuiIO &io = ImGui::GetIO();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(io.DisplaySize);
    if (focus)
      ImGui::SetNextWindowFocus();
    ImGui::Begin("test", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoSavedSettings);
    body();
    ImGui::End();
  });
}

void ImGuiHarness::frames(int n, const std::function<void()> &body, bool focus) {
  for (int i = 0; i < n; ++i)
    frame(body, focus);
}

void ImGuiHarness::pressKey(int key, const std::function<void()> &body, bool ctrl) {
  ImGuiIO &io = ImGui::GetIO();
  io.KeyCtrl = ctrl;
  io.KeysDown[key] = true;
  frame(body);
  io.KeysDown[key] = false;
  io.KeyCtrl = false;
  frame(body);
}

void ImGuiHarness::click(ImVec2 pos, const std::function<void()> &body) {
  ImGuiIO &io = ImGui::GetIO();
  io.MousePos = pos;
  frame(body, false);
  io.MouseDown[0] = true;
  frame(body, false);
  io.MouseDown[0] = false;
  frame(body, false);
}

} // namespace loupe::visualizer::testing
