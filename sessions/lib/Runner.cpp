//===- Runner.cpp - Compile, run, measure, check, store ----------------------===//
#include "loupe/sessions/Runner.h"

#include "RunStore.h"

#include "loupe/profiler/CpuCollector.h"
#include "loupe/profiler/GpuRunProfile.h"
#include "loupe/ral/TensorIO.h"

#include <optional>


namespace loupe::sessions {

namespace {
/// Forwards the artifact's dispatch hooks to the CPU collector (when measuring) and counts its
/// kernel fallbacks into `fallbacks`.
class RunTracer : public ral::Tracer {
public:
  RunTracer(std::vector<profiler::FallbackRecord> &fallbacks,
            profiler::CpuCollector *collector = nullptr)
      : fallbacks_(fallbacks), collector_(collector) {}
  void dispatchBegin(int64_t id) override {
    if (collector_)
      collector_->beginDispatch(id);
  }
  void dispatchEnd(int64_t id) override {
    if (collector_)
      collector_->endDispatch(id);
  }
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
  profiler::CpuCollector *collector_;
};

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

int exitCodeFor(const ral::Status &status) {
  return status.code() == ral::StatusCode::kInternal ? kExitInternal : kExitBadInput;
}

} // namespace

compiler::CompileOptions compileOptionsFor(const PipelineSettings &pipeline) {
  compiler::CompileOptions options;
  options.target = pipeline.target;
  options.phaseTo = "artifact"; // a run needs the artifact; phase_to only shapes the GUI view
  options.backends = pipeline.backends;
  options.backendOverrides = pipeline.overrides;
  options.fusion = pipeline.fusion;
  options.gpuArch = pipeline.gpuArch;
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
  auto cancelled = [&] { return cancel && cancel->load(std::memory_order_relaxed); };

  // Compile, unless given an artifact.
  if (endsWith(request.model, ".so")) {
    out.artifactPath = request.model;
  } else {
    report("compile", 0);
    out.compile = compiler::compileModel(request.model, request.compile);
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
  if (request.run.inputsDir.empty() || out.manifest.inputs.empty()) {
    inputs = (*artifact)->randomInputs(request.run.seed);
  } else {
    auto read = ral::readTensorDir(request.run.inputsDir, "input");
    if (!read)
      return fail(exitCodeFor(read.status()), read.status().message());
    inputs = std::move(*read);
  }
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

  // Warm up, then measure.
  std::vector<ral::Tensor> outputs = (*artifact)->allocateOutputs();
  RunTracer warmupTracer(out.fallbacks);
  for (int i = 0; i < request.run.warmup && !cancelled(); ++i) {
    report("warmup", double(i) / request.run.warmup);
    if (ral::Status s = (*artifact)->run(inputs, outputs, &warmupTracer); !s)
      return fail(exitCodeFor(s), s.message());
  }
  profiler::CpuCollector collector(request.run.reps, out.manifest.dispatches.size());
  RunTracer tracer(out.fallbacks, &collector);
  // On a GPU each dispatch's time is its kernels' time from CUPTI (docs/profiler.md).
  std::optional<profiler::GpuRunProfile> gpu;
  if (out.manifest.target == "cuda") {
    gpu.emplace(&tracer);
    out.kernelTiming = gpu->active() ? gpu->note() : "host clock only (" + gpu->note() + ")";
  }
  for (int rep = 0; rep < request.run.reps; ++rep) {
    if (cancelled()) {
      out.cancelled = true;
      return fail(kExitBadInput, "cancelled");
    }
    report("run", double(rep) / request.run.reps);
    if (gpu)
      gpu->beginRep(true);
    collector.beginRep();
    ral::Status s = (*artifact)->run(inputs, outputs, gpu ? gpu->tracer() : &tracer);
    collector.endRep();
    if (gpu)
      gpu->endRep();
    if (!s)
      return fail(exitCodeFor(s), s.message());
  }
  report("run", 1);
  if (gpu) {
    if (ral::Status s = gpu->finish(); !s)
      return fail(kExitInternal, s.message());
    out.kernels = gpu->kernels();
    out.memcpys = gpu->memcpys();
  }
  if (collector.unmatchedEvents() != 0)
    return fail(kExitInternal, "the artifact's dispatch events do not pair up (" +
                                   std::to_string(collector.unmatchedEvents()) + " unmatched)");

  out.repNs = collector.repDurations();
  out.runSummary = profiler::summarize(out.repNs);
  double totalMedian = 0;
  for (const ral::DispatchInfo &info : out.manifest.dispatches) {
    DispatchStats stats;
    stats.info = info;
    stats.samplesNs = gpu && !out.kernels.empty()
                          ? gpu->dispatchDurations(info.id, request.run.reps)
                          : collector.dispatchDurations(info.id);
    stats.summary = profiler::summarize(stats.samplesNs);
    if (!stats.samplesNs.empty())
      totalMedian += stats.summary.median;
    out.dispatches.push_back(std::move(stats));
  }
  for (DispatchStats &d : out.dispatches)
    d.share = totalMedian > 0 && !d.samplesNs.empty() ? d.summary.median / totalMedian : 0;
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
    if (ral::Status s = storeRun(request, out, collector.samples()); !s)
      return fail(exitCodeFor(s), s.message());
    report("store", 1);
  }
  return out;
}

} // namespace loupe::sessions
