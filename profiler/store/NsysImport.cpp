//===- NsysImport.cpp - Nsight Systems SQLite exports into the profile DB ----===//

#include "loupe/profiler/NsysImport.h"

#include "StoreImpl.h"

#include "loupe/profiler/Store.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <set>

namespace loupe::profiler {

using ral::Status;
using ral::StatusOr;

namespace {

const char *const kLabel = "Nsight Systems export";
const char *const kKernelTable = "CUPTI_ACTIVITY_KIND_KERNEL";
const char *const kMemcpyTable = "CUPTI_ACTIVITY_KIND_MEMCPY";
const char *const kMemsetTable = "CUPTI_ACTIVITY_KIND_MEMSET";

Status bad(const std::string &path, const std::string &why) {
  return ral::invalidArgument(std::string(kLabel) + " '" + path + "': " + why);
}

/// A failure reading the export is bad input (exit code 2), not an internal error: SQLite
/// reports corrupt pages as SQLITE_CORRUPT, a truncated file as an I/O error.
Status readError(const Status &s) {
  if (s.code() == ral::StatusCode::kInternal)
    return ral::invalidArgument(s.message());
  return s;
}

StatusOr<std::set<std::string>> tableNames(sqlite::Connection &conn) {
  LOUPE_PROF_ASSIGN_OR_RETURN(sqlite::Stmt q,
                              conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table'"));
  std::set<std::string> names;
  for (;;) {
    LOUPE_PROF_ASSIGN_OR_RETURN(bool row, q.step());
    if (!row)
      break;
    names.insert(q.text(0));
  }
  return names;
}

/// Error unless `table` has every column of `needed`.
Status requireColumns(sqlite::Connection &conn, const std::string &path, const std::string &table,
                      const std::vector<std::string> &needed, std::set<std::string> *present) {
  LOUPE_PROF_ASSIGN_OR_RETURN(sqlite::Stmt q,
                              conn.prepare("SELECT name FROM pragma_table_info(?1)"));
  q.bind(1, std::string_view(table));
  std::set<std::string> columns;
  for (;;) {
    LOUPE_PROF_ASSIGN_OR_RETURN(bool row, q.step());
    if (!row)
      break;
    columns.insert(q.text(0));
  }
  std::string missing;
  for (const std::string &c : needed)
    if (!columns.count(c))
      missing += (missing.empty() ? "" : ", ") + c;
  if (!missing.empty())
    return bad(path, "table " + table + " lacks column(s) " + missing +
                         " (not an nsys export, or an unsupported Nsight Systems version)");
  if (present)
    *present = std::move(columns);
  return Status::ok();
}

struct Warnings {
  std::vector<std::string> list;
  size_t more = 0;
  void add(std::string w) {
    if (list.size() < 10)
      list.push_back(std::move(w));
    else
      ++more;
  }
};

void checkTimes(const char *table, int64_t start, int64_t end, int64_t correlationId,
                Warnings &warnings) {
  if (end < start)
    warnings.add(std::string(table) + " row with correlationId " + std::to_string(correlationId) +
                 " ends before it starts (start " + std::to_string(start) + ", end " +
                 std::to_string(end) + ")");
}

Status readKernels(sqlite::Connection &conn, const std::string &path, NsysExport &out,
                   Warnings &warnings) {
  LOUPE_PROF_RETURN_IF_ERROR(requireColumns(
      conn, path, kKernelTable,
      {"start", "end", "deviceId", "streamId", "correlationId", "demangledName", "gridX", "gridY",
       "gridZ", "blockX", "blockY", "blockZ", "registersPerThread", "staticSharedMemory",
       "dynamicSharedMemory"},
      nullptr));
  LOUPE_PROF_ASSIGN_OR_RETURN(
      sqlite::Stmt q,
      conn.prepare("SELECT k.start, k.\"end\", k.deviceId, k.streamId, k.correlationId, "
                   "k.demangledName, s.value, k.gridX, k.gridY, k.gridZ, k.blockX, k.blockY, "
                   "k.blockZ, k.registersPerThread, k.staticSharedMemory, k.dynamicSharedMemory "
                   "FROM CUPTI_ACTIVITY_KIND_KERNEL AS k LEFT JOIN StringIds AS s "
                   "ON s.id = k.demangledName ORDER BY k.start, k.correlationId"));
  for (;;) {
    LOUPE_PROF_ASSIGN_OR_RETURN(bool row, q.step());
    if (!row)
      break;
    KernelRecord k;
    k.rep = 0;
    k.dispatchId = kWholeRep;
    k.start = q.int64(0);
    k.end = q.int64(1);
    k.deviceId = q.int64(2);
    k.streamId = q.int64(3);
    k.correlationId = q.int64(4);
    if (q.isNull(6))
      return bad(path, std::string(kKernelTable) + " row with correlationId " +
                           std::to_string(k.correlationId) + " names string id " +
                           std::to_string(q.int64(5)) + ", which StringIds does not have");
    k.name = q.text(6);
    k.gridX = static_cast<int32_t>(q.int64(7));
    k.gridY = static_cast<int32_t>(q.int64(8));
    k.gridZ = static_cast<int32_t>(q.int64(9));
    k.blockX = static_cast<int32_t>(q.int64(10));
    k.blockY = static_cast<int32_t>(q.int64(11));
    k.blockZ = static_cast<int32_t>(q.int64(12));
    k.registersPerThread = static_cast<int32_t>(q.int64(13));
    k.staticSharedMemory = q.int64(14);
    k.dynamicSharedMemory = q.int64(15);
    checkTimes(kKernelTable, k.start, k.end, k.correlationId, warnings);
    out.kernels.push_back(std::move(k));
  }
  return Status::ok();
}

/// The columns MEMCPY and MEMSET share (start, end, deviceId, streamId, correlationId, bytes
/// as the first six of the SELECT), as a whole-repetition row of run 0.
MemcpyRecord copyOrSetRow(sqlite::Stmt &q) {
  MemcpyRecord m;
  m.rep = 0;
  m.dispatchId = kWholeRep;
  m.start = q.int64(0);
  m.end = q.int64(1);
  m.deviceId = q.int64(2);
  m.streamId = q.int64(3);
  m.correlationId = q.int64(4);
  m.bytes = q.int64(5);
  return m;
}

Status readMemcpys(sqlite::Connection &conn, const std::string &path, NsysExport &out,
                   Warnings &warnings) {
  LOUPE_PROF_RETURN_IF_ERROR(requireColumns(conn, path, kMemcpyTable,
                                            {"start", "end", "deviceId", "streamId",
                                             "correlationId", "bytes", "copyKind", "srcKind",
                                             "dstKind"},
                                            nullptr));
  LOUPE_PROF_ASSIGN_OR_RETURN(
      sqlite::Stmt q,
      conn.prepare("SELECT start, \"end\", deviceId, streamId, correlationId, bytes, copyKind, "
                   "srcKind, dstKind FROM CUPTI_ACTIVITY_KIND_MEMCPY ORDER BY start, correlationId"));
  for (;;) {
    LOUPE_PROF_ASSIGN_OR_RETURN(bool row, q.step());
    if (!row)
      break;
    MemcpyRecord m = copyOrSetRow(q);
    m.copyKind = static_cast<int32_t>(q.int64(6));
    m.srcKind = static_cast<int32_t>(q.int64(7));
    m.dstKind = static_cast<int32_t>(q.int64(8));
    checkTimes(kMemcpyTable, m.start, m.end, m.correlationId, warnings);
    out.memcpys.push_back(m);
  }
  return Status::ok();
}

Status readMemsets(sqlite::Connection &conn, const std::string &path, NsysExport &out,
                   Warnings &warnings) {
  std::set<std::string> columns;
  LOUPE_PROF_RETURN_IF_ERROR(requireColumns(
      conn, path, kMemsetTable, {"start", "end", "deviceId", "streamId", "correlationId", "bytes"},
      &columns));
  std::string memKind = columns.count("memKind") ? "memKind" : "0";
  LOUPE_PROF_ASSIGN_OR_RETURN(
      sqlite::Stmt q,
      conn.prepare("SELECT start, \"end\", deviceId, streamId, correlationId, bytes, " + memKind +
                   " FROM CUPTI_ACTIVITY_KIND_MEMSET ORDER BY start, correlationId"));
  for (;;) {
    LOUPE_PROF_ASSIGN_OR_RETURN(bool row, q.step());
    if (!row)
      break;
    MemcpyRecord m = copyOrSetRow(q);
    m.copyKind = -1;
    m.srcKind = 0;
    m.dstKind = static_cast<int32_t>(q.int64(6));
    checkTimes(kMemsetTable, m.start, m.end, m.correlationId, warnings);
    out.memcpys.push_back(m);
  }
  return Status::ok();
}

/// Device name and details from TARGET_INFO_GPU (every column of every row goes into the
/// details JSON, since its columns change between nsys versions).
Status readDevice(sqlite::Connection &conn, bool hasGpuTable, bool hasStartTable,
                  const std::string &path, NsysExport &out) {
  nlohmann::json details = {{"source", "nsys import"},
                            {"file", std::filesystem::absolute(path).string()}};
  std::vector<std::string> names;
  if (hasGpuTable) {
    LOUPE_PROF_ASSIGN_OR_RETURN(sqlite::Stmt q,
                                conn.prepare("SELECT * FROM TARGET_INFO_GPU ORDER BY rowid"));
    nlohmann::json gpus = nlohmann::json::array();
    for (;;) {
      LOUPE_PROF_ASSIGN_OR_RETURN(bool row, q.step());
      if (!row)
        break;
      nlohmann::json gpu = nlohmann::json::object();
      for (int c = 0; c < q.columnCount(); ++c) {
        std::string column = q.columnName(c);
        switch (q.columnType(c)) {
        case SQLITE_INTEGER:
          gpu[column] = q.int64(c);
          break;
        case SQLITE_FLOAT:
          gpu[column] = q.real(c);
          break;
        case SQLITE_TEXT:
          gpu[column] = q.text(c);
          break;
        default:
          break; // NULL and blobs (uuids) are left out.
        }
        if (column == "name" && q.columnType(c) == SQLITE_TEXT) {
          std::string name = q.text(c);
          if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end())
            names.push_back(name);
        }
      }
      gpus.push_back(std::move(gpu));
    }
    details["gpus"] = std::move(gpus);
  }
  out.run.deviceKind = "cuda";
  out.run.deviceName = "nsys import";
  if (!names.empty()) {
    out.run.deviceName.clear();
    for (const std::string &n : names)
      out.run.deviceName += (out.run.deviceName.empty() ? "" : ", ") + n;
  }
  out.run.deviceDetailsJson = details.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (hasStartTable) {
    std::set<std::string> columns;
    if (requireColumns(conn, path, "TARGET_INFO_SESSION_START_TIME", {"utcEpochNs"}, &columns)) {
      LOUPE_PROF_ASSIGN_OR_RETURN(
          int64_t start, conn.queryInt("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME"));
      out.run.startedNs = start;
    }
  }
  return Status::ok();
}

} // namespace

StatusOr<NsysExport> readNsysExport(const std::string &path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec))
    return ral::notFound(std::string(kLabel) + " '" + path + "' does not exist");
  if (fs::is_directory(path, ec))
    return bad(path, "is a directory, not an SQLite file");
  LOUPE_PROF_ASSIGN_OR_RETURN(std::unique_ptr<sqlite::Connection> conn,
                              sqlite::Connection::open(path, SQLITE_OPEN_READONLY, kLabel));
  StatusOr<std::set<std::string>> tables = tableNames(*conn);
  if (!tables)
    return bad(path, std::string("not an SQLite database, or corrupt (") +
                         sqlite3_errmsg(conn->handle()) + "); the file was left unchanged");
  std::string missing;
  for (const char *t : {"StringIds", kKernelTable})
    if (!tables->count(t))
      missing += (missing.empty() ? "" : ", ") + std::string(t);
  if (!missing.empty())
    return bad(path, "no table " + missing +
                         ": not an `nsys export --type sqlite` file with CUDA kernels (profile "
                         "with --trace=cuda)");

  NsysExport out;
  out.run.model = path;
  out.run.configJson =
      nlohmann::json{{"source", "nsys import"}, {"file", fs::absolute(path).string()}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  Warnings warnings;
  Status s = readKernels(*conn, path, out, warnings);
  if (s && tables->count(kMemcpyTable))
    s = readMemcpys(*conn, path, out, warnings);
  if (s && tables->count(kMemsetTable))
    s = readMemsets(*conn, path, out, warnings);
  if (s)
    s = readDevice(*conn, tables->count("TARGET_INFO_GPU") != 0,
                   tables->count("TARGET_INFO_SESSION_START_TIME") != 0, path, out);
  if (!s)
    return readError(s);
  out.warnings = std::move(warnings.list);
  if (warnings.more)
    out.warnings.push_back("... and " + std::to_string(warnings.more) + " more");
  return out;
}

StatusOr<NsysImportResult> importNsys(const std::string &nsysPath, const std::string &dbPath) {
  LOUPE_PROF_ASSIGN_OR_RETURN(NsysExport data, readNsysExport(nsysPath));
  LOUPE_PROF_ASSIGN_OR_RETURN(Store store, Store::open(dbPath));
  LOUPE_PROF_ASSIGN_OR_RETURN(int64_t runId,
                              store.addImportedRun(data.run, data.kernels, data.memcpys));
  NsysImportResult result;
  result.runId = runId;
  result.kernels = data.kernels.size();
  result.memcpys = data.memcpys.size();
  result.device = data.run.deviceName;
  result.warnings = std::move(data.warnings);
  return result;
}

} // namespace loupe::profiler
