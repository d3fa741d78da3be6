//===- Workbench.h - The main window's contents -------------------*- C++ -*-===//
//
// Owns the panels and draws the whole UI of a frame: the menu bar (File: open, recent files,
// save/save as session, quit; Run: compile, run, cancel; Debug: ImGui demo and metrics
// windows), then a fixed layout computed from the viewport (no docking branch):
//
//   +----------+--------------------------------------------------------+---------+
//   | Pipeline | [IR] [Diff] [Graph] [Dispatches] [Profile] [Compare]   | Run     |
//   |          |                                                        |         |
//   +----------+-------------------------------+---------+
//   | Log                                                |
//   +----------------------------------------------------+
//
// The splitters between the areas can be dragged; their positions, like tables' column widths
// and sort orders, are stored in imgui.ini (section [Loupe][Layout]).
//
// A frame never waits: draw() applies finished worker results first, then draws.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_WORKBENCH_H
#define LOUPE_VISUALIZER_WORKBENCH_H

#include "loupe/visualizer/Controller.h"
#include "loupe/visualizer/DocumentCache.h"
#include "loupe/visualizer/panels/ComparePanel.h"
#include "loupe/visualizer/panels/DiffPanel.h"
#include "loupe/visualizer/panels/DispatchPanel.h"
#include "loupe/visualizer/panels/FileDialog.h"
#include "loupe/visualizer/panels/GraphPanel.h"
#include "loupe/visualizer/panels/IrPanel.h"
#include "loupe/visualizer/panels/LogPanel.h"
#include "loupe/visualizer/panels/PipelinePanel.h"
#include "loupe/visualizer/panels/ProfilePanel.h"
#include "loupe/visualizer/panels/RunPanel.h"

#include <imgui.h>

#include <optional>
#include <string>
#include <vector>

namespace loupe::visualizer {

/// Splitter positions, as fractions of the viewport.
struct Layout {
  float leftWidth = 0.24f;   ///< Pipeline column.
  float rightWidth = 0.19f;  ///< Run column.
  float bottomHeight = 0.17f;///< Log row.
};

class Workbench {
public:
  explicit Workbench(Controller &controller);
  ~Workbench();

  /// Registers the [Loupe][Layout] imgui.ini handler. Call after ImGui::CreateContext and
  /// before the first NewFrame (ImGui loads the ini file then).
  void installSettingsHandler();

  /// The whole UI of one frame; call between ImGui::NewFrame and ImGui::Render.
  void draw();
  /// A job (compile, run, DB read, indexing, diff) is in flight: keep drawing frames.
  bool busy() const;
  /// Wake callback for every worker (the host posts an empty event to its loop).
  void setWake(std::function<void()> wake);
  /// Waits for every worker and applies the results (tests, screenshot mode).
  bool waitIdle(double timeoutSeconds);
  bool quitRequested() const { return quit_; }

  /// Brings a panel to the front: one of panelNames(). False for an unknown name.
  bool focusPanel(const std::string &name);
  /// "pipeline", "ir", "diff", "graph", "dispatches", "run", "profile", "compare", "log".
  static const std::vector<std::string> &panelNames();
  void selectTab(Tab tab) { controller_.vm().nav.tabRequest = tab; }
  Tab activeTab() const { return activeTab_; }

  Controller &controller() { return controller_; }
  ViewModel &vm() { return controller_.vm(); }
  Layout &layout() { return layout_; }
  DocumentCache &documents() { return documents_; }
  PipelinePanel &pipeline() { return pipeline_; }
  IrPanel &ir() { return ir_; }
  DiffPanel &diff() { return diff_; }
  GraphPanel &graph() { return graph_; }
  DispatchPanel &dispatches() { return dispatches_; }
  RunPanel &runPanel() { return run_; }
  ProfilePanel &profile() { return profile_; }
  ComparePanel &compare() { return compare_; }
  LogPanel &log() { return log_; }
  FileDialog &fileDialog() { return fileDialog_; }

  /// Opens the file dialog for File > Open / Save As (what the menu does).
  void showOpenDialog();
  void showSaveAsDialog();
  /// File > Save: the session's file, or Save As when it has none.
  void save();

private:
  void drawMenuBar();
  void drawLayout();
  void drawFileDialog();
  bool splitter(const char *id, bool vertical, float thickness, float *position, float min,
                float max);
  void beginPanel(const char *title, const char *id, ImVec2 size, bool focusRequested);
  void endPanel();

  Controller &controller_;
  DocumentCache documents_;
  PipelinePanel pipeline_;
  IrPanel ir_;
  DiffPanel diff_;
  GraphPanel graph_;
  DispatchPanel dispatches_;
  RunPanel run_;
  ProfilePanel profile_;
  ComparePanel compare_;
  LogPanel log_;
  FileDialog fileDialog_;
  Layout layout_;

  enum class DialogPurpose { None, Open, SaveAs, Folder } dialogPurpose_ = DialogPurpose::None;
  std::string *folderTarget_ = nullptr;
  Tab activeTab_ = Tab::Ir;
  std::optional<std::string> focusRequest_;
  bool showDemo_ = false;
  bool showMetrics_ = false;
  bool quit_ = false;
  bool firstFrame_ = true;
  float frameMs_ = 0;
};

} // namespace loupe::visualizer

#endif // LOUPE_VISUALIZER_WORKBENCH_H
