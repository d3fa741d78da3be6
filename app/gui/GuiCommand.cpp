//===- GuiCommand.cpp - loupe gui: GLFW + OpenGL 3 main loop -------------------===//
//
// The only place that touches GLFW and OpenGL. The loop sleeps when nothing happens, as Tracy
// does: after a few calm frames it blocks in glfwWaitEventsTimeout until input arrives or a
// worker finishes (the workers' wake callback posts an empty event), and while a job runs it
// redraws at about 30 frames per second for the progress bar.
//
//===----------------------------------------------------------------------===//
#include "gui/GuiCommand.h"

#include "CommandLine.h"
#include "loupe/BackendFlags.h"

#include "loupe/visualizer/Controller.h"
#include "loupe/visualizer/Settings.h"
#include "loupe/visualizer/Style.h"
#include "loupe/visualizer/Workbench.h"

#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>

#define GLFW_INCLUDE_NONE
#include <GL/gl.h>
#include <GLFW/glfw3.h>
#include <stb_image_write.h>

#include <algorithm>
#include <atomic>
#include <cfloat>
#include <csignal>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace loupe::visualizer;

namespace loupe::app {

namespace {
const char *kGuiUsage =
    "usage: loupe [gui] [--session S.json] [--db DB] [MODEL]\n"
    "             [--screenshot OUT.png --frames N [--panel P] [--pass NAME|INDEX] [--run]\n"
    "              [--search TEXT] [--device KIND[:NAME]] [--size WxH]]\n"
    "             [--input-shape NAME=D0,D1,...]   (repeatable; binds symbolic input dims)\n"
    "  --fit: the graph panel shows the whole graph; --collapse: one box per cluster\n"
    "  P: pipeline, ir, diff, graph, dispatches, run, profile, compare, log\n"
    "  --search: the IR panel's search; with --panel graph|dispatches, selects the op\n"
    "  --device: the Profile panel's device picker (cpu, cuda, or cuda:NVIDIA H100 80GB HBM3)\n";

// Input seen since the last frame (set by GLFW callbacks chained before ImGui's).
std::atomic<bool> gInput{false};
// The loop sleeps in glfwWaitEventsTimeout: workers post an empty event to wake it.
std::atomic<bool> gIdleSleeping{false};
// SIGINT/SIGTERM: leave the loop at the next wake-up (at most 2 s), saving imgui.ini.
volatile std::sig_atomic_t gQuitSignal = 0;

void onQuitSignal(int) { gQuitSignal = 1; }

void onGlfwError(int code, const char *description) {
  std::fprintf(stderr, "loupe gui: GLFW error %d: %s\n", code, description);
}

/// Reads the back buffer (before glfwSwapBuffers: under Xvfb/Mesa the front buffer reads
/// black) and writes it as PNG.
bool writeScreenshot(GLFWwindow *window, const std::string &path) {
  int w = 0, h = 0;
  glfwGetFramebufferSize(window, &w, &h);
  std::vector<unsigned char> pixels(static_cast<size_t>(w) * h * 3);
  glReadBuffer(GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
  if (glGetError() != GL_NO_ERROR)
    return false;
  stbi_flip_vertically_on_write(1); // GL's origin is bottom-left
  return stbi_write_png(path.c_str(), w, h, 3, pixels.data(), w * 3) != 0;
}

/// A pass by index or by name.
std::optional<int> findPass(const CompileView &c, const std::string &spec) {
  if (spec == "source")
    return c.hasSource() ? std::optional<int>(kSourcePass) : std::nullopt;
  try {
    size_t used = 0;
    int index = std::stoi(spec, &used);
    if (used == spec.size() && index >= 0 && index < c.passCount())
      return index;
  } catch (...) {
  }
  // By name: the first run of that pass that changed the IR, else its first run.
  std::optional<int> first;
  for (const compiler::PassSnapshot &s : c.result.snapshots)
    if (s.pass == spec) {
      if (s.changed)
        return s.index;
      if (!first)
        first = s.index;
    }
  return first;
}
} // namespace

int guiCommand(int argc, char **argv, int first) {
  CommandLine cl({"--session", "--db", "--screenshot", "--frames", "--panel", "--pass", "--search",
                  "--device", "--size", "--input-shape"},
                 {"--run", "--help", "--fit", "--collapse"});
  std::string error;
  if (!cl.parse(argc, argv, first, error) || cl.positionals().size() > 1) {
    std::fprintf(stderr, "loupe gui: %s\n%s",
                 error.empty() ? "at most one MODEL" : error.c_str(), kGuiUsage);
    return 2;
  }
  if (cl.has("--help")) {
    std::fputs(kGuiUsage, stdout);
    return 0;
  }
  int frames = 3;
  if (!cl.getInt("--frames", frames, error) || frames < 1) {
    std::fprintf(stderr, "loupe gui: %s\n", error.empty() ? "--frames must be >= 1" : error.c_str());
    return 2;
  }
  bool screenshot = cl.has("--screenshot");
  int width = 1600, height = 1000;
  if (cl.has("--size") && std::sscanf(cl.get("--size").c_str(), "%dx%d", &width, &height) != 2) {
    std::fprintf(stderr, "loupe gui: --size expects WxH, got '%s'\n", cl.get("--size").c_str());
    return 2;
  }
  const std::vector<std::string> &panels = Workbench::panelNames();
  std::string panel = cl.get("--panel");
  if (!panel.empty() && std::find(panels.begin(), panels.end(), panel) == panels.end()) {
    std::fprintf(stderr, "loupe gui: unknown panel '%s'\n%s", panel.c_str(), kGuiUsage);
    return 2;
  }

  glfwSetErrorCallback(onGlfwError);
  if (!glfwInit()) {
    std::fprintf(stderr, "loupe gui: cannot open a window (no display? set DISPLAY, or run "
                         "under xvfb-run); the other subcommands work without one.\n");
    return 2;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
  GLFWwindow *window = glfwCreateWindow(width, height, "Loupe", nullptr, nullptr);
  if (!window) {
    std::fprintf(stderr, "loupe gui: cannot create an OpenGL 3 window\n");
    glfwTerminate();
    return 2;
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(1);

  // Our input callbacks first: ImGui's backend chains to them.
  glfwSetCursorPosCallback(window, [](GLFWwindow *, double, double) { gInput = true; });
  glfwSetMouseButtonCallback(window, [](GLFWwindow *, int, int, int) { gInput = true; });
  glfwSetScrollCallback(window, [](GLFWwindow *, double, double) { gInput = true; });
  glfwSetKeyCallback(window, [](GLFWwindow *, int, int, int, int) { gInput = true; });
  glfwSetCharCallback(window, [](GLFWwindow *, unsigned) { gInput = true; });
  glfwSetWindowFocusCallback(window, [](GLFWwindow *, int) { gInput = true; });
  glfwSetCursorEnterCallback(window, [](GLFWwindow *, int) { gInput = true; });
  glfwSetFramebufferSizeCallback(window, [](GLFWwindow *, int, int) { gInput = true; });

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO &io = ImGui::GetIO();
  // Screenshots are reproducible: no saved layout, no recent files touched.
  std::string configDir = screenshot ? "" : defaultConfigDir();
  std::string iniPath = configDir.empty() ? "" : (fs::path(configDir) / "imgui.ini").string();
  io.IniFilename = iniPath.empty() ? nullptr : iniPath.c_str();
  applyTheme();
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 130");

  int exitCode = 0;
  {
    ControllerOptions options;
    options.dbPath = cl.get("--db");
    options.configDir = configDir;
    for (const std::string &entry : cl.getAll("--input-shape")) {
      std::string name;
      std::vector<int64_t> dims;
      if (!parseInputShape(entry, name, dims, error)) {
        std::fprintf(stderr, "loupe gui: %s\n", error.c_str());
        return 2;
      }
      options.inputShapes[name] = dims;
    }
    Controller controller(options);
    Workbench workbench(controller);
    workbench.installSettingsHandler();
    workbench.setWake([] {
      if (gIdleSleeping)
        glfwPostEmptyEvent();
    });

    bool opened = true;
    if (cl.has("--session"))
      opened = controller.openSession(cl.get("--session"));
    if (!cl.positionals().empty())
      opened = controller.open(cl.positionals()[0]) && opened;
    if (screenshot && !opened) {
      for (const LogEntry &e : controller.vm().log.entries())
        std::fprintf(stderr, "loupe gui: %s\n", e.text.c_str());
      exitCode = 2;
    }
    if (cl.has("--run") && controller.vm().hasModel())
      controller.run();
    // No model: the Profile panel lists every run in the DB (an imported Nsight Systems run has
    // no model to open).
    if (!controller.vm().hasModel())
      controller.refreshRuns();
    std::optional<std::string> pendingPass, pendingSearch, pendingDevice;
    if (cl.has("--pass"))
      pendingPass = cl.get("--pass");
    if (cl.has("--search"))
      pendingSearch = cl.get("--search");
    if (cl.has("--device"))
      pendingDevice = cl.get("--device");
    if (!panel.empty())
      workbench.focusPanel(panel);
    if (cl.has("--collapse"))
      workbench.graph().setCollapse(true);

    int calm = 0;        // frames since the last input or result
    int stableFrames = 0; // screenshot: frames drawn with no job in flight
    std::vector<double> settledFrameMs; // screenshot: CPU time of those frames
    auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(10);
    std::string title;
    std::signal(SIGINT, onQuitSignal);
    std::signal(SIGTERM, onQuitSignal);
    while (exitCode == 0 && !glfwWindowShouldClose(window) && !workbench.quitRequested() &&
           !gQuitSignal) {
      if (screenshot || calm < 3) {
        glfwPollEvents();
      } else {
        bool busy = workbench.busy();
        gIdleSleeping = !busy;
        glfwWaitEventsTimeout(busy ? 1.0 / 30 : 2.0);
        gIdleSleeping = false;
      }
      if (gInput.exchange(false))
        calm = 0;

      auto frameStart = std::chrono::steady_clock::now();
      ImGui_ImplOpenGL3_NewFrame();
      ImGui_ImplGlfw_NewFrame();
      if (screenshot) // no hover or tooltip from wherever the pointer happens to be
        io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
      ImGui::NewFrame();
      workbench.draw();
      if (controller.appliedLastFrame() > 0)
        calm = 0;
      if (pendingPass && controller.vm().compile && !controller.vm().compiling) {
        if (auto pass = findPass(*controller.vm().compile, *pendingPass))
          controller.vm().selectPass(*pass);
        else
          controller.vm().log.error("gui", "--pass: no pass '" + *pendingPass + "'");
        pendingPass.reset();
        calm = 0;
      }
      const ViewModel &shown = controller.vm();
      bool graphSearch = panel == "graph" || panel == "dispatches";
      if (pendingSearch && graphSearch && shown.compile && !shown.compiling) {
        // The graph's find box: selects the first matching op and its dispatch.
        if (!workbench.graph().find(controller.vm(), *pendingSearch))
          controller.vm().log.error("gui", "--search: no op matches '" + *pendingSearch + "'");
        pendingSearch.reset();
        calm = 0;
      }
      if (pendingSearch && !graphSearch && !pendingPass && shown.compile && workbench.ir().document() &&
          workbench.ir().document()->text() == shown.compile->irAfter(shown.nav.selectedPass)) {
        // The IR panel's search, as typing it and pressing Enter does.
        workbench.ir().setSearch(*pendingSearch);
        workbench.ir().findNext();
        pendingSearch.reset();
        calm = 0;
      }
      if (pendingDevice && shown.runs) {
        // The device picker, once the runs are listed: "cuda" picks the first GPU.
        const Device *pick = nullptr;
        std::vector<DeviceRuns> devices = devicesOf(shown.runs->runs);
        for (const DeviceRuns &d : devices)
          if (!pick && (*pendingDevice == d.device.kind || *pendingDevice == d.device.label() ||
                        *pendingDevice == d.device.kind + ":" + d.device.name))
            pick = &d.device;
        if (pick)
          workbench.profile().pickDevice(controller.vm(), controller, pick);
        else
          controller.vm().log.error("gui", "--device: no run on '" + *pendingDevice + "'");
        pendingDevice.reset();
        calm = 0;
      }
      ImGui::Render();
      double frameMs =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - frameStart)
              .count();
      int fbw = 0, fbh = 0;
      glfwGetFramebufferSize(window, &fbw, &fbh);
      glViewport(0, 0, fbw, fbh);
      glClearColor(0.09f, 0.10f, 0.11f, 1.0f);
      glClear(GL_COLOR_BUFFER_BIT);
      ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());

      if (screenshot) {
        bool settled = !workbench.busy() && !pendingPass && !pendingSearch && !pendingDevice;
        stableFrames = settled ? stableFrames + 1 : 0;
        if (stableFrames > 1) // The frames the screenshot waits for, after the panel settled.
          settledFrameMs.push_back(frameMs);
        if (stableFrames == 1 && !panel.empty())
          workbench.focusPanel(panel); // again: the first request may predate the compile
        if (stableFrames == 1 && cl.has("--fit"))
          workbench.graph().view().fit();
        if (stableFrames >= frames + 1) {
          std::string out = cl.get("--screenshot");
          if (!writeScreenshot(window, out)) {
            std::fprintf(stderr, "loupe gui: cannot write %s\n", out.c_str());
            exitCode = 3;
          } else {
            std::fprintf(stderr, "screenshot: %s\n", out.c_str());
            if (!settledFrameMs.empty()) {
              std::sort(settledFrameMs.begin(), settledFrameMs.end());
              std::fprintf(stderr, "frame (CPU, UI thread): median %.2f ms, max %.2f ms over %zu "
                                   "frames\n",
                           settledFrameMs[settledFrameMs.size() / 2], settledFrameMs.back(),
                           settledFrameMs.size());
            }
          }
          break;
        }
        if (std::chrono::steady_clock::now() > deadline) {
          std::fprintf(stderr, "loupe gui: jobs still running after 10 minutes; no screenshot\n");
          exitCode = 3;
          break;
        }
      }
      glfwSwapBuffers(window);
      ++calm;

      std::string want = "Loupe";
      const ViewModel &m = controller.vm();
      if (m.hasModel())
        want += " - " + (m.session.path.empty() ? m.session.model : m.session.path) +
                (m.sessionDirty ? " *" : "");
      if (want != title) {
        title = want;
        glfwSetWindowTitle(window, title.c_str());
      }
    }
    if (screenshot && exitCode == 0 && controller.vm().log.errorCount() > 0)
      for (const LogEntry &e : controller.vm().log.entries())
        if (e.level == LogLevel::Error)
          std::fprintf(stderr, "loupe gui: [%s] %s\n", e.source.c_str(), e.text.c_str());
    // The workbench saves imgui.ini (with its layout section) when it goes away.
  }

  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return exitCode;
}

} // namespace loupe::app
