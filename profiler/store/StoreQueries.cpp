//===- StoreQueries.cpp - Reading runs back from the profile DB -------------===//

#include "StoreImpl.h"

#include <limits>
#include <tuple>

namespace loupe::profiler {

using ral::Status;
using ral::StatusOr;

namespace {

/// Columns 0-16 of a run row; WHERE/ORDER appended by the callers.
const char *const kRunSelect =
    "SELECT r.id, r.status, m.value, d.kind, d.name, s.value, v.value, r.started_ns, "
    "r.finished_ns, r.error, d.details_json, c.json, r.host, r.pid, r.environment_json, "
    "r.batch, r.trial "
    "FROM runs r "
    "JOIN strings m ON m.id = r.model_id JOIN devices d ON d.id = r.device_id "
    "JOIN configs c ON c.id = r.config_id "
    "LEFT JOIN strings s ON s.id = r.session_id LEFT JOIN strings v ON v.id = r.variant_id ";

RunStatus parseRunStatus(const std::string &s) {
  if (s == "complete")
    return RunStatus::Complete;
  if (s == "failed")
    return RunStatus::Failed;
  if (s == "interrupted")
    return RunStatus::Interrupted;
  return RunStatus::Running;
}

RunSummary readRunSummary(const sqlite::Stmt &q) {
  RunSummary r;
  r.id = q.int64(0);
  r.status = parseRunStatus(q.text(1));
  r.model = q.text(2);
  r.deviceKind = q.text(3);
  r.deviceName = q.text(4);
  r.session = q.text(5);
  r.variant = q.text(6);
  r.startedNs = q.int64(7);
  r.finishedNs = q.isNull(8) ? 0 : q.int64(8);
  r.error = q.text(9);
  return r;
}

Status noRun(sqlite::Connection &conn, int64_t runId) {
  return ral::notFound("profile DB '" + conn.path() + "': no run " + std::to_string(runId));
}

/// Runs `sql` with ?1 = runId and appends `read(stmt)` for every row.
template <typename T, typename ReadFn>
Status collect(sqlite::Connection &conn, const std::string &sql, int64_t runId,
               std::vector<T> &out, ReadFn read) {
  LOUPE_PROF_ASSIGN_OR_RETURN(sqlite::Stmt q, conn.prepare(sql));
  q.bind(1, runId);
  while (true) {
    LOUPE_PROF_ASSIGN_OR_RETURN(bool row, q.step());
    if (!row)
      return Status::ok();
    out.push_back(read(q));
  }
}

/// Columns of a sample row, as readSample reads them.
const char *const kSampleColumns = "SELECT rep, dispatch_id, start_ns, end_ns, sm_clock_mhz ";

SampleRecord readSample(const sqlite::Stmt &q) {
  SampleRecord s{q.int64(0), q.int64(1), q.int64(2), q.int64(3), {}};
  if (!q.isNull(4))
    s.smClockMhz = static_cast<int32_t>(q.int64(4));
  return s;
}

} // namespace

StatusOr<std::vector<RunSummary>> Store::listRuns(const std::string &modelFilter) {
  LOUPE_PROF_ASSIGN_OR_RETURN(
      sqlite::Stmt q, impl_->conn->prepare(std::string(kRunSelect) +
                                           "WHERE ?1 = '' OR instr(m.value, ?1) > 0 "
                                           "ORDER BY r.id DESC"));
  q.bind(1, modelFilter);
  std::vector<RunSummary> runs;
  while (true) {
    LOUPE_PROF_ASSIGN_OR_RETURN(bool row, q.step());
    if (!row)
      return runs;
    runs.push_back(readRunSummary(q));
  }
}

StatusOr<RunData> Store::loadRun(int64_t runId) {
  sqlite::Connection &conn = *impl_->conn;
  RunData data;
  {
    LOUPE_PROF_ASSIGN_OR_RETURN(sqlite::Stmt q,
                                conn.prepare(std::string(kRunSelect) + "WHERE r.id = ?1"));
    q.bind(1, runId);
    LOUPE_PROF_ASSIGN_OR_RETURN(bool row, q.step());
    if (!row)
      return noRun(conn, runId);
    data.summary = readRunSummary(q);
    data.deviceDetailsJson = q.text(10);
    data.configJson = q.text(11);
    data.host = q.text(12);
    data.pid = q.isNull(13) ? 0 : q.int64(13);
    data.environmentJson = q.isNull(14) ? "{}" : q.text(14);
    data.batch = q.text(15);
    data.trial = q.isNull(16) ? 0 : q.int64(16);
  }

  LOUPE_PROF_RETURN_IF_ERROR(collect(
      conn,
      "SELECT c.id, mp.value, c.target, c.total_ns, ap.value FROM compiles c "
      "JOIN strings mp ON mp.id = c.model_path_id "
      "LEFT JOIN strings ap ON ap.id = c.artifact_path_id WHERE c.run_id = ?1 ORDER BY c.id",
      runId, data.compiles, [](const sqlite::Stmt &q) {
        CompileRecord c;
        c.id = q.int64(0);
        c.modelPath = q.text(1);
        c.target = q.text(2);
        c.totalNs = q.int64(3);
        c.artifactPath = q.text(4);
        return c;
      }));
  for (CompileRecord &c : data.compiles)
    LOUPE_PROF_RETURN_IF_ERROR(collect(
        conn,
        "SELECT p.idx, n.value, o.value, ph.value, a.value, p.duration_ns, p.ir_hash, p.changed "
        "FROM passes p JOIN strings n ON n.id = p.pass_id JOIN strings o ON o.id = p.options_id "
        "JOIN strings ph ON ph.id = p.phase_id JOIN strings a ON a.id = p.anchor_id "
        "WHERE p.compile_id = ?1 ORDER BY p.idx",
        c.id, c.passes, [](const sqlite::Stmt &q) {
          PassRecord p;
          p.idx = q.int64(0);
          p.pass = q.text(1);
          p.options = q.text(2);
          p.phase = q.text(3);
          p.anchor = q.text(4);
          p.durationNs = q.int64(5);
          p.irHash = static_cast<uint64_t>(q.int64(6));
          p.changed = q.int64(7) != 0;
          return p;
        }));
  for (CompileRecord &c : data.compiles) {
    std::vector<std::tuple<int64_t, std::string, uint64_t>> locs;
    LOUPE_PROF_RETURN_IF_ERROR(collect(
        conn,
        "SELECT p.idx, l.value, p.hash FROM pass_locs p JOIN strings l ON l.id = p.loc_id "
        "WHERE p.compile_id = ?1 ORDER BY p.idx, l.value",
        c.id, locs, [](const sqlite::Stmt &q) {
          return std::tuple<int64_t, std::string, uint64_t>(q.int64(0), q.text(1),
                                                             static_cast<uint64_t>(q.int64(2)));
        }));
    for (auto &[idx, loc, hash] : locs) // passes are by idx: 0, 1, 2, ...
      if (idx >= 0 && static_cast<size_t>(idx) < c.passes.size() && c.passes[idx].idx == idx)
        c.passes[idx].locHashes.push_back({loc, hash});
  }

  LOUPE_PROF_RETURN_IF_ERROR(collect(
      conn,
      "SELECT d.dispatch_id, n.value, o.value, l.value, b.value, d.cluster_id, d.bytes, d.flops, "
      "sg.value FROM dispatches d "
      "JOIN strings n ON n.id = d.name_id JOIN strings o ON o.id = d.op_id "
      "JOIN strings l ON l.id = d.loc_id JOIN strings b ON b.id = d.backend_id "
      "LEFT JOIN strings sg ON sg.id = d.signature_id "
      "WHERE d.run_id = ?1 ORDER BY d.dispatch_id",
      runId, data.dispatches, [](const sqlite::Stmt &q) {
        DispatchRecord d;
        d.dispatchId = q.int64(0);
        d.name = q.text(1);
        d.op = q.text(2);
        d.loc = q.text(3);
        d.backend = q.text(4);
        d.clusterId = q.int64(5);
        d.bytes = q.int64(6);
        d.flops = q.int64(7);
        d.signature = q.isNull(8) ? std::string() : q.text(8);
        return d;
      }));

  std::vector<SampleRecord> samples;
  LOUPE_PROF_RETURN_IF_ERROR(collect(conn,
                                     std::string(kSampleColumns) +
                                         "FROM samples WHERE run_id = ?1 "
                                         "ORDER BY dispatch_id, rep, start_ns",
                                     runId, samples, readSample));
  for (const SampleRecord &s : samples)
    data.samples[s.dispatchId].push_back(s);

  LOUPE_PROF_RETURN_IF_ERROR(collect(
      conn,
      "SELECT output_idx, passed, max_abs_err, max_rel_err, worst_index, expected, actual "
      "FROM checks WHERE run_id = ?1 ORDER BY output_idx",
      runId, data.checks, [](const sqlite::Stmt &q) {
        CheckRecord c;
        c.outputIdx = q.int64(0);
        c.passed = q.int64(1) != 0;
        c.maxAbsErr = q.real(2);
        c.maxRelErr = q.real(3);
        c.worstIndex = q.int64(4);
        c.expected = q.real(5);
        c.actual = q.real(6);
        return c;
      }));

  LOUPE_PROF_RETURN_IF_ERROR(collect(
      conn,
      "SELECT k.rep, k.dispatch_id, k.start, k.\"end\", k.deviceId, k.streamId, "
      "k.correlationId, n.value, k.gridX, k.gridY, k.gridZ, k.blockX, k.blockY, k.blockZ, "
      "k.registersPerThread, k.staticSharedMemory, k.dynamicSharedMemory FROM kernels k "
      "JOIN strings n ON n.id = k.demangledName WHERE k.run_id = ?1 ORDER BY k.rep, k.start",
      runId, data.kernels, [](const sqlite::Stmt &q) {
        KernelRecord k;
        k.rep = q.int64(0);
        k.dispatchId = q.int64(1);
        k.start = q.int64(2);
        k.end = q.int64(3);
        k.deviceId = q.int64(4);
        k.streamId = q.int64(5);
        k.correlationId = q.int64(6);
        k.name = q.text(7);
        k.gridX = static_cast<int32_t>(q.int64(8));
        k.gridY = static_cast<int32_t>(q.int64(9));
        k.gridZ = static_cast<int32_t>(q.int64(10));
        k.blockX = static_cast<int32_t>(q.int64(11));
        k.blockY = static_cast<int32_t>(q.int64(12));
        k.blockZ = static_cast<int32_t>(q.int64(13));
        k.registersPerThread = static_cast<int32_t>(q.int64(14));
        k.staticSharedMemory = q.int64(15);
        k.dynamicSharedMemory = q.int64(16);
        return k;
      }));

  LOUPE_PROF_RETURN_IF_ERROR(collect(
      conn,
      "SELECT rep, dispatch_id, start, \"end\", deviceId, streamId, correlationId, bytes, "
      "copyKind, srcKind, dstKind FROM memcpy WHERE run_id = ?1 ORDER BY rep, start",
      runId, data.memcpys, [](const sqlite::Stmt &q) {
        MemcpyRecord m;
        m.rep = q.int64(0);
        m.dispatchId = q.int64(1);
        m.start = q.int64(2);
        m.end = q.int64(3);
        m.deviceId = q.int64(4);
        m.streamId = q.int64(5);
        m.correlationId = q.int64(6);
        m.bytes = q.int64(7);
        m.copyKind = static_cast<int32_t>(q.int64(8));
        m.srcKind = static_cast<int32_t>(q.int64(9));
        m.dstKind = static_cast<int32_t>(q.int64(10));
        return m;
      }));

  LOUPE_PROF_RETURN_IF_ERROR(collect(
      conn,
      "SELECT f.dispatch_id, fk.value, nk.value, f.message, f.executions FROM fallbacks f "
      "JOIN strings fk ON fk.id = f.failed_kernel_id "
      "JOIN strings nk ON nk.id = f.fallback_kernel_id "
      "WHERE f.run_id = ?1 ORDER BY f.dispatch_id, fk.value, nk.value",
      runId, data.fallbacks, [](const sqlite::Stmt &q) {
        FallbackRecord f;
        f.dispatchId = q.int64(0);
        f.failedKernel = q.text(1);
        f.fallbackKernel = q.text(2);
        f.message = q.text(3);
        f.executions = q.int64(4);
        return f;
      }));

  std::vector<MeasurementRecord> measurements;
  LOUPE_PROF_RETURN_IF_ERROR(collect(
      conn,
      "SELECT mode, warmup_reps, warmup_ns, reps, sample_ns, noise, stop_reason, flush_bytes, "
      "clock_note, kernel_timing, minor_faults_per_rep, arena_bytes, planned_bytes, "
      "unplanned_bytes, thread_stalls FROM measurements WHERE run_id = ?1",
      runId, measurements, [](const sqlite::Stmt &q) {
        MeasurementRecord m;
        m.mode = parseCacheMode(q.text(0)).value_or(CacheMode::Hot);
        m.warmupReps = q.int64(1);
        m.warmupNs = q.int64(2);
        m.reps = q.int64(3);
        m.sampleNs = q.int64(4);
        m.noise = q.real(5);
        m.stop = parseStopReason(q.text(6)).value_or(StopReason::Exact);
        m.flushBytes = q.int64(7);
        m.clockNote = q.text(8);
        m.kernelTiming = q.text(9);
        m.minorFaultsPerRep = q.real(10);
        auto known = [&](int col) { return q.isNull(col) ? int64_t(-1) : q.int64(col); };
        m.arenaBytes = known(11);
        m.plannedBytes = known(12);
        m.unplannedBytes = known(13);
        m.threadStalls = known(14);
        return m;
      }));
  if (!measurements.empty())
    data.measurement = measurements.front();
  return data;
}

StatusOr<std::vector<SampleRecord>> Store::runSamples(int64_t runId, int64_t dispatchId) {
  LOUPE_PROF_RETURN_IF_ERROR(impl_->requireRun(runId));
  LOUPE_PROF_ASSIGN_OR_RETURN(
      sqlite::Stmt q,
      impl_->conn->prepare(std::string(kSampleColumns) +
                           "FROM samples WHERE run_id = ?1 AND dispatch_id = ?2 "
                           "ORDER BY rep, start_ns"));
  q.bind(1, runId).bind(2, dispatchId);
  std::vector<SampleRecord> out;
  while (true) {
    LOUPE_PROF_ASSIGN_OR_RETURN(bool row, q.step());
    if (!row)
      return out;
    out.push_back(readSample(q));
  }
}

StatusOr<std::vector<int64_t>> Store::sampleDurations(int64_t runId, int64_t dispatchId) {
  LOUPE_PROF_ASSIGN_OR_RETURN(std::vector<SampleRecord> samples, runSamples(runId, dispatchId));
  std::vector<int64_t> out;
  out.reserve(samples.size());
  for (const SampleRecord &s : samples)
    out.push_back(s.durationNs());
  return out;
}

StatusOr<std::vector<int64_t>> Store::trialRunIds(int64_t runId) {
  LOUPE_PROF_RETURN_IF_ERROR(impl_->requireRun(runId));
  std::vector<int64_t> out;
  LOUPE_PROF_RETURN_IF_ERROR(collect(
      *impl_->conn,
      "SELECT t.id FROM runs r JOIN runs t ON t.batch = r.batch AND t.model_id = r.model_id "
      "AND t.config_id = r.config_id AND t.session_id IS r.session_id "
      "AND t.variant_id IS r.variant_id AND t.status = 'complete' "
      "WHERE r.id = ?1 ORDER BY t.trial, t.id",
      runId, out, [](const sqlite::Stmt &q) { return q.int64(0); }));
  if (out.empty())
    out.push_back(runId);
  return out;
}

namespace {
const char *const kTuningColumns = "SELECT signature, device_kind, device_name, op, backend, "
                                   "default_backend, measured_json, loc, model, batch, tuned_ns "
                                   "FROM tuning t ";

StatusOr<std::vector<TuningRecord>> readTuning(sqlite::Stmt &q) {
  std::vector<TuningRecord> out;
  while (true) {
    LOUPE_PROF_ASSIGN_OR_RETURN(bool row, q.step());
    if (!row)
      return out;
    auto text = [&](int col) { return q.isNull(col) ? std::string() : q.text(col); };
    out.push_back({q.text(0), q.text(1), q.text(2), q.text(3), q.text(4), q.text(5), q.text(6),
                   text(7), text(8), text(9), q.int64(10)});
  }
}
} // namespace

StatusOr<std::vector<TuningRecord>> Store::tuning(const std::string &deviceKind,
                                                  const std::string &deviceName) {
  // The newest row of each signature among the device's (or the kind's, for no name).
  LOUPE_PROF_ASSIGN_OR_RETURN(
      sqlite::Stmt q,
      impl_->conn->prepare(
          std::string(kTuningColumns) +
          "WHERE device_kind = ?1 AND (?2 = '' OR device_name = ?2) AND tuned_ns = "
          "(SELECT max(tuned_ns) FROM tuning u WHERE u.signature = t.signature AND "
          "u.device_kind = ?1 AND (?2 = '' OR u.device_name = ?2)) ORDER BY signature"));
  q.bind(1, deviceKind).bind(2, deviceName);
  return readTuning(q);
}

StatusOr<std::vector<TuningRecord>> Store::allTuning() {
  LOUPE_PROF_ASSIGN_OR_RETURN(
      sqlite::Stmt q,
      impl_->conn->prepare(std::string(kTuningColumns) +
                           "ORDER BY signature, device_kind, device_name"));
  return readTuning(q);
}

StatusOr<std::vector<ComparisonRecord>> Store::comparisons(int64_t runId) {
  std::vector<ComparisonRecord> out;
  LOUPE_PROF_RETURN_IF_ERROR(collect(
      *impl_->conn,
      "SELECT id, baseline_run_id, candidate_run_id, dispatch_id, verdict, baseline_median_ns, "
      "candidate_median_ns, change, p_value, threshold, created_ns, name, change_low, "
      "change_high, baseline_trials, candidate_trials, under_load, reason FROM comparisons "
      "WHERE baseline_run_id = ?1 OR candidate_run_id = ?1 ORDER BY id",
      runId, out, [](const sqlite::Stmt &q) {
        ComparisonRecord c;
        c.id = q.int64(0);
        c.baselineRunId = q.int64(1);
        c.candidateRunId = q.int64(2);
        c.dispatchId = q.int64(3);
        c.verdict = parseVerdict(q.text(4)).value_or(Verdict::Ambiguous);
        c.baselineMedianNs = q.real(5);
        c.candidateMedianNs = q.real(6);
        c.change = q.real(7);
        c.pValue = q.real(8);
        c.threshold = q.real(9);
        c.createdNs = q.int64(10);
        c.name = q.text(11);
        double nan = std::numeric_limits<double>::quiet_NaN();
        c.changeLow = q.isNull(12) ? nan : q.real(12);
        c.changeHigh = q.isNull(13) ? nan : q.real(13);
        c.baselineTrials = q.isNull(14) ? 1 : q.int64(14);
        c.candidateTrials = q.isNull(15) ? 1 : q.int64(15);
        c.underLoad = !q.isNull(16) && q.int64(16) != 0;
        c.reason = q.text(17);
        return c;
      }));
  return out;
}

} // namespace loupe::profiler
