//===- Run.cpp - Run an artifact: bind inputs, measure, check, store ----------===//
#include "loupe/profiler/Run.h"

#include "loupe/profiler/CpuCollector.h"
#include "loupe/profiler/RunProvenance.h"
#include "loupe/profiler/Store.h"
#include "loupe/ral/Context.h"
#include "loupe/ral/CudaDriver.h"
#include "loupe/ral/TensorIO.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>

namespace loupe::profiler {

namespace {

/// Counts the artifact's kernel fallbacks into `fallbacks` (the measurement forwards every
/// event of warmup and measured repetitions here).
class FallbackCounter : public ral::Tracer {
public:
  explicit FallbackCounter(std::vector<FallbackRecord> &fallbacks) : fallbacks_(fallbacks) {}
  void onFallback(const ral::FallbackEvent &e) override {
    for (FallbackRecord &r : fallbacks_)
      if (r.dispatchId == e.dispatchId && r.failedKernel == e.failedKernel &&
          r.fallbackKernel == e.fallbackKernel) {
        ++r.executions;
        return;
      }
    fallbacks_.push_back({e.dispatchId, e.failedKernel, e.fallbackKernel, e.message, 1});
  }

private:
  std::vector<FallbackRecord> &fallbacks_;
};

/// The summaries of one mode's measurement.
ModeOutcome modeOutcome(const Measurement &m, const ral::Manifest &manifest) {
  ModeOutcome out;
  out.measurement = m.record;
  if (const std::optional<ral::BufferPlan> &plan = manifest.bufferPlan) {
    out.measurement.arenaBytes = plan->arenaBytes;
    out.measurement.plannedBytes = plan->plannedBytes;
    out.measurement.unplannedBytes = plan->unplannedBytes;
  }
  out.repNs = m.collector.repDurations();
  out.runSummary = summarize(out.repNs);
  out.smClockMhz = medianSmClockMhz(m.smClockMhz);
  out.kernels = m.kernels;
  out.memcpys = m.memcpys;
  out.samples = m.samples();
  double totalMedian = 0;
  for (const ral::DispatchInfo &info : manifest.dispatches) {
    DispatchStats stats;
    stats.info = info;
    stats.samplesNs = m.dispatchDurations(info.id);
    stats.summary = summarize(stats.samplesNs);
    if (!stats.samplesNs.empty())
      totalMedian += stats.summary.median;
    out.dispatches.push_back(std::move(stats));
  }
  for (DispatchStats &d : out.dispatches)
    d.share = totalMedian > 0 && !d.samplesNs.empty() ? d.summary.median / totalMedian : 0;
  return out;
}

/// ONNX's backend test data stores bfloat16 tensors as uint16 bits: a u16 input where the
/// artifact takes bf16 of the same shape is taken as those bits.
void adoptBFloat16Bits(std::vector<ral::Tensor> &inputs, const std::vector<ral::TensorSpec> &specs) {
  for (size_t i = 0; i < inputs.size() && i < specs.size(); ++i)
    if (inputs[i].dtype() == ral::DType::U16 && specs[i].dtype == ral::DType::BF16 &&
        inputs[i].shape() == specs[i].shape) {
      ral::Tensor bits(ral::DType::BF16, inputs[i].shape());
      std::memcpy(bits.data(), inputs[i].data(), inputs[i].byteSize());
      inputs[i] = std::move(bits);
    }
}

bool isGpuTarget(const std::string &target) { return target == "cuda" || target == "gpu"; }

} // namespace

int exitCodeFor(const ral::Status &status) {
  return status.code() == ral::StatusCode::kInternal ? kExitInternal : kExitBadInput;
}

bool validTolerance(double tolerance) { return std::isfinite(tolerance) && tolerance >= 0; }

bool ArtifactRun::passed() const {
  if (!checked)
    return false;
  for (const OutputCheck &c : checks)
    if (!c.record.passed)
      return false;
  return true;
}

/// runArtifact into `out` (each failure returns early, setting the exit code and error).
static void runInto(ArtifactRun &out, const std::string &path, const RunSettings &settings,
                    const RunEnv &env) {
  out.artifactPath = path;
  out.deviceName = cpuDeviceName();
  auto fail = [&](int code, std::string message) {
    out.exitCode = code;
    out.error = std::move(message);
  };
  if (!validTolerance(settings.rtol) || !validTolerance(settings.atol))
    return fail(kExitBadInput, "rtol and atol must be finite and >= 0");
  std::optional<std::vector<CacheMode>> modes = parseCacheModes(settings.mode);
  if (!modes)
    return fail(kExitBadInput, "unknown measuring mode '" + settings.mode + "'");
  const MeasureOptions &options = settings.measure;
  if (ral::Status s = validate(options); !s)
    return fail(kExitBadInput, s.message());

  auto artifact = ral::Artifact::load(path);
  if (!artifact)
    return fail(exitCodeFor(artifact.status()), artifact.status().message());
  out.manifest = (*artifact)->manifest();

  // Inputs (read here unless the caller read them) and expected outputs.
  std::optional<ral::StatusOr<std::vector<ral::Tensor>>> given = env.inputs;
  if (!given && !settings.inputsDir.empty())
    given = ral::readTensorDir(settings.inputsDir, "input");
  if (!given || out.manifest.inputs.empty())
    given = (*artifact)->randomInputs(settings.seed);
  if (!given->isOk())
    return fail(exitCodeFor(given->status()), given->status().message());
  std::vector<ral::Tensor> inputs = **given;
  adoptBFloat16Bits(inputs, out.manifest.inputs);
  if (ral::Status s = (*artifact)->checkInputs(inputs); !s)
    return fail(kExitBadInput,
                (settings.inputsDir.empty() ? std::string("inputs") : settings.inputsDir) + ": " +
                    s.message());
  std::vector<ral::Tensor> expected;
  if (!settings.checkDir.empty()) {
    auto read = ral::readTensorDir(settings.checkDir, "output");
    if (!read)
      return fail(exitCodeFor(read.status()), read.status().message());
    expected = std::move(*read);
  }

  // Warm up and sample in each mode.
  if (isGpuTarget(out.manifest.target) && (*artifact)->context())
    if (auto cuda = (*artifact)->context()->cuda())
      out.deviceName = (*cuda)->describe();
  ral::StatusOr<std::vector<ral::Tensor>> outputs = (*artifact)->allocateOutputs();
  if (!outputs)
    return fail(exitCodeFor(outputs.status()), outputs.status().message());
  FallbackCounter fallbacks(out.fallbacks);
  MeasureEnv measureEnv;
  measureEnv.next = &fallbacks;
  measureEnv.cancel = env.cancel;
  measureEnv.progress = env.progress;
  measureEnv.injectedDelayNs = static_cast<int64_t>(settings.injectDelayUs * 1e3);
  out.environmentJson = runEnvironmentJson();
  CpuTimes before = readCpuTimes();
  auto measured = measureArtifact(**artifact, inputs, *outputs, options, *modes, measureEnv);
  out.environmentJson = withLoadDuring(out.environmentJson, before, readCpuTimes());
  if (!measured)
    return fail(exitCodeFor(measured.status()), measured.status().message());
  if (measured->empty() || measured->back().cancelled) {
    out.cancelled = true;
    return fail(kExitBadInput, "cancelled");
  }
  for (const Measurement &m : *measured)
    out.modes.push_back(modeOutcome(m, out.manifest));
  out.repNs = out.modes.front().repNs;
  out.runSummary = out.modes.front().runSummary;
  out.dispatches = out.modes.front().dispatches;
  out.outputs = std::move(*outputs);

  if (!settings.checkDir.empty()) {
    out.checked = true;
    out.checks = checkOutputs(out.outputs, expected, settings.rtol, settings.atol);
    if (!out.passed())
      out.exitCode = kExitMismatch;
  }
}

ArtifactRun runArtifact(const std::string &path, const RunSettings &settings, const RunEnv &env) {
  ArtifactRun out;
  runInto(out, path, settings, env);
  return out;
}

ral::Status storeRun(Store &store, RunInfo info, const CompileRecord *compile, ArtifactRun &run,
                     size_t mode) {
  ModeOutcome &measured = run.modes.at(mode);
  info.deviceKind = isGpuTarget(run.manifest.target) ? "cuda" : "cpu";
  info.deviceName = run.deviceName;
  info.environmentJson = run.environmentJson;
  // Hot and cold runs of one request differ in their config's mode (docs/db-schema.md).
  nlohmann::json config = nlohmann::json::parse(info.configJson, nullptr, false);
  if (!config.is_object())
    config = nlohmann::json::object();
  config["mode"] = cacheModeName(measured.measurement.mode);
  info.configJson = config.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  auto runId = store.beginRun(info);
  if (!runId)
    return runId.status();
  measured.runId = *runId;
  if (mode == 0)
    run.runId = *runId;

  auto write = [&]() -> ral::Status {
    if (compile)
      if (auto compileId = store.addCompile(*runId, *compile); !compileId)
        return compileId.status();
    std::vector<DispatchRecord> dispatches;
    for (const ral::DispatchInfo &d : run.manifest.dispatches)
      dispatches.push_back({d.id, d.name, d.op, d.loc, d.backend.empty() ? "codegen" : d.backend,
                            d.cluster, d.bytes, d.flops, d.signature});
    if (ral::Status s = store.addDispatches(*runId, dispatches); !s)
      return s;
    if (ral::Status s = store.addMeasurement(*runId, measured.measurement); !s)
      return s;
    if (ral::Status s = store.addSamples(*runId, measured.samples); !s)
      return s;
    if (ral::Status s = store.addFallbacks(*runId, run.fallbacks); !s)
      return s;
    if (ral::Status s = store.addKernels(*runId, measured.kernels); !s)
      return s;
    if (ral::Status s = store.addMemcpys(*runId, measured.memcpys); !s)
      return s;
    std::vector<CheckRecord> checks;
    for (const OutputCheck &c : run.checks)
      checks.push_back(c.record);
    return store.addChecks(*runId, checks);
  };
  ral::Status status = write();
  bool ok = status.isOk() && run.exitCode == kExitOk;
  std::string error = !status.isOk()                 ? status.message()
                      : run.exitCode == kExitMismatch ? "numerical mismatch"
                                                      : "";
  if (ral::Status s = store.finishRun(*runId, ok, error); !s && status)
    status = s;
  return status;
}

nlohmann::json memoryJson(const MeasurementRecord &m) {
  bool planned = m.arenaBytes >= 0, faults = std::isfinite(m.minorFaultsPerRep);
  if (!planned && !faults)
    return nullptr;
  auto bytes = [&](int64_t b) { return planned ? nlohmann::json(b) : nlohmann::json(); };
  return {{"arena_bytes", bytes(m.arenaBytes)},
          {"planned_bytes", bytes(m.plannedBytes)},
          {"unplanned_bytes", bytes(m.unplannedBytes)},
          {"minor_faults_per_rep", faults ? nlohmann::json(m.minorFaultsPerRep) : nlohmann::json()}};
}

std::string describeMemory(const nlohmann::json &memory) {
  if (!memory.is_object())
    return "";
  auto field = [&](const char *name) { return memory.value(name, nlohmann::json()); };
  auto size = [](const nlohmann::json &b) { // KiB below 1 MiB: small models stay readable
    double bytes = b.is_number() ? b.get<double>() : 0.0;
    bool large = bytes >= (1 << 20);
    char buf[32];
    std::snprintf(buf, sizeof buf, large ? "%.2f MiB" : "%.1f KiB", bytes / (large ? 1 << 20 : 1 << 10));
    return std::string(buf);
  };
  std::string text;
  if (nlohmann::json arena = field("arena_bytes"); arena.is_number()) {
    double planned = memory.value("planned_bytes", 0.0);
    text = "arena " + size(arena) + " for " + size(field("planned_bytes")) + " of buffers";
    if (planned > 0)
      text += " (" + std::to_string(std::lround(100 * arena.get<double>() / planned)) + "%)";
    text += ", " + size(field("unplanned_bytes")) + " outside it";
  }
  if (nlohmann::json faults = field("minor_faults_per_rep"); faults.is_number()) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f minor page faults per repetition", faults.get<double>());
    text += (text.empty() ? "" : "; ") + std::string(buf);
  }
  return text;
}

std::string describeThreadStalls(const nlohmann::json &stalls) {
  if (!stalls.is_number_integer() || stalls.get<int64_t>() <= 0)
    return "";
  int64_t n = stalls.get<int64_t>();
  return std::to_string(n) + (n == 1 ? " stretch" : " stretches") +
         " on one thread: waits for a thread another process kept from its core took over 30% "
         "of the time (ral::ContentionGovernor)";
}

} // namespace loupe::profiler
