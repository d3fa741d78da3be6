//===- Store.h - The SQLite profile database ----------------------*- C++ -*-===//
//
// Runs, compiles, passes, dispatches, timing samples, numerical checks, GPU activity, kernel
// fallbacks and verdicts, in one SQLite file (schema: docs/db-schema.md). WAL journal, synchronous=NORMAL,
// cached prepared statements, one transaction per add* call (rolled back on any error),
// indexes built by finishRun. This header does not expose SQLite.
//
// Errors are ral::Status values whose messages name the DB file; nothing here throws or aborts.
// A Store is used by one thread at a time; open one Store per thread for concurrency (WAL lets
// readers run beside the writer).
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_PROFILER_STORE_H
#define LOUPE_PROFILER_STORE_H

#include "loupe/profiler/Records.h"
#include "loupe/ral/Status.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace loupe::profiler {

/// Schema version written to PRAGMA user_version by this build.
inline constexpr int kSchemaVersion = 10;
/// PRAGMA application_id of Loupe profile DBs ("LOUP").
inline constexpr int32_t kApplicationId = 0x4C4F5550;

/// `$XDG_DATA_HOME/loupe/profiles.db` when XDG_DATA_HOME is an absolute path, else
/// `$HOME/.local/share/loupe/profiles.db`; creates the directory. Error when neither variable
/// is usable or the directory cannot be created.
ral::StatusOr<std::string> defaultDatabasePath();

class Store {
public:
  struct OpenOptions {
    /// Open without writing: no creation, no migration (an older schema is an error).
    bool readOnly = false;
  };

  /// Opens or creates the DB at `path` (":memory:" for a private in-memory DB) and migrates an
  /// older schema. Errors (kInvalidArgument), each naming the file:
  ///  - the file is not an SQLite DB or is corrupt (the file is left untouched);
  ///  - an SQLite DB that is not a Loupe profile DB (foreign application_id or tables);
  ///  - user_version newer than kSchemaVersion (written by a newer Loupe).
  /// kNotFound when read-only and the file does not exist; kInternal for I/O failures.
  static ral::StatusOr<Store> open(const std::string &path, const OpenOptions &options);
  static ral::StatusOr<Store> open(const std::string &path) { return open(path, OpenOptions()); }

  Store(Store &&) noexcept;
  Store &operator=(Store &&) noexcept;
  Store(const Store &) = delete;
  Store &operator=(const Store &) = delete;
  ~Store();

  const std::string &path() const;
  /// PRAGMA user_version (kSchemaVersion after a successful open).
  ral::StatusOr<int> schemaVersion();
  /// PRAGMA journal_mode: "wal" for files, "memory" for ":memory:".
  ral::StatusOr<std::string> journalMode();

  // --- Writing a run -------------------------------------------------------------------
  /// Inserts a run with status 'running' and returns its id. Devices and configs are
  /// de-duplicated. The run stays 'running' until finishRun (so a crash leaves it so).
  ral::StatusOr<int64_t> beginRun(const RunInfo &info);
  /// Adds a compile and its passes; returns the compile id.
  ral::StatusOr<int64_t> addCompile(int64_t runId, const CompileRecord &compile);
  /// Adds dispatch sites; a dispatchId already present for the run is an error.
  ral::Status addDispatches(int64_t runId, const std::vector<DispatchRecord> &dispatches);
  /// Adds timing samples in one transaction (100k rows take well under a second).
  ral::Status addSamples(int64_t runId, const std::vector<SampleRecord> &samples);
  /// Records how the run's samples were taken; a second one for the run is an error.
  ral::Status addMeasurement(int64_t runId, const MeasurementRecord &measurement);
  ral::Status addChecks(int64_t runId, const std::vector<CheckRecord> &checks);
  ral::Status addKernels(int64_t runId, const std::vector<KernelRecord> &kernels);
  ral::Status addMemcpys(int64_t runId, const std::vector<MemcpyRecord> &memcpys);
  /// Adds the run's kernel fallbacks; a (dispatch, failed kernel, fallback kernel) already
  /// present for the run is an error.
  ral::Status addFallbacks(int64_t runId, const std::vector<FallbackRecord> &fallbacks);
  /// Adds a finished run ('complete') with its kernels and copies in one transaction (all or
  /// nothing): what importing another tool's profile does (NsysImport.h). Returns the run id.
  ral::StatusOr<int64_t> addImportedRun(const RunInfo &info,
                                        const std::vector<KernelRecord> &kernels,
                                        const std::vector<MemcpyRecord> &memcpys);
  /// Adds a copy of a run read from another DB (`loupe db merge|export`): its record with its
  /// start, finish, status, error, process, environment and batch, and every part (compiles,
  /// dispatches, measurement, samples, checks, kernels, copies, fallbacks). The copy is
  /// 'running' (this process's) until the last part is in, so a copy cut short is marked
  /// 'interrupted' at the next open, never mistaken for the original. Returns the new id.
  ral::StatusOr<int64_t> addCopiedRun(const RunData &run);
  /// Deletes runs and everything stored with them (ON DELETE CASCADE), then reclaims the
  /// space (VACUUM). Unknown ids are ignored; returns how many runs were deleted.
  ral::StatusOr<int64_t> deleteRuns(const std::vector<int64_t> &runIds);
  /// Stores a verdict; returns its id.
  ral::StatusOr<int64_t> addComparison(const ComparisonRecord &comparison);
  /// Stores tuning results in one transaction, each replacing the row of its signature and
  /// device unless that row is newer (tunedNs), so merging DBs keeps the latest tune.
  ral::Status putTuning(const std::vector<TuningRecord> &records);
  /// Marks the run 'complete' (ok) or 'failed' (with `error`), sets finished_ns to now, and
  /// creates the query indexes if missing. kNotFound for an unknown run.
  ral::Status finishRun(int64_t runId, bool ok, const std::string &error = "");

  // --- Queries -------------------------------------------------------------------------
  /// Runs whose model contains `modelFilter` (all when empty), newest first.
  ral::StatusOr<std::vector<RunSummary>> listRuns(const std::string &modelFilter = "");
  /// Everything stored for a run; kNotFound for an unknown id.
  ral::StatusOr<RunData> loadRun(int64_t runId);
  /// Samples of one dispatch (kWholeRep: whole repetitions) by (rep, startNs).
  ral::StatusOr<std::vector<SampleRecord>> runSamples(int64_t runId, int64_t dispatchId);
  /// Durations (end - start, ns) of runSamples, ready for summarize()/compare().
  ral::StatusOr<std::vector<int64_t>> sampleDurations(int64_t runId, int64_t dispatchId);
  /// The trials of the batch `runId` belongs to: the complete runs of its batch with its model,
  /// session, variant and config, by trial; {runId} for a run outside a batch. kNotFound for
  /// an unknown run.
  ral::StatusOr<std::vector<int64_t>> trialRunIds(int64_t runId);
  /// The tuning table of a device kind ("cpu", "cuda") by signature; `deviceName` empty: of
  /// every device of that kind (the newest row of each signature).
  ral::StatusOr<std::vector<TuningRecord>> tuning(const std::string &deviceKind,
                                                  const std::string &deviceName);
  /// Every row of the tuning table, by signature, device kind and name (`loupe db merge`).
  ral::StatusOr<std::vector<TuningRecord>> allTuning();
  /// Stored comparisons in which `runId` is the baseline or the candidate, by id.
  ral::StatusOr<std::vector<ComparisonRecord>> comparisons(int64_t runId);

  class Impl;

private:
  explicit Store(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

} // namespace loupe::profiler

#endif // LOUPE_PROFILER_STORE_H
