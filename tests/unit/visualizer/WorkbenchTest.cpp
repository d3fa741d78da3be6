//===- WorkbenchTest.cpp - The whole workbench, headless, on a real model -----===//
//
// What a user does in the window, frame by frame: open a model, step through every pass, diff
// two passes, run twice with different settings, compare the runs, save the session and
// replay it. Frames keep coming while the worker compiles and runs.
//
//===----------------------------------------------------------------------===//
#include "loupe/visualizer/Workbench.h"

#include "Fixtures.h"
#include "ImGuiHarness.h"

#include "loupe/profiler/Store.h"
#include "loupe/sessions/Replay.h"
#include "loupe/sessions/Report.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <iterator>
#include <thread>

using namespace loupe::visualizer;
using namespace loupe::visualizer::testing;
namespace profiler = loupe::profiler;
namespace sessions = loupe::sessions;

namespace {
struct Bench {
  TempDir dir;
  std::unique_ptr<Controller> controller;
  std::unique_ptr<Workbench> workbench;
  ImGuiHarness ui{1600, 1000};
  double worstFrameMs = 0;
  int frames = 0;

  Bench() {
    ControllerOptions options;
    options.dbPath = dir.str("profiles.db");
    options.configDir = dir.str("config");
    std::filesystem::create_directories(options.configDir);
    controller = std::make_unique<Controller>(options);
    workbench = std::make_unique<Workbench>(*controller);
  }
  ViewModel &vm() { return controller->vm(); }
  void frame() {
    worstFrameMs = std::max(worstFrameMs, ui.rawFrame([&] { workbench->draw(); }));
    ++frames;
  }
  /// Draws frames (about 200 per second) until `done` or the timeout.
  bool drawUntil(const std::function<bool()> &done, double seconds = 300) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline)
        return false;
      frame();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    frame();
    return true;
  }
};
} // namespace

TEST(Workbench, OpenStepDiffRunTwiceCompareSaveReplay) {
  Bench b;
  ASSERT_TRUE(b.controller->openModel(mlpTosaPath()));
  EXPECT_TRUE(b.vm().compiling);
  // The compile runs on the worker: frames keep coming meanwhile.
  ASSERT_TRUE(b.drawUntil([&] { return b.vm().compile != nullptr; }));
  EXPECT_GT(b.frames, 2);
  ASSERT_TRUE(b.vm().compile->result.ok()) << b.vm().compile->result.error->message;
  EXPECT_FALSE(b.vm().compiling);

  // Step through every pass (what the Down key does), the IR panel showing each.
  ViewModel &vm = b.vm();
  vm.selectPass(kSourcePass);
  b.frame();
  int steps = 0;
  while (vm.nav.selectedPass < vm.compile->passCount() - 1) {
    int before = vm.nav.selectedPass;
    b.workbench->pipeline().step(vm, 1);
    ASSERT_EQ(vm.nav.selectedPass, before + 1);
    b.frame();
    if (!vm.compile->irAfter(vm.nav.selectedPass).empty()) {
      ASSERT_NE(b.workbench->ir().document(), nullptr);
      EXPECT_EQ(b.workbench->ir().document()->text(), vm.compile->irAfter(vm.nav.selectedPass));
    }
    ++steps;
  }
  EXPECT_EQ(steps, vm.compile->passCount());

  // Diff two passes: the first tosa-to-linalg against the pass before it.
  int pass = -1;
  for (const auto &s : vm.compile->result.snapshots)
    if (s.pass == "tosa-to-linalg" && s.changed && pass < 0)
      pass = s.index;
  vm.selectPass(pass);
  b.workbench->selectTab(Tab::Diff);
  b.frame();
  b.frame();
  EXPECT_EQ(b.workbench->activeTab(), Tab::Diff);
  ASSERT_NE(b.workbench->diff().diff(), nullptr);
  EXPECT_GT(b.workbench->diff().hunkCount(), 0u);

  // Run twice with different settings.
  vm.session.run.measure.warmupReps = 1;
  vm.session.run.measure.reps = 10;
  b.controller->run();
  EXPECT_TRUE(vm.running);
  ASSERT_TRUE(b.drawUntil([&] { return !vm.running; }));
  ASSERT_NE(vm.lastRun, nullptr);
  ASSERT_TRUE(vm.lastRun->outcome.error.empty()) << vm.lastRun->outcome.error;
  int64_t first = vm.lastRun->outcome.runId;
  EXPECT_GE(first, 0);

  vm.session.run.measure.reps = 15;
  vm.session.run.inputsDir.clear(); // random inputs, another seed
  vm.session.run.checkDir.clear();
  vm.session.run.seed = 7;
  b.controller->run();
  ASSERT_TRUE(b.drawUntil([&] { return !vm.running; }));
  ASSERT_TRUE(vm.lastRun->outcome.error.empty()) << vm.lastRun->outcome.error;
  int64_t second = vm.lastRun->outcome.runId;
  EXPECT_GT(second, first);
  EXPECT_EQ(vm.lastRun->request.run.measure.reps, 15);

  // The runs list, the newest run's profile and the comparison arrive without blocking.
  ASSERT_TRUE(b.drawUntil([&] {
    return !b.workbench->busy() && vm.runs && vm.runs->runs.size() == 2 && vm.profile &&
           vm.comparison;
  }));
  EXPECT_EQ(vm.profile->run.id, second);
  EXPECT_EQ(vm.profile->whole.count, 15u);
  EXPECT_EQ(vm.comparison->baseline.id, first);
  EXPECT_EQ(vm.comparison->candidate.id, second);
  EXPECT_EQ(vm.comparison->rows.size(), vm.profile->rows.size());
  EXPECT_EQ(vm.comparison->total.comparison.baseline.count, 10u);
  EXPECT_EQ(vm.comparison->total.comparison.candidate.count, 15u);
  b.workbench->selectTab(Tab::Compare);
  b.frame();
  b.workbench->selectTab(Tab::Profile);
  b.frame();

  // No frame waited for the compile or the runs (generous bound for a shared machine).
  EXPECT_LT(b.worstFrameMs, 250.0);

  // Save the session as shown: the Run panel's settings on top, the two compared runs as
  // `compare` (the first run's settings a variant, the second's those on top: "base").
  std::string saved = b.dir.str("mine.json");
  ASSERT_TRUE(b.controller->saveSession(saved));
  EXPECT_FALSE(vm.sessionDirty);
  EXPECT_EQ(b.controller->recent().paths().front(), saved);
  auto loaded = sessions::loadSession(saved);
  ASSERT_TRUE(loaded) << loaded.status().message();
  EXPECT_EQ(loaded->model, vm.session.model);
  EXPECT_EQ(loaded->run.measure.reps, 15);
  EXPECT_EQ(loaded->run.seed, 7u);
  EXPECT_EQ(loaded->pipeline.phaseTo, vm.session.pipeline.phaseTo);
  std::string firstName = "run" + std::to_string(first);
  EXPECT_EQ(loaded->compare, (std::vector<std::string>{firstName, "base"}));
  ASSERT_TRUE(loaded->variant(firstName));
  EXPECT_EQ(loaded->variant(firstName)->run.measure.reps, 10);
  EXPECT_EQ(loaded->variant(firstName)->run.measure.warmupReps, 1);
  EXPECT_FALSE(loaded->variant(firstName)->run.checkDir.empty());

  // `loupe replay` of the file reproduces the comparison: the same two settings, compared.
  sessions::ReplayOptions once;
  once.trials = 1;
  sessions::ReplayResult replay = sessions::replaySession(*loaded, vm.dbPath, once);
  ASSERT_EQ(replay.runs.size(), 2u);
  EXPECT_EQ(replay.exitCode(), 0);
  ASSERT_TRUE(replay.compare && replay.compare->comparison) << replay.compare->error;
  const sessions::RunComparison &again = *replay.compare->comparison;
  EXPECT_EQ(again.total.comparison.baseline.count, 10u);
  EXPECT_EQ(again.total.comparison.candidate.count, 15u);
  EXPECT_EQ(again.rows.size(), vm.comparison->rows.size());
  nlohmann::json report = sessions::buildReport(replay, *loaded);
  EXPECT_EQ(report["comparison"]["baseline"], firstName);
  EXPECT_EQ(report["comparison"]["dispatches"].size(), vm.comparison->rows.size());
}

TEST(Workbench, ComparesVariantsOfTheSession) {
  Bench b;
  std::string path = b.dir.str("variants.json");
  std::ofstream(path) << R"({"loupe_session": 2, "name": "v", "model": ")" << mlpTosaPath()
                      << R"(", "run": {"warmup": 1, "reps": 10},
    "variants": [{"name": "a"}, {"name": "b", "run": {"reps": 12, "seed": 3}}],
    "compare": ["a", "b"]})";
  ASSERT_TRUE(b.controller->openSession(path));
  ViewModel &vm = b.vm();
  EXPECT_TRUE(vm.nav.comparesVariants());
  b.workbench->selectTab(Tab::Compare);
  ASSERT_TRUE(b.drawUntil([&] { return !b.workbench->busy(); }));
  EXPECT_TRUE(b.workbench->compare().variantMode());
  EXPECT_EQ(vm.comparison, nullptr) << "no stored runs of the variants yet";

  // Run both (the panel's button), stored under their names, then compared.
  b.controller->runVariants("a", "b");
  ASSERT_TRUE(b.drawUntil([&] { return !vm.running && !b.workbench->busy() && vm.comparison; }));
  ASSERT_TRUE(vm.comparison->error.empty()) << vm.comparison->error;
  EXPECT_EQ(vm.comparison->baseline.variant, "a");
  EXPECT_EQ(vm.comparison->candidate.variant, "b");
  EXPECT_EQ(vm.comparison->baseline.session, "v");
  EXPECT_EQ(vm.comparison->total.comparison.baseline.count, 10u);
  EXPECT_EQ(vm.comparison->total.comparison.candidate.count, 12u);
  int64_t runA = vm.comparison->baseline.id, runB = vm.comparison->candidate.id;

  // Opening the session again shows that comparison from the DB at once.
  ASSERT_TRUE(b.controller->openSession(path));
  ASSERT_TRUE(b.drawUntil([&] { return !b.workbench->busy() && vm.comparison; }));
  EXPECT_EQ(vm.comparison->baseline.id, runA);
  EXPECT_EQ(vm.comparison->candidate.id, runB);

  // Picking runs by id leaves variant mode; picking variants again compares their runs.
  b.controller->compareRuns(runB, runA, 0.05);
  EXPECT_FALSE(vm.nav.comparesVariants());
  b.controller->compareVariants("b", "a", 0.05);
  ASSERT_TRUE(b.drawUntil([&] { return !b.workbench->busy(); }));
  EXPECT_EQ(vm.comparison->baseline.id, runB);

  // Save keeps the variants and writes the pair shown.
  std::string saved = b.dir.str("saved.json");
  ASSERT_TRUE(b.controller->saveSession(saved));
  auto loaded = sessions::loadSession(saved);
  ASSERT_TRUE(loaded) << loaded.status().message();
  EXPECT_EQ(loaded->variants.size(), 2u);
  EXPECT_EQ(loaded->compare, (std::vector<std::string>{"b", "a"}));
  EXPECT_EQ(loaded->variant("b")->run.seed, 3u);
}

TEST(Workbench, RegressedRowOpensTheDiffAcrossTheTwoCompiles) {
  // conv1 on codegen instead of oneDNN: its source-op group is much slower, and its IR first
  // differs at loupe-form-clusters. The row's "IR diff" button opens the Diff panel on that
  // pass with the two runs' compiles side by side (replay runs keep no IR text: compiled again).
  Bench b;
  std::string path = b.dir.str("cnn.json");
  std::ofstream(path) << R"({"loupe_session": 2, "name": "x", "model": ")" << LOUPE_SOURCE_DIR
                      << R"(/examples/models/cnn.onnx", "run": {"warmup": 2, "reps": 30},
    "variants": [{"name": "lib"}, {"name": "gen", "pipeline": {"overrides": {"conv1": "codegen"}}}],
    "compare": ["lib", "gen"]})";
  ASSERT_TRUE(b.controller->openSession(path));
  ViewModel &vm = b.vm();
  b.workbench->selectTab(Tab::Compare);
  b.controller->runVariants("lib", "gen");
  ASSERT_TRUE(b.drawUntil([&] { return !vm.running && !b.workbench->busy() && vm.comparison; }));
  const CompareRow *regressed = nullptr;
  for (const CompareRow &r : vm.comparison->rows)
    if (r.attribution && r.loc.find("conv1") != std::string::npos)
      regressed = &r;
  ASSERT_NE(regressed, nullptr) << "no attributed row for conv1";
  int pass = regressed->attribution->index;
  EXPECT_EQ(regressed->attribution->pass, "loupe-form-clusters");
  // The row has an "IR diff" button in the Compare table (the group rows sit below the fold
  // of this window, so the test presses it through the panel's own handler).
  ComparePanel::openCrossDiff(vm, *b.controller, pass);
  EXPECT_TRUE(vm.nav.diffAcrossCompiles);
  EXPECT_EQ(vm.nav.crossDiffPass, pass);
  ASSERT_TRUE(b.drawUntil([&] { return vm.crossCompile && !b.workbench->busy(); }, 120));
  ASSERT_TRUE(vm.crossCompile->error.empty()) << vm.crossCompile->error;
  EXPECT_EQ(vm.crossCompile->baselineRunId, vm.comparison->baseline.id);
  ASSERT_TRUE(b.drawUntil([&] { return b.workbench->diff().diff() && !b.workbench->diff().computing(); }, 60));
  EXPECT_EQ(b.workbench->diff().passA(), pass);
  EXPECT_EQ(b.workbench->diff().passB(), pass);
  EXPECT_GT(b.workbench->diff().hunkCount(), 0u) << "the backend choice changed the IR there";
  // The pass before it: the two compiles agree.
  vm.nav.crossDiffPass = pass - 1;
  ASSERT_TRUE(b.drawUntil([&] { return b.workbench->diff().passB() == pass - 1 && !b.workbench->diff().computing(); }, 60));
  ASSERT_TRUE(b.drawUntil([&] { return b.workbench->diff().diff() && b.workbench->diff().diff()->identical(); }, 60));
}

TEST(Workbench, CancelARun) {
  Bench b;
  ASSERT_TRUE(b.controller->openModel(mlpTosaPath()));
  ViewModel &vm = b.vm();
  vm.session.run.measure.reps = 1000000;
  b.controller->run();
  ASSERT_TRUE(b.drawUntil(
      [&] { return (vm.progress.running && vm.progress.stage == "run") || !vm.running; }));
  ASSERT_TRUE(vm.running) << (vm.lastRun ? vm.lastRun->outcome.error : "");
  b.controller->cancelRun();
  ASSERT_TRUE(b.drawUntil([&] { return !vm.running; }, 60));
  bool logged = false;
  for (const LogEntry &e : vm.log.entries())
    logged |= e.source == "run" && e.text == "cancelled";
  EXPECT_TRUE(logged);
  // Nothing was stored for the cancelled run.
  ASSERT_TRUE(b.drawUntil([&] { return !b.workbench->busy(); }));
  b.controller->refreshRuns();
  ASSERT_TRUE(b.drawUntil([&] { return !b.workbench->busy(); }));
  EXPECT_TRUE(vm.runs->runs.empty());
}

TEST(Workbench, OpensSessionsAndReportsBadFiles) {
  Bench b;
  EXPECT_FALSE(b.controller->open(b.dir.str("missing.onnx")));
  EXPECT_FALSE(b.controller->open(b.dir.str("notes.txt")));
  std::ofstream(b.dir.str("bad.json")) << "{\"loupe_session\": 1, \"model\": \"m.onnx\", \"repz\": 1}";
  EXPECT_FALSE(b.controller->open(b.dir.str("bad.json")));
  EXPECT_EQ(b.vm().log.errorCount(), 3u);
  ASSERT_TRUE(b.controller->openSession(std::string(LOUPE_SOURCE_DIR) + "/examples/sessions/mlp_tosa.json"));
  EXPECT_EQ(b.vm().session.name, "mlp_tosa");
  ASSERT_TRUE(b.drawUntil([&] { return b.vm().compile != nullptr; }));
  for (const char *panel : {"pipeline", "ir", "diff", "run", "profile", "compare", "log"}) {
    EXPECT_TRUE(b.workbench->focusPanel(panel));
    b.frame();
  }
  EXPECT_FALSE(b.workbench->focusPanel("nope"));
  // The Debug windows draw too.
  b.frame();
}

TEST(Workbench, LayoutPersistsInImGuiIni) {
  TempDir dir;
  std::string ini = dir.str("imgui.ini");
  ControllerOptions options;
  options.dbPath = dir.str("profiles.db");
  {
    ImGuiHarness ui;
    ImGui::GetIO().IniFilename = ini.c_str();
    Controller controller(options);
    Workbench workbench(controller);
    workbench.installSettingsHandler();
    ui.rawFrame([&] { workbench.draw(); });
    workbench.layout().leftWidth = 0.31f;
    workbench.layout().bottomHeight = 0.22f;
    ui.rawFrame([&] { workbench.draw(); });
  } // the Workbench writes imgui.ini as it goes
  std::ifstream in(ini);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("[Loupe][Layout]"), std::string::npos) << text;
  EXPECT_NE(text.find("Left=0.3100"), std::string::npos) << text;
  {
    ImGuiHarness ui;
    ImGui::GetIO().IniFilename = ini.c_str();
    Controller controller(options);
    Workbench workbench(controller);
    workbench.installSettingsHandler();
    ui.rawFrame([&] { workbench.draw(); }); // the first NewFrame reads imgui.ini
    EXPECT_NEAR(workbench.layout().leftWidth, 0.31f, 1e-4);
    EXPECT_NEAR(workbench.layout().bottomHeight, 0.22f, 1e-4);
  }
}
