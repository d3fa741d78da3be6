//===- NsysImport.h - Nsight Systems SQLite exports into the profile DB -*- C++ -*-===//
//
// `nsys export --type sqlite` writes CUPTI_ACTIVITY_KIND_KERNEL / _MEMCPY / _MEMSET tables with
// the column names Loupe's kernels and memcpy tables keep (docs/db-schema.md), kernel names as
// ids into its StringIds table, and the GPUs in TARGET_INFO_GPU. Importing one makes a new run
// (status complete, device kind "cuda") whose kernels compare with Loupe's own runs.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_PROFILER_NSYSIMPORT_H
#define LOUPE_PROFILER_NSYSIMPORT_H

#include "loupe/profiler/Records.h"
#include "loupe/ral/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace loupe::profiler {

/// An Nsight Systems export, read completely.
struct NsysExport {
  RunInfo run; ///< model: the file path; device from TARGET_INFO_GPU (else "nsys import").
  /// Kernels by start, names resolved through StringIds; rep 0, dispatchId -1.
  std::vector<KernelRecord> kernels;
  /// MEMCPY rows, then MEMSET rows (copyKind -1, srcKind 0, dstKind memKind), each by start.
  std::vector<MemcpyRecord> memcpys;
  /// Rows that look wrong but were imported (end < start), at most a few, then a count.
  std::vector<std::string> warnings;
};

/// Reads `path` read-only (it is never modified). Tables: StringIds and
/// CUPTI_ACTIVITY_KIND_KERNEL required; CUPTI_ACTIVITY_KIND_MEMCPY, _MEMSET, TARGET_INFO_GPU and
/// TARGET_INFO_SESSION_START_TIME used when present. Errors name the file: kNotFound when it
/// does not exist; kInvalidArgument when it is not an SQLite database or is corrupt, lacks a
/// required table or column, or a kernel's name id is not in StringIds.
ral::StatusOr<NsysExport> readNsysExport(const std::string &path);

struct NsysImportResult {
  int64_t runId = 0;
  size_t kernels = 0, memcpys = 0;
  std::string device;
  std::vector<std::string> warnings;
};

/// Reads `nsysPath` completely first, then opens (or creates) the profile DB `dbPath` and adds
/// the run in one transaction (Store::addImportedRun). An error in the export leaves the DB
/// unopened and untouched; an error writing the DB leaves it as it was.
ral::StatusOr<NsysImportResult> importNsys(const std::string &nsysPath, const std::string &dbPath);

} // namespace loupe::profiler

#endif // LOUPE_PROFILER_NSYSIMPORT_H
