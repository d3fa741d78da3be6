//===- Workbench.cpp - The main window's contents -----------------------------===//
#include "loupe/visualizer/Workbench.h"

#include "loupe/visualizer/Format.h"
#include "loupe/visualizer/Style.h"

#include <imgui_internal.h> // ImGuiSettingsHandler: the layout's imgui.ini section

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

namespace fs = std::filesystem;

namespace loupe::visualizer {

namespace {
constexpr float kSplitter = 5.0f;

void *layoutReadOpen(ImGuiContext *, ImGuiSettingsHandler *handler, const char *name) {
  return std::strcmp(name, "Layout") == 0 ? handler->UserData : nullptr;
}

void layoutReadLine(ImGuiContext *, ImGuiSettingsHandler *, void *entry, const char *line) {
  auto *layout = static_cast<Layout *>(entry);
  float v;
  if (std::sscanf(line, "Left=%f", &v) == 1)
    layout->leftWidth = std::clamp(v, 0.05f, 0.6f);
  else if (std::sscanf(line, "Right=%f", &v) == 1)
    layout->rightWidth = std::clamp(v, 0.05f, 0.6f);
  else if (std::sscanf(line, "Bottom=%f", &v) == 1)
    layout->bottomHeight = std::clamp(v, 0.05f, 0.7f);
}

void layoutWriteAll(ImGuiContext *, ImGuiSettingsHandler *handler, ImGuiTextBuffer *out) {
  auto *layout = static_cast<Layout *>(handler->UserData);
  if (!layout)
    return;
  out->appendf("[Loupe][Layout]\nLeft=%.4f\nRight=%.4f\nBottom=%.4f\n\n", layout->leftWidth,
               layout->rightWidth, layout->bottomHeight);
}
} // namespace

Workbench::Workbench(Controller &controller)
    : controller_(controller), ir_(documents_), diff_(documents_) {
  run_.setBrowse([this](const std::string &title, std::string *target) {
    folderTarget_ = target;
    dialogPurpose_ = DialogPurpose::Folder;
    std::string start = target && !target->empty() ? *target
                        : vm().hasModel() ? fs::path(vm().session.model).parent_path().string()
                                          : "";
    fileDialog_.open(FileDialog::Mode::ChooseFolder, "Choose the " + title, {}, start);
  });
  dispatches_.setSave([this] { save(); });
}

void Workbench::save() {
  if (!vm().hasModel())
    return;
  if (vm().session.path.empty())
    showSaveAsDialog();
  else
    controller_.saveSession();
}

const std::vector<std::string> &Workbench::panelNames() {
  static const std::vector<std::string> names = {"pipeline", "ir",      "diff",    "graph", "dispatches",
                                                 "run",      "profile", "compare", "log"};
  return names;
}

Workbench::~Workbench() {
  ImGuiContext *ctx = ImGui::GetCurrentContext();
  if (!ctx)
    return;
  // Save the layout while this object (the handler's data) still exists; ImGui must not write
  // the file again without our section when the context goes away.
  ImGuiIO &io = ImGui::GetIO();
  if (io.IniFilename) {
    ImGui::SaveIniSettingsToDisk(io.IniFilename);
    io.IniFilename = nullptr;
  }
  for (ImGuiSettingsHandler &h : ctx->SettingsHandlers)
    if (h.UserData == &layout_)
      h.UserData = nullptr;
}

void Workbench::installSettingsHandler() {
  ImGuiContext *ctx = ImGui::GetCurrentContext();
  ImGuiSettingsHandler handler;
  handler.TypeName = "Loupe";
  handler.TypeHash = ImHashStr("Loupe");
  handler.ReadOpenFn = layoutReadOpen;
  handler.ReadLineFn = layoutReadLine;
  handler.WriteAllFn = layoutWriteAll;
  handler.UserData = &layout_;
  ctx->SettingsHandlers.push_back(handler);
}

bool Workbench::busy() const { return controller_.busy() || documents_.busy() || graph_.busy(); }

void Workbench::setWake(std::function<void()> wake) {
  controller_.setWake(wake);
  documents_.setWake(wake);
  graph_.setWake(wake);
}

bool Workbench::waitIdle(double timeoutSeconds) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSeconds);
  while (true) {
    double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0)
      return false;
    if (!controller_.waitIdle(left) || !documents_.waitIdle(left) || !graph_.waitIdle(left))
      return false;
    documents_.beginFrame();
    graph_.beginFrame();
    if (!busy())
      return true;
  }
}

bool Workbench::focusPanel(const std::string &name) {
  if (name == "ir")
    selectTab(Tab::Ir);
  else if (name == "diff")
    selectTab(Tab::Diff);
  else if (name == "graph")
    selectTab(Tab::Graph);
  else if (name == "dispatches")
    selectTab(Tab::Dispatches);
  else if (name == "profile")
    selectTab(Tab::Profile);
  else if (name == "compare")
    selectTab(Tab::Compare);
  else if (name != "pipeline" && name != "run" && name != "log")
    return false;
  focusRequest_ = name;
  return true;
}

void Workbench::showOpenDialog() {
  dialogPurpose_ = DialogPurpose::Open;
  std::string dir;
  if (!vm().session.path.empty())
    dir = fs::path(vm().session.path).parent_path().string();
  else if (vm().hasModel())
    dir = fs::path(vm().session.model).parent_path().string();
  fileDialog_.open(FileDialog::Mode::OpenFile, "Open a model or a session",
                   {".mlir", ".onnx", ".json", ".so"}, dir);
}

void Workbench::showSaveAsDialog() {
  dialogPurpose_ = DialogPurpose::SaveAs;
  std::string dir, name;
  if (!vm().session.path.empty()) {
    dir = fs::path(vm().session.path).parent_path().string();
    name = fs::path(vm().session.path).filename().string();
  } else if (vm().hasModel()) {
    dir = fs::path(vm().session.model).parent_path().string();
    name = vm().session.name + ".json";
  }
  fileDialog_.open(FileDialog::Mode::SaveFile, "Save the session as", {".json"}, dir, name);
}

void Workbench::drawFileDialog() {
  if (!fileDialog_.draw())
    return;
  std::string path = fileDialog_.result();
  switch (dialogPurpose_) {
  case DialogPurpose::Open:
    controller_.open(path);
    break;
  case DialogPurpose::SaveAs:
    if (fs::path(path).extension().empty())
      path += ".json";
    controller_.saveSession(path);
    break;
  case DialogPurpose::Folder:
    if (folderTarget_) {
      *folderTarget_ = path;
      vm().sessionDirty = true;
    }
    break;
  case DialogPurpose::None:
    break;
  }
  dialogPurpose_ = DialogPurpose::None;
  folderTarget_ = nullptr;
}

void Workbench::drawMenuBar() {
  ViewModel &m = vm();
  ImGuiIO &io = ImGui::GetIO();
  // Ctrl+O / Ctrl+S: GLFW's key codes for letters are their ASCII capitals.
  if (io.KeyCtrl && !io.WantTextInput && ImGui::IsKeyPressed('O', false))
    showOpenDialog();
  if (io.KeyCtrl && !io.WantTextInput && ImGui::IsKeyPressed('S', false) && m.hasModel())
    save();
  if (!ImGui::BeginMainMenuBar())
    return;
  if (ImGui::BeginMenu("File")) {
    if (ImGui::MenuItem("Open...", "Ctrl+O"))
      showOpenDialog();
    if (ImGui::BeginMenu("Open Recent", !controller_.recent().paths().empty())) {
      std::string chosen;
      for (const std::string &p : controller_.recent().paths())
        if (ImGui::MenuItem(p.c_str()))
          chosen = p;
      ImGui::Separator();
      if (ImGui::MenuItem("Clear list"))
        controller_.recent().clear();
      ImGui::EndMenu();
      if (!chosen.empty())
        controller_.open(chosen);
    }
    ImGui::Separator();
    if (ImGui::MenuItem("Save Session", "Ctrl+S", false, m.hasModel()))
      save();
    if (ImGui::MenuItem("Save Session As...", nullptr, false, m.hasModel()))
      showSaveAsDialog();
    ImGui::Separator();
    if (ImGui::MenuItem("Quit"))
      quit_ = true;
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Run")) {
    if (ImGui::MenuItem("Recompile", nullptr, false, m.hasModel() && !m.compiling))
      controller_.compile();
    if (ImGui::MenuItem("Run", nullptr, false, m.hasModel() && !m.running))
      controller_.run();
    if (ImGui::MenuItem("Cancel Run", nullptr, false, m.running))
      controller_.cancelRun();
    ImGui::Separator();
    if (ImGui::MenuItem("Refresh Runs", nullptr, false, !m.dbPath.empty()))
      controller_.refreshRuns();
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("View")) {
    for (Tab t : kTabs)
      if (ImGui::MenuItem(tabName(t), nullptr, activeTab_ == t))
        selectTab(t);
    ImGui::Separator();
    if (ImGui::MenuItem("Reset Layout"))
      layout_ = Layout();
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Debug")) {
    ImGui::MenuItem("ImGui Demo", nullptr, &showDemo_);
    ImGui::MenuItem("ImGui Metrics", nullptr, &showMetrics_);
    ImGui::EndMenu();
  }

  // Status on the right: document, job, frame time.
  std::string status;
  if (m.hasModel())
    status = (m.session.path.empty() ? fs::path(m.session.model).filename().string()
                                     : fs::path(m.session.path).filename().string()) +
             (m.sessionDirty ? "*" : "");
  if (m.progress.running)
    status += "   " + m.progress.label + (m.progress.stage.empty() ? "" : " [" + m.progress.stage + "]");
  char frame[32];
  std::snprintf(frame, sizeof frame, "   %.1f ms", frameMs_);
  status += frame;
  float w = ImGui::CalcTextSize(status.c_str()).x;
  ImGui::SameLine(std::max(ImGui::GetCursorPosX() + 20, ImGui::GetWindowWidth() - w - 12));
  ImGui::TextDisabled("%s", status.c_str());
  ImGui::EndMainMenuBar();
}

bool Workbench::splitter(const char *id, bool vertical, float thickness, float *position,
                         float min, float max) {
  ImVec2 size = vertical ? ImVec2(thickness, ImGui::GetContentRegionAvail().y)
                         : ImVec2(ImGui::GetContentRegionAvail().x, thickness);
  ImVec2 pos = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton(id, size);
  bool active = ImGui::IsItemActive();
  bool hovered = ImGui::IsItemHovered();
  if (hovered || active)
    ImGui::SetMouseCursor(vertical ? ImGuiMouseCursor_ResizeEW : ImGuiMouseCursor_ResizeNS);
  ImU32 color = ImGui::GetColorU32(active ? ImGuiCol_SeparatorActive
                                  : hovered ? ImGuiCol_SeparatorHovered
                                            : ImGuiCol_Separator);
  ImGui::GetWindowDrawList()->AddRectFilled(
      vertical ? ImVec2(pos.x + thickness * 0.5f - 1, pos.y) : ImVec2(pos.x, pos.y + thickness * 0.5f - 1),
      vertical ? ImVec2(pos.x + thickness * 0.5f + 1, pos.y + size.y) : ImVec2(pos.x + size.x, pos.y + thickness * 0.5f + 1),
      color);
  if (!active)
    return false;
  ImVec2 d = ImGui::GetIO().MouseDelta;
  float delta = vertical ? d.x : d.y;
  if (delta == 0)
    return false;
  *position = std::clamp(*position + delta, min, max);
  ImGui::MarkIniSettingsDirty();
  return true;
}

void Workbench::beginPanel(const char *title, const char *id, ImVec2 size, bool focusRequested) {
  if (focusRequested)
    ImGui::SetNextWindowFocus();
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(6, 4));
  ImGui::BeginChild(id, size, true);
  ImGui::PopStyleVar();
  bool focused = ImGui::IsWindowFocused(ImGuiFocusedFlags_ChildWindows);
  ImVec2 p = ImGui::GetCursorScreenPos();
  float w = ImGui::GetContentRegionAvail().x;
  ImGui::GetWindowDrawList()->AddRectFilled(
      ImVec2(p.x - 6, p.y - 4), ImVec2(p.x + w + 6, p.y + ImGui::GetTextLineHeight() + 2),
      focused ? IM_COL32(40, 70, 110, 255) : IM_COL32(36, 40, 48, 255));
  ImGui::TextUnformatted(title);
  ImGui::Spacing();
}

void Workbench::endPanel() { ImGui::EndChild(); }

void Workbench::drawLayout() {
  ImGuiViewport *vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(vp->WorkSize);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowRounding, 0);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 0);
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(0, 0));
  ImGui::Begin("##workbench", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus |
                   ImGuiWindowFlags_NoScrollWithMouse | ImGuiWindowFlags_NoNavFocus);
  ImGui::PopStyleVar(4);

  ViewModel &m = vm();
  float W = std::max(200.0f, vp->WorkSize.x), H = std::max(150.0f, vp->WorkSize.y);
  float bottomH = std::clamp(layout_.bottomHeight * H, 50.0f, H - 120.0f);
  float topH = H - bottomH - kSplitter;
  float leftW = std::clamp(layout_.leftWidth * W, 120.0f, W * 0.6f);
  float rightW = std::clamp(layout_.rightWidth * W, 120.0f, W * 0.6f);
  if (leftW + rightW > W - 200) {
    float scale = (W - 200) / (leftW + rightW);
    leftW *= scale;
    rightW *= scale;
  }
  float centerW = W - leftW - rightW - 2 * kSplitter;
  auto focus = [&](const char *name) { return focusRequest_ && *focusRequest_ == name; };

  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(6, 4));
  // Top row: Pipeline | center tabs | Run.
  beginPanel("Pipeline", "pipeline_panel", ImVec2(leftW, topH), focus("pipeline") || firstFrame_);
  pipeline_.draw(m, controller_);
  endPanel();
  ImGui::SameLine(0, 0);
  ImGui::BeginChild("split_left_area", ImVec2(kSplitter, topH), false, ImGuiWindowFlags_NoScrollbar);
  if (splitter("##split_left", true, kSplitter, &leftW, 120.0f, W * 0.6f))
    layout_.leftWidth = leftW / W;
  ImGui::EndChild();
  ImGui::SameLine(0, 0);

  bool centerFocus = focus("ir") || focus("diff") || focus("graph") || focus("dispatches") ||
                     focus("profile") || focus("compare");
  if (centerFocus)
    ImGui::SetNextWindowFocus();
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(6, 4));
  ImGui::BeginChild("center_panel", ImVec2(centerW, topH), true);
  ImGui::PopStyleVar();
  if (ImGui::BeginTabBar("center_tabs")) {
    std::optional<Tab> request = m.nav.tabRequest;
    m.nav.tabRequest.reset();
    for (Tab t : kTabs) {
      ImGuiTabItemFlags flags = request && *request == t ? ImGuiTabItemFlags_SetSelected : 0;
      if (ImGui::BeginTabItem(tabName(t), nullptr, flags)) {
        activeTab_ = t;
        switch (t) {
        case Tab::Ir:
          ir_.draw(m, controller_);
          break;
        case Tab::Diff:
          diff_.draw(m, controller_);
          break;
        case Tab::Graph:
          graph_.draw(m, controller_);
          break;
        case Tab::Dispatches:
          dispatches_.draw(m, controller_);
          break;
        case Tab::Profile:
          profile_.draw(m, controller_);
          break;
        case Tab::Compare:
          compare_.draw(m, controller_);
          break;
        }
        ImGui::EndTabItem();
      }
    }
    ImGui::EndTabBar();
  }
  ImGui::EndChild();
  ImGui::SameLine(0, 0);
  ImGui::BeginChild("split_right_area", ImVec2(kSplitter, topH), false, ImGuiWindowFlags_NoScrollbar);
  float rightEdge = W - rightW;
  if (splitter("##split_right", true, kSplitter, &rightEdge, W * 0.4f, W - 120.0f))
    layout_.rightWidth = (W - rightEdge) / W;
  ImGui::EndChild();
  ImGui::SameLine(0, 0);
  beginPanel("Run", "run_panel", ImVec2(rightW, topH), focus("run"));
  run_.draw(m, controller_);
  endPanel();

  // Bottom row: Log.
  ImGui::BeginChild("split_bottom_area", ImVec2(W, kSplitter), false, ImGuiWindowFlags_NoScrollbar);
  float top = topH;
  if (splitter("##split_bottom", false, kSplitter, &top, 120.0f, H - 50.0f))
    layout_.bottomHeight = (H - top - kSplitter) / H;
  ImGui::EndChild();
  size_t errors = m.log.errorCount();
  std::string logTitle = errors ? "Log (" + std::to_string(errors) + (errors == 1 ? " error)" : " errors)")
                                : std::string("Log");
  beginPanel(logTitle.c_str(), "log_panel", ImVec2(W, bottomH), focus("log"));
  log_.draw(m, controller_);
  endPanel();
  ImGui::PopStyleVar();
  ImGui::End();
  focusRequest_.reset();
}

void Workbench::draw() {
  auto start = std::chrono::steady_clock::now();
  controller_.beginFrame();
  documents_.beginFrame();
  graph_.beginFrame();
  drawMenuBar();
  drawLayout();
  drawFileDialog();
  if (showDemo_)
    ImGui::ShowDemoWindow(&showDemo_);
  if (showMetrics_)
    ImGui::ShowMetricsWindow(&showMetrics_);
  firstFrame_ = false;
  float ms = std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - start).count();
  frameMs_ = frameMs_ == 0 ? ms : frameMs_ * 0.9f + ms * 0.1f;
}

} // namespace loupe::visualizer
