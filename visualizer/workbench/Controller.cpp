//===- Controller.cpp - The workbench's document and its jobs ----------------===//
#include "loupe/visualizer/Controller.h"

#include "loupe/ral/TensorIO.h"

#include "loupe/profiler/CpuCollector.h"
#include "loupe/profiler/Store.h"
#include "loupe/sessions/Trials.h"
#include "loupe/sessions/Tune.h"
#include "loupe/visualizer/Format.h"

#include <chrono>
#include <tuple>
#include <cstdio>
#include <filesystem>
#include <unistd.h>

namespace fs = std::filesystem;

namespace loupe::visualizer {

namespace {
int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string extensionOf(const std::string &path) {
  return fs::path(path).extension().string();
}

std::string absolutePath(const std::string &path) {
  std::error_code ec;
  fs::path abs = fs::absolute(path, ec);
  return ec ? path : abs.lexically_normal().string();
}

/// Compiles `model` for viewing (IR text kept, the artifact written to a private temporary
/// `loupe-gui-<pid>-<tag>.so` and thrown away): the run's input tensors bind free dims and
/// shape tensors and `--backends auto` reads the DB's tuning table, as in runs
/// (sessions::runModel).
std::shared_ptr<const CompileView> compileForView(const std::string &model,
                                                  compiler::CompileOptions options,
                                                  const std::string &inputsDir,
                                                  const std::string &dbPath, uint64_t generation,
                                                  const std::string &tag) {
  int64_t start = nowNs();
  options.keepIrText = true;
  options.artifactPath = (fs::temp_directory_path() /
                          ("loupe-gui-" + std::to_string(getpid()) + "-" + tag + ".so"))
                             .string();
  if (!inputsDir.empty())
    if (auto inputs = ral::readTensorDir(inputsDir, "input"))
      sessions::bindInputTensors(options, *inputs);
  compiler::CompileResult result;
  if (ral::Status s = sessions::resolveTunedBackends(options, dbPath); !s)
    result.error = compiler::CompileError{compiler::CompileError::Kind::BadInput,
                                          "--backends auto: " + s.message()};
  else
    result = compiler::compileModel(model, options);
  std::error_code ec;
  fs::remove(options.artifactPath, ec);
  return makeCompileView(model, options, std::move(result), generation, nowNs() - start);
}

/// Opens the DB read-only; a missing file is an empty DB, not an error.
ral::StatusOr<profiler::Store> openForReading(const std::string &dbPath) {
  profiler::Store::OpenOptions options;
  options.readOnly = true;
  return profiler::Store::open(dbPath, options);
}
} // namespace

Controller::Controller(ControllerOptions options) : options_(std::move(options)) {
  vm_.dbPath = options_.dbPath;
  if (vm_.dbPath.empty()) {
    auto path = profiler::defaultDatabasePath();
    if (path)
      vm_.dbPath = *path;
    else
      vm_.log.error("db", path.status().message());
  }
  if (!options_.configDir.empty())
    recent_.load((fs::path(options_.configDir) / "recent.txt").string());
  jobs_ = std::make_unique<Worker>("loupe-jobs");
  data_ = std::make_unique<Worker>("loupe-data");
  // A job that throws (bad_alloc on a model too large for this machine) leaves the document
  // usable: its error is in the Log and nothing waits for it any more.
  auto failed = [this](const std::string &label, const std::string &what) {
    vm_.log.error("job", label + " failed: " + what);
    if (label.rfind("compile", 0) == 0)
      vm_.compiling = false;
    if (label.rfind("run ", 0) == 0) {
      vm_.running = false;
      runQueued_ = false;
    }
  };
  jobs_->setFailureHandler(failed);
  data_->setFailureHandler(failed);
}

Controller::~Controller() {
  // Join the workers before the view model goes away.
  jobs_.reset();
  data_.reset();
}

void Controller::setWake(std::function<void()> wake) {
  jobs_->setWake(wake);
  data_->setWake(wake);
}

bool Controller::busy() const { return jobs_->busy() || data_->busy(); }

void Controller::beginFrame() {
  appliedLastFrame_ = jobs_->drain() + data_->drain();
  vm_.progress = jobs_->progress();
}

bool Controller::waitIdle(double timeoutSeconds) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSeconds);
  while (busy()) {
    beginFrame();
    if (!busy())
      break;
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    usleep(2000);
  }
  beginFrame();
  return true;
}

// --- Document ------------------------------------------------------------------------------

void Controller::resetDocument() {
  ++generation_;
  jobs_->dropQueued("compile");
  vm_.compile.reset();
  vm_.lastRun.reset();
  vm_.runs.reset();
  vm_.profile.reset();
  vm_.comparison.reset();
  vm_.compiling = false;
  Navigation fresh;
  fresh.compareThreshold = vm_.nav.compareThreshold;
  fresh.device = vm_.nav.device; // kept while the new document's runs include that device
  vm_.nav = fresh;
  vm_.sessionDirty = false;
}

bool Controller::open(const std::string &path) {
  std::string ext = extensionOf(path);
  if (ext == ".json")
    return openSession(path);
  if (ext == ".mlir" || ext == ".onnx" || ext == ".so")
    return openModel(path);
  vm_.log.error("open", path + ": not a session (.json) or a model (.mlir, .onnx, .so)");
  return false;
}

bool Controller::openModel(const std::string &model) {
  std::error_code ec;
  if (!fs::is_regular_file(model, ec)) {
    vm_.log.error("open", model + ": no such file");
    recent_.remove(absolutePath(model));
    return false;
  }
  resetDocument();
  sessions::Session session;
  session.model = absolutePath(model);
  session.name = fs::path(model).stem().string();
  session.pipeline.inputShapes = options_.inputShapes;
  fs::path data = fs::path(session.model).parent_path() / session.name / "test_data_set_0";
  if (fs::is_directory(data, ec)) {
    session.run.inputsDir = data.string();
    session.run.checkDir = data.string();
  }
  vm_.session = std::move(session);
  vm_.log.info("open", "model " + vm_.session.model);
  afterOpen(vm_.session.model);
  return true;
}

bool Controller::openSession(const std::string &path) {
  auto session = sessions::loadSession(path);
  if (!session) {
    vm_.log.error("session", session.status().message());
    std::error_code ec;
    if (!fs::exists(path, ec))
      recent_.remove(absolutePath(path));
    return false;
  }
  resetDocument();
  vm_.session = std::move(*session);
  vm_.session.path = absolutePath(path);
  // The session's comparison: shown as soon as the DB has runs of both variants.
  if (vm_.session.compare.size() == 2) {
    vm_.nav.baselineVariant = vm_.session.compare[0];
    vm_.nav.candidateVariant = vm_.session.compare[1];
  }
  vm_.log.info("open", "session " + vm_.session.path + " (model " + vm_.session.model + ")");
  afterOpen(vm_.session.path);
  return true;
}

void Controller::afterOpen(const std::string &path) {
  recent_.add(path);
  if (options_.compileOnOpen && extensionOf(vm_.session.model) != ".so")
    compile();
  refreshRuns();
}

bool Controller::saveSession(const std::string &path) {
  std::string target = path.empty() ? vm_.session.path : path;
  if (target.empty()) {
    vm_.log.error("session", "no file to save to: use Save As");
    return false;
  }
  if (!vm_.hasModel()) {
    vm_.log.error("session", "nothing to save: open a model first");
    return false;
  }
  auto shown = sessionToSave(vm_);
  if (!shown) {
    vm_.log.error("session", shown.status().message());
    return false;
  }
  sessions::Session session = std::move(*shown);
  if (session.name.empty())
    session.name = fs::path(target).stem().string();
  if (ral::Status s = sessions::saveSession(session, target); !s) {
    vm_.log.error("session", s.message());
    return false;
  }
  vm_.session = session;
  vm_.session.path = absolutePath(target);
  vm_.sessionDirty = false;
  recent_.add(vm_.session.path);
  vm_.log.info("session", "saved " + vm_.session.path);
  return true;
}

// --- Jobs ----------------------------------------------------------------------------------

void Controller::compile() {
  if (!vm_.hasModel())
    return;
  // The session's pipeline (target, backends, overrides, fusion) as a run compiles it, but
  // only up to phase_to.
  compiler::CompileOptions options = sessions::compileOptionsFor(vm_.session.pipeline);
  options.phaseTo = vm_.session.pipeline.phaseTo;
  // The GUI compiles to look at the passes; runs compile their own artifact (runModel).
  std::string tag = std::to_string(++compileSerial_);
  std::string model = vm_.session.model;
  std::string inputsDir = vm_.session.run.inputsDir;
  std::string db = vm_.dbPath;
  uint64_t generation = generation_;
  vm_.compiling = true;
  jobs_->dropQueued("compile");
  jobs_->post("compile " + fs::path(model).filename().string(),
              [this, model, inputsDir, db, options, generation, tag](JobContext &ctx) {
                ctx.progress("compile", 0);
                auto view = compileForView(model, options, inputsDir, db, generation, tag);
                ctx.progress("compile", 1);
                ctx.deliver([this, view] {
                  if (view->generation != generation_)
                    return; // another document was opened meanwhile
                  vm_.compile = view;
                  vm_.compiling = false;
                  const compiler::CompileResult &r = view->result;
                  int changed = 0;
                  for (const compiler::PassSnapshot &s : r.snapshots)
                    changed += s.changed;
                  if (r.ok()) {
                    vm_.log.info("compile", fs::path(view->modelPath).filename().string() +
                                                ": " + std::to_string(r.snapshots.size()) +
                                                " passes (" + std::to_string(changed) +
                                                " changed the IR) in " + formatNs(r.totalNs) +
                                                ", up to phase '" + r.lastPhase + "'");
                  } else {
                    int failed = kNoPass;
                    for (const compiler::PassSnapshot &s : r.snapshots)
                      if (s.failed)
                        failed = s.index;
                    vm_.log.add(LogLevel::Error, "compile", r.error->message, failed);
                    if (failed != kNoPass)
                      vm_.selectPass(failed);
                  }
                  int n = view->passCount();
                  if (vm_.nav.selectedPass >= n ||
                      (vm_.nav.selectedPass == kSourcePass && !view->hasSource()) ||
                      vm_.nav.selectedPass == kNoPass)
                    vm_.selectPass(n > 0 ? 0 : (view->hasSource() ? kSourcePass : kNoPass));
                  if (vm_.nav.diffBase && *vm_.nav.diffBase >= n)
                    vm_.nav.diffBase.reset();
                  if (vm_.nav.diffTarget && *vm_.nav.diffTarget >= n)
                    vm_.nav.diffTarget.reset();
                });
              });
}

void Controller::compileCompared() {
  if (!vm_.comparison || !vm_.hasModel())
    return;
  const CompareView &c = *vm_.comparison;
  struct Side {
    int64_t runId;
    std::string model, name;
    ral::StatusOr<sessions::Variant> variant;
  };
  std::vector<Side> sides;
  for (const auto &[run, config, name] :
       {std::tuple{&c.baseline, &c.baselineConfigJson, "baseline"},
        std::tuple{&c.candidate, &c.candidateConfigJson, "candidate"}})
    sides.push_back({run->id, run->model, name,
                     sessions::variantFromRunConfig(vm_.session, name, *config)});
  std::string db = vm_.dbPath;
  uint64_t generation = generation_;
  vm_.crossCompiling = true;
  int64_t serial = ++compileSerial_;
  jobs_->dropQueued("compile compared");
  jobs_->post("compile compared", [this, sides, db, generation, serial](JobContext &ctx) {
    auto view = std::make_shared<CrossCompileView>();
    view->baselineRunId = sides[0].runId;
    view->candidateRunId = sides[1].runId;
    for (size_t i = 0; i < sides.size() && view->error.empty(); ++i) {
      const Side &side = sides[i];
      ctx.progress("compile " + side.name, static_cast<double>(i) / sides.size());
      if (!side.variant) {
        view->error = "run " + std::to_string(side.runId) + ": " + side.variant.status().message();
        break;
      }
      auto compiled = compileForView(side.model, sessions::compileOptionsFor(side.variant->pipeline),
                                     side.variant->run.inputsDir, db, generation,
                                     std::to_string(serial) + "-" + side.name);
      if (!compiled->result.ok())
        view->error = "run " + std::to_string(side.runId) + ": " + compiled->result.error->message;
      (i == 0 ? view->baseline : view->candidate) = compiled;
    }
    ctx.progress("compile compared", 1);
    std::shared_ptr<const CrossCompileView> result = view;
    ctx.deliver([this, result, generation] {
      if (generation != generation_)
        return;
      vm_.crossCompile = result;
      vm_.crossCompiling = false;
      if (!result->error.empty())
        vm_.log.error("compile", "across compiles: " + result->error);
    });
  });
}

void Controller::run() {
  if (!vm_.hasModel()) {
    vm_.log.error("run", "open a model first");
    return;
  }
  sessions::RunRequest request = sessions::requestFromSession(vm_.session, vm_.dbPath);
  request.compile.keepIrText = false;
  std::string label = "run " + fs::path(request.model).filename().string();
  vm_.running = true;
  runQueued_ = true;
  uint64_t generation = generation_;
  const profiler::MeasureOptions &measure = request.run.measure;
  std::string warmup = measure.warmupReps < 0 ? formatNs(measure.warmupMs * 1e6)
                                              : std::to_string(measure.warmupReps);
  std::string reps = measure.reps > 0 ? std::to_string(measure.reps) : "adaptive";
  vm_.log.info("run", label + ": warmup " + warmup + ", reps " + reps + ", " +
                          request.run.mode + ", inputs " +
                          (request.run.inputsDir.empty()
                               ? "random (seed " + std::to_string(request.run.seed) + ")"
                               : request.run.inputsDir));
  jobs_->post(label, [this, request, generation](JobContext &ctx) {
    int64_t start = nowNs();
    auto view = std::make_shared<RunView>();
    view->request = request;
    view->outcome = sessions::runModel(
        request, [&ctx](const std::string &stage, double f) { ctx.progress(stage, f); },
        &ctx.cancelFlag());
    view->wallNs = nowNs() - start;
    std::shared_ptr<const RunView> result = view;
    ctx.deliver([this, result, generation] {
      vm_.running = false;
      runQueued_ = false;
      const sessions::RunOutcome &o = result->outcome;
      if (o.cancelled) {
        vm_.log.add(LogLevel::Warning, "run", "cancelled");
        return;
      }
      if (generation != generation_)
        return; // stored in the DB; the runs list of the new document picks it up if relevant
      vm_.lastRun = result;
      logOutcome(o, "");
      if (o.runId >= 0) {
        // Show the new run, and compare it with the newest earlier run of this model.
        int64_t previous = -1;
        if (vm_.runs)
          for (const profiler::RunSummary &r : vm_.runs->runs)
            if (r.id != o.runId && r.status == profiler::RunStatus::Complete) {
              previous = r.id;
              break;
            }
        refreshRuns();
        loadProfile(o.runId);
        if (previous >= 0)
          compareRuns(previous, o.runId, vm_.nav.compareThreshold);
      }
    });
  });
}

void Controller::logOutcome(const sessions::RunOutcome &o, const std::string &prefix) {
  if (!o.error.empty()) {
    vm_.log.error("run", prefix + o.error);
    return;
  }
  std::string check = !o.checked ? "not checked"
                                 : (o.exitCode == sessions::kExitMismatch ? "check FAILED"
                                                                          : "check passed");
  vm_.log.add(o.exitCode == sessions::kExitOk ? LogLevel::Info : LogLevel::Warning, "run",
              prefix + "run " + (o.runId >= 0 ? "#" + std::to_string(o.runId) : std::string("")) +
                  ": median " + formatNs(o.runSummary.median) + ", IQR " +
                  formatNs(o.runSummary.iqr()) + " over " + std::to_string(o.repNs.size()) +
                  " reps; " + check);
  for (const sessions::OutputCheck &c : o.checks)
    if (!c.record.passed)
      vm_.log.error("run", prefix + c.message);
}

void Controller::runVariants(const std::string &baseline, const std::string &candidate) {
  auto a = vm_.session.variant(baseline), b = vm_.session.variant(candidate);
  if (!vm_.hasModel() || !a || !b) {
    vm_.log.error("run", !vm_.hasModel() ? "open a model first"
                                         : "unknown variant '" + (a ? candidate : baseline) + "'");
    return;
  }
  std::vector<sessions::RunRequest> requests;
  for (const sessions::Variant *v : {&*a, &*b}) {
    requests.push_back(sessions::requestForVariant(vm_.session, *v, vm_.dbPath));
    requests.back().compile.keepIrText = false;
  }
  vm_.nav.baselineVariant = baseline;
  vm_.nav.candidateVariant = candidate;
  vm_.running = true;
  runQueued_ = true;
  uint64_t generation = generation_;
  std::string label = "run variants " + baseline + ", " + candidate;
  vm_.log.info("run", label);
  jobs_->post(label, [this, requests, generation](JobContext &ctx) {
    std::vector<std::shared_ptr<const RunView>> views;
    for (const sessions::RunRequest &request : requests) {
      int64_t start = nowNs();
      auto view = std::make_shared<RunView>();
      view->request = request;
      std::string variant = request.variant;
      view->outcome = sessions::runModel(
          request,
          [&](const std::string &stage, double f) { ctx.progress(variant + ": " + stage, f); },
          &ctx.cancelFlag());
      view->wallNs = nowNs() - start;
      views.push_back(view);
      if (!view->outcome.error.empty())
        break;
    }
    ctx.deliver([this, views, generation] {
      vm_.running = false;
      runQueued_ = false;
      if (views.back()->outcome.cancelled) {
        vm_.log.add(LogLevel::Warning, "run", "cancelled");
        return;
      }
      if (generation != generation_)
        return;
      vm_.lastRun = views.back();
      for (const auto &v : views)
        logOutcome(v->outcome, "variant " + v->request.variant + ": ");
      refreshRuns();
      if (views.size() == 2 && views[0]->outcome.runId >= 0 && views[1]->outcome.runId >= 0) {
        loadProfile(views[1]->outcome.runId);
        postCompare(views[0]->outcome.runId, views[1]->outcome.runId, vm_.nav.compareThreshold);
      }
    });
  });
}

void Controller::cancelRun() {
  JobProgress p = jobs_->progress();
  if (p.running && p.label.rfind("run", 0) == 0) {
    jobs_->cancelCurrent();
    jobs_->dropQueued("run");
    vm_.log.info("run", "cancelling...");
    return;
  }
  jobs_->dropQueued("run");
  if (runQueued_) {
    vm_.running = false;
    runQueued_ = false;
    vm_.log.add(LogLevel::Warning, "run", "cancelled before it started");
  }
}

void Controller::refreshRuns() {
  if (vm_.dbPath.empty())
    return;
  std::string db = vm_.dbPath;
  // Runs store the model path as given; match on the file name so CLI runs show up too.
  std::string filter = vm_.hasModel() ? fs::path(vm_.session.model).filename().string() : "";
  bool cuda = vm_.session.pipeline.target == "cuda";
  uint64_t generation = generation_;
  data_->dropQueued("runs");
  data_->post("runs", [this, db, filter, cuda, generation](JobContext &ctx) {
    auto view = std::make_shared<RunListView>();
    view->dbPath = db;
    view->modelFilter = filter;
    std::error_code ec;
    if (fs::exists(db, ec)) {
      auto store = openForReading(db);
      if (!store) {
        view->error = store.status().message();
      } else {
        auto runs = store->listRuns(filter);
        if (runs)
          view->runs = std::move(*runs);
        else
          view->error = runs.status().message();
        auto tuning = store->tuning(cuda ? "cuda" : "cpu", cuda ? "" : profiler::cpuDeviceName());
        if (tuning)
          for (profiler::TuningRecord &t : *tuning)
            view->tuning[t.signature] = std::move(t);
      }
    }
    std::shared_ptr<const RunListView> result = view;
    ctx.deliver([this, result, generation] {
      if (generation != generation_)
        return;
      bool firstList = !vm_.runs;
      vm_.runs = result;
      if (!result->error.empty())
        vm_.log.error("db", result->error);
      // The device picker follows the run shown, and forgets a device no listed run was made on.
      if (vm_.nav.device) {
        bool any = false;
        for (const profiler::RunSummary &r : result->runs) {
          any |= vm_.nav.device->matches(r);
          if (r.id == vm_.nav.profileRunId && !vm_.nav.device->matches(r)) {
            vm_.nav.device = deviceOf(r);
            any = true;
            break;
          }
        }
        if (!any)
          vm_.nav.device.reset();
      }
      // First look at a model: show its newest run on the picked device and compare it with
      // the one before.
      std::vector<int64_t> complete;
      for (const profiler::RunSummary &r : result->runs)
        if (r.status == profiler::RunStatus::Complete &&
            (!vm_.nav.device || vm_.nav.device->matches(r)))
          complete.push_back(r.id);
      if (firstList && vm_.nav.profileRunId < 0 && !complete.empty())
        loadProfile(complete[0]);
      if (firstList && vm_.nav.comparesVariants())
        compareVariants(vm_.nav.baselineVariant, vm_.nav.candidateVariant,
                        vm_.nav.compareThreshold);
      else if (firstList && vm_.nav.candidateRunId < 0 && complete.size() >= 2)
        compareRuns(complete[1], complete[0], vm_.nav.compareThreshold);
    });
  });
}

void Controller::loadProfile(int64_t runId) {
  vm_.nav.profileRunId = runId;
  std::string db = vm_.dbPath;
  data_->dropQueued("profile");
  data_->post("profile", [this, db, runId](JobContext &ctx) {
    std::shared_ptr<const ProfileView> result;
    auto store = openForReading(db);
    auto data = store ? store->loadRun(runId) : ral::StatusOr<profiler::RunData>(store.status());
    if (data) {
      result = makeProfileView(*data);
    } else {
      auto view = std::make_shared<ProfileView>();
      view->run.id = runId;
      view->error = data.status().message();
      result = view;
    }
    ctx.deliver([this, result, runId] {
      if (vm_.nav.profileRunId != runId)
        return;
      vm_.profile = result;
      if (!result->error.empty())
        vm_.log.error("db", result->error);
    });
  });
}

int64_t Controller::newestRunOf(const std::string &name) const {
  if (vm_.runs)
    for (const profiler::RunSummary &r : vm_.runs->runs) // newest first
      if (r.status == profiler::RunStatus::Complete && r.session == vm_.session.name &&
          r.variant == name)
        return r.id;
  return -1;
}

void Controller::compareVariants(const std::string &baseline, const std::string &candidate,
                                 double threshold) {
  vm_.nav.baselineVariant = baseline;
  vm_.nav.candidateVariant = candidate;
  vm_.nav.compareThreshold = threshold;
  int64_t a = newestRunOf(baseline), b = newestRunOf(candidate);
  if (a >= 0 && b >= 0 && a != b) {
    postCompare(a, b, threshold);
    return;
  }
  // Nothing to compare yet: the panel offers to run the variants.
  vm_.nav.baselineRunId = a;
  vm_.nav.candidateRunId = b;
  vm_.comparison.reset();
}

void Controller::compareRuns(int64_t baseline, int64_t candidate, double threshold) {
  vm_.nav.baselineVariant.clear();
  vm_.nav.candidateVariant.clear();
  postCompare(baseline, candidate, threshold);
}

void Controller::postCompare(int64_t baseline, int64_t candidate, double threshold) {
  vm_.nav.baselineRunId = baseline;
  vm_.nav.candidateRunId = candidate;
  vm_.nav.compareThreshold = threshold;
  std::string db = vm_.dbPath;
  data_->dropQueued("compare");
  data_->post("compare", [this, db, baseline, candidate, threshold](JobContext &ctx) {
    std::shared_ptr<const CompareView> result;
    auto store = openForReading(db);
    std::string error;
    if (!store) {
      error = store.status().message();
    } else {
      // Each run with the trials of its batch: the verdicts `loupe compare` gives.
      auto a = store->loadRun(baseline);
      auto b = store->loadRun(candidate);
      if (!a || !b) {
        error = (a ? b : a).status().message();
      } else {
        auto trialsA = sessions::loadTrials(*store, *a);
        auto trialsB = sessions::loadTrials(*store, *b);
        if (!trialsA || !trialsB)
          error = (trialsA ? trialsB : trialsA).status().message();
        else
          result = makeCompareView(
              *a, *b,
              sessions::compareTrials(*trialsA, *trialsB, sessions::defaultCompareOptions(threshold)));
      }
    }
    if (!result) {
      auto view = std::make_shared<CompareView>();
      view->baseline.id = baseline;
      view->candidate.id = candidate;
      view->threshold = threshold;
      view->error = error;
      result = view;
    }
    ctx.deliver([this, result, baseline, candidate, threshold] {
      if (vm_.nav.baselineRunId != baseline || vm_.nav.candidateRunId != candidate ||
          vm_.nav.compareThreshold != threshold)
        return;
      vm_.comparison = result;
      if (!result->error.empty())
        vm_.log.error("db", result->error);
    });
  });
}

} // namespace loupe::visualizer
