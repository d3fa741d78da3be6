//===- Store.cpp - Opening the profile DB and writing runs ------------------===//

#include "Schema.h"
#include "StoreImpl.h"

#include "loupe/profiler/RunProvenance.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <thread>

namespace loupe::profiler {

using ral::Status;
using ral::StatusOr;

int64_t wallNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

const char *runStatusName(RunStatus status) {
  switch (status) {
  case RunStatus::Running:
    return "running";
  case RunStatus::Complete:
    return "complete";
  case RunStatus::Failed:
    return "failed";
  case RunStatus::Interrupted:
    return "interrupted";
  }
  return "running";
}

const char *cacheModeName(CacheMode mode) { return mode == CacheMode::Cold ? "cold" : "hot"; }

std::optional<CacheMode> parseCacheMode(const std::string &name) {
  if (name == "hot")
    return CacheMode::Hot;
  if (name == "cold")
    return CacheMode::Cold;
  return std::nullopt;
}

const char *stopReasonName(StopReason reason) {
  switch (reason) {
  case StopReason::Exact:
    return "exact";
  case StopReason::Noise:
    return "noise";
  case StopReason::MaxReps:
    return "max_reps";
  case StopReason::MaxTime:
    return "max_time";
  }
  return "exact";
}

std::optional<StopReason> parseStopReason(const std::string &name) {
  for (StopReason r : {StopReason::Exact, StopReason::Noise, StopReason::MaxReps,
                       StopReason::MaxTime})
    if (name == stopReasonName(r))
      return r;
  return std::nullopt;
}

StatusOr<std::string> defaultDatabasePath() {
  namespace fs = std::filesystem;
  fs::path dir;
  const char *xdg = std::getenv("XDG_DATA_HOME");
  const char *home = std::getenv("HOME");
  // XDG Base Directory spec: a relative XDG_DATA_HOME is invalid and must be ignored.
  if (xdg && *xdg && fs::path(xdg).is_absolute())
    dir = fs::path(xdg) / "loupe";
  else if (home && *home)
    dir = fs::path(home) / ".local" / "share" / "loupe";
  else
    return ral::notFound("no profile DB location: neither XDG_DATA_HOME nor HOME is set "
                         "(pass --db PATH)");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    return ral::internalError("cannot create the profile DB directory '" + dir.string() +
                              "': " + ec.message());
  return (dir / "profiles.db").string();
}

//===----------------------------------------------------------------------===//
// Opening
//===----------------------------------------------------------------------===//

Store::Impl::Impl(std::unique_ptr<sqlite::Connection> c) : conn(std::move(c)) {
  conn->onRollback = [this] { strings_.clear(); };
}

Store::Store(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Store::Store(Store &&) noexcept = default;
Store &Store::operator=(Store &&) noexcept = default;
Store::~Store() = default;

const std::string &Store::path() const { return impl_->conn->path(); }

namespace {
Status badFile(const std::string &path, const std::string &why) {
  return ral::invalidArgument("profile DB '" + path + "': " + why);
}

/// A path SQLite may open as a profile DB: missing (it is created), or a regular file that is
/// empty or starts with SQLite's header. Checked before SQLite sees the file, which it would
/// otherwise take as an empty database and overwrite.
Status checkDatabaseFile(const std::string &path) {
  std::error_code ec;
  auto status = std::filesystem::status(path, ec);
  if (ec || status.type() == std::filesystem::file_type::not_found)
    return Status::ok();
  if (status.type() != std::filesystem::file_type::regular)
    return badFile(path, "not a regular file");
  static const char kHeader[] = "SQLite format 3"; // 16 bytes with its NUL
  char header[sizeof kHeader] = {};
  std::ifstream in(path, std::ios::binary);
  in.read(header, sizeof header);
  if (in.gcount() == 0)
    return Status::ok(); // Empty: a new database.
  if (in.gcount() != sizeof header || std::memcmp(header, kHeader, sizeof header) != 0)
    return badFile(path, "not an SQLite database; the file was left unchanged");
  return Status::ok();
}
} // namespace

/// Switches to WAL (a no-op when the file already is). Switching needs an exclusive lock, and
/// SQLite reports a conflict without waiting on the busy timeout, so retry for up to 5 s.
static StatusOr<std::string> enableWal(sqlite::Connection &conn) {
  LOUPE_PROF_ASSIGN_OR_RETURN(std::string mode, conn.queryText("PRAGMA journal_mode"));
  for (int attempt = 0; mode != "wal"; ++attempt) {
    StatusOr<std::string> set = conn.queryText("PRAGMA journal_mode = WAL");
    if (set) {
      mode = *set;
      break;
    }
    if ((sqlite3_errcode(conn.handle()) & 0xff) != SQLITE_BUSY || attempt == 500)
      return set.status();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return mode;
}

/// Marks 'interrupted' the runs of this host left 'running' by a process that no longer runs
/// (killed, crashed, or the host rebooted): finishRun never came. Runs of other hosts (a DB
/// on a shared disk) and of live processes stay as they are.
static Status markInterruptedRuns(sqlite::Connection &conn) {
  ProcessIdentity me = currentProcess();
  LOUPE_PROF_ASSIGN_OR_RETURN(
      sqlite::Stmt running,
      conn.prepare("SELECT id, boot_id, pid, pid_start FROM runs WHERE status = 'running' AND "
                   "host = ?1 AND pid IS NOT NULL"));
  running.bind(1, me.host);
  std::vector<std::pair<int64_t, ProcessIdentity>> interrupted;
  while (true) {
    LOUPE_PROF_ASSIGN_OR_RETURN(bool row, running.step());
    if (!row)
      break;
    ProcessIdentity owner{me.host, running.text(1), running.int64(2), running.int64(3)};
    if (!stillRuns(owner))
      interrupted.emplace_back(running.int64(0), owner);
  }
  for (const auto &[id, owner] : interrupted) {
    LOUPE_PROF_ASSIGN_OR_RETURN(
        sqlite::Stmt update,
        conn.prepare("UPDATE runs SET status = 'interrupted', error = ?2 WHERE id = ?1 AND "
                     "status = 'running'"));
    update.bind(1, id).bind(2, "process " + std::to_string(owner.pid) + " on " + owner.host +
                                   " ended before finishing the run (killed, crashed, or the "
                                   "host restarted)");
    LOUPE_PROF_RETURN_IF_ERROR(update.run());
  }
  return Status::ok();
}

StatusOr<Store> Store::open(const std::string &path, const OpenOptions &options) {
  bool inMemory = path == ":memory:" || path.empty();
  if (options.readOnly && !inMemory && !std::filesystem::exists(path))
    return ral::notFound("profile DB '" + path + "' does not exist");
  if (!inMemory)
    LOUPE_PROF_RETURN_IF_ERROR(checkDatabaseFile(path));
  int flags = options.readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  LOUPE_PROF_ASSIGN_OR_RETURN(std::unique_ptr<sqlite::Connection> conn,
                              sqlite::Connection::open(path, flags));
  // Another writer may hold the lock for a while (a long store, a `loupe db merge`): wait.
  LOUPE_PROF_RETURN_IF_ERROR(conn->exec("PRAGMA busy_timeout = 60000"));

  // Read-only probe first, one statement so one snapshot: a file that is not a DB fails here,
  // before anything is written.
  int64_t appId = 0, version = 0, objects = 0;
  {
    StatusOr<sqlite::Stmt> probe = conn->prepare(
        "SELECT (SELECT application_id FROM pragma_application_id), "
        "(SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM sqlite_master)");
    StatusOr<bool> row = probe ? probe->step() : StatusOr<bool>(probe.status());
    if (!row && row.status().code() != ral::StatusCode::kInvalidArgument)
      return row.status(); // I/O error, locked for longer than the busy timeout...
    if (!row)
      return badFile(path, "not an SQLite database, or corrupt (" + row.status().message() +
                               "); the file was left unchanged");
    appId = probe->int64(0);
    version = probe->int64(1);
    objects = probe->int64(2);
  }
  if (appId != 0 && appId != kApplicationId)
    return badFile(path, "an SQLite database of another application (application_id " +
                             std::to_string(appId) + "), not a Loupe profile DB");
  if (version > kSchemaVersion)
    return badFile(path, "schema version " + std::to_string(version) +
                             " is newer than this Loupe supports (" +
                             std::to_string(kSchemaVersion) + "); use a newer Loupe");
  // Every Loupe schema version sets application_id with user_version (schema::migrate).
  if (appId == 0 && (version != 0 || objects > 0))
    return badFile(path, "an SQLite database of another application (user_version " +
                             std::to_string(version) + ", " + std::to_string(objects) +
                             " schema objects, no Loupe application_id), not a Loupe profile "
                             "DB; the file was left unchanged");
  if (version < 0)
    return badFile(path, "schema version " + std::to_string(version) + " is not a Loupe one");

  if (options.readOnly) {
    if (version < kSchemaVersion)
      return badFile(path, "schema version " + std::to_string(version) + " needs migrating to " +
                               std::to_string(kSchemaVersion) + "; open it read-write once");
  } else {
    LOUPE_PROF_ASSIGN_OR_RETURN(std::string mode, enableWal(*conn));
    if (!inMemory && mode != "wal")
      return ral::internalError("profile DB '" + path + "': cannot enable WAL (journal_mode " +
                                mode + ")");
    LOUPE_PROF_RETURN_IF_ERROR(conn->exec("PRAGMA synchronous = NORMAL"));
  }
  if (version < kSchemaVersion)
    LOUPE_PROF_RETURN_IF_ERROR(schema::migrate(*conn, static_cast<int>(version)));
  LOUPE_PROF_RETURN_IF_ERROR(conn->exec("PRAGMA foreign_keys = ON"));
  if (!options.readOnly)
    LOUPE_PROF_RETURN_IF_ERROR(markInterruptedRuns(*conn));
  return Store(std::make_unique<Impl>(std::move(conn)));
}

StatusOr<int> Store::schemaVersion() {
  LOUPE_PROF_ASSIGN_OR_RETURN(int64_t v, impl_->conn->queryInt("PRAGMA user_version"));
  return static_cast<int>(v);
}

StatusOr<std::string> Store::journalMode() { return impl_->conn->queryText("PRAGMA journal_mode"); }

//===----------------------------------------------------------------------===//
// Interning and lookups
//===----------------------------------------------------------------------===//

StatusOr<int64_t> Store::Impl::intern(std::string_view value) {
  std::string key(value);
  auto it = strings_.find(key);
  if (it != strings_.end())
    return it->second;
  LOUPE_PROF_ASSIGN_OR_RETURN(sqlite::Stmt find,
                              conn->prepare("SELECT id FROM strings WHERE value = ?1"));
  find.bind(1, value);
  LOUPE_PROF_ASSIGN_OR_RETURN(bool found, find.step());
  int64_t id;
  if (found) {
    id = find.int64(0);
  } else {
    LOUPE_PROF_ASSIGN_OR_RETURN(sqlite::Stmt insert,
                                conn->prepare("INSERT INTO strings(value) VALUES (?1)"));
    insert.bind(1, value);
    LOUPE_PROF_RETURN_IF_ERROR(insert.run());
    id = conn->lastInsertRowId();
  }
  strings_.emplace(std::move(key), id);
  return id;
}

StatusOr<int64_t> Store::Impl::internOrNull(std::string_view value) {
  if (value.empty())
    return int64_t(0);
  return intern(value);
}

StatusOr<int64_t> Store::Impl::deviceId(const RunInfo &info) {
  LOUPE_PROF_ASSIGN_OR_RETURN(
      sqlite::Stmt find,
      conn->prepare("SELECT id FROM devices WHERE kind = ?1 AND name = ?2 AND details_json = ?3"));
  find.bind(1, info.deviceKind).bind(2, info.deviceName).bind(3, info.deviceDetailsJson);
  LOUPE_PROF_ASSIGN_OR_RETURN(bool found, find.step());
  if (found)
    return find.int64(0);
  LOUPE_PROF_ASSIGN_OR_RETURN(
      sqlite::Stmt insert,
      conn->prepare("INSERT INTO devices(kind, name, details_json) VALUES (?1, ?2, ?3)"));
  insert.bind(1, info.deviceKind).bind(2, info.deviceName).bind(3, info.deviceDetailsJson);
  LOUPE_PROF_RETURN_IF_ERROR(insert.run());
  return conn->lastInsertRowId();
}

StatusOr<int64_t> Store::Impl::configId(const std::string &json) {
  LOUPE_PROF_ASSIGN_OR_RETURN(sqlite::Stmt find,
                              conn->prepare("SELECT id FROM configs WHERE json = ?1"));
  find.bind(1, json);
  LOUPE_PROF_ASSIGN_OR_RETURN(bool found, find.step());
  if (found)
    return find.int64(0);
  LOUPE_PROF_ASSIGN_OR_RETURN(sqlite::Stmt insert,
                              conn->prepare("INSERT INTO configs(json) VALUES (?1)"));
  insert.bind(1, json);
  LOUPE_PROF_RETURN_IF_ERROR(insert.run());
  return conn->lastInsertRowId();
}

Status Store::Impl::requireRun(int64_t runId) {
  LOUPE_PROF_ASSIGN_OR_RETURN(sqlite::Stmt find, conn->prepare("SELECT 1 FROM runs WHERE id = ?1"));
  find.bind(1, runId);
  LOUPE_PROF_ASSIGN_OR_RETURN(bool found, find.step());
  if (!found)
    return ral::notFound("profile DB '" + conn->path() + "': no run " + std::to_string(runId));
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

/// Inserts the runs row of `info` with `status` (inside the caller's transaction).
static StatusOr<int64_t> insertRun(Store::Impl &s, const RunInfo &info, RunStatus status) {
  LOUPE_PROF_ASSIGN_OR_RETURN(int64_t model, s.intern(info.model));
  LOUPE_PROF_ASSIGN_OR_RETURN(int64_t session, s.internOrNull(info.session));
  LOUPE_PROF_ASSIGN_OR_RETURN(int64_t variant, s.internOrNull(info.variant));
  LOUPE_PROF_ASSIGN_OR_RETURN(int64_t device, s.deviceId(info));
  LOUPE_PROF_ASSIGN_OR_RETURN(int64_t config, s.configId(info.configJson));
  LOUPE_PROF_ASSIGN_OR_RETURN(
      sqlite::Stmt insert,
      s.conn->prepare("INSERT INTO runs(started_ns, finished_ns, status, model_id, device_id, "
                      "config_id, session_id, variant_id, host, boot_id, pid, pid_start, "
                      "environment_json, batch, trial) "
                      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)"));
  int64_t now = wallNowNs();
  insert.bind(1, info.startedNs != 0 ? info.startedNs : now);
  if (status == RunStatus::Running)
    insert.bindNull(2);
  else
    insert.bind(2, now);
  insert.bind(3, std::string_view(runStatusName(status))).bind(4, model).bind(5, device);
  insert.bind(6, config);
  bindId(insert, 7, session);
  bindId(insert, 8, variant);
  if (status == RunStatus::Running) { // this process runs it (an import ran elsewhere)
    ProcessIdentity me = currentProcess();
    insert.bind(9, me.host).bind(10, me.bootId).bind(11, me.pid).bind(12, me.startTicks);
    insert.bind(13, info.environmentJson.empty() ? runEnvironmentJson() : info.environmentJson);
  } else {
    for (int i = 9; i <= 13; ++i)
      insert.bindNull(i);
  }
  insert.bindTextOrNull(14, info.batch);
  if (info.batch.empty())
    insert.bindNull(15);
  else
    insert.bind(15, info.trial);
  LOUPE_PROF_RETURN_IF_ERROR(insert.run());
  return s.conn->lastInsertRowId();
}

StatusOr<int64_t> Store::beginRun(const RunInfo &info) {
  Impl &s = *impl_;
  LOUPE_PROF_ASSIGN_OR_RETURN(sqlite::Transaction tx, sqlite::Transaction::begin(*s.conn));
  LOUPE_PROF_ASSIGN_OR_RETURN(int64_t runId, insertRun(s, info, RunStatus::Running));
  LOUPE_PROF_RETURN_IF_ERROR(tx.commit());
  return runId;
}

StatusOr<int64_t> Store::addCompile(int64_t runId, const CompileRecord &compile) {
  Impl &s = *impl_;
  LOUPE_PROF_RETURN_IF_ERROR(s.requireRun(runId));
  LOUPE_PROF_ASSIGN_OR_RETURN(sqlite::Transaction tx, sqlite::Transaction::begin(*s.conn));
  LOUPE_PROF_ASSIGN_OR_RETURN(int64_t model, s.intern(compile.modelPath));
  LOUPE_PROF_ASSIGN_OR_RETURN(int64_t artifact, s.internOrNull(compile.artifactPath));
  LOUPE_PROF_ASSIGN_OR_RETURN(
      sqlite::Stmt insert,
      s.conn->prepare("INSERT INTO compiles(run_id, model_path_id, target, total_ns, "
                      "artifact_path_id) VALUES (?1, ?2, ?3, ?4, ?5)"));
  insert.bind(1, runId).bind(2, model).bind(3, compile.target).bind(4, compile.totalNs);
  bindId(insert, 5, artifact);
  LOUPE_PROF_RETURN_IF_ERROR(insert.run());
  int64_t compileId = s.conn->lastInsertRowId();

  LOUPE_PROF_ASSIGN_OR_RETURN(
      sqlite::Stmt pass,
      s.conn->prepare("INSERT INTO passes(compile_id, idx, pass_id, options_id, phase_id, "
                      "anchor_id, duration_ns, ir_hash, changed) "
                      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"));
  LOUPE_PROF_ASSIGN_OR_RETURN(
      sqlite::Stmt locs,
      s.conn->prepare("INSERT INTO pass_locs(compile_id, idx, loc_id, hash) VALUES (?1, ?2, ?3, ?4)"));
  for (const PassRecord &p : compile.passes) {
    LOUPE_PROF_ASSIGN_OR_RETURN(int64_t name, s.intern(p.pass));
    LOUPE_PROF_ASSIGN_OR_RETURN(int64_t opts, s.intern(p.options));
    LOUPE_PROF_ASSIGN_OR_RETURN(int64_t phase, s.intern(p.phase));
    LOUPE_PROF_ASSIGN_OR_RETURN(int64_t anchor, s.intern(p.anchor));
    pass.bind(1, compileId).bind(2, p.idx).bind(3, name).bind(4, opts).bind(5, phase);
    // SQLite INTEGER is signed 64-bit: store the hash's bit pattern.
    pass.bind(6, anchor).bind(7, p.durationNs).bind(8, static_cast<int64_t>(p.irHash));
    pass.bind(9, int64_t(p.changed ? 1 : 0));
    LOUPE_PROF_RETURN_IF_ERROR(pass.run());
    for (const auto &[loc, hash] : p.locHashes) {
      LOUPE_PROF_ASSIGN_OR_RETURN(int64_t locId, s.intern(loc));
      locs.bind(1, compileId).bind(2, p.idx).bind(3, locId).bind(4, static_cast<int64_t>(hash));
      LOUPE_PROF_RETURN_IF_ERROR(locs.run());
    }
  }
  LOUPE_PROF_RETURN_IF_ERROR(tx.commit());
  return compileId;
}

Status Store::addDispatches(int64_t runId, const std::vector<DispatchRecord> &dispatches) {
  Impl &s = *impl_;
  LOUPE_PROF_RETURN_IF_ERROR(s.requireRun(runId));
  LOUPE_PROF_ASSIGN_OR_RETURN(sqlite::Transaction tx, sqlite::Transaction::begin(*s.conn));
  LOUPE_PROF_ASSIGN_OR_RETURN(
      sqlite::Stmt insert,
      s.conn->prepare("INSERT INTO dispatches(run_id, dispatch_id, name_id, op_id, loc_id, "
                      "backend_id, cluster_id, bytes, flops, signature_id) "
                      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"));
  for (const DispatchRecord &d : dispatches) {
    LOUPE_PROF_ASSIGN_OR_RETURN(int64_t name, s.intern(d.name));
    LOUPE_PROF_ASSIGN_OR_RETURN(int64_t op, s.intern(d.op));
    LOUPE_PROF_ASSIGN_OR_RETURN(int64_t loc, s.intern(d.loc));
    LOUPE_PROF_ASSIGN_OR_RETURN(int64_t backend, s.intern(d.backend));
    insert.bind(1, runId).bind(2, d.dispatchId).bind(3, name).bind(4, op).bind(5, loc);
    insert.bind(6, backend).bind(7, d.clusterId).bind(8, d.bytes).bind(9, d.flops);
    if (d.signature.empty()) {
      insert.bindNull(10);
    } else {
      LOUPE_PROF_ASSIGN_OR_RETURN(int64_t signature, s.intern(d.signature));
      insert.bind(10, signature);
    }
    LOUPE_PROF_RETURN_IF_ERROR(insert.run());
  }
  return tx.commit();
}

/// Inserts one row per element of `rows` for run `runId` with one prepared statement whose
/// parameter 1 is the run id; `bindRow(insert, row)` binds the other columns. Runs inside the
/// caller's transaction.
template <typename Row, typename BindRow>
static Status insertRows(sqlite::Connection &conn, int64_t runId, const char *sql,
                         const std::vector<Row> &rows, BindRow bindRow) {
  LOUPE_PROF_ASSIGN_OR_RETURN(sqlite::Stmt insert, conn.prepare(sql));
  insert.bind(1, runId);
  for (const Row &row : rows) {
    LOUPE_PROF_RETURN_IF_ERROR(bindRow(insert, row));
    LOUPE_PROF_RETURN_IF_ERROR(insert.run());
  }
  return Status::ok();
}

/// insertRows in a transaction of its own.
template <typename Row, typename BindRow>
static Status insertRunRows(sqlite::Connection &conn, int64_t runId, const char *sql,
                            const std::vector<Row> &rows, BindRow bindRow) {
  LOUPE_PROF_ASSIGN_OR_RETURN(sqlite::Transaction tx, sqlite::Transaction::begin(conn));
  LOUPE_PROF_RETURN_IF_ERROR(insertRows(conn, runId, sql, rows, bindRow));
  return tx.commit();
}

Status Store::addSamples(int64_t runId, const std::vector<SampleRecord> &samples) {
  LOUPE_PROF_RETURN_IF_ERROR(impl_->requireRun(runId));
  return insertRunRows(*impl_->conn, runId,
                       "INSERT INTO samples(run_id, rep, dispatch_id, start_ns, end_ns, "
                       "sm_clock_mhz) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                       samples, [](sqlite::Stmt &insert, const SampleRecord &r) {
                         insert.bind(2, r.rep).bind(3, r.dispatchId).bind(4, r.startNs);
                         insert.bind(5, r.endNs);
                         if (r.smClockMhz)
                           insert.bind(6, int64_t(*r.smClockMhz));
                         else
                           insert.bindNull(6);
                         return Status::ok();
                       });
}

Status Store::addMeasurement(int64_t runId, const MeasurementRecord &m) {
  LOUPE_PROF_RETURN_IF_ERROR(impl_->requireRun(runId));
  return insertRunRows(
      *impl_->conn, runId,
      "INSERT INTO measurements(run_id, mode, warmup_reps, warmup_ns, reps, sample_ns, noise, "
      "stop_reason, flush_bytes, clock_note, kernel_timing, minor_faults_per_rep, arena_bytes, "
      "planned_bytes, unplanned_bytes, thread_stalls) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
      std::vector<MeasurementRecord>{m}, [](sqlite::Stmt &insert, const MeasurementRecord &r) {
        insert.bind(2, std::string_view(cacheModeName(r.mode))).bind(3, r.warmupReps);
        insert.bind(4, r.warmupNs).bind(5, r.reps).bind(6, r.sampleNs).bind(7, r.noise);
        insert.bind(8, std::string_view(stopReasonName(r.stop))).bind(9, r.flushBytes);
        insert.bindTextOrNull(10, r.clockNote).bindTextOrNull(11, r.kernelTiming);
        insert.bind(12, r.minorFaultsPerRep);
        int column = 13;
        for (int64_t known : {r.arenaBytes, r.plannedBytes, r.unplannedBytes, r.threadStalls}) {
          if (known >= 0)
            insert.bind(column, known);
          else
            insert.bindNull(column);
          ++column;
        }
        return Status::ok();
      });
}

Status Store::addChecks(int64_t runId, const std::vector<CheckRecord> &checks) {
  LOUPE_PROF_RETURN_IF_ERROR(impl_->requireRun(runId));
  return insertRunRows(
      *impl_->conn, runId,
      "INSERT INTO checks(run_id, output_idx, passed, max_abs_err, max_rel_err, worst_index, "
      "expected, actual) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
      checks, [](sqlite::Stmt &insert, const CheckRecord &c) {
        insert.bind(2, c.outputIdx).bind(3, int64_t(c.passed ? 1 : 0)).bind(4, c.maxAbsErr);
        insert.bind(5, c.maxRelErr).bind(6, c.worstIndex).bind(7, c.expected).bind(8, c.actual);
        return Status::ok();
      });
}

Status Store::addFallbacks(int64_t runId, const std::vector<FallbackRecord> &fallbacks) {
  Impl &s = *impl_;
  LOUPE_PROF_RETURN_IF_ERROR(s.requireRun(runId));
  return insertRunRows(
      *s.conn, runId,
      "INSERT INTO fallbacks(run_id, dispatch_id, failed_kernel_id, fallback_kernel_id, "
      "message, executions) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
      fallbacks, [&s](sqlite::Stmt &insert, const FallbackRecord &f) -> Status {
        LOUPE_PROF_ASSIGN_OR_RETURN(int64_t failed, s.intern(f.failedKernel));
        LOUPE_PROF_ASSIGN_OR_RETURN(int64_t fallback, s.intern(f.fallbackKernel));
        insert.bind(2, f.dispatchId).bind(3, failed).bind(4, fallback).bind(5, f.message);
        insert.bind(6, f.executions);
        return Status::ok();
      });
}

static const char *const kInsertKernel =
    "INSERT INTO kernels(run_id, rep, dispatch_id, start, \"end\", deviceId, streamId, "
    "correlationId, demangledName, gridX, gridY, gridZ, blockX, blockY, blockZ, "
    "registersPerThread, staticSharedMemory, dynamicSharedMemory) VALUES "
    "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)";
static const char *const kInsertMemcpy =
    "INSERT INTO memcpy(run_id, rep, dispatch_id, start, \"end\", deviceId, streamId, "
    "correlationId, bytes, copyKind, srcKind, dstKind) VALUES "
    "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)";

/// Binds a kernels row (kernel names are interned).
static auto kernelBinder(Store::Impl &s) {
  return [&s](sqlite::Stmt &insert, const KernelRecord &k) -> Status {
    LOUPE_PROF_ASSIGN_OR_RETURN(int64_t name, s.intern(k.name));
    insert.bind(2, k.rep).bind(3, k.dispatchId).bind(4, k.start).bind(5, k.end);
    insert.bind(6, k.deviceId).bind(7, k.streamId).bind(8, k.correlationId).bind(9, name);
    insert.bind(10, int64_t(k.gridX)).bind(11, int64_t(k.gridY)).bind(12, int64_t(k.gridZ));
    insert.bind(13, int64_t(k.blockX)).bind(14, int64_t(k.blockY)).bind(15, int64_t(k.blockZ));
    insert.bind(16, int64_t(k.registersPerThread)).bind(17, k.staticSharedMemory);
    insert.bind(18, k.dynamicSharedMemory);
    return Status::ok();
  };
}

static Status bindMemcpy(sqlite::Stmt &insert, const MemcpyRecord &m) {
  insert.bind(2, m.rep).bind(3, m.dispatchId).bind(4, m.start).bind(5, m.end);
  insert.bind(6, m.deviceId).bind(7, m.streamId).bind(8, m.correlationId).bind(9, m.bytes);
  insert.bind(10, int64_t(m.copyKind)).bind(11, int64_t(m.srcKind));
  insert.bind(12, int64_t(m.dstKind));
  return Status::ok();
}

Status Store::addKernels(int64_t runId, const std::vector<KernelRecord> &kernels) {
  Impl &s = *impl_;
  LOUPE_PROF_RETURN_IF_ERROR(s.requireRun(runId));
  return insertRunRows(*s.conn, runId, kInsertKernel, kernels, kernelBinder(s));
}

Status Store::addMemcpys(int64_t runId, const std::vector<MemcpyRecord> &memcpys) {
  LOUPE_PROF_RETURN_IF_ERROR(impl_->requireRun(runId));
  return insertRunRows(*impl_->conn, runId, kInsertMemcpy, memcpys, bindMemcpy);
}

StatusOr<int64_t> Store::addImportedRun(const RunInfo &info,
                                        const std::vector<KernelRecord> &kernels,
                                        const std::vector<MemcpyRecord> &memcpys) {
  Impl &s = *impl_;
  LOUPE_PROF_ASSIGN_OR_RETURN(sqlite::Transaction tx, sqlite::Transaction::begin(*s.conn));
  LOUPE_PROF_ASSIGN_OR_RETURN(int64_t runId, insertRun(s, info, RunStatus::Complete));
  LOUPE_PROF_RETURN_IF_ERROR(insertRows(*s.conn, runId, kInsertKernel, kernels, kernelBinder(s)));
  LOUPE_PROF_RETURN_IF_ERROR(insertRows(*s.conn, runId, kInsertMemcpy, memcpys, bindMemcpy));
  LOUPE_PROF_RETURN_IF_ERROR(tx.commit());
  LOUPE_PROF_RETURN_IF_ERROR(schema::createIndexes(*s.conn));
  return runId;
}

StatusOr<int64_t> Store::addCopiedRun(const RunData &run) {
  RunInfo info;
  info.model = run.summary.model;
  info.deviceKind = run.summary.deviceKind;
  info.deviceName = run.summary.deviceName;
  info.deviceDetailsJson = run.deviceDetailsJson;
  info.configJson = run.configJson;
  info.session = run.summary.session;
  info.variant = run.summary.variant;
  info.startedNs = run.summary.startedNs;
  info.environmentJson = run.environmentJson;
  info.batch = run.batch;
  info.trial = run.trial;
  LOUPE_PROF_ASSIGN_OR_RETURN(int64_t id, beginRun(info));
  for (const CompileRecord &c : run.compiles)
    LOUPE_PROF_RETURN_IF_ERROR(addCompile(id, c).status());
  LOUPE_PROF_RETURN_IF_ERROR(addDispatches(id, run.dispatches));
  if (run.measurement)
    LOUPE_PROF_RETURN_IF_ERROR(addMeasurement(id, *run.measurement));
  std::vector<SampleRecord> samples;
  for (const auto &[dispatch, rows] : run.samples)
    samples.insert(samples.end(), rows.begin(), rows.end());
  LOUPE_PROF_RETURN_IF_ERROR(addSamples(id, samples));
  LOUPE_PROF_RETURN_IF_ERROR(addChecks(id, run.checks));
  LOUPE_PROF_RETURN_IF_ERROR(addKernels(id, run.kernels));
  LOUPE_PROF_RETURN_IF_ERROR(addMemcpys(id, run.memcpys));
  LOUPE_PROF_RETURN_IF_ERROR(addFallbacks(id, run.fallbacks));
  Impl &s = *impl_;
  LOUPE_PROF_ASSIGN_OR_RETURN(
      sqlite::Stmt update,
      s.conn->prepare("UPDATE runs SET status = ?1, finished_ns = ?2, error = ?3, host = ?4, "
                      "pid = ?5, boot_id = NULL, pid_start = NULL WHERE id = ?6"));
  update.bind(1, std::string_view(runStatusName(run.summary.status)));
  if (run.summary.finishedNs != 0)
    update.bind(2, run.summary.finishedNs);
  else
    update.bindNull(2);
  update.bindTextOrNull(3, run.summary.error).bindTextOrNull(4, run.host);
  if (run.pid != 0)
    update.bind(5, run.pid);
  else
    update.bindNull(5);
  update.bind(6, id);
  LOUPE_PROF_RETURN_IF_ERROR(update.run());
  LOUPE_PROF_RETURN_IF_ERROR(schema::createIndexes(*s.conn));
  return id;
}

StatusOr<int64_t> Store::deleteRuns(const std::vector<int64_t> &runIds) {
  Impl &s = *impl_;
  int64_t deleted = 0;
  {
    LOUPE_PROF_ASSIGN_OR_RETURN(sqlite::Transaction tx, sqlite::Transaction::begin(*s.conn));
    LOUPE_PROF_ASSIGN_OR_RETURN(sqlite::Stmt del, s.conn->prepare("DELETE FROM runs WHERE id = ?1"));
    for (int64_t id : runIds) {
      del.bind(1, id);
      LOUPE_PROF_RETURN_IF_ERROR(del.run());
      deleted += s.conn->changes();
    }
    LOUPE_PROF_RETURN_IF_ERROR(tx.commit());
  }
  LOUPE_PROF_RETURN_IF_ERROR(s.conn->exec("VACUUM"));
  return deleted;
}

StatusOr<int64_t> Store::addComparison(const ComparisonRecord &c) {
  Impl &s = *impl_;
  LOUPE_PROF_RETURN_IF_ERROR(s.requireRun(c.baselineRunId));
  LOUPE_PROF_RETURN_IF_ERROR(s.requireRun(c.candidateRunId));
  LOUPE_PROF_ASSIGN_OR_RETURN(
      sqlite::Stmt insert,
      s.conn->prepare("INSERT INTO comparisons(baseline_run_id, candidate_run_id, dispatch_id, "
                      "verdict, baseline_median_ns, candidate_median_ns, change, p_value, "
                      "threshold, created_ns, name, change_low, change_high, baseline_trials, "
                      "candidate_trials, under_load, reason) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
                      "?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)"));
  insert.bind(1, c.baselineRunId).bind(2, c.candidateRunId).bind(3, c.dispatchId);
  insert.bind(4, std::string_view(verdictName(c.verdict))).bind(5, c.baselineMedianNs);
  insert.bind(6, c.candidateMedianNs).bind(7, c.change).bind(8, c.pValue).bind(9, c.threshold);
  insert.bind(10, c.createdNs != 0 ? c.createdNs : wallNowNs()).bindTextOrNull(11, c.name);
  for (auto [index, value] : {std::pair{12, c.changeLow}, std::pair{13, c.changeHigh}})
    if (std::isfinite(value))
      insert.bind(index, value);
    else
      insert.bindNull(index);
  insert.bind(14, c.baselineTrials).bind(15, c.candidateTrials);
  insert.bind(16, int64_t(c.underLoad ? 1 : 0)).bindTextOrNull(17, c.reason);
  LOUPE_PROF_RETURN_IF_ERROR(insert.run());
  return s.conn->lastInsertRowId();
}

Status Store::putTuning(const std::vector<TuningRecord> &records) {
  Impl &s = *impl_;
  LOUPE_PROF_ASSIGN_OR_RETURN(sqlite::Transaction tx, sqlite::Transaction::begin(*s.conn));
  LOUPE_PROF_ASSIGN_OR_RETURN(
      sqlite::Stmt insert,
      s.conn->prepare("INSERT INTO tuning(signature, device_kind, device_name, op, backend, "
                      "default_backend, measured_json, loc, model, batch, tuned_ns) "
                      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) "
                      "ON CONFLICT(signature, device_kind, device_name) DO UPDATE SET "
                      "op = excluded.op, backend = excluded.backend, "
                      "default_backend = excluded.default_backend, "
                      "measured_json = excluded.measured_json, loc = excluded.loc, "
                      "model = excluded.model, batch = excluded.batch, "
                      "tuned_ns = excluded.tuned_ns WHERE excluded.tuned_ns >= tuning.tuned_ns"));
  for (const TuningRecord &t : records) {
    insert.bind(1, t.signature).bind(2, t.deviceKind).bind(3, t.deviceName).bind(4, t.op);
    insert.bind(5, t.backend).bind(6, t.defaultBackend).bind(7, t.measuredJson);
    insert.bindTextOrNull(8, t.loc).bindTextOrNull(9, t.model).bindTextOrNull(10, t.batch);
    insert.bind(11, t.tunedNs != 0 ? t.tunedNs : wallNowNs());
    LOUPE_PROF_RETURN_IF_ERROR(insert.run());
  }
  return tx.commit();
}

Status Store::finishRun(int64_t runId, bool ok, const std::string &error) {
  Impl &s = *impl_;
  LOUPE_PROF_ASSIGN_OR_RETURN(
      sqlite::Stmt update,
      s.conn->prepare("UPDATE runs SET status = ?1, finished_ns = ?2, error = ?3 WHERE id = ?4"));
  update.bind(1, std::string_view(runStatusName(ok ? RunStatus::Complete : RunStatus::Failed)));
  update.bind(2, wallNowNs()).bindTextOrNull(3, error).bind(4, runId);
  LOUPE_PROF_RETURN_IF_ERROR(update.run());
  if (s.conn->changes() == 0)
    return ral::notFound("profile DB '" + s.conn->path() + "': no run " + std::to_string(runId));
  return schema::createIndexes(*s.conn);
}

} // namespace loupe::profiler
