//===- Runner.cpp - Compile, then run the artifact (profiler::runArtifact) ----===//
#include "loupe/sessions/Runner.h"

#include "loupe/profiler/Store.h"
#include "loupe/ral/TensorIO.h"
#include "loupe/sessions/Tune.h"

#include <optional>

namespace loupe::sessions {

namespace {

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

} // namespace

profiler::CompileRecord compileRecord(const compiler::CompileResult &c, const std::string &model,
                                      const std::string &target) {
  profiler::CompileRecord record;
  record.modelPath = model;
  record.target = target;
  record.totalNs = c.totalNs;
  record.artifactPath = c.artifactPath;
  for (const compiler::PassSnapshot &s : c.snapshots)
    record.passes.push_back({s.index, s.pass, s.options, s.phase, s.anchor, s.durationNs,
                             s.irHash, s.changed, s.locHashes});
  return record;
}

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

compiler::CompileOptions compileOptionsFor(const PipelineSettings &pipeline) {
  compiler::CompileOptions options{pipeline};
  options.phaseTo = "artifact"; // a run needs the artifact; phase_to only shapes the GUI view
  return options;
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
  auto report = [&](const char *stage, double f) {
    if (progress)
      progress(stage, f);
  };
  profiler::RunEnv env;
  env.cancel = cancel;
  env.progress = report;
  // Given input tensors are read first: their shapes bind the model's symbolic dims. A read
  // error counts only if the model has inputs.
  if (!request.run.inputsDir.empty())
    env.inputs = ral::readTensorDir(request.run.inputsDir, "input");

  // Compile, unless given an artifact.
  std::string artifactPath =
      request.compiledArtifact.empty() ? request.model : request.compiledArtifact;
  if (request.compiledArtifact.empty() && !endsWith(request.model, ".so")) {
    report("compile", 0);
    compiler::CompileOptions options = request.compile;
    if (ral::Status s = resolveTunedBackends(options, request.dbPath); !s) {
      out.exitCode = profiler::exitCodeFor(s);
      out.error = "--backends auto: " + s.message();
      return out;
    }
    if (env.inputs && env.inputs->isOk())
      bindInputTensors(options, **env.inputs);
    out.compile = compiler::compileModel(request.model, options);
    if (!out.compile->ok()) {
      out.exitCode = out.compile->error->kind == compiler::CompileError::Kind::BadInput
                         ? kExitBadInput
                         : kExitInternal;
      out.error = out.compile->error->message;
      return out;
    }
    artifactPath = out.compile->artifactPath;
    report("compile", 1);
  }
  static_cast<profiler::ArtifactRun &>(out) = profiler::runArtifact(artifactPath, request.run, env);
  if (out.modes.empty() || request.dbPath.empty() || out.exitCode > kExitMismatch)
    return out;

  report("store", 0);
  auto store = profiler::Store::open(request.dbPath);
  if (!store) {
    out.exitCode = profiler::exitCodeFor(store.status());
    out.error = store.status().message();
    return out;
  }
  profiler::RunInfo info;
  info.model = request.model;
  info.session = request.sessionName;
  info.variant = request.variant;
  info.batch = request.batch;
  info.trial = request.trial;
  info.configJson = runConfigJson(request.compile, request.run);
  std::optional<profiler::CompileRecord> compile;
  if (out.compile)
    compile = compileRecord(*out.compile, request.model, request.compile.target);
  for (size_t i = 0; i < out.modes.size(); ++i)
    if (ral::Status s = profiler::storeRun(*store, info, compile ? &*compile : nullptr, out, i);
        !s) {
      out.exitCode = profiler::exitCodeFor(s);
      out.error = s.message();
      return out;
    }
  report("store", 1);
  return out;
}

} // namespace loupe::sessions
