//===- StoreTest.cpp - SQLite profile store ---------------------------------===//

#include "loupe/profiler/RunProvenance.h"
#include "loupe/profiler/Store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sys/wait.h>
#include <thread>

#include <unistd.h>

using namespace loupe::profiler;
using loupe::ral::StatusCode;
namespace fs = std::filesystem;

namespace {

RunInfo sampleRunInfo();

/// A fresh directory per test, removed afterwards.
class StoreFileTest : public ::testing::Test {
protected:
  void SetUp() override {
    const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("loupe-store-" + std::string(info->name()) + "-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string &name) const { return (dir_ / name).string(); }
  /// A current-schema DB at `path` holding one run; returns its id.
  int64_t fileWithOneRun(const std::string &path) {
    auto store = Store::open(path);
    EXPECT_TRUE(store.isOk()) << store.status().message();
    return store.isOk() ? *store->beginRun(sampleRunInfo()) : -1;
  }
  /// Version 9's measurements table from version 10's.
  static constexpr const char *kDropVersion10 = "ALTER TABLE measurements DROP COLUMN thread_stalls; ";
  /// Version 8's measurements table from version 9's.
  static constexpr const char *kDropVersion9 =
      "ALTER TABLE measurements DROP COLUMN minor_faults_per_rep; "
      "ALTER TABLE measurements DROP COLUMN arena_bytes; "
      "ALTER TABLE measurements DROP COLUMN planned_bytes; "
      "ALTER TABLE measurements DROP COLUMN unplanned_bytes; ";
  /// Runs `sql` on the file directly, to rewrite it as an older schema had it: first as
  /// version 6 (without trials and the richer verdicts of 7, the tuning of 8, the memory
  /// columns of 9 and the thread stalls of 10), then, unless `keepViews`, without the views,
  /// which every version before 6 lacks.
  static bool asOldVersion(const std::string &path, const std::string &sql,
                           bool keepViews = false) {
    std::string downgrade =
        std::string(kDropVersion10) + kDropVersion9 +
        "DROP TABLE tuning; ALTER TABLE dispatches DROP COLUMN signature_id; "
        "DROP TABLE pass_locs; DROP VIEW v_runs; DROP INDEX runs_by_batch; "
        "ALTER TABLE runs DROP COLUMN batch; "
        "ALTER TABLE runs DROP COLUMN trial; ALTER TABLE comparisons DROP COLUMN name; "
        "ALTER TABLE comparisons DROP COLUMN change_low; "
        "ALTER TABLE comparisons DROP COLUMN change_high; "
        "ALTER TABLE comparisons DROP COLUMN baseline_trials; "
        "ALTER TABLE comparisons DROP COLUMN candidate_trials; "
        "ALTER TABLE comparisons DROP COLUMN under_load; "
        "ALTER TABLE comparisons DROP COLUMN reason; " +
        std::string(keepViews ? "CREATE VIEW v_runs AS SELECT id AS run_id FROM runs; "
                              : "DROP VIEW IF EXISTS v_dispatch_times; "
                                "DROP VIEW IF EXISTS v_pass_changes; ") +
        sql;
    return execSql(path, downgrade);
  }
  static bool execSql(const std::string &path, const std::string &sql) {
    sqlite3 *db = nullptr;
    bool ok = sqlite3_open(path.c_str(), &db) == SQLITE_OK &&
              sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
    sqlite3_close(db);
    return ok;
  }
  fs::path dir_;
};

std::string readBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void writeBytes(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

/// Overwrites the big-endian 32-bit field at `offset` of an SQLite file header (60:
/// user_version, 68: application_id) - the documented on-disk format.
void patchHeader(const std::string &path, size_t offset, uint32_t value) {
  std::string bytes = readBytes(path);
  ASSERT_GE(bytes.size(), 100u);
  for (int i = 0; i < 4; ++i)
    bytes[offset + i] = static_cast<char>((value >> (24 - 8 * i)) & 0xff);
  writeBytes(path, bytes);
}

RunInfo sampleRunInfo() {
  RunInfo info;
  info.model = "examples/models/mlp.mlir";
  info.deviceKind = "cpu";
  info.deviceName = "Test CPU";
  info.deviceDetailsJson = R"({"threads":2})";
  info.configJson = R"({"reps":10,"mode":"hot"})";
  info.session = "examples/sessions/mlp.json";
  info.variant = "codegen";
  info.startedNs = 1'700'000'000'000'000'000;
  return info;
}

Store openMemory() {
  auto store = Store::open(":memory:");
  EXPECT_TRUE(store.isOk()) << store.status().message();
  return std::move(*store);
}

} // namespace

TEST(Store, RoundTrip) {
  Store store = openMemory();
  EXPECT_EQ(*store.schemaVersion(), kSchemaVersion);
  auto runId = store.beginRun(sampleRunInfo());
  ASSERT_TRUE(runId.isOk()) << runId.status().message();

  CompileRecord compile;
  compile.modelPath = "examples/models/mlp.mlir";
  compile.target = "cpu";
  compile.totalNs = 123'456'789;
  compile.artifactPath = "/tmp/mlp.so";
  compile.passes = {
      {0, "canonicalize", "", "graph", "func.func", 1000, 0xFEDCBA9876543210ull, true,
       {{"conv1", 0xFFFFFFFFFFFFFFF0ull}, {"relu1", 7}}},
      {1, "cse", "", "graph", "builtin.module", 2000, 42, false},
      {2, "loupe-cluster", "{min-size=2}", "cluster", "func.func", 3000, 0, true},
  };
  auto compileId = store.addCompile(*runId, compile);
  ASSERT_TRUE(compileId.isOk()) << compileId.status().message();

  std::vector<DispatchRecord> dispatches = {
      {0, "fusion_0_kLoop", "tosa.add", "mlp.mlir:3", "codegen", 0, 1536, 128},
      {1, "ral_gemm", "tosa.matmul", "mlp.mlir:5", "openblas", -1, 12345678901, 98765432109,
       "matmul:4x8xf32:8x16xf32:4x16xf32"},
  };
  ASSERT_TRUE(store.addDispatches(*runId, dispatches).isOk());

  std::vector<SampleRecord> samples;
  for (int64_t rep = 0; rep < 3; ++rep) {
    samples.push_back({rep, kWholeRep, rep * 1000, rep * 1000 + 900});
    samples.push_back({rep, 0, 10, 300});
    samples.push_back({rep, 1, 310, 890 - rep});
  }
  ASSERT_TRUE(store.addSamples(*runId, samples).isOk());

  std::vector<CheckRecord> checks = {
      {0, true, 1e-6, 2e-7, 17, 1.5, 1.5000001},
      {1, false, INFINITY, NAN, 3, NAN, 0.25},
  };
  ASSERT_TRUE(store.addChecks(*runId, checks).isOk());

  KernelRecord kernel;
  kernel.rep = 1;
  kernel.dispatchId = 1;
  kernel.start = 5'000;
  kernel.end = 9'000;
  kernel.deviceId = 0;
  kernel.streamId = 7;
  kernel.correlationId = 99;
  kernel.name = "void gemm<float>(int)";
  kernel.gridX = 128, kernel.gridY = 2, kernel.gridZ = 1;
  kernel.blockX = 256, kernel.blockY = 1, kernel.blockZ = 1;
  kernel.registersPerThread = 64;
  kernel.staticSharedMemory = 4096;
  kernel.dynamicSharedMemory = 49152;
  ASSERT_TRUE(store.addKernels(*runId, {kernel}).isOk());
  MemcpyRecord copy;
  copy.start = 100, copy.end = 200, copy.bytes = 1 << 20, copy.copyKind = 1, copy.dstKind = 3;
  ASSERT_TRUE(store.addMemcpys(*runId, {copy}).isOk());
  std::vector<FallbackRecord> fallbacks = {
      {1, "ral_gemm_onednn", "ral_gemm_openblas", "ral_gemm_onednn: out of memory", 12}};
  ASSERT_TRUE(store.addFallbacks(*runId, fallbacks).isOk());
  EXPECT_FALSE(store.addFallbacks(*runId, fallbacks).isOk()); // once per run and pair
  ASSERT_TRUE(store.finishRun(*runId, true).isOk());

  auto loaded = store.loadRun(*runId);
  ASSERT_TRUE(loaded.isOk()) << loaded.status().message();
  const RunData &run = *loaded;
  RunInfo info = sampleRunInfo();
  EXPECT_EQ(run.summary.id, *runId);
  EXPECT_EQ(run.summary.status, RunStatus::Complete);
  EXPECT_EQ(run.summary.model, info.model);
  EXPECT_EQ(run.summary.deviceKind, "cpu");
  EXPECT_EQ(run.summary.deviceName, "Test CPU");
  EXPECT_EQ(run.summary.session, info.session);
  EXPECT_EQ(run.summary.variant, "codegen");
  EXPECT_EQ(run.summary.startedNs, info.startedNs);
  EXPECT_GT(run.summary.finishedNs, 0);
  EXPECT_EQ(run.summary.error, "");
  EXPECT_EQ(run.deviceDetailsJson, info.deviceDetailsJson);
  EXPECT_EQ(run.configJson, info.configJson);

  ASSERT_EQ(run.compiles.size(), 1u);
  EXPECT_EQ(run.compiles[0].id, *compileId);
  EXPECT_EQ(run.compiles[0].modelPath, compile.modelPath);
  EXPECT_EQ(run.compiles[0].target, "cpu");
  EXPECT_EQ(run.compiles[0].totalNs, compile.totalNs);
  EXPECT_EQ(run.compiles[0].artifactPath, compile.artifactPath);
  EXPECT_EQ(run.compiles[0].passes, compile.passes); // includes the top-bit-set hash

  EXPECT_EQ(run.dispatches, dispatches);

  ASSERT_EQ(run.samples.size(), 3u);
  for (int64_t id : {kWholeRep, int64_t(0), int64_t(1)}) {
    std::vector<SampleRecord> expected;
    for (const SampleRecord &s : samples)
      if (s.dispatchId == id)
        expected.push_back(s);
    EXPECT_EQ(run.samples.at(id), expected) << "dispatch " << id;
  }

  ASSERT_EQ(run.checks.size(), 2u);
  EXPECT_TRUE(run.checks[0].passed);
  EXPECT_EQ(run.checks[0].maxAbsErr, 1e-6);
  EXPECT_EQ(run.checks[0].maxRelErr, 2e-7);
  EXPECT_EQ(run.checks[0].worstIndex, 17);
  EXPECT_EQ(run.checks[0].expected, 1.5);
  EXPECT_EQ(run.checks[0].actual, 1.5000001);
  EXPECT_FALSE(run.checks[1].passed);
  EXPECT_TRUE(std::isinf(run.checks[1].maxAbsErr));
  EXPECT_TRUE(std::isnan(run.checks[1].maxRelErr));
  EXPECT_TRUE(std::isnan(run.checks[1].expected));
  EXPECT_EQ(run.checks[1].actual, 0.25);

  ASSERT_EQ(run.kernels.size(), 1u);
  const KernelRecord &k = run.kernels[0];
  EXPECT_EQ(k.name, kernel.name);
  EXPECT_EQ(k.rep, 1);
  EXPECT_EQ(k.dispatchId, 1);
  EXPECT_EQ(k.end - k.start, 4'000);
  EXPECT_EQ(k.streamId, 7);
  EXPECT_EQ(k.correlationId, 99);
  EXPECT_EQ(k.gridX * k.gridY * k.gridZ, 256);
  EXPECT_EQ(k.blockX, 256);
  EXPECT_EQ(k.registersPerThread, 64);
  EXPECT_EQ(k.staticSharedMemory, 4096);
  EXPECT_EQ(k.dynamicSharedMemory, 49152);
  ASSERT_EQ(run.memcpys.size(), 1u);
  EXPECT_EQ(run.memcpys[0].bytes, 1 << 20);
  EXPECT_EQ(run.memcpys[0].copyKind, 1);
  EXPECT_EQ(run.memcpys[0].dstKind, 3);
  EXPECT_EQ(run.memcpys[0].dispatchId, kWholeRep);
  ASSERT_EQ(run.fallbacks.size(), 1u);
  EXPECT_EQ(run.fallbacks[0].dispatchId, 1);
  EXPECT_EQ(run.fallbacks[0].failedKernel, "ral_gemm_onednn");
  EXPECT_EQ(run.fallbacks[0].fallbackKernel, "ral_gemm_openblas");
  EXPECT_EQ(run.fallbacks[0].message, "ral_gemm_onednn: out of memory");
  EXPECT_EQ(run.fallbacks[0].executions, 12);

  auto one = store.runSamples(*runId, 1);
  ASSERT_TRUE(one.isOk());
  EXPECT_EQ(*one, run.samples.at(1));
  auto durations = store.sampleDurations(*runId, kWholeRep);
  ASSERT_TRUE(durations.isOk());
  EXPECT_EQ(*durations, (std::vector<int64_t>{900, 900, 900}));

  // A copy into another DB (loupe db merge|export) keeps every part and the run's record.
  Store other = openMemory();
  auto copyId = other.addCopiedRun(run);
  ASSERT_TRUE(copyId.isOk()) << copyId.status().message();
  auto copied = other.loadRun(*copyId);
  ASSERT_TRUE(copied.isOk());
  EXPECT_EQ(copied->summary.status, RunStatus::Complete);
  EXPECT_EQ(copied->summary.startedNs, run.summary.startedNs);
  EXPECT_EQ(copied->summary.finishedNs, run.summary.finishedNs);
  EXPECT_EQ(copied->host, run.host);
  EXPECT_EQ(copied->environmentJson, run.environmentJson);
  EXPECT_EQ(copied->compiles[0].passes, run.compiles[0].passes);
  EXPECT_EQ(copied->dispatches, run.dispatches);
  EXPECT_EQ(copied->samples, run.samples);
  EXPECT_EQ(copied->kernels.size(), 1u);
  EXPECT_EQ(copied->fallbacks.size(), 1u);
  EXPECT_EQ(copied->checks.size(), 2u);
  // Deleting takes every row of the run with it.
  EXPECT_EQ(*other.deleteRuns({*copyId, 12345}), 1);
  EXPECT_FALSE(other.loadRun(*copyId).isOk());
  EXPECT_TRUE(other.runSamples(*copyId, kWholeRep)->empty());
}

TEST(Store, ListRunsFiltersByModelNewestFirst) {
  Store store = openMemory();
  RunInfo a = sampleRunInfo();
  RunInfo b = sampleRunInfo();
  b.model = "examples/models/resnet.onnx";
  b.session.clear();
  b.variant.clear();
  int64_t first = *store.beginRun(a);
  int64_t second = *store.beginRun(b);
  int64_t third = *store.beginRun(a);
  ASSERT_TRUE(store.finishRun(second, false, "kernel crashed").isOk());

  auto all = store.listRuns();
  ASSERT_TRUE(all.isOk());
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0].id, third);
  EXPECT_EQ((*all)[2].id, first);
  EXPECT_EQ((*all)[1].status, RunStatus::Failed);
  EXPECT_EQ((*all)[1].error, "kernel crashed");
  EXPECT_EQ((*all)[1].session, "");

  auto mlp = store.listRuns("mlp");
  ASSERT_TRUE(mlp.isOk());
  ASSERT_EQ(mlp->size(), 2u);
  EXPECT_EQ((*mlp)[0].id, third);
  EXPECT_EQ((*mlp)[1].id, first);
  EXPECT_EQ(store.listRuns("%")->size(), 0u); // substring match, not a LIKE pattern
}

TEST(Store, Comparisons) {
  Store store = openMemory();
  int64_t base = *store.beginRun(sampleRunInfo());
  int64_t cand = *store.beginRun(sampleRunInfo());
  int64_t other = *store.beginRun(sampleRunInfo());
  ComparisonRecord c;
  c.baselineRunId = base;
  c.candidateRunId = cand;
  c.dispatchId = 3;
  c.verdict = Verdict::Slower;
  c.baselineMedianNs = 1000;
  c.candidateMedianNs = 1200.5;
  c.change = 0.2005;
  c.pValue = 1e-5;
  c.threshold = 0.05;
  auto id = store.addComparison(c);
  ASSERT_TRUE(id.isOk()) << id.status().message();
  auto list = store.comparisons(cand);
  ASSERT_TRUE(list.isOk());
  ASSERT_EQ(list->size(), 1u);
  const ComparisonRecord &r = (*list)[0];
  EXPECT_EQ(r.id, *id);
  EXPECT_EQ(r.baselineRunId, base);
  EXPECT_EQ(r.dispatchId, 3);
  EXPECT_EQ(r.verdict, Verdict::Slower);
  EXPECT_EQ(r.candidateMedianNs, 1200.5);
  EXPECT_EQ(r.pValue, 1e-5);
  EXPECT_GT(r.createdNs, 0);
  EXPECT_EQ(store.comparisons(base)->size(), 1u);
  EXPECT_EQ(store.comparisons(other)->size(), 0u);
  c.candidateRunId = 12345;
  EXPECT_EQ(store.addComparison(c).status().code(), StatusCode::kNotFound);
}

TEST(Store, TuningTableKeepsOneRowPerSignatureAndDevice) {
  Store store = openMemory();
  TuningRecord conv{"conv2d:1x34x34x3xf32", "cpu", "EPYC", "conv2d", "onednn", "onednn",
                    R"([{"backend":"onednn"}])", "conv1", "cnn.onnx", "b1", 100};
  TuningRecord fc{"matmul:1x1024xf32", "cpu", "EPYC", "matmul", "openblas", "onednn", "[]",
                  "fc", "cnn.onnx", "b1", 100};
  TuningRecord gpu = fc;
  gpu.deviceKind = "cuda";
  gpu.deviceName = "H100";
  gpu.backend = "cublas";
  ASSERT_TRUE(store.putTuning({conv, fc, gpu}).isOk());
  auto cpu = store.tuning("cpu", "EPYC");
  ASSERT_TRUE(cpu.isOk()) << cpu.status().message();
  ASSERT_EQ(cpu->size(), 2u);
  EXPECT_EQ((*cpu)[0].signature, "conv2d:1x34x34x3xf32"); // by signature
  EXPECT_EQ((*cpu)[0].measuredJson, R"([{"backend":"onednn"}])");
  EXPECT_EQ((*cpu)[1].backend, "openblas");
  EXPECT_EQ((*cpu)[1].defaultBackend, "onednn");
  EXPECT_EQ((*cpu)[1].tunedNs, 100);
  EXPECT_EQ(store.tuning("cpu", "another CPU")->size(), 0u);
  // A later tune of the same signature on the same device replaces the row.
  fc.backend = "codegen";
  fc.tunedNs = 200;
  ASSERT_TRUE(store.putTuning({fc}).isOk());
  cpu = store.tuning("cpu", "EPYC");
  ASSERT_EQ(cpu->size(), 2u);
  EXPECT_EQ((*cpu)[1].backend, "codegen");
  // An older row (a merge of an older shard) does not replace a newer one.
  TuningRecord stale = fc;
  stale.backend = "onednn";
  stale.tunedNs = 150;
  ASSERT_TRUE(store.putTuning({stale}).isOk());
  EXPECT_EQ(store.tuning("cpu", "EPYC")->at(1).backend, "codegen");
  // No device name: the newest row of each signature of that kind.
  TuningRecord other = gpu;
  other.deviceName = "A100";
  other.backend = "codegen";
  other.tunedNs = 50;
  ASSERT_TRUE(store.putTuning({other}).isOk());
  auto anyGpu = store.tuning("cuda", "");
  ASSERT_EQ(anyGpu->size(), 1u);
  EXPECT_EQ((*anyGpu)[0].backend, "cublas");
  EXPECT_EQ(store.allTuning()->size(), 4u); // conv, fc (cpu) and the two GPUs' rows
}

TEST(Store, ErrorsRollBackTheWholeBatch) {
  Store store = openMemory();
  int64_t run = *store.beginRun(sampleRunInfo());
  EXPECT_EQ(store.addSamples(run + 1, {{0, kWholeRep, 0, 1}}).code(), StatusCode::kNotFound);
  EXPECT_EQ(store.loadRun(run + 1).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store.finishRun(run + 1, true).code(), StatusCode::kNotFound);

  // The duplicate dispatch id fails the batch; nothing of it stays, including new strings.
  auto dup = store.addDispatches(run, {{1, "k_new", "op_new", "loc_new", "codegen", -1},
                                       {1, "k_new", "op_new", "loc_new", "codegen", -1}});
  EXPECT_FALSE(dup.isOk());
  EXPECT_NE(dup.message().find("UNIQUE"), std::string::npos) << dup.message();
  EXPECT_TRUE(store.loadRun(run)->dispatches.empty());
  // Strings interned by the rolled-back batch must not be reused by stale id.
  std::vector<DispatchRecord> ok = {{1, "k_new", "op_new", "loc_new", "codegen", -1}};
  ASSERT_TRUE(store.addDispatches(run, ok).isOk());
  EXPECT_EQ(store.loadRun(run)->dispatches, ok);
}

TEST_F(StoreFileTest, RunLeftRunningWhenNotFinished) {
  std::string path = file("profiles.db");
  int64_t runId;
  {
    auto store = Store::open(path);
    ASSERT_TRUE(store.isOk()) << store.status().message();
    runId = *store->beginRun(sampleRunInfo());
    ASSERT_TRUE(store->addSamples(runId, {{0, kWholeRep, 0, 10}}).isOk());
    // Destroyed without finishRun, as after a crash.
  }
  auto store = Store::open(path);
  ASSERT_TRUE(store.isOk()) << store.status().message();
  auto run = store->loadRun(runId);
  ASSERT_TRUE(run.isOk());
  EXPECT_EQ(run->summary.status, RunStatus::Running);
  EXPECT_EQ(run->summary.finishedNs, 0);
  EXPECT_EQ(run->samples.at(kWholeRep).size(), 1u);
  EXPECT_STREQ(runStatusName(run->summary.status), "running");
}

// A run whose process was killed stays 'running' forever unless someone notices: the next
// read-write open marks it interrupted, naming the process. A live process's run stays
// running.
TEST_F(StoreFileTest, RunsOfProcessesThatNoLongerRunAreMarkedInterrupted) {
  std::string path = file("interrupted.db");
  ASSERT_TRUE(Store::open(path).isOk());
  pid_t child = fork();
  ASSERT_NE(child, -1);
  if (child == 0) { // begins a run and dies without finishing it, as under kill -9
    auto store = Store::open(path);
    _exit(store && store->beginRun(sampleRunInfo()) ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);

  auto store = Store::open(path);
  ASSERT_TRUE(store.isOk()) << store.status().message();
  int64_t live = *store->beginRun(sampleRunInfo()); // this process: still running
  auto reopened = Store::open(path);
  ASSERT_TRUE(reopened.isOk()) << reopened.status().message();
  auto runs = *reopened->listRuns();
  ASSERT_EQ(runs.size(), 2u);
  const RunSummary &dead = runs[1].id == live ? runs[0] : runs[1];
  EXPECT_EQ(dead.status, RunStatus::Interrupted);
  EXPECT_STREQ(runStatusName(dead.status), "interrupted");
  EXPECT_EQ(dead.error.rfind("process " + std::to_string(child) + " on ", 0), 0u) << dead.error;
  EXPECT_EQ(reopened->loadRun(live)->summary.status, RunStatus::Running);

  // The run records where it ran and what surrounded it.
  RunData data = *reopened->loadRun(live);
  EXPECT_EQ(data.pid, getpid());
  EXPECT_EQ(data.host, currentProcess().host);
  EXPECT_NE(data.environmentJson.find("\"load\""), std::string::npos) << data.environmentJson;
  EXPECT_NE(data.environmentJson.find("\"cpus\""), std::string::npos) << data.environmentJson;
  EXPECT_NE(data.environmentJson.find("\"loupe\":\""), std::string::npos) << data.environmentJson;
}

// The views answer in SQL what the GUI and `loupe db show` compute: a dispatch's median is
// the middle sample (odd count) or the mean of the two middle ones (even count).
TEST_F(StoreFileTest, ViewsResolveNamesAndGiveTheGuisMedians) {
  std::string path = file("views.db");
  int64_t runId = fileWithOneRun(path);
  {
    auto store = Store::open(path);
    ASSERT_TRUE(store.isOk());
    ASSERT_TRUE(store->addDispatches(runId, {{0, "dispatch_0_matmul", "linalg.matmul", "fc1",
                                              "onednn", 2, 0, 0},
                                             {1, "dispatch_1_generic", "linalg.generic", "relu",
                                              "codegen", 3, 0, 0}})
                    .isOk());
    std::vector<SampleRecord> samples;
    for (int64_t ns : {50, 10, 30}) // dispatch 0: 10 30 50 -> 30
      samples.push_back({static_cast<int64_t>(samples.size()), 0, 0, ns});
    for (int64_t ns : {40, 10, 20, 30}) // dispatch 1: 10 20 30 40 -> 25
      samples.push_back({static_cast<int64_t>(samples.size()), 1, 100, 100 + ns});
    ASSERT_TRUE(store->addSamples(runId, samples).isOk());
    for (int64_t id : {0, 1})
      EXPECT_DOUBLE_EQ(summarize(*store->sampleDurations(runId, id)).median, id ? 25 : 30);
  }
  sqlite3 *db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  auto rows = [&](const char *sql) {
    std::string out;
    sqlite3_exec(
        db, sql,
        [](void *text, int n, char **values, char **) {
          auto &s = *static_cast<std::string *>(text);
          for (int i = 0; i < n; ++i)
            s += std::string(i ? "|" : "") + (values[i] ? values[i] : "NULL");
          s += "\n";
          return 0;
        },
        &out, nullptr);
    return out;
  };
  EXPECT_EQ(rows("SELECT dispatch, loc, backend, cluster, samples, median_ns FROM "
                 "v_dispatch_times ORDER BY dispatch_id"),
            "dispatch_0_matmul|fc1|onednn|2|3|30.0\ndispatch_1_generic|relu|codegen|3|4|25.0\n");
  EXPECT_EQ(rows("SELECT status, device_kind, model, pid IS NOT NULL FROM v_runs"),
            "running|cpu|" + sampleRunInfo().model + "|1\n");
  sqlite3_close(db);
}

TEST(RunProvenance, AProcessIsKnownByItsPidAndStartTime) {
  ProcessIdentity me = currentProcess();
  EXPECT_FALSE(me.host.empty());
  EXPECT_FALSE(me.bootId.empty());
  EXPECT_GT(me.startTicks, 0);
  EXPECT_TRUE(stillRuns(me));
  ProcessIdentity reused = me;
  reused.startTicks += 1; // the same PID, another process
  EXPECT_FALSE(stillRuns(reused));
  ProcessIdentity rebooted = me;
  rebooted.bootId = "another boot";
  EXPECT_FALSE(stillRuns(rebooted));

  EXPECT_EQ(describeEnvironment(R"({"loupe":"v1-2-gabc","load":[1.2,0.95,0.8],"cpus":2,)"
                                R"("cpu_model":"X","env":{"OMP_NUM_THREADS":"2"}})"),
            "loupe v1-2-gabc, load 1.20 0.95 0.80, 2 CPUs, OMP_NUM_THREADS=2");
  EXPECT_EQ(describeEnvironment("{}"), "");
  EXPECT_EQ(describeEnvironment("not json"), "");
}

TEST_F(StoreFileTest, WalModeForFiles) {
  auto store = Store::open(file("wal.db"));
  ASSERT_TRUE(store.isOk()) << store.status().message();
  EXPECT_EQ(*store->journalMode(), "wal");
  EXPECT_EQ(store->path(), file("wal.db"));
  EXPECT_EQ(*openMemory().journalMode(), "memory");
}

TEST_F(StoreFileTest, ConcurrentOpensOfANewFileAllSucceed) {
  std::string path = file("shared.db");
  std::vector<std::string> errors(4);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&, i] {
      auto store = Store::open(path);
      if (!store)
        errors[i] = store.status().message();
      else if (auto run = store->beginRun(sampleRunInfo()); !run)
        errors[i] = run.status().message();
    });
  for (std::thread &t : threads)
    t.join();
  for (const std::string &e : errors)
    EXPECT_EQ(e, "");
  auto reader = Store::open(path);
  ASSERT_TRUE(reader.isOk());
  EXPECT_EQ(reader->listRuns()->size(), 4u);
}

TEST_F(StoreFileTest, ReaderSeesWritersCommits) {
  std::string path = file("rw.db");
  auto writer = Store::open(path);
  ASSERT_TRUE(writer.isOk());
  auto reader = Store::open(path);
  ASSERT_TRUE(reader.isOk());
  EXPECT_EQ(reader->listRuns()->size(), 0u);
  int64_t run = *writer->beginRun(sampleRunInfo());
  ASSERT_TRUE(writer->addSamples(run, {{0, kWholeRep, 0, 5}}).isOk());
  EXPECT_EQ(reader->listRuns()->size(), 1u);
  EXPECT_EQ(reader->sampleDurations(run, kWholeRep)->size(), 1u);
}

TEST_F(StoreFileTest, NewerSchemaVersionIsRejected) {
  std::string path = file("future.db");
  ASSERT_TRUE(Store::open(path).isOk());
  patchHeader(path, 60, kSchemaVersion + 1);
  std::string before = readBytes(path);
  auto store = Store::open(path);
  ASSERT_FALSE(store.isOk());
  EXPECT_EQ(store.status().code(), StatusCode::kInvalidArgument);
  const std::string &msg = store.status().message();
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("newer"), std::string::npos) << msg;
  EXPECT_NE(msg.find("version " + std::to_string(kSchemaVersion + 1)), std::string::npos) << msg;
  EXPECT_EQ(readBytes(path), before);
}

TEST_F(StoreFileTest, VersionSixIsMigrated) {
  // A version-6 DB with a stored verdict: the verdict reads back with one trial per side and
  // no interval; new runs record their batch.
  std::string path = file("v6.db");
  int64_t a = fileWithOneRun(path), b = fileWithOneRun(path);
  {
    auto store = Store::open(path);
    ASSERT_TRUE(store.isOk());
    ComparisonRecord c;
    c.baselineRunId = a;
    c.candidateRunId = b;
    c.verdict = Verdict::Slower;
    ASSERT_TRUE(store->addComparison(c).isOk());
  }
  ASSERT_TRUE(asOldVersion(path, "PRAGMA user_version = 6;", /*keepViews=*/true));
  auto store = Store::open(path);
  ASSERT_TRUE(store.isOk()) << store.status().message();
  EXPECT_EQ(*store->schemaVersion(), kSchemaVersion);
  auto verdicts = store->comparisons(a);
  ASSERT_TRUE(verdicts.isOk());
  ASSERT_EQ(verdicts->size(), 1u);
  EXPECT_EQ((*verdicts)[0].verdict, Verdict::Slower);
  EXPECT_EQ((*verdicts)[0].baselineTrials, 1);
  EXPECT_TRUE(std::isnan((*verdicts)[0].changeLow));
  EXPECT_EQ(*store->trialRunIds(a), std::vector<int64_t>{a}) << "a run outside a batch";
  EXPECT_TRUE(store->putTuning({{"s", "cpu", "c", "matmul", "onednn", "onednn"}}).isOk());

  RunInfo info = sampleRunInfo();
  info.batch = "b1";
  std::vector<int64_t> trials;
  for (int t = 0; t < 3; ++t) {
    info.trial = t;
    trials.push_back(*store->beginRun(info));
    ASSERT_TRUE(store->finishRun(trials.back(), true).isOk());
  }
  info.variant = "other"; // same batch, another variant: not a trial of the first
  ASSERT_TRUE(store->finishRun(*store->beginRun(info), true).isOk());
  EXPECT_EQ(*store->trialRunIds(trials[2]), trials);
  EXPECT_FALSE(store->trialRunIds(99999).isOk());
}

TEST_F(StoreFileTest, VersionEightIsMigrated) {
  // A version-8 measurement: no page faults or buffer plan (NaN and -1: unknown).
  std::string path = file("v8.db");
  int64_t runId = fileWithOneRun(path);
  {
    auto store = Store::open(path);
    ASSERT_TRUE(store.isOk());
    MeasurementRecord m;
    m.reps = 5;
    ASSERT_TRUE(store->addMeasurement(runId, m).isOk());
  }
  ASSERT_TRUE(
      execSql(path, std::string(kDropVersion10) + kDropVersion9 + "PRAGMA user_version = 8;"));
  auto store = Store::open(path);
  ASSERT_TRUE(store.isOk()) << store.status().message();
  EXPECT_EQ(*store->schemaVersion(), kSchemaVersion);
  MeasurementRecord old = *store->loadRun(runId)->measurement;
  EXPECT_EQ(old.reps, 5);
  EXPECT_TRUE(std::isnan(old.minorFaultsPerRep));
  EXPECT_EQ(old.arenaBytes, -1);
  EXPECT_EQ(old.unplannedBytes, -1);
  EXPECT_EQ(old.threadStalls, -1); // version 10's column, NULL
}

TEST_F(StoreFileTest, VersionOneIsMigrated) {
  std::string path = file("v1.db");
  int64_t runId = fileWithOneRun(path);
  // What version 1 had: no fallbacks, no measurements, no SM clock on samples, no dispatch
  // bytes and FLOPs.
  ASSERT_TRUE(asOldVersion(path,
                      "DROP TABLE fallbacks; DROP TABLE measurements; "
                      "ALTER TABLE samples DROP COLUMN sm_clock_mhz; "
                      "ALTER TABLE dispatches DROP COLUMN bytes; "
                      "ALTER TABLE dispatches DROP COLUMN flops; PRAGMA user_version = 1;"));

  auto store = Store::open(path);
  ASSERT_TRUE(store.isOk()) << store.status().message();
  EXPECT_EQ(*store->schemaVersion(), kSchemaVersion);
  ASSERT_TRUE(store->addFallbacks(runId, {{0, "a", "b", "a: failed", 1}}).isOk());
  EXPECT_EQ(store->loadRun(runId)->fallbacks.size(), 1u);
}

TEST_F(StoreFileTest, VersionTwoIsMigrated) {
  // A version-2 DB with a run and samples, written with version 2's exact DDL for samples.
  std::string path = file("v2.db");
  int64_t runId = fileWithOneRun(path);
  ASSERT_TRUE(asOldVersion(path,
                      "DROP TABLE measurements; DROP TABLE samples; "
                      "ALTER TABLE dispatches DROP COLUMN bytes; "
                      "ALTER TABLE dispatches DROP COLUMN flops; "
                      "CREATE TABLE samples(run_id INTEGER NOT NULL REFERENCES runs(id) ON "
                      "DELETE CASCADE, rep INTEGER NOT NULL, dispatch_id INTEGER NOT NULL "
                      "DEFAULT -1, start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL); "
                      "INSERT INTO samples VALUES (1, 0, -1, 0, 100), (1, 1, -1, 100, 250); "
                      "PRAGMA user_version = 2;"));

  auto store = Store::open(path);
  ASSERT_TRUE(store.isOk()) << store.status().message();
  EXPECT_EQ(*store->schemaVersion(), kSchemaVersion);
  // Old rows: kept, no clock, no measurement.
  auto old = store->loadRun(runId);
  ASSERT_TRUE(old.isOk()) << old.status().message();
  ASSERT_EQ(old->samples[kWholeRep].size(), 2u);
  EXPECT_EQ(old->samples[kWholeRep][1].durationNs(), 150);
  EXPECT_FALSE(old->samples[kWholeRep][1].smClockMhz.has_value());
  EXPECT_FALSE(old->measurement.has_value());
  // New columns and table work on the migrated file.
  MeasurementRecord m;
  m.mode = CacheMode::Cold;
  m.reps = 2;
  m.stop = StopReason::MaxTime;
  ASSERT_TRUE(store->addMeasurement(runId, m).isOk());
  SampleRecord clocked{2, kWholeRep, 250, 400};
  clocked.smClockMhz = 1755;
  ASSERT_TRUE(store->addSamples(runId, {clocked}).isOk());
  auto now = store->loadRun(runId);
  ASSERT_TRUE(now.isOk());
  EXPECT_EQ(now->samples[kWholeRep].back(), clocked);
  ASSERT_TRUE(now->measurement.has_value());
  EXPECT_EQ(now->measurement->mode, CacheMode::Cold);
  EXPECT_EQ(now->measurement->stop, StopReason::MaxTime);
}

TEST_F(StoreFileTest, VersionThreeIsMigrated) {
  // A version-3 DB with a dispatch, written with version 3's exact DDL for dispatches.
  std::string path = file("v3.db");
  int64_t runId = fileWithOneRun(path);
  std::string v3 = "ALTER TABLE measurements DROP COLUMN kernel_timing; DROP TABLE dispatches; "
                   "CREATE TABLE dispatches(run_id INTEGER NOT NULL REFERENCES runs(id) ON "
                   "DELETE CASCADE, dispatch_id INTEGER NOT NULL, name_id INTEGER NOT NULL "
                   "REFERENCES strings(id), op_id INTEGER NOT NULL REFERENCES strings(id), "
                   "loc_id INTEGER NOT NULL REFERENCES strings(id), backend_id INTEGER NOT "
                   "NULL REFERENCES strings(id), cluster_id INTEGER NOT NULL DEFAULT -1, "
                   "PRIMARY KEY(run_id, dispatch_id)); "
                   "INSERT OR IGNORE INTO strings(value) VALUES ('d0'), ('linalg.generic'), "
                   "('n0'), ('codegen'); "
                   "INSERT INTO dispatches SELECT " + std::to_string(runId) +
                   ", 0, (SELECT id FROM strings WHERE value "
                   "= 'd0'), (SELECT id FROM strings WHERE value = 'linalg.generic'), "
                   "(SELECT id FROM strings WHERE value = 'n0'), (SELECT id FROM strings "
                   "WHERE value = 'codegen'), 3; "
                   "PRAGMA user_version = 3;";
  ASSERT_TRUE(asOldVersion(path, v3));

  auto store = Store::open(path);
  ASSERT_TRUE(store.isOk()) << store.status().message();
  EXPECT_EQ(*store->schemaVersion(), kSchemaVersion);
  // The old dispatch: kept, no bytes or FLOPs (0: unknown).
  auto old = store->loadRun(runId);
  ASSERT_TRUE(old.isOk()) << old.status().message();
  ASSERT_EQ(old->dispatches.size(), 1u);
  EXPECT_EQ(old->dispatches[0], (DispatchRecord{0, "d0", "linalg.generic", "n0", "codegen", 3, 0, 0}));
  // New dispatches keep theirs.
  ASSERT_TRUE(store->addDispatches(runId, {{1, "d1", "linalg.matmul", "n1", "openblas", 4,
                                            4096, 2 * 8 * 16 * 32}})
                  .isOk());
  auto now = store->loadRun(runId);
  ASSERT_TRUE(now.isOk());
  ASSERT_EQ(now->dispatches.size(), 2u);
  EXPECT_EQ(now->dispatches[1].bytes, 4096);
  EXPECT_EQ(now->dispatches[1].flops, 2 * 8 * 16 * 32);
}

TEST_F(StoreFileTest, VersionFourIsMigrated) {
  // A version-4 DB with a measurement: no kernel_timing column.
  std::string path = file("v4.db");
  int64_t runId = fileWithOneRun(path);
  {
    auto store = Store::open(path);
    ASSERT_TRUE(store.isOk());
    MeasurementRecord m;
    m.reps = 12;
    ASSERT_TRUE(store->addMeasurement(runId, m).isOk());
  }
  ASSERT_TRUE(asOldVersion(path, "ALTER TABLE measurements DROP COLUMN kernel_timing; "
                            "PRAGMA user_version = 4;"));

  auto store = Store::open(path);
  ASSERT_TRUE(store.isOk()) << store.status().message();
  EXPECT_EQ(*store->schemaVersion(), kSchemaVersion);
  auto old = store->loadRun(runId);
  ASSERT_TRUE(old.isOk()) << old.status().message();
  ASSERT_TRUE(old->measurement.has_value());
  EXPECT_EQ(old->measurement->reps, 12);
  EXPECT_EQ(old->measurement->kernelTiming, ""); // NULL: not recorded
  // A new GPU run keeps where its times came from.
  int64_t gpuRun = *store->beginRun(sampleRunInfo());
  MeasurementRecord m;
  m.kernelTiming = "CUDA events (CUPTI is held by another subscriber: nsys)";
  ASSERT_TRUE(store->addMeasurement(gpuRun, m).isOk());
  EXPECT_EQ(store->loadRun(gpuRun)->measurement->kernelTiming, m.kernelTiming);
}

TEST_F(StoreFileTest, VersionFiveIsMigrated) {
  // A version-5 DB: runs without the process columns. Version 6 rebuilds the runs table; the
  // rows that reference a run survive it (no cascade). Its old 'running' run is left alone
  // (nothing says which process owned it); a new run records its process.
  std::string path = file("v5.db");
  int64_t runId = fileWithOneRun(path);
  {
    auto store = Store::open(path);
    ASSERT_TRUE(store.isOk());
    ASSERT_TRUE(store->addSamples(runId, {{0, kWholeRep, 0, 10}, {1, kWholeRep, 20, 31}}).isOk());
  }
  ASSERT_TRUE(asOldVersion(path, "ALTER TABLE runs DROP COLUMN host; ALTER TABLE runs DROP COLUMN "
                            "boot_id; ALTER TABLE runs DROP COLUMN pid; ALTER TABLE runs DROP "
                            "COLUMN pid_start; ALTER TABLE runs DROP COLUMN environment_json; "
                            "UPDATE runs SET status = 'running'; PRAGMA user_version = 5;"));
  auto store = Store::open(path);
  ASSERT_TRUE(store.isOk()) << store.status().message();
  EXPECT_EQ(*store->schemaVersion(), kSchemaVersion);
  RunData old = *store->loadRun(runId);
  EXPECT_EQ(old.summary.status, RunStatus::Running);
  EXPECT_EQ(old.samples.at(kWholeRep).size(), 2u) << "samples survive the rebuild of runs";
  EXPECT_EQ(old.pid, 0);
  EXPECT_EQ(old.environmentJson, "{}");
  EXPECT_EQ(store->loadRun(*store->beginRun(sampleRunInfo()))->pid, getpid());
}

TEST(Store, MeasurementAndClockColumns) {
  Store store = openMemory();
  int64_t run = *store.beginRun(sampleRunInfo());
  MeasurementRecord m;
  m.mode = CacheMode::Cold;
  m.warmupReps = 412;
  m.warmupNs = 100'200'300;
  m.reps = 37;
  m.sampleNs = 9'000'000;
  m.noise = 0.0185;
  m.stop = StopReason::Noise;
  m.flushBytes = 100 << 20;
  m.clockNote = "no SM clock: NVML not found";
  m.minorFaultsPerRep = 0.25;
  m.arenaBytes = 1806336;
  m.plannedBytes = 12775424;
  m.unplannedBytes = 0;
  m.threadStalls = 3;
  ASSERT_TRUE(store.addMeasurement(run, m).isOk());
  EXPECT_FALSE(store.addMeasurement(run, m).isOk()); // one per run
  EXPECT_EQ(store.addMeasurement(run + 1, m).code(), StatusCode::kNotFound);
  SampleRecord a{0, kWholeRep, 0, 10}, b{0, 3, 1, 4};
  a.smClockMhz = b.smClockMhz = 1980;
  SampleRecord c{1, kWholeRep, 10, 21}; // no clock: NULL
  ASSERT_TRUE(store.addSamples(run, {a, b, c}).isOk());

  auto data = store.loadRun(run);
  ASSERT_TRUE(data.isOk()) << data.status().message();
  ASSERT_TRUE(data->measurement.has_value());
  const MeasurementRecord &r = *data->measurement;
  EXPECT_EQ(r.mode, CacheMode::Cold);
  EXPECT_EQ(r.warmupReps, 412);
  EXPECT_EQ(r.warmupNs, 100'200'300);
  EXPECT_EQ(r.reps, 37);
  EXPECT_EQ(r.sampleNs, 9'000'000);
  EXPECT_DOUBLE_EQ(r.noise, 0.0185);
  EXPECT_EQ(r.stop, StopReason::Noise);
  EXPECT_EQ(r.flushBytes, 100 << 20);
  EXPECT_EQ(r.clockNote, "no SM clock: NVML not found");
  EXPECT_DOUBLE_EQ(r.minorFaultsPerRep, 0.25);
  EXPECT_EQ(r.arenaBytes, 1806336);
  EXPECT_EQ(r.plannedBytes, 12775424);
  EXPECT_EQ(r.unplannedBytes, 0);
  EXPECT_EQ(r.threadStalls, 3);
  EXPECT_EQ(data->samples[kWholeRep], (std::vector<SampleRecord>{a, c}));
  EXPECT_EQ(data->samples[3], (std::vector<SampleRecord>{b}));
  EXPECT_EQ(*store.runSamples(run, 3), (std::vector<SampleRecord>{b}));

  // NaN noise (fewer than 2 samples) is stored as NULL and read back as NaN.
  int64_t run2 = *store.beginRun(sampleRunInfo());
  m.noise = std::nan("");
  m.clockNote.clear();
  ASSERT_TRUE(store.addMeasurement(run2, m).isOk());
  auto data2 = store.loadRun(run2);
  EXPECT_TRUE(std::isnan(data2->measurement->noise));
  EXPECT_EQ(data2->measurement->clockNote, "");
}

TEST_F(StoreFileTest, ForeignDatabasesAreRejected) {
  std::string path = file("other.db");
  ASSERT_TRUE(Store::open(path).isOk());
  patchHeader(path, 68, 0x12345678);
  std::string before = readBytes(path);
  auto store = Store::open(path);
  ASSERT_FALSE(store.isOk());
  EXPECT_NE(store.status().message().find("another application"), std::string::npos)
      << store.status().message();
  EXPECT_EQ(readBytes(path), before);
}

TEST_F(StoreFileTest, OtherApplicationsVersionedDatabasesStayUnchanged) {
  // No application_id, a user_version a Loupe schema also has, tables of its own.
  for (int version : {1, 2, 5}) {
    std::string path = file("app" + std::to_string(version) + ".db");
    ASSERT_TRUE(execSql(path, "CREATE TABLE notes(text); PRAGMA user_version = " +
                                  std::to_string(version) + ";"));
    std::string before = readBytes(path);
    auto store = Store::open(path);
    ASSERT_FALSE(store.isOk()) << version;
    EXPECT_EQ(store.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(store.status().message().find("another application"), std::string::npos)
        << store.status().message();
    EXPECT_EQ(readBytes(path), before) << version;
    EXPECT_FALSE(fs::exists(path + "-wal")) << version;
  }
  // A Loupe file whose user_version reads -1.
  std::string path = file("negative.db");
  ASSERT_TRUE(Store::open(path).isOk());
  patchHeader(path, 60, 0xFFFFFFFFu); // -1 as SQLite reads it
  std::string before = readBytes(path);
  auto store = Store::open(path);
  ASSERT_FALSE(store.isOk());
  EXPECT_EQ(store.status().code(), StatusCode::kInvalidArgument) << store.status().message();
  EXPECT_EQ(readBytes(path), before);
}

TEST_F(StoreFileTest, ShortAndSpecialFilesAreRejected) {
  std::string path = file("one.db");
  writeBytes(path, "x");
  auto store = Store::open(path);
  ASSERT_FALSE(store.isOk());
  EXPECT_NE(store.status().message().find("not an SQLite database"), std::string::npos)
      << store.status().message();
  EXPECT_EQ(readBytes(path), "x");
  auto device = Store::open("/dev/null");
  ASSERT_FALSE(device.isOk());
  EXPECT_EQ(device.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(device.status().message().find("not a regular file"), std::string::npos)
      << device.status().message();
  // An empty file is a new database.
  writeBytes(file("empty.db"), "");
  EXPECT_TRUE(Store::open(file("empty.db")).isOk());
}

TEST_F(StoreFileTest, CorruptFileGivesErrorAndStaysUnchanged) {
  std::string path = file("garbage.db");
  std::mt19937_64 rng(1234);
  std::string bytes(8192, '\0');
  for (char &b : bytes)
    b = static_cast<char>(rng());
  writeBytes(path, bytes);

  auto store = Store::open(path);
  ASSERT_FALSE(store.isOk());
  EXPECT_EQ(store.status().code(), StatusCode::kInvalidArgument);
  const std::string &msg = store.status().message();
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("not an SQLite database"), std::string::npos) << msg;
  EXPECT_EQ(readBytes(path), bytes);
  EXPECT_FALSE(fs::exists(path + "-wal"));

  // Text is no better.
  writeBytes(path, "model,time\nmlp,12\n");
  EXPECT_FALSE(Store::open(path).isOk());
  EXPECT_EQ(readBytes(path), "model,time\nmlp,12\n");
}

TEST_F(StoreFileTest, MissingDirectoryIsAnError) {
  std::string path = file("no/such/dir/profiles.db");
  auto store = Store::open(path);
  ASSERT_FALSE(store.isOk());
  EXPECT_NE(store.status().message().find(path), std::string::npos) << store.status().message();
  EXPECT_FALSE(fs::exists(path));
}

TEST_F(StoreFileTest, EmptyFileIsInitialised) {
  std::string path = file("empty.db");
  writeBytes(path, "");
  auto store = Store::open(path);
  ASSERT_TRUE(store.isOk()) << store.status().message();
  EXPECT_EQ(*store->schemaVersion(), kSchemaVersion);
}

TEST_F(StoreFileTest, ReadOnly) {
  std::string path = file("ro.db");
  Store::OpenOptions ro;
  ro.readOnly = true;
  EXPECT_EQ(Store::open(path, ro).status().code(), StatusCode::kNotFound);
  EXPECT_FALSE(fs::exists(path));
  int64_t runId;
  {
    auto rw = Store::open(path);
    ASSERT_TRUE(rw.isOk());
    runId = *rw->beginRun(sampleRunInfo());
    ASSERT_TRUE(rw->finishRun(runId, true).isOk());
  }
  auto store = Store::open(path, ro);
  ASSERT_TRUE(store.isOk()) << store.status().message();
  EXPECT_EQ(store->loadRun(runId)->summary.status, RunStatus::Complete);
  auto write = store->beginRun(sampleRunInfo());
  ASSERT_FALSE(write.isOk());
  EXPECT_NE(write.status().message().find(path), std::string::npos);
}

TEST_F(StoreFileTest, HundredThousandSamplesInOneBatch) {
  auto store = Store::open(file("big.db"));
  ASSERT_TRUE(store.isOk()) << store.status().message();
  int64_t runId = *store->beginRun(sampleRunInfo());
  std::vector<SampleRecord> samples;
  samples.reserve(100'000);
  for (int64_t i = 0; i < 100'000; ++i)
    samples.push_back({i / 100, i % 100 - 1, i, i + 1 + i % 7}); // 1000 reps x (run + 99)
  auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(store->addSamples(runId, samples).isOk());
  ASSERT_TRUE(store->finishRun(runId, true).isOk());
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                std::chrono::steady_clock::now() - start)
                .count();
  std::printf("100k samples inserted and indexed in %lld ms\n", static_cast<long long>(ms));

  auto whole = store->runSamples(runId, kWholeRep);
  ASSERT_TRUE(whole.isOk());
  ASSERT_EQ(whole->size(), 1000u);
  EXPECT_EQ((*whole)[999].rep, 999);
  auto run = store->loadRun(runId);
  ASSERT_TRUE(run.isOk());
  size_t total = 0;
  for (const auto &entry : run->samples)
    total += entry.second.size();
  EXPECT_EQ(total, 100'000u);
  EXPECT_EQ(run->samples.size(), 100u);
}

TEST(DefaultPath, XdgDataHomeThenHome) {
  fs::path root = fs::temp_directory_path() / ("loupe-xdg-" + std::to_string(::getpid()));
  fs::remove_all(root);
  const char *oldXdg = std::getenv("XDG_DATA_HOME");
  const char *oldHome = std::getenv("HOME");
  std::string savedXdg = oldXdg ? oldXdg : "", savedHome = oldHome ? oldHome : "";

  ::setenv("XDG_DATA_HOME", (root / "xdg").c_str(), 1);
  auto p = defaultDatabasePath();
  ASSERT_TRUE(p.isOk()) << p.status().message();
  EXPECT_EQ(*p, (root / "xdg" / "loupe" / "profiles.db").string());
  EXPECT_TRUE(fs::is_directory(root / "xdg" / "loupe"));

  // A relative XDG_DATA_HOME is ignored (XDG Base Directory spec).
  ::setenv("XDG_DATA_HOME", "relative/dir", 1);
  ::setenv("HOME", (root / "home").c_str(), 1);
  p = defaultDatabasePath();
  ASSERT_TRUE(p.isOk());
  EXPECT_EQ(*p, (root / "home" / ".local" / "share" / "loupe" / "profiles.db").string());
  EXPECT_TRUE(fs::is_directory(root / "home" / ".local" / "share" / "loupe"));

  ::unsetenv("XDG_DATA_HOME");
  ::unsetenv("HOME");
  EXPECT_EQ(defaultDatabasePath().status().code(), StatusCode::kNotFound);

  if (oldXdg)
    ::setenv("XDG_DATA_HOME", savedXdg.c_str(), 1);
  if (oldHome)
    ::setenv("HOME", savedHome.c_str(), 1);
  fs::remove_all(root);
}

TEST(RunProvenance, LoadWhileMeasuringNeedsAWindowOfTicks) {
  auto during = [](double seconds, double other, double steal) {
    return withLoadDuring(R"({"cpus": 2})", CpuTimes{0, 0, 0, 0},
                          CpuTimes{seconds, other, steal, 0});
  };
  // 7 ms: /proc/stat's 10 ms ticks cannot tell; never "loaded".
  LoadDuring tooShort = loadDuring({during(0.007, 0.03, 0)});
  EXPECT_FALSE(tooShort.loaded);
  EXPECT_NE(tooShort.note.find("unknown (7 ms is too short)"), std::string::npos) << tooShort.note;
  // Trials add up: 3 x 0.1 s with another process on one CPU.
  std::string trial = during(0.1, 0.1, 0);
  LoadDuring loaded = loadDuring({trial, trial, trial});
  EXPECT_TRUE(loaded.loaded);
  EXPECT_NEAR(loaded.otherBusyCpus, 1.0, 1e-9);
  EXPECT_EQ(describeEnvironment(trial), "2 CPUs, load while measuring unknown (100 ms is too short)");
  EXPECT_EQ(describeEnvironment(during(1, 1, 0)),
            "2 CPUs, UNDER LOAD while measuring, other processes kept 1.00 CPUs busy, 0.0% stolen");
  // Steal alone marks a load; busy time is never more than the CPUs there are.
  EXPECT_TRUE(loadDuring({during(1, 0, 0.2)}).loaded);
  EXPECT_NEAR(loadDuring({during(1, 9, 0)}).otherBusyCpus, 2.0, 1e-9);
  EXPECT_FALSE(loadDuring({during(1, 0.2, 0)}).loaded);
}
