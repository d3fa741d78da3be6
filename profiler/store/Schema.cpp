//===- Schema.cpp - Profile DB schema and migrations ------------------------===//
//
// docs/db-schema.md documents every table. To change the schema: bump kSchemaVersion, append a
// step to kSteps that turns version N-1 into N (ALTER TABLE / CREATE TABLE / data copy), and
// update the doc. Never edit a released step: old files replay the steps they have not seen.
//
//===----------------------------------------------------------------------===//

#include "Schema.h"

#include "loupe/profiler/Store.h"

#include <string>

namespace loupe::profiler::schema {

namespace {

/// Version 1: the initial schema. String-valued columns named *_id reference strings(id).
const char *const kV1 = R"sql(
CREATE TABLE strings(
  id INTEGER PRIMARY KEY,
  value TEXT NOT NULL UNIQUE);
CREATE TABLE devices(
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  details_json TEXT NOT NULL DEFAULT '{}',
  UNIQUE(kind, name, details_json));
CREATE TABLE configs(
  id INTEGER PRIMARY KEY,
  json TEXT NOT NULL UNIQUE);
CREATE TABLE runs(
  id INTEGER PRIMARY KEY,
  started_ns INTEGER NOT NULL,
  finished_ns INTEGER,
  status TEXT NOT NULL DEFAULT 'running'
    CHECK (status IN ('running', 'complete', 'failed')),
  model_id INTEGER NOT NULL REFERENCES strings(id),
  device_id INTEGER NOT NULL REFERENCES devices(id),
  config_id INTEGER NOT NULL REFERENCES configs(id),
  session_id INTEGER REFERENCES strings(id),
  variant_id INTEGER REFERENCES strings(id),
  error TEXT);
CREATE TABLE compiles(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  model_path_id INTEGER NOT NULL REFERENCES strings(id),
  target TEXT NOT NULL,
  total_ns INTEGER NOT NULL,
  artifact_path_id INTEGER REFERENCES strings(id));
CREATE TABLE passes(
  compile_id INTEGER NOT NULL REFERENCES compiles(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  pass_id INTEGER NOT NULL REFERENCES strings(id),
  options_id INTEGER NOT NULL REFERENCES strings(id),
  phase_id INTEGER NOT NULL REFERENCES strings(id),
  anchor_id INTEGER NOT NULL REFERENCES strings(id),
  duration_ns INTEGER NOT NULL,
  ir_hash INTEGER NOT NULL,
  changed INTEGER NOT NULL CHECK (changed IN (0, 1)),
  PRIMARY KEY(compile_id, idx));
CREATE TABLE dispatches(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  dispatch_id INTEGER NOT NULL,
  name_id INTEGER NOT NULL REFERENCES strings(id),
  op_id INTEGER NOT NULL REFERENCES strings(id),
  loc_id INTEGER NOT NULL REFERENCES strings(id),
  backend_id INTEGER NOT NULL REFERENCES strings(id),
  cluster_id INTEGER NOT NULL DEFAULT -1,
  PRIMARY KEY(run_id, dispatch_id));
CREATE TABLE samples(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  rep INTEGER NOT NULL,
  dispatch_id INTEGER NOT NULL DEFAULT -1,
  start_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL);
CREATE TABLE checks(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  output_idx INTEGER NOT NULL,
  passed INTEGER NOT NULL CHECK (passed IN (0, 1)),
  max_abs_err REAL,
  max_rel_err REAL,
  worst_index INTEGER NOT NULL DEFAULT -1,
  expected REAL,
  actual REAL,
  PRIMARY KEY(run_id, output_idx));
CREATE TABLE kernels(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  rep INTEGER NOT NULL,
  dispatch_id INTEGER NOT NULL DEFAULT -1,
  start INTEGER NOT NULL,
  "end" INTEGER NOT NULL,
  deviceId INTEGER NOT NULL,
  streamId INTEGER NOT NULL,
  correlationId INTEGER NOT NULL,
  demangledName INTEGER NOT NULL REFERENCES strings(id),
  gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL,
  blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL,
  registersPerThread INTEGER NOT NULL,
  staticSharedMemory INTEGER NOT NULL,
  dynamicSharedMemory INTEGER NOT NULL);
CREATE TABLE memcpy(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  rep INTEGER NOT NULL,
  dispatch_id INTEGER NOT NULL DEFAULT -1,
  start INTEGER NOT NULL,
  "end" INTEGER NOT NULL,
  deviceId INTEGER NOT NULL,
  streamId INTEGER NOT NULL,
  correlationId INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  copyKind INTEGER NOT NULL,
  srcKind INTEGER NOT NULL,
  dstKind INTEGER NOT NULL);
CREATE TABLE comparisons(
  id INTEGER PRIMARY KEY,
  baseline_run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  candidate_run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  dispatch_id INTEGER NOT NULL DEFAULT -1,
  verdict TEXT NOT NULL CHECK (verdict IN ('SAME', 'FASTER', 'SLOWER', 'AMBIGUOUS')),
  baseline_median_ns REAL,
  candidate_median_ns REAL,
  change REAL,
  p_value REAL,
  threshold REAL NOT NULL,
  created_ns INTEGER NOT NULL);
)sql";

/// Version 2: the library kernels that failed at run time and what ran instead.
const char *const kV2 = R"sql(
CREATE TABLE fallbacks(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  dispatch_id INTEGER NOT NULL,
  failed_kernel_id INTEGER NOT NULL REFERENCES strings(id),
  fallback_kernel_id INTEGER NOT NULL REFERENCES strings(id),
  message TEXT NOT NULL,
  executions INTEGER NOT NULL,
  PRIMARY KEY(run_id, dispatch_id, failed_kernel_id, fallback_kernel_id));
)sql";

/// Version 3: how each run was measured (warmup, samples, noise, stop reason, cache mode) and
/// the GPU's SM clock with every sample (NULL on the CPU, without NVML, and in older rows).
const char *const kV3 = R"sql(
CREATE TABLE measurements(
  run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  mode TEXT NOT NULL CHECK (mode IN ('hot', 'cold')),
  warmup_reps INTEGER NOT NULL,
  warmup_ns INTEGER NOT NULL,
  reps INTEGER NOT NULL,
  sample_ns INTEGER NOT NULL,
  noise REAL,
  stop_reason TEXT NOT NULL CHECK (stop_reason IN ('exact', 'noise', 'max_reps', 'max_time')),
  flush_bytes INTEGER NOT NULL DEFAULT 0,
  clock_note TEXT);
ALTER TABLE samples ADD COLUMN sm_clock_mhz INTEGER;
)sql";

/// Version 4: what each dispatch moves and computes, as the compiler counted them (bytes of
/// the distinct buffers it reads and writes, floating-point operations; 0 when unknown).
const char *const kV4 = R"sql(
ALTER TABLE dispatches ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE dispatches ADD COLUMN flops INTEGER NOT NULL DEFAULT 0;
)sql";

/// Version 5: where a GPU run's dispatch times came from (CUPTI, CUDA events or the host
/// clock, and why); NULL on the CPU and in older rows.
const char *const kV5 = R"sql(
ALTER TABLE measurements ADD COLUMN kernel_timing TEXT;
)sql";

/// Version 6: the process that began each run (host, boot, PID and its start time) and what
/// surrounded it (RunProvenance.h: load, CPUs, thread and device environment), NULL in older
/// rows and imports; and the status 'interrupted', which Store::open gives a run left
/// 'running' by a process that no longer runs. A CHECK cannot be altered in SQLite, so runs is
/// rebuilt (sqlite.org/lang_altertable.html, "Making Other Kinds Of Table Schema Changes"),
/// with foreign keys off (migrate), so dropping the old table cascades to nothing. Also the
/// views that resolve the interned strings for people asking the DB (docs/db-schema.md,
/// "Views"); a dispatch's median there is the GUI's (linear interpolation between the middle
/// samples).
const char *const kV6 = R"sql(
DROP VIEW IF EXISTS v_runs;
DROP VIEW IF EXISTS v_dispatch_times;
DROP VIEW IF EXISTS v_pass_changes;
CREATE TABLE runs_v6(
  id INTEGER PRIMARY KEY,
  started_ns INTEGER NOT NULL,
  finished_ns INTEGER,
  status TEXT NOT NULL DEFAULT 'running'
    CHECK (status IN ('running', 'complete', 'failed', 'interrupted')),
  model_id INTEGER NOT NULL REFERENCES strings(id),
  device_id INTEGER NOT NULL REFERENCES devices(id),
  config_id INTEGER NOT NULL REFERENCES configs(id),
  session_id INTEGER REFERENCES strings(id),
  variant_id INTEGER REFERENCES strings(id),
  error TEXT,
  host TEXT,
  boot_id TEXT,
  pid INTEGER,
  pid_start INTEGER,
  environment_json TEXT);
INSERT INTO runs_v6(id, started_ns, finished_ns, status, model_id, device_id, config_id,
                    session_id, variant_id, error)
  SELECT id, started_ns, finished_ns, status, model_id, device_id, config_id, session_id,
         variant_id, error FROM runs;
DROP TABLE runs;
ALTER TABLE runs_v6 RENAME TO runs;
CREATE INDEX IF NOT EXISTS runs_by_model ON runs(model_id);
CREATE VIEW v_runs AS
SELECT r.id AS run_id, r.status, m.value AS model, d.kind AS device_kind, d.name AS device,
       s.value AS session, v.value AS variant, r.started_ns, r.finished_ns, r.host, r.pid,
       r.error
FROM runs r JOIN strings m ON m.id = r.model_id JOIN devices d ON d.id = r.device_id
LEFT JOIN strings s ON s.id = r.session_id LEFT JOIN strings v ON v.id = r.variant_id;
CREATE VIEW v_dispatch_times AS
WITH ranked AS (
  SELECT run_id, dispatch_id, end_ns - start_ns AS ns,
         row_number() OVER (PARTITION BY run_id, dispatch_id ORDER BY end_ns - start_ns) AS k,
         count(*) OVER (PARTITION BY run_id, dispatch_id) AS n
  FROM samples WHERE dispatch_id >= 0),
medians AS (
  SELECT run_id, dispatch_id, max(n) AS samples, avg(ns) AS median_ns FROM ranked
  WHERE k IN ((n + 1) / 2, (n + 2) / 2) GROUP BY run_id, dispatch_id)
SELECT m.run_id, m.dispatch_id, nm.value AS dispatch, op.value AS op, loc.value AS loc,
       be.value AS backend, di.cluster_id AS cluster, m.samples, m.median_ns
FROM medians m
JOIN dispatches di ON di.run_id = m.run_id AND di.dispatch_id = m.dispatch_id
JOIN strings nm ON nm.id = di.name_id JOIN strings op ON op.id = di.op_id
JOIN strings loc ON loc.id = di.loc_id JOIN strings be ON be.id = di.backend_id;
CREATE VIEW v_pass_changes AS
SELECT c.run_id, c.id AS compile_id, p.idx, ph.value AS phase, pa.value AS pass,
       o.value AS options, p.duration_ns, p.ir_hash, p.changed
FROM passes p JOIN compiles c ON c.id = p.compile_id
JOIN strings pa ON pa.id = p.pass_id JOIN strings ph ON ph.id = p.phase_id
JOIN strings o ON o.id = p.options_id;
)sql";

/// Version 7: trials, richer verdicts and per-source-op hashes of every pass (pass_locs). A run may be one trial of a batch (the runs of one
/// variant made by one `loupe replay --trials N`, interleaved with another variant's); a
/// stored verdict names its row and keeps its confidence interval, trial counts, whether it
/// was measured under load and why.
const char *const kV7 = R"sql(
CREATE TABLE pass_locs(
  compile_id INTEGER NOT NULL REFERENCES compiles(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  loc_id INTEGER NOT NULL REFERENCES strings(id),
  hash INTEGER NOT NULL,
  PRIMARY KEY(compile_id, idx, loc_id));
ALTER TABLE runs ADD COLUMN batch TEXT;
ALTER TABLE runs ADD COLUMN trial INTEGER;
CREATE INDEX IF NOT EXISTS runs_by_batch ON runs(batch);
ALTER TABLE comparisons ADD COLUMN name TEXT;
ALTER TABLE comparisons ADD COLUMN change_low REAL;
ALTER TABLE comparisons ADD COLUMN change_high REAL;
ALTER TABLE comparisons ADD COLUMN baseline_trials INTEGER;
ALTER TABLE comparisons ADD COLUMN candidate_trials INTEGER;
ALTER TABLE comparisons ADD COLUMN under_load INTEGER;
ALTER TABLE comparisons ADD COLUMN reason TEXT;
DROP VIEW v_runs;
CREATE VIEW v_runs AS
SELECT r.id AS run_id, r.status, m.value AS model, d.kind AS device_kind, d.name AS device,
       s.value AS session, v.value AS variant, r.started_ns, r.finished_ns, r.host, r.pid,
       r.error, r.batch, r.trial
FROM runs r JOIN strings m ON m.id = r.model_id JOIN devices d ON d.id = r.device_id
LEFT JOIN strings s ON s.id = r.session_id LEFT JOIN strings v ON v.id = r.variant_id;
)sql";

/// Version 8: `loupe tune`. Each dispatch of a library-capable op keeps its op signature
/// (the tuning table's key); the tuning table keeps, per signature and device, the backends
/// measured and the one kept (TuningRecord).
const char *const kV8 = R"sql(
ALTER TABLE dispatches ADD COLUMN signature_id INTEGER; -- strings(id); NULL: none
CREATE TABLE tuning(
  signature TEXT NOT NULL,
  device_kind TEXT NOT NULL,
  device_name TEXT NOT NULL,
  op TEXT NOT NULL,
  backend TEXT NOT NULL,
  default_backend TEXT NOT NULL,
  measured_json TEXT NOT NULL,
  loc TEXT,
  model TEXT,
  batch TEXT,
  tuned_ns INTEGER NOT NULL,
  PRIMARY KEY(signature, device_kind, device_name));
)sql";

/// Version 9: transient memory (issue 17, static buffer planning). Per measured run, the minor
/// page faults of a repetition and the artifact's buffer plan; NULL when unknown.
const char *const kV9 = R"sql(
ALTER TABLE measurements ADD COLUMN minor_faults_per_rep REAL;
ALTER TABLE measurements ADD COLUMN arena_bytes INTEGER;
ALTER TABLE measurements ADD COLUMN planned_bytes INTEGER;
ALTER TABLE measurements ADD COLUMN unplanned_bytes INTEGER;
)sql";

/// Version 10: the stretches on one thread of a CPU run (ral::ContentionGovernor: its times
/// mix one and two threads); NULL when unknown.
const char *const kV10 = R"sql(
ALTER TABLE measurements ADD COLUMN thread_stalls INTEGER;
)sql";

struct Step {
  int toVersion;
  const char *sql;
};

/// Step i turns version i into version i + 1.
const Step kSteps[] = {
    {1, kV1},
    {2, kV2},
    {3, kV3},
    {4, kV4},
    {5, kV5},
    {6, kV6},
    {7, kV7},
    {8, kV8},
    {9, kV9},
    {10, kV10},
};
static_assert(sizeof(kSteps) / sizeof(kSteps[0]) == kSchemaVersion,
              "one migration step per schema version");

} // namespace

ral::Status migrate(sqlite::Connection &conn, int from) {
  // Off while the schema changes (a no-op inside a transaction, so here): a step that rebuilds
  // a table drops the old one, which must not cascade to the rows that reference it.
  if (ral::Status s = conn.exec("PRAGMA foreign_keys = OFF"); !s)
    return s;
  for (const Step &step : kSteps) {
    if (step.toVersion <= from)
      continue;
    ral::StatusOr<sqlite::Transaction> tx = sqlite::Transaction::begin(conn);
    if (!tx)
      return tx.status();
    // Another process may have migrated while we waited for the write lock.
    ral::StatusOr<int64_t> now = conn.queryInt("PRAGMA user_version");
    if (!now)
      return now.status();
    if (*now >= step.toVersion) {
      if (ral::Status s = tx->commit(); !s)
        return s;
      continue;
    }
    ral::Status s = conn.exec(step.sql);
    if (s)
      s = conn.exec("PRAGMA application_id = " + std::to_string(kApplicationId) +
                    "; PRAGMA user_version = " + std::to_string(step.toVersion));
    if (s)
      s = tx->commit();
    if (!s)
      return ral::Status(s.code(), s.message() + " (migrating the schema to version " +
                                       std::to_string(step.toVersion) + ")");
  }
  return ral::Status::ok();
}

ral::Status createIndexes(sqlite::Connection &conn) {
  return conn.exec(R"sql(
CREATE INDEX IF NOT EXISTS samples_by_run ON samples(run_id, dispatch_id, rep);
CREATE INDEX IF NOT EXISTS kernels_by_run ON kernels(run_id, rep);
CREATE INDEX IF NOT EXISTS memcpy_by_run ON memcpy(run_id, rep);
CREATE INDEX IF NOT EXISTS compiles_by_run ON compiles(run_id);
CREATE INDEX IF NOT EXISTS runs_by_model ON runs(model_id);
CREATE INDEX IF NOT EXISTS comparisons_by_baseline ON comparisons(baseline_run_id);
CREATE INDEX IF NOT EXISTS comparisons_by_candidate ON comparisons(candidate_run_id);
)sql");
}

} // namespace loupe::profiler::schema
