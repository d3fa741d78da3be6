//===- NsysImportTest.cpp - Importing Nsight Systems SQLite exports ---------===//
//
// The export is generated here from fixtures/nsys_export.sql (the real nsys column lists), then
// broken in the ways users break files: not SQLite, tables missing, corrupt pages.
//
//===----------------------------------------------------------------------===//

#include "loupe/profiler/NsysImport.h"
#include "loupe/profiler/Store.h"

#include <gtest/gtest.h>

#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <unistd.h>

using namespace loupe::profiler;
using loupe::ral::StatusCode;
namespace fs = std::filesystem;

namespace {

std::string readBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void writeBytes(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

/// Runs `sql` on a new SQLite file at `path`.
void makeDb(const std::string &path, const std::string &sql) {
  sqlite3 *db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char *error = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  std::string message = error ? error : "";
  sqlite3_free(error);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << message;
}

std::string fixtureSql() {
  return readBytes(std::string(LOUPE_SOURCE_DIR) + "/tests/unit/profiler/fixtures/nsys_export.sql");
}

class NsysImportTest : public ::testing::Test {
protected:
  void SetUp() override {
    const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("loupe-nsys-" + std::string(info->name()) + "-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    ASSERT_FALSE(fixtureSql().empty());
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string &name) const { return (dir_ / name).string(); }
  std::string makeExport(const std::string &name, const std::string &extraSql = "") {
    std::string path = file(name);
    if (!fs::exists(path))
      makeDb(path, "BEGIN;" + fixtureSql() + extraSql + "COMMIT;");
    return path;
  }

  /// Expects import into a DB (existing or not) to fail with `code` and a message naming
  /// `nsys` and containing `what`, and the DB to be exactly as before (or still absent).
  void expectRejected(const std::string &nsys, StatusCode code, const std::string &what) {
    std::string db = file("profiles.db");
    auto before = importNsys(makeExport("good.sqlite"), db); // An existing DB with one run.
    ASSERT_TRUE(before.isOk()) << before.status().message();
    std::string bytes = readBytes(db);
    auto result = importNsys(nsys, db);
    ASSERT_FALSE(result.isOk()) << nsys;
    EXPECT_EQ(result.status().code(), code) << result.status().message();
    EXPECT_NE(result.status().message().find(nsys), std::string::npos) << result.status().message();
    EXPECT_NE(result.status().message().find(what), std::string::npos) << result.status().message();
    EXPECT_EQ(readBytes(db), bytes) << "the profile DB changed";
    std::string fresh = file("never-created.db");
    EXPECT_FALSE(importNsys(nsys, fresh).isOk());
    EXPECT_FALSE(fs::exists(fresh)) << "a failed import created the profile DB";
  }

  fs::path dir_;
};

} // namespace

TEST_F(NsysImportTest, ReadsKernelsCopiesSetsAndTheGpu) {
  auto data = readNsysExport(makeExport("report.sqlite"));
  ASSERT_TRUE(data.isOk()) << data.status().message();
  EXPECT_EQ(data->run.deviceKind, "cuda");
  EXPECT_EQ(data->run.deviceName, "NVIDIA H100 80GB HBM3");
  EXPECT_NE(data->run.deviceDetailsJson.find("\"smCount\":132"), std::string::npos)
      << data->run.deviceDetailsJson;
  EXPECT_NE(data->run.deviceDetailsJson.find("nsys import"), std::string::npos);
  EXPECT_EQ(data->run.startedNs, 1700000000123456789);
  EXPECT_TRUE(data->warnings.empty());

  ASSERT_EQ(data->kernels.size(), 3u);
  const KernelRecord &k = data->kernels[0]; // by start
  EXPECT_EQ(k.name, "void gemm_kernel<float, 128>(float const*, float const*, float*, int)");
  EXPECT_EQ(k.start, 1000000);
  EXPECT_EQ(k.end, 1450000);
  EXPECT_EQ(k.rep, 0);
  EXPECT_EQ(k.dispatchId, kWholeRep);
  EXPECT_EQ(k.deviceId, 0);
  EXPECT_EQ(k.streamId, 7);
  EXPECT_EQ(k.correlationId, 101);
  EXPECT_EQ(std::make_tuple(k.gridX, k.gridY, k.gridZ), std::make_tuple(64, 32, 1));
  EXPECT_EQ(std::make_tuple(k.blockX, k.blockY, k.blockZ), std::make_tuple(256, 1, 1));
  EXPECT_EQ(k.registersPerThread, 168);
  EXPECT_EQ(k.staticSharedMemory, 16384);
  EXPECT_EQ(k.dynamicSharedMemory, 32768);
  EXPECT_EQ(data->kernels[1].name, "fusion_3_kLoop");
  EXPECT_EQ(data->kernels[2].correlationId, 105);

  ASSERT_EQ(data->memcpys.size(), 3u); // two copies, then the set
  EXPECT_EQ(data->memcpys[0].bytes, 1048576);
  EXPECT_EQ(data->memcpys[0].copyKind, 1);
  EXPECT_EQ(data->memcpys[0].srcKind, 1);
  EXPECT_EQ(data->memcpys[0].dstKind, 3);
  EXPECT_EQ(data->memcpys[1].copyKind, 2);
  const MemcpyRecord &set = data->memcpys[2];
  EXPECT_EQ(set.copyKind, -1);
  EXPECT_EQ(set.bytes, 4096);
  EXPECT_EQ(set.dstKind, 3);
  EXPECT_EQ(set.correlationId, 102);
}

TEST_F(NsysImportTest, ImportsOneCompleteRunWithNamesInOurStrings) {
  std::string nsys = makeExport("report.sqlite");
  std::string before = readBytes(nsys);
  std::string db = file("profiles.db");
  auto result = importNsys(nsys, db);
  ASSERT_TRUE(result.isOk()) << result.status().message();
  EXPECT_EQ(result->kernels, 3u);
  EXPECT_EQ(result->memcpys, 3u);
  EXPECT_EQ(result->device, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(readBytes(nsys), before) << "the export must not be modified";

  auto store = Store::open(db);
  ASSERT_TRUE(store.isOk()) << store.status().message();
  auto run = store->loadRun(result->runId);
  ASSERT_TRUE(run.isOk()) << run.status().message();
  EXPECT_EQ(run->summary.status, RunStatus::Complete);
  EXPECT_EQ(run->summary.model, nsys);
  EXPECT_EQ(run->summary.deviceKind, "cuda");
  EXPECT_EQ(run->summary.deviceName, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(run->summary.startedNs, 1700000000123456789);
  EXPECT_GT(run->summary.finishedNs, 0);
  ASSERT_EQ(run->kernels.size(), 3u);
  EXPECT_EQ(run->kernels[0].name,
            "void gemm_kernel<float, 128>(float const*, float const*, float*, int)");
  EXPECT_EQ(run->kernels[1].name, "fusion_3_kLoop");
  EXPECT_EQ(run->kernels[2].name, run->kernels[0].name);
  EXPECT_EQ(run->kernels[0].registersPerThread, 168);
  ASSERT_EQ(run->memcpys.size(), 3u);

  // A second import is a second run; the kernel names are interned once.
  auto again = importNsys(nsys, db);
  ASSERT_TRUE(again.isOk()) << again.status().message();
  EXPECT_EQ(again->runId, result->runId + 1);
  auto runs = store->listRuns();
  ASSERT_TRUE(runs.isOk());
  EXPECT_EQ(runs->size(), 2u);
}

TEST_F(NsysImportTest, NamesThatAreNotUtf8AreImported) {
  // Found by fuzz_nsys_import: a GPU name with a byte that is not UTF-8 made the JSON of the
  // device details throw (std::terminate).
  auto data = readNsysExport(
      makeExport("latin1.sqlite", "UPDATE TARGET_INFO_GPU SET name = CAST(X'48FF31' AS TEXT);"));
  ASSERT_TRUE(data.isOk()) << data.status().message();
  EXPECT_EQ(data->run.deviceName, "H\xff" "1");
  EXPECT_NE(data->run.deviceDetailsJson.find("H\ufffd1"), std::string::npos)
      << data->run.deviceDetailsJson;
}

TEST_F(NsysImportTest, OptionalTablesMayBeAbsent) {
  std::string path = file("minimal.sqlite");
  makeDb(path, "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
               "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT NOT NULL, end INT NOT NULL, "
               "deviceId INT, streamId INT, correlationId INT, demangledName INT, gridX INT, "
               "gridY INT, gridZ INT, blockX INT, blockY INT, blockZ INT, registersPerThread INT, "
               "staticSharedMemory INT, dynamicSharedMemory INT);"
               "INSERT INTO StringIds VALUES (1, 'k');"
               "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES "
               "(10, 5, 0, 1, 2, 1, 1, 1, 1, 32, 1, 1, 8, 0, 0);");
  auto data = readNsysExport(path);
  ASSERT_TRUE(data.isOk()) << data.status().message();
  EXPECT_EQ(data->run.deviceName, "nsys import");
  EXPECT_EQ(data->kernels.size(), 1u);
  EXPECT_TRUE(data->memcpys.empty());
  ASSERT_EQ(data->warnings.size(), 1u); // end < start is imported, with a warning
  EXPECT_NE(data->warnings[0].find("ends before it starts"), std::string::npos);
}

TEST_F(NsysImportTest, MissingFile) {
  auto result = readNsysExport(file("nope.sqlite"));
  ASSERT_FALSE(result.isOk());
  EXPECT_EQ(result.status().code(), StatusCode::kNotFound);
  EXPECT_NE(result.status().message().find("nope.sqlite"), std::string::npos);
}

TEST_F(NsysImportTest, NotAnSqliteFileIsRejected) {
  std::string path = file("report.txt");
  writeBytes(path, std::string("this is a text report, not a database\n") + std::string(4096, 'x'));
  std::string bytes = readBytes(path);
  expectRejected(path, StatusCode::kInvalidArgument, "not an SQLite database");
  EXPECT_EQ(readBytes(path), bytes);
}

TEST_F(NsysImportTest, MissingTablesAreNamed) {
  std::string noKernels = file("nokernels.sqlite");
  makeDb(noKernels, "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);");
  expectRejected(noKernels, StatusCode::kInvalidArgument, "CUPTI_ACTIVITY_KIND_KERNEL");

  std::string empty = file("empty.sqlite");
  makeDb(empty, "CREATE TABLE other(x);");
  expectRejected(empty, StatusCode::kInvalidArgument, "StringIds, CUPTI_ACTIVITY_KIND_KERNEL");
}

TEST_F(NsysImportTest, MissingColumnsAreNamed) {
  std::string path = file("oldcols.sqlite");
  makeDb(path, "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
               "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT, "
               "streamId INT, correlationId INT, name INT);");
  expectRejected(path, StatusCode::kInvalidArgument, "lacks column(s) demangledName, gridX");
}

TEST_F(NsysImportTest, UnknownStringIdIsRejected) {
  std::string path =
      makeExport("badname.sqlite", "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (3000000, "
                                   "3100000, 0, 1, NULL, 7, 107, 4242, 99, 99, 99, 0, 0, 16, 1, "
                                   "1, 1, 32, 1, 1, 0, 0, 0, 0, 6, 0, 0, 0);");
  expectRejected(path, StatusCode::kInvalidArgument, "string id 99");
}

TEST_F(NsysImportTest, CorruptPagesAreRejected) {
  // Enough rows that the tables span pages beyond the first (which holds the schema).
  std::string rows;
  for (int i = 0; i < 400; ++i)
    rows += "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (" + std::to_string(3000000 + i * 1000) +
            ", " + std::to_string(3000500 + i * 1000) +
            ", 0, 1, NULL, 7, 0, 4242, 12, 13, 13, 0, 0, 16, 256, 1, 1, 128, 1, 1, 0, 0, 0, 0, 3, 0, 0, 0);";
  std::string path = makeExport("corrupt.sqlite", rows);
  std::string bytes = readBytes(path);
  ASSERT_GT(bytes.size(), 4 * 4096u);
  for (size_t i = 4096; i < bytes.size(); ++i)
    bytes[i] = static_cast<char>(0xA5 ^ (i * 31));
  writeBytes(path, bytes);
  expectRejected(path, StatusCode::kInvalidArgument, "malformed");
}

TEST_F(NsysImportTest, TruncatedFileIsRejected) {
  std::string rows;
  for (int i = 0; i < 400; ++i)
    rows += "INSERT INTO StringIds VALUES (" + std::to_string(100 + i) + ", 'kernel_" +
            std::to_string(i) + std::string(40, 'x') + "');";
  std::string path = makeExport("truncated.sqlite", rows);
  std::string bytes = readBytes(path);
  writeBytes(path, bytes.substr(0, 4096 + 2048)); // the schema page survives, the tables do not
  auto result = importNsys(path, file("profiles.db"));
  ASSERT_FALSE(result.isOk());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument) << result.status().message();
  EXPECT_NE(result.status().message().find(path), std::string::npos) << result.status().message();
  EXPECT_FALSE(fs::exists(file("profiles.db")));
}

TEST_F(NsysImportTest, ALoupeDbIsNotAnExport) {
  std::string ours = file("ours.db");
  ASSERT_TRUE(Store::open(ours).isOk());
  auto result = readNsysExport(ours);
  ASSERT_FALSE(result.isOk());
  EXPECT_NE(result.status().message().find("no table StringIds"), std::string::npos)
      << result.status().message();
}
