//===- RunDataFactory.h - Synthetic stored runs for Profile/Compare tests -*- C++ -*-===//
#ifndef LOUPE_TESTS_VISUALIZER_RUNDATAFACTORY_H
#define LOUPE_TESTS_VISUALIZER_RUNDATAFACTORY_H

#include "loupe/Pipelines/Compiler.h"
#include "loupe/profiler/Records.h"

#include <random>
#include <vector>

namespace loupe::visualizer::testing {

/// A run of `dispatches` whose dispatch d takes about medians[d] ns (+-spread, uniform), `reps`
/// repetitions; dispatches run back to back from 1 us after each repetition's start.
inline profiler::RunData makeRunOf(int64_t id, std::vector<profiler::DispatchRecord> dispatches,
                                   const std::vector<double> &medians, int reps, double spread,
                                   uint64_t seed) {
  profiler::RunData data;
  data.summary.id = id;
  data.summary.status = profiler::RunStatus::Complete;
  data.summary.model = "model.mlir";
  data.summary.startedNs = 1700000000000000000 + id;
  data.dispatches = std::move(dispatches);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> noise(-spread, spread);
  int64_t repStart = 0;
  for (int rep = 0; rep < reps; ++rep) {
    int64_t t = 1000;
    for (size_t d = 0; d < medians.size(); ++d) {
      int64_t dur = static_cast<int64_t>(medians[d] * (1 + noise(rng)));
      int64_t dispatchId = data.dispatches[d].dispatchId;
      data.samples[dispatchId].push_back({rep, dispatchId, t, t + dur});
      t += dur + 200;
    }
    data.samples[profiler::kWholeRep].push_back({rep, profiler::kWholeRep, repStart, repStart + t});
    repStart += t + 5000;
  }
  return data;
}

/// makeRunOf with codegen dispatches "dispatch_<d>_generic" at loc "node_<d>", in no cluster.
inline profiler::RunData makeRun(int64_t id, const std::vector<double> &medians, int reps,
                                 double spread, uint64_t seed) {
  std::vector<profiler::DispatchRecord> dispatches;
  for (size_t d = 0; d < medians.size(); ++d)
    dispatches.push_back({static_cast<int64_t>(d), "dispatch_" + std::to_string(d) + "_generic",
                          "linalg.generic", "node_" + std::to_string(d), "codegen", -1});
  return makeRunOf(id, std::move(dispatches), medians, reps, spread, seed);
}

/// The dispatch records a run of `compile`'s artifact stores (what the runner writes).
inline std::vector<profiler::DispatchRecord> recordsOf(const compiler::CompileResult &compile) {
  std::vector<profiler::DispatchRecord> out;
  for (const compiler::DispatchSummary &d : compile.dispatches)
    out.push_back({d.id, d.name, d.op, d.loc, d.backend, d.cluster, d.bytes, d.flops});
  return out;
}

} // namespace loupe::visualizer::testing

#endif // LOUPE_TESTS_VISUALIZER_RUNDATAFACTORY_H
