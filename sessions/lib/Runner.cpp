//===- Runner.cpp - Compile, run, measure, check, store ----------------------===//
#include "loupe/sessions/Runner.h"

#include "RunStore.h"

#include "loupe/ral/Context.h"
#include "loupe/ral/CudaDriver.h"
#include "loupe/ral/TensorIO.h"

#include <cstring>
#include <optional>


namespace loupe::sessions {

namespace {
/// Counts the artifact's kernel fallbacks into `fallbacks` (the measurement forwards every
/// event of warmup and measured repetitions here).
class FallbackCounter : public ral::Tracer {
public:
  explicit FallbackCounter(std::vector<profiler::FallbackRecord> &fallbacks)
      : fallbacks_(fallbacks) {}
  void onFallback(const ral::FallbackEvent &e) override {
    for (profiler::FallbackRecord &r : fallbacks_)
      if (r.dispatchId == e.dispatchId && r.failedKernel == e.failedKernel &&
          r.fallbackKernel == e.fallbackKernel) {
        ++r.executions;
        return;
      }
    fallbacks_.push_back({e.dispatchId, e.failedKernel, e.fallbackKernel, e.message, 1});
  }

private:
  std::vector<profiler::FallbackRecord> &fallbacks_;
};

/// The summaries of one mode's measurement.
ModeOutcome modeOutcome(const profiler::Measurement &m, const ral::Manifest &manifest) {
  ModeOutcome out;
  out.measurement = m.record;
  out.repNs = m.collector.repDurations();
  out.runSummary = profiler::summarize(out.repNs);
  out.smClockMhz = profiler::medianSmClockMhz(m.smClockMhz);
  out.kernels = m.kernels;
  out.memcpys = m.memcpys;
  double totalMedian = 0;
  for (const ral::DispatchInfo &info : manifest.dispatches) {
    DispatchStats stats;
    stats.info = info;
    stats.samplesNs = m.dispatchDurations(info.id);
    stats.summary = profiler::summarize(stats.samplesNs);
    if (!stats.samplesNs.empty())
      totalMedian += stats.summary.median;
    out.dispatches.push_back(std::move(stats));
  }
  for (DispatchStats &d : out.dispatches)
    d.share = totalMedian > 0 && !d.samplesNs.empty() ? d.summary.median / totalMedian : 0;
  return out;
}

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
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

int exitCodeFor(const ral::Status &status) {
  return status.code() == ral::StatusCode::kInternal ? kExitInternal : kExitBadInput;
}

} // namespace

void bindInputTensors(compiler::CompileOptions &options, const std::vector<ral::Tensor> &inputs) {
  constexpr size_t kMaxValueBytes = 4096;
  for (const ral::Tensor &t : inputs) {
    options.inputTensorShapes.push_back(t.shape());
    options.inputTensorValues.push_back(
        t.byteSize() <= kMaxValueBytes
            ? std::string(static_cast<const char *>(t.data()), t.byteSize())
            : std::string());
  }
}

profiler::MeasureOptions measureOptionsFor(const RunSettings &run) {
  profiler::MeasureOptions o;
  o.warmupReps = run.warmup;
  o.warmupMs = run.warmupMs;
  o.reps = run.reps;
  o.minReps = run.minReps;
  o.maxReps = run.maxReps;
  o.maxMs = run.maxMs;
  o.noise = run.noise;
  return o;
}

void setMeasureOptions(RunSettings &run, const profiler::MeasureOptions &o) {
  run.warmup = o.warmupReps;
  run.warmupMs = o.warmupMs;
  run.reps = o.reps;
  run.minReps = o.minReps;
  run.maxReps = o.maxReps;
  run.maxMs = o.maxMs;
  run.noise = o.noise;
}

compiler::CompileOptions compileOptionsFor(const PipelineSettings &pipeline) {
  compiler::CompileOptions options;
  options.target = pipeline.target;
  options.phaseTo = "artifact"; // a run needs the artifact; phase_to only shapes the GUI view
  options.backends = pipeline.backends;
  options.backendOverrides = pipeline.overrides;
  options.fusion = pipeline.fusion;
  options.gpuArch = pipeline.gpuArch;
  options.inputShapes = pipeline.inputShapes;
  return options;
}

PipelineSettings pipelineSettingsOf(const compiler::CompileOptions &options) {
  PipelineSettings pipeline;
  pipeline.target = options.target;
  pipeline.gpuArch = options.gpuArch;
  pipeline.phaseTo = options.phaseTo;
  pipeline.backends = options.backends;
  pipeline.overrides = options.backendOverrides;
  pipeline.fusion = options.fusion;
  pipeline.inputShapes = options.inputShapes;
  return pipeline;
}

RunRequest requestFromSession(const Session &session, const std::string &dbPath) {
  RunRequest request = requestForVariant(session, session.base(), dbPath);
  request.variant.clear();
  return request;
}

RunRequest requestForVariant(const Session &session, const Variant &variant,
                             const std::string &dbPath) {
  RunRequest request;
  request.model = session.model;
  request.compile = compileOptionsFor(variant.pipeline);
  request.run = variant.run;
  request.dbPath = dbPath;
  request.sessionName = session.name;
  request.variant = variant.name;
  return request;
}

RunOutcome runModel(const RunRequest &request, const ProgressFn &progress,
                    const std::atomic<bool> *cancel) {
  RunOutcome out;
  out.deviceName = profiler::cpuDeviceName();
  auto report = [&](const char *stage, double f) {
    if (progress)
      progress(stage, f);
  };
  auto fail = [&](int code, std::string message) {
    out.exitCode = code;
    out.error = std::move(message);
    return out;
  };

  // Given input tensors are read first: their shapes bind the model's symbolic dims. A read
  // error counts only if the model has inputs.
  std::optional<ral::StatusOr<std::vector<ral::Tensor>>> given;
  if (!request.run.inputsDir.empty())
    given = ral::readTensorDir(request.run.inputsDir, "input");

  // Compile, unless given an artifact.
  if (endsWith(request.model, ".so")) {
    out.artifactPath = request.model;
  } else {
    report("compile", 0);
    compiler::CompileOptions options = request.compile;
    if (given && given->isOk())
      bindInputTensors(options, **given);
    out.compile = compiler::compileModel(request.model, options);
    if (!out.compile->ok())
      return fail(out.compile->error->kind == compiler::CompileError::Kind::BadInput
                      ? kExitBadInput
                      : kExitInternal,
                  out.compile->error->message);
    out.artifactPath = out.compile->artifactPath;
    report("compile", 1);
  }

  auto artifact = ral::Artifact::load(out.artifactPath);
  if (!artifact)
    return fail(exitCodeFor(artifact.status()), artifact.status().message());
  out.manifest = (*artifact)->manifest();

  // Inputs and expected outputs.
  std::vector<ral::Tensor> inputs;
  if (!given || out.manifest.inputs.empty())
    inputs = (*artifact)->randomInputs(request.run.seed);
  else if (!given->isOk())
    return fail(exitCodeFor(given->status()), given->status().message());
  else
    inputs = std::move(**given);
  adoptBFloat16Bits(inputs, out.manifest.inputs);
  if (ral::Status s = (*artifact)->checkInputs(inputs); !s)
    return fail(kExitBadInput, (request.run.inputsDir.empty() ? std::string("inputs")
                                                              : request.run.inputsDir) +
                                   ": " + s.message());
  std::vector<ral::Tensor> expected;
  if (!request.run.checkDir.empty()) {
    auto read = ral::readTensorDir(request.run.checkDir, "output");
    if (!read)
      return fail(exitCodeFor(read.status()), read.status().message());
    expected = std::move(*read);
  }

  // Warm up and sample in each mode (profiler::measureArtifact, shared with loupe-run).
  std::optional<std::vector<profiler::CacheMode>> modes = profiler::parseCacheModes(request.run.mode);
  if (!modes)
    return fail(kExitBadInput, "unknown measuring mode '" + request.run.mode + "'");
  bool onGpu = out.manifest.target == "cuda" || out.manifest.target == "gpu";
  if (onGpu && (*artifact)->context())
    if (auto cuda = (*artifact)->context()->cuda())
      out.deviceName = (*cuda)->describe();
  std::vector<ral::Tensor> outputs = (*artifact)->allocateOutputs();
  FallbackCounter fallbacks(out.fallbacks);
  profiler::MeasureEnv env;
  env.next = &fallbacks;
  env.cancel = cancel;
  env.progress = [&](const char *stage, double f) { report(stage, f); };
  auto measured = profiler::measureArtifact(**artifact, inputs, outputs,
                                            measureOptionsFor(request.run), *modes, env);
  if (!measured)
    return fail(exitCodeFor(measured.status()), measured.status().message());
  if (measured->empty() || measured->back().cancelled) {
    out.cancelled = true;
    return fail(kExitBadInput, "cancelled");
  }
  for (const profiler::Measurement &m : *measured)
    out.modes.push_back(modeOutcome(m, out.manifest));
  out.repNs = out.modes.front().repNs;
  out.runSummary = out.modes.front().runSummary;
  out.dispatches = out.modes.front().dispatches;
  out.outputs = outputs;

  if (!request.run.checkDir.empty()) {
    out.checked = true;
    out.checks = profiler::checkOutputs(outputs, expected, request.run.rtol, request.run.atol);
    for (const OutputCheck &c : out.checks)
      if (!c.record.passed)
        out.exitCode = kExitMismatch;
  }

  if (!request.dbPath.empty()) {
    report("store", 0);
    for (size_t i = 0; i < out.modes.size(); ++i)
      if (ral::Status s = storeRun(request, out, i, (*measured)[i].samples()); !s)
        return fail(exitCodeFor(s), s.message());
    out.runId = out.modes.front().runId;
    report("store", 1);
  }
  return out;
}

} // namespace loupe::sessions
