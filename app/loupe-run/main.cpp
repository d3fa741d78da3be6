//===- main.cpp - loupe-run: run a compiled artifact with the RAL only ------------===//
//
// loupe-run ARTIFACT [--inputs DIR] [--check DIR] [--reps N] [--warmup N] [--seed S]
//                    [--rtol X] [--atol X] [--db DB] [--json] [--info]
//
// Links libloupe_ral.so, the profiler and SQLite only (no MLIR, no LLVM, no compiler), so an
// artifact compiled elsewhere runs on a GPU machine that has none of Loupe's build
// dependencies: copy bin/loupe-run and lib/libloupe_ral*.so (docs/ral.md). Prints the run's and
// every dispatch's median and IQR; --json prints the same as JSON; --db stores the run.
// Exit codes: 0 ok, 1 numerical mismatch, 2 bad usage or input, 3 internal error.
//
//===----------------------------------------------------------------------===//
#include "CommandLine.h"

#include "loupe/profiler/Check.h"
#include "loupe/profiler/CpuCollector.h"
#include "loupe/profiler/GpuRunProfile.h"
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
#include <fstream>
#include <iostream>
#include <optional>

using namespace loupe;

namespace {

const char *kUsage =
    "usage: loupe-run ARTIFACT [--inputs DIR] [--check DIR] [--reps N] [--warmup N] [--seed S]\n"
    "                          [--rtol X] [--atol X] [--db DB] [--json] [--info]\n"
    "  runs a compiled artifact (.so) with the Loupe runtime only and prints per-dispatch\n"
    "  median/IQR. --info prints the artifact's manifest and what the runtime found (kernel\n"
    "  plugins, CUDA libraries) without running.\n"
    "exit codes: 0 ok, 1 numerical mismatch, 2 bad usage or input, 3 internal error\n";

int exitCodeFor(const ral::Status &s) { return s.code() == ral::StatusCode::kInternal ? 3 : 2; }

/// Forwards dispatch events to the CPU collector.
class CollectorTracer : public ral::Tracer {
public:
  explicit CollectorTracer(profiler::CpuCollector &collector) : collector_(collector) {}
  void dispatchBegin(int64_t id) override { collector_.beginDispatch(id); }
  void dispatchEnd(int64_t id) override { collector_.endDispatch(id); }

private:
  profiler::CpuCollector &collector_;
};

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

} // namespace

int main(int argc, char **argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  app::CommandLine cl({"--inputs", "--check", "--reps", "--warmup", "--seed", "--rtol", "--atol",
                       "--db"},
                      {"--json", "--info"});
  std::string error;
  int reps = 20, warmup = 2, seed = 0;
  double rtol = 1e-3, atol = 1e-5;
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
  bool ok = cl.parse(argc, argv, 1, error) && cl.getInt("--reps", reps, error) &&
            cl.getInt("--warmup", warmup, error) && cl.getInt("--seed", seed, error) &&
            parseDouble("--rtol", rtol) && parseDouble("--atol", atol);
  if (ok && cl.positionals().size() != 1)
    error = "expected exactly one ARTIFACT", ok = false;
  if (ok && (reps < 1 || warmup < 0))
    error = "--reps must be >= 1 and --warmup >= 0", ok = false;
  if (!ok) {
    std::fprintf(stderr, "loupe-run: %s\n%s", error.c_str(), kUsage);
    return 2;
  }
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

  std::vector<ral::Tensor> outputs = artifact.allocateOutputs();
  profiler::CpuCollector collector(reps, manifest.dispatches.size());
  CollectorTracer tracer(collector);
  // On a GPU each dispatch's time is its kernels' time from CUPTI (docs/profiler.md).
  bool onGpu = manifest.target == "cuda" || manifest.target == "gpu";
  std::optional<profiler::GpuRunProfile> gpu;
  if (onGpu) {
    gpu.emplace(&tracer);
    std::fprintf(stderr, "loupe-run: kernel timings: %s\n",
                 gpu->active() ? gpu->note().c_str()
                               : ("host clock only (" + gpu->note() + ")").c_str());
  }
  ral::Tracer *runTracer = gpu ? gpu->tracer() : &tracer;
  for (int i = 0; i < warmup + reps; ++i) {
    bool measured = i >= warmup;
    if (gpu)
      gpu->beginRep(measured);
    if (measured)
      collector.beginRep();
    ral::Status s = artifact.run(inputs, outputs, measured ? runTracer : nullptr);
    if (measured)
      collector.endRep();
    if (gpu)
      gpu->endRep();
    if (!s) {
      std::fprintf(stderr, "loupe-run: %s\n", s.message().c_str());
      return exitCodeFor(s);
    }
  }
  ral::Status gpuStatus = gpu ? gpu->finish() : ral::Status::ok();
  if (!gpuStatus)
    std::fprintf(stderr, "loupe-run: %s\n", gpuStatus.message().c_str());
  if (collector.unmatchedEvents() != 0) {
    std::fprintf(stderr, "loupe-run: the artifact's dispatch events do not pair up (%zu unmatched)\n",
                 collector.unmatchedEvents());
    return 3;
  }

  std::vector<profiler::OutputCheck> outputChecks =
      profiler::checkOutputs(outputs, expected, rtol, atol);
  std::vector<profiler::CheckRecord> checks;
  bool passed = true;
  for (const profiler::OutputCheck &c : outputChecks) {
    checks.push_back(c.record);
    passed = passed && c.record.passed;
  }
  int exitCode = !gpuStatus ? 3 : passed ? 0 : 1;

  std::string device = profiler::cpuDeviceName();
  if (onGpu && artifact.context())
    if (auto cuda = artifact.context()->cuda())
      device = (*cuda)->describe();

  profiler::Summary run = profiler::summarize(collector.repDurations());
  struct Row {
    const ral::DispatchInfo *info;
    profiler::Summary summary;
    size_t calls;
  };
  std::vector<Row> rows;
  double total = 0;
  for (const ral::DispatchInfo &d : manifest.dispatches) {
    std::vector<int64_t> samples = gpu && gpu->active() ? gpu->dispatchDurations(d.id, reps)
                                                        : collector.dispatchDurations(d.id);
    rows.push_back({&d, profiler::summarize(samples), samples.size()});
    if (!samples.empty())
      total += rows.back().summary.median;
  }

  int64_t runId = -1;
  if (cl.has("--db")) {
    auto store = profiler::Store::open(cl.get("--db"));
    if (!store) {
      std::fprintf(stderr, "loupe-run: %s\n", store.status().message().c_str());
      return exitCodeFor(store.status());
    }
    profiler::RunInfo info;
    info.model = manifest.model.empty() ? path : manifest.model;
    info.deviceKind = onGpu ? "cuda" : "cpu";
    info.deviceName = device;
    info.configJson = nlohmann::json{{"runner", "loupe-run"}, {"artifact", path},
                                     {"abi", manifest.abi}, {"warmup", warmup}, {"reps", reps},
                                     {"seed", seed}, {"inputs", cl.get("--inputs")},
                                     {"check", cl.get("--check")}}
                          .dump();
    auto id = store->beginRun(info);
    ral::Status s = id ? ral::Status::ok() : id.status();
    if (s) {
      runId = *id;
      std::vector<profiler::DispatchRecord> dispatches;
      for (const ral::DispatchInfo &d : manifest.dispatches)
        dispatches.push_back({d.id, d.name, d.op, d.loc, d.backend.empty() ? "codegen" : d.backend, -1});
      s = store->addDispatches(runId, dispatches);
      if (s)
        s = store->addSamples(runId, collector.samples());
      if (s)
        s = store->addChecks(runId, checks);
      if (s && gpu)
        s = store->addKernels(runId, gpu->kernels());
      if (s && gpu)
        s = store->addMemcpys(runId, gpu->memcpys());
      bool valid = s.isOk() && passed && gpuStatus.isOk();
      ral::Status f = store->finishRun(runId, valid,
                                       !s           ? s.message()
                                       : !gpuStatus ? gpuStatus.message()
                                       : passed     ? ""
                                                    : "numerical mismatch");
      if (s && !f)
        s = f;
    }
    if (!s) {
      std::fprintf(stderr, "loupe-run: %s\n", s.message().c_str());
      return exitCodeFor(s);
    }
  }

  if (cl.has("--json")) {
    nlohmann::json dispatches = nlohmann::json::array();
    for (const Row &r : rows)
      dispatches.push_back({{"id", r.info->id}, {"name", r.info->name}, {"loc", r.info->loc},
                            {"backend", r.info->backend}, {"median_ns", r.summary.median},
                            {"iqr_ns", r.summary.iqr()}, {"calls", r.calls}});
    nlohmann::json j = {{"exit_code", exitCode},  {"artifact", path},
                        {"abi", manifest.abi},    {"device", device},
                        {"reps", reps},           {"median_ns", run.median},
                        {"kernel_timing", gpu && gpu->active() ? "cupti" : "host"},
                        {"iqr_ns", run.iqr()},    {"dispatches", dispatches},
                        {"check", expected.empty() ? nlohmann::json() : nlohmann::json(passed ? "pass" : "fail")},
                        {"run_id", runId >= 0 ? nlohmann::json(runId) : nlohmann::json()}};
    std::cout << j.dump(2) << "\n";
  } else {
    std::printf("artifact: %s (%s)\ndevice: %s\n", path.c_str(), manifest.abi.c_str(), device.c_str());
    std::printf("run: median %.3f ms, IQR %.3f ms over %d reps\n", run.median / 1e6, run.iqr() / 1e6,
                reps);
    std::printf("%4s  %-34s %-9s %-24s %12s %12s %7s\n", "id", "dispatch", "backend", "loc",
                "median us", "IQR us", "share");
    for (const Row &r : rows)
      std::printf("%4lld  %-34.34s %-9.9s %-24.24s %12.2f %12.2f %6.1f%%\n", (long long)r.info->id,
                  r.info->name.c_str(), r.info->backend.empty() ? "-" : r.info->backend.c_str(),
                  r.info->loc.c_str(), r.calls ? r.summary.median / 1e3 : 0.0,
                  r.calls ? r.summary.iqr() / 1e3 : 0.0,
                  total > 0 && r.calls ? 100 * r.summary.median / total : 0.0);
    for (const profiler::OutputCheck &c : outputChecks)
      std::printf("check output %lld: %s%s%s\n", (long long)c.record.outputIdx,
                  c.record.passed ? "pass" : "FAIL", c.message.empty() ? "" : ": ",
                  c.message.c_str());
    if (runId >= 0)
      std::printf("stored as run %lld in %s\n", (long long)runId, cl.get("--db").c_str());
  }
  return exitCode;
}
