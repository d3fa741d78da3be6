//===- RunDataFactory.h - Synthetic stored runs for Profile/Compare tests -*- C++ -*-===//
#ifndef LOUPE_TESTS_VISUALIZER_RUNDATAFACTORY_H
#define LOUPE_TESTS_VISUALIZER_RUNDATAFACTORY_H

#include "loupe/profiler/Records.h"

#include <random>
#include <vector>

namespace loupe::visualizer::testing {

/// A run whose dispatch d takes about medians[d] ns (+-spread, uniform), `reps` repetitions;
/// dispatches run back to back from 1 us after each repetition's start.
inline profiler::RunData makeRun(int64_t id, const std::vector<double> &medians, int reps,
                                 double spread, uint64_t seed) {
  profiler::RunData data;
  data.summary.id = id;
  data.summary.status = profiler::RunStatus::Complete;
  data.summary.model = "model.mlir";
  data.summary.startedNs = 1700000000000000000 + id;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> noise(-spread, spread);
  for (size_t d = 0; d < medians.size(); ++d) {
    profiler::DispatchRecord r;
    r.dispatchId = static_cast<int64_t>(d);
    r.name = "dispatch_" + std::to_string(d) + "_generic";
    r.op = "linalg.generic";
    r.loc = "node_" + std::to_string(d);
    r.backend = "codegen";
    data.dispatches.push_back(r);
  }
  int64_t repStart = 0;
  for (int rep = 0; rep < reps; ++rep) {
    int64_t t = 1000;
    for (size_t d = 0; d < medians.size(); ++d) {
      int64_t dur = static_cast<int64_t>(medians[d] * (1 + noise(rng)));
      data.samples[static_cast<int64_t>(d)].push_back({rep, static_cast<int64_t>(d), t, t + dur});
      t += dur + 200;
    }
    data.samples[profiler::kWholeRep].push_back({rep, profiler::kWholeRep, repStart, repStart + t});
    repStart += t + 5000;
  }
  return data;
}

} // namespace loupe::visualizer::testing

#endif // LOUPE_TESTS_VISUALIZER_RUNDATAFACTORY_H
