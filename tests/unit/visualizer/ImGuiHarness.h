//===- ImGuiHarness.h - Headless Dear ImGui frames for panel tests -*- C++ -*-===//
//
// The example_null approach: a context with a built font atlas, a display size and a delta
// time; NewFrame/Render with no window and no renderer. Keys are injected through io.KeysDown
// with an identity io.KeyMap (ImGui 1.86 has no AddKeyEvent), the mouse through io.MousePos
// and io.MouseDown.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_TESTS_VISUALIZER_IMGUIHARNESS_H
#define LOUPE_TESTS_VISUALIZER_IMGUIHARNESS_H

#include <imgui.h>

#include <functional>

namespace loupe::visualizer::testing {

class ImGuiHarness {
public:
  explicit ImGuiHarness(float width = 1400, float height = 900);
  ~ImGuiHarness();
  ImGuiHarness(const ImGuiHarness &) = delete;
  ImGuiHarness &operator=(const ImGuiHarness &) = delete;

  /// One frame: `body` runs inside a full-display window named "test" (focused when `focus`).
  /// Returns the frame's wall time in ms.
  double frame(const std::function<void()> &body, bool focus = true);
  /// One frame with no window around `body` (the Workbench draws its own).
  double rawFrame(const std::function<void()> &body);
  /// Runs `frames` frames of `body`.
  void frames(int frames, const std::function<void()> &body, bool focus = true);

  /// Holds `key` (an ImGuiKey_ value or a letter 'A'..'Z') down for one frame of `body`, then
  /// releases it in a second frame.
  void pressKey(int key, const std::function<void()> &body, bool ctrl = false);
  /// Moves the mouse to `pos`, presses and releases the left button over three frames.
  void click(ImVec2 pos, const std::function<void()> &body);
  void setMouse(ImVec2 pos) { ImGui::GetIO().MousePos = pos; }
  void wheel(float amount) { ImGui::GetIO().MouseWheel = amount; }
};

} // namespace loupe::visualizer::testing

#endif // LOUPE_TESTS_VISUALIZER_IMGUIHARNESS_H
