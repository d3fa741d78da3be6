//===- RunStore.cpp - Write a run's outcome to the profile DB ----------------===//
#include "RunStore.h"

#include "loupe/profiler/Store.h"

#include <nlohmann/json.hpp>

namespace loupe::sessions {

static profiler::CompileRecord compileRecord(const compiler::CompileResult &c,
                                             const std::string &model,
                                             const compiler::CompileOptions &options) {
  profiler::CompileRecord record;
  record.modelPath = model;
  record.target = options.target;
  record.totalNs = c.totalNs;
  record.artifactPath = c.artifactPath;
  for (const compiler::PassSnapshot &s : c.snapshots)
    record.passes.push_back({s.index, s.pass, s.options, s.phase, s.anchor, s.durationNs,
                             s.irHash, s.changed});
  return record;
}

ral::Status storeRun(const RunRequest &request, RunOutcome &outcome, size_t mode,
                     const std::vector<profiler::SampleRecord> &samples) {
  ModeOutcome &measured = outcome.modes.at(mode);
  auto store = profiler::Store::open(request.dbPath);
  if (!store)
    return store.status();

  profiler::RunInfo info;
  info.model = request.model;
  const std::string &target = outcome.manifest.target;
  info.deviceKind = target == "cuda" || target == "gpu" ? "cuda" : "cpu";
  info.deviceName = outcome.deviceName;
  info.session = request.sessionName;
  info.variant = request.variant;
  // Hot and cold runs of one request differ in their config's mode (docs/db-schema.md).
  nlohmann::json config =
      nlohmann::json::parse(runConfigJson(pipelineSettingsOf(request.compile), request.run));
  config["mode"] = profiler::cacheModeName(measured.measurement.mode);
  info.configJson = config.dump();
  auto runId = store->beginRun(info);
  if (!runId)
    return runId.status();
  measured.runId = *runId;

  auto write = [&]() -> ral::Status {
    if (outcome.compile) {
      auto compileId = store->addCompile(
          *runId, compileRecord(*outcome.compile, request.model, request.compile));
      if (!compileId)
        return compileId.status();
    }
    std::vector<profiler::DispatchRecord> dispatches;
    for (const ral::DispatchInfo &d : outcome.manifest.dispatches)
      dispatches.push_back(
          {d.id, d.name, d.op, d.loc, d.backend.empty() ? "codegen" : d.backend, d.cluster,
           d.bytes, d.flops});
    if (ral::Status s = store->addDispatches(*runId, dispatches); !s)
      return s;
    if (ral::Status s = store->addMeasurement(*runId, measured.measurement); !s)
      return s;
    if (ral::Status s = store->addSamples(*runId, samples); !s)
      return s;
    if (ral::Status s = store->addFallbacks(*runId, outcome.fallbacks); !s)
      return s;
    if (ral::Status s = store->addKernels(*runId, measured.kernels); !s)
      return s;
    if (ral::Status s = store->addMemcpys(*runId, measured.memcpys); !s)
      return s;
    std::vector<profiler::CheckRecord> checks;
    for (const OutputCheck &c : outcome.checks)
      checks.push_back(c.record);
    return store->addChecks(*runId, checks);
  };
  ral::Status status = write();
  bool ok = status.isOk() && outcome.exitCode == kExitOk;
  std::string error = !status.isOk() ? status.message()
                      : outcome.exitCode == kExitMismatch ? "numerical mismatch"
                                                          : "";
  if (ral::Status s = store->finishRun(*runId, ok, error); !s && status)
    status = s;
  return status;
}

} // namespace loupe::sessions
