//===- RunStore.h - Write a run's outcome to the profile DB -----*- C++ -*-===//
#ifndef LOUPE_SESSIONS_RUNSTORE_H
#define LOUPE_SESSIONS_RUNSTORE_H

#include "loupe/profiler/Records.h"
#include "loupe/sessions/Runner.h"

namespace loupe::sessions {

/// Stores mode `mode` of the outcome as a run: compile facts (every snapshot), dispatches, the
/// measurement, samples, kernel fallbacks and checks in the DB at request.dbPath, with the
/// config's "mode" set to that mode; sets outcome.modes[mode].runId. A failure leaves the run
/// 'failed' (or 'running' if the process dies), never half-hidden.
ral::Status storeRun(const RunRequest &request, RunOutcome &outcome, size_t mode,
                     const std::vector<profiler::SampleRecord> &samples);

} // namespace loupe::sessions

#endif // LOUPE_SESSIONS_RUNSTORE_H
