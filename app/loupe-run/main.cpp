//===- main.cpp - loupe-run: run a compiled artifact with the RAL only ------------===//
//
// loupe-run ARTIFACT [--inputs DIR] [--check DIR] [measuring flags] [--seed S]
//                    [--rtol X] [--atol X] [--db DB] [--json] [--info]
//
// Measuring flags (MeasureFlags.h): warmup by time or count, adaptive or exact sample count,
// hot/cold/both cache modes; profiler::measureArtifact does the measuring, as for `loupe run`.
//
// Links libloupe_ral.so, the profiler and SQLite only (no MLIR, no LLVM, no compiler), so an
// artifact compiled elsewhere runs on a GPU machine that has none of Loupe's build
// dependencies: copy bin/loupe-run and lib/libloupe_ral*.so (docs/ral.md). Prints the run's and
// every dispatch's median and IQR; --json prints the same as JSON; --db stores the run.
// Exit codes: 0 ok, 1 numerical mismatch, 2 bad usage or input, 3 internal error.
//
//===----------------------------------------------------------------------===//
#include "CommandLine.h"
#include "MeasureFlags.h"

#include "loupe/profiler/Check.h"
#include "loupe/profiler/CpuCollector.h"
#include "loupe/profiler/Measure.h"
#include "loupe/profiler/Statistics.h"
#include "loupe/profiler/Store.h"
#include "loupe/ral/Artifact.h"
#include "loupe/ral/Context.h"
#include "loupe/ral/CpuDriver.h"
#include "loupe/ral/CudaDriver.h"
#include "loupe/ral/Registry.h"
#include "loupe/ral/TensorIO.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>

using namespace loupe;

namespace {

const std::string kUsage =
    std::string("usage: loupe-run ARTIFACT [--inputs DIR] [--check DIR] [--seed S]\n"
                "                          [--rtol X] [--atol X] [--db DB] [--json] [--info]\n") +
    app::kMeasureFlagsUsage +
    "  runs a compiled artifact (.so) with the Loupe runtime only and prints per-dispatch\n"
    "  median/IQR. --info prints the artifact's manifest and what the runtime found (kernel\n"
    "  plugins, CUDA libraries) without running.\n"
    "exit codes: 0 ok, 1 numerical mismatch, 2 bad usage or input, 3 internal error\n";

int exitCodeFor(const ral::Status &s) { return s.code() == ral::StatusCode::kInternal ? 3 : 2; }

void printInfo(const ral::Artifact *artifact) {
  if (artifact) {
    const ral::Manifest &m = artifact->manifest();
    std::printf("artifact: %s\n  abi %s, target %s, model %s\n", artifact->path().c_str(),
                m.abi.c_str(), m.target.c_str(), m.model.c_str());
    for (size_t i = 0; i < m.inputs.size(); ++i)
      std::printf("  input %zu: %s\n", i, m.inputs[i].typeString().c_str());
    for (size_t i = 0; i < m.outputs.size(); ++i)
      std::printf("  output %zu: %s\n", i, m.outputs[i].typeString().c_str());
    std::printf("  %zu dispatches, %zu RAL APIs\n", m.dispatches.size(), m.ralApis.size());
  }
  std::printf("runtime: %zu RAL APIs registered%s\n", ral::Registry::global().size(),
              ral::Registry::global().status() ? "" : " (REGISTRATION ERRORS)");
  for (const ral::PluginStatus &p : ral::loadPlugins())
    std::printf("  plugin %-28s %s\n", p.name.c_str(),
                p.status ? p.path.c_str() : p.status.message().c_str());
  for (const ral::CudaLibraryInfo &lib : ral::probeCudaLibraries())
    std::printf("  %-12s %s\n", lib.what.c_str(),
                lib.status ? lib.path.c_str() : lib.status.message().c_str());
}

/// One cache mode's results: its measurement, summaries and stored run.
struct ModeResult {
  profiler::Measurement measurement;
  profiler::Summary run;
  struct Row {
    const ral::DispatchInfo *info;
    profiler::Summary summary;
    size_t calls;
  };
  std::vector<Row> rows;
  double total = 0; ///< Sum of the dispatch medians.
  std::optional<double> smClockMhz;
  int64_t runId = -1;
};

ModeResult summarizeMode(profiler::Measurement m, const ral::Manifest &manifest) {
  ModeResult r{std::move(m), {}, {}, 0, {}, -1};
  r.run = profiler::summarize(r.measurement.collector.repDurations());
  for (const ral::DispatchInfo &d : manifest.dispatches) {
    std::vector<int64_t> samples = r.measurement.dispatchDurations(d.id);
    r.rows.push_back({&d, profiler::summarize(samples), samples.size()});
    if (!samples.empty())
      r.total += r.rows.back().summary.median;
  }
  r.smClockMhz = profiler::medianSmClockMhz(r.measurement.smClockMhz);
  return r;
}

nlohmann::json modeJson(const ModeResult &r) {
  nlohmann::json dispatches = nlohmann::json::array();
  for (const ModeResult::Row &row : r.rows)
    dispatches.push_back({{"id", row.info->id}, {"name", row.info->name}, {"loc", row.info->loc},
                          {"backend", row.info->backend}, {"median_ns", row.summary.median},
                          {"iqr_ns", row.summary.iqr()}, {"calls", row.calls}});
  nlohmann::json j = app::measurementJson(r.measurement.record, r.smClockMhz);
  j["median_ns"] = r.run.median;
  j["iqr_ns"] = r.run.iqr();
  j["dispatches"] = dispatches;
  j["run_id"] = r.runId >= 0 ? nlohmann::json(r.runId) : nlohmann::json();
  return j;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::fputs(kUsage.c_str(), argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  std::set<std::string> valued = {"--inputs", "--check", "--seed", "--rtol", "--atol", "--db"};
  valued.merge(app::measureFlagNames());
  app::CommandLine cl(valued, {"--json", "--info"});
  std::string error;
  int seed = 0;
  double rtol = 1e-3, atol = 1e-5;
  profiler::MeasureOptions measure;
  std::string modeName = "hot";
  auto parseDouble = [&](const char *flag, double &out) {
    if (!cl.has(flag))
      return true;
    try {
      out = std::stod(cl.get(flag));
      return true;
    } catch (...) {
      error = std::string("flag ") + flag + " expects a number";
      return false;
    }
  };
  bool ok = cl.parse(argc, argv, 1, error) && cl.getInt("--seed", seed, error) &&
            parseDouble("--rtol", rtol) && parseDouble("--atol", atol) &&
            app::applyMeasureFlags(cl, measure, modeName, error);
  if (ok && cl.positionals().size() != 1)
    error = "expected exactly one ARTIFACT", ok = false;
  if (!ok) {
    std::fprintf(stderr, "loupe-run: %s\n%s", error.c_str(), kUsage.c_str());
    return 2;
  }
  std::vector<profiler::CacheMode> modes = *profiler::parseCacheModes(modeName);
  std::string path = cl.positionals()[0];
  auto loaded = ral::Artifact::load(path);
  if (!loaded) {
    std::fprintf(stderr, "loupe-run: %s\n", loaded.status().message().c_str());
    if (cl.has("--info"))
      printInfo(nullptr);
    return exitCodeFor(loaded.status());
  }
  const ral::Artifact &artifact = **loaded;
  const ral::Manifest &manifest = artifact.manifest();
  if (cl.has("--info")) {
    printInfo(&artifact);
    return 0;
  }

  std::vector<ral::Tensor> inputs;
  if (cl.has("--inputs") && !manifest.inputs.empty()) {
    auto read = ral::readTensorDir(cl.get("--inputs"), "input");
    if (!read) {
      std::fprintf(stderr, "loupe-run: %s\n", read.status().message().c_str());
      return exitCodeFor(read.status());
    }
    inputs = std::move(*read);
  } else {
    inputs = artifact.randomInputs(static_cast<uint64_t>(seed));
  }
  if (ral::Status s = artifact.checkInputs(inputs); !s) {
    std::fprintf(stderr, "loupe-run: %s: %s\n", cl.get("--inputs", "inputs").c_str(),
                 s.message().c_str());
    return 2;
  }
  std::vector<ral::Tensor> expected;
  if (cl.has("--check")) {
    auto read = ral::readTensorDir(cl.get("--check"), "output");
    if (!read) {
      std::fprintf(stderr, "loupe-run: %s\n", read.status().message().c_str());
      return exitCodeFor(read.status());
    }
    expected = std::move(*read);
  }

  // Warm up and sample in each mode (profiler::measureArtifact, shared with `loupe run`).
  std::vector<ral::Tensor> outputs = artifact.allocateOutputs();
  auto measured = profiler::measureArtifact(artifact, inputs, outputs, measure, modes);
  if (!measured) {
    std::fprintf(stderr, "loupe-run: %s\n", measured.status().message().c_str());
    return exitCodeFor(measured.status());
  }
  std::vector<ModeResult> results;
  for (profiler::Measurement &m : *measured)
    results.push_back(summarizeMode(std::move(m), manifest));
  if (!results.front().measurement.record.kernelTiming.empty())
    std::fprintf(stderr, "loupe-run: kernel timings: %s\n",
                 results.front().measurement.record.kernelTiming.c_str());
  if (!results.front().measurement.record.clockNote.empty())
    std::fprintf(stderr, "loupe-run: note: %s\n", results.front().measurement.record.clockNote.c_str());

  std::vector<profiler::OutputCheck> outputChecks =
      profiler::checkOutputs(outputs, expected, rtol, atol);
  std::vector<profiler::CheckRecord> checks;
  bool passed = true;
  for (const profiler::OutputCheck &c : outputChecks) {
    checks.push_back(c.record);
    passed = passed && c.record.passed;
  }
  int exitCode = passed ? 0 : 1;

  std::string device = profiler::cpuDeviceName();
  bool onGpu = manifest.target == "cuda" || manifest.target == "gpu";
  if (onGpu && artifact.context())
    if (auto cuda = artifact.context()->cuda())
      device = (*cuda)->describe();

  if (cl.has("--db")) {
    auto store = profiler::Store::open(cl.get("--db"));
    if (!store) {
      std::fprintf(stderr, "loupe-run: %s\n", store.status().message().c_str());
      return exitCodeFor(store.status());
    }
    // One run per mode; their configs differ in "mode" (docs/db-schema.md).
    for (ModeResult &r : results) {
      profiler::RunInfo info;
      info.model = manifest.model.empty() ? path : manifest.model;
      info.deviceKind = onGpu ? "cuda" : "cpu";
      info.deviceName = device;
      info.configJson =
          nlohmann::json{{"runner", "loupe-run"}, {"artifact", path}, {"abi", manifest.abi},
                         {"warmup", measure.warmupReps}, {"warmup_ms", measure.warmupMs},
                         {"reps", measure.reps}, {"min_reps", measure.minReps},
                         {"max_reps", measure.maxReps}, {"max_ms", measure.maxMs},
                         {"noise", measure.noise},
                         {"mode", profiler::cacheModeName(r.measurement.record.mode)},
                         {"seed", seed}, {"inputs", cl.get("--inputs")},
                         {"check", cl.get("--check")}}
              .dump();
      auto id = store->beginRun(info);
      ral::Status s = id ? ral::Status::ok() : id.status();
      if (s) {
        r.runId = *id;
        std::vector<profiler::DispatchRecord> dispatches;
        for (const ral::DispatchInfo &d : manifest.dispatches)
          dispatches.push_back(
              {d.id, d.name, d.op, d.loc, d.backend.empty() ? "codegen" : d.backend, -1,
               d.bytes, d.flops});
        s = store->addDispatches(r.runId, dispatches);
        if (s)
          s = store->addMeasurement(r.runId, r.measurement.record);
        if (s)
          s = store->addSamples(r.runId, r.measurement.samples());
        if (s)
          s = store->addChecks(r.runId, checks);
        if (s)
          s = store->addKernels(r.runId, r.measurement.kernels);
        if (s)
          s = store->addMemcpys(r.runId, r.measurement.memcpys);
        ral::Status f = store->finishRun(r.runId, s.isOk() && passed,
                                         !s ? s.message() : passed ? "" : "numerical mismatch");
        if (s && !f)
          s = f;
      }
      if (!s) {
        std::fprintf(stderr, "loupe-run: %s\n", s.message().c_str());
        return exitCodeFor(s);
      }
    }
  }

  if (cl.has("--json")) {
    // The first mode's fields at the top level (as before modes existed), every mode in "modes".
    nlohmann::json j = modeJson(results.front());
    nlohmann::json all = nlohmann::json::array();
    for (const ModeResult &r : results)
      all.push_back(modeJson(r));
    j["exit_code"] = exitCode;
    j["artifact"] = path;
    j["abi"] = manifest.abi;
    j["device"] = device;
    j["check"] = expected.empty() ? nlohmann::json() : nlohmann::json(passed ? "pass" : "fail");
    j["modes"] = all;
    std::cout << j.dump(2) << "\n";
  } else {
    std::printf("artifact: %s (%s)\ndevice: %s\n", path.c_str(), manifest.abi.c_str(), device.c_str());
    for (const ModeResult &r : results) {
      std::printf("run: median %.3f ms, IQR %.3f ms over %lld reps (%s)\n", r.run.median / 1e6,
                  r.run.iqr() / 1e6, (long long)r.measurement.record.reps,
                  app::measurementText(r.measurement.record, r.smClockMhz).c_str());
      std::printf("%4s  %-34s %-9s %-24s %12s %12s %7s\n", "id", "dispatch", "backend", "loc",
                  "median us", "IQR us", "share");
      for (const ModeResult::Row &row : r.rows)
        std::printf("%4lld  %-34.34s %-9.9s %-24.24s %12.2f %12.2f %6.1f%%\n",
                    (long long)row.info->id, row.info->name.c_str(),
                    row.info->backend.empty() ? "-" : row.info->backend.c_str(),
                    row.info->loc.c_str(), row.calls ? row.summary.median / 1e3 : 0.0,
                    row.calls ? row.summary.iqr() / 1e3 : 0.0,
                    r.total > 0 && row.calls ? 100 * row.summary.median / r.total : 0.0);
    }
    for (const profiler::OutputCheck &c : outputChecks)
      std::printf("check output %lld: %s%s%s\n", (long long)c.record.outputIdx,
                  c.record.passed ? "pass" : "FAIL", c.message.empty() ? "" : ": ",
                  c.message.c_str());
    for (const ModeResult &r : results)
      if (r.runId >= 0)
        std::printf("stored %s as run %lld in %s\n",
                    profiler::cacheModeName(r.measurement.record.mode), (long long)r.runId,
                    cl.get("--db").c_str());
  }
  return exitCode;
}
