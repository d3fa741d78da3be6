//===- CuptiRecords.h - CUPTI activity records to store rows (pure) -*- C++ -*-===//
//
// The CUPTI collector's parsing, without CUPTI: activity buffers in, kernel and memcpy rows out
// (KernelRecord / MemcpyRecord: Nsight Systems column names, docs/db-schema.md). Pure functions
// over bytes, so they are tested on synthetic buffers on machines without a GPU.
//
// Record layouts are those of the CUPTI headers Loupe was built with (CUDA 13: Kernel10,
// Memcpy6, Memset4, API, ExternalCorrelation). Built without those headers every parse returns
// kUnavailable ("built without CUPTI headers"). Times are raw CUPTI timestamps (ns).
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_PROFILER_CUPTIRECORDS_H
#define LOUPE_PROFILER_CUPTIRECORDS_H

#include "loupe/profiler/Records.h"
#include "loupe/ral/Status.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace loupe::profiler {

/// Whether this build has the CUPTI headers (the parser and collector work only then).
bool cuptiHeadersAvailable();
/// CUPTI_API_VERSION of the headers of this build (130001 for CUDA 13.0), 0 without them.
uint32_t cuptiHeaderApiVersion();

/// A CUDA driver or runtime API call (CUPTI DRIVER / RUNTIME / INTERNAL_LAUNCH_API records).
/// Kernels, copies and sets carry the correlationId of the API call that issued them.
struct ApiRecord {
  bool runtime = false; ///< RUNTIME record (else DRIVER / internal launch).
  uint32_t cbid = 0;    ///< CUpti_driver_api_trace_cbid / CUpti_runtime_api_trace_cbid.
  int64_t start = 0, end = 0;
  uint32_t threadId = 0;
  uint32_t correlationId = 0;
  uint32_t returnValue = 0; ///< CUresult / cudaError_t of the call.
};

/// What parsing one or more activity buffers produced. Rows are unattributed (rep and
/// dispatchId -1) until attributeRows().
struct ActivityBatch {
  std::vector<KernelRecord> kernels; ///< CONCURRENT_KERNEL (and KERNEL) records.
  std::vector<MemcpyRecord> memcpys; ///< MEMCPY records, then MEMSET ones (copyKind -1).
  std::vector<ApiRecord> apis;
  /// EXTERNAL_CORRELATION records of kind CUSTOM0: correlationId -> external id.
  std::unordered_map<uint32_t, uint64_t> externalIds;
  size_t skippedRecords = 0;  ///< Records of kinds Loupe does not store (DEVICE, NAME, ...).
  /// Records that are wrong: end < start, no timestamps. They are left out of the rows; a
  /// run with problems is invalid.
  std::vector<std::string> problems;

  /// Appends `other` (rows, API records, ids, counts, problems).
  void append(ActivityBatch &&other);
};

/// Decodes one record at `record` (its first 4 bytes are its CUpti_ActivityKind) into `out`.
/// `available` is how many bytes from `record` are valid. Kinds Loupe does not store are
/// counted in skippedRecords. Errors (kInvalidArgument): the record is shorter than its kind
/// needs (truncated). This is what the collector calls for each cuptiActivityGetNextRecord.
ral::Status decodeActivityRecord(const uint8_t *record, size_t available, ActivityBatch &out);

/// Record size of an activity kind in this build's CUPTI headers (multiple of 8), 0 when the
/// kind is unknown here.
size_t activityRecordSize(uint32_t kind);

/// Parses `size` bytes of consecutive activity records as CUPTI lays them out: each record is
/// the struct of its `kind` (activityRecordSize), 8-byte aligned, one after the other.
/// Records before an error stay in `out`. Errors (kInvalidArgument), naming the byte offset:
/// a truncated record, a kind whose size this build does not know (it cannot be skipped).
/// kUnavailable without CUPTI headers.
ral::Status parseActivityBuffer(const uint8_t *data, size_t size, ActivityBatch &out);

// --- External correlation --------------------------------------------------------------
// The collector pushes one id (CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0) around each repetition
// and each dispatch. Layout: bit 63 set (a Loupe id), bits 32..62 the repetition (0: outside
// any repetition, 0x7fffffff: a warmup repetition, else rep + 1), bits 0..31 dispatchId + 1
// (0: the repetition itself, kWholeRep).

/// `rep` of a warmup repetition: its rows are dropped.
inline constexpr int64_t kWarmupRep = -2;
/// rep in [kWarmupRep, 2^31 - 3] (-1: outside any repetition), dispatchId in [-1, 2^32 - 2].
uint64_t encodeExternalId(int64_t rep, int64_t dispatchId);
/// False when `id` is not a Loupe id.
bool decodeExternalId(uint64_t id, int64_t &rep, int64_t &dispatchId);

struct Attribution {
  size_t attributed = 0;   ///< Rows whose API call carried a Loupe id (rep may be -1).
  size_t warmup = 0;       ///< Rows of warmup repetitions: removed.
  size_t unattributed = 0; ///< Rows without a Loupe id: kept with rep and dispatchId -1.
};
/// Sets rep and dispatchId of every row from `externalIds` (correlationId -> external id)
/// and removes rows of warmup repetitions.
Attribution attributeRows(std::vector<KernelRecord> &kernels, std::vector<MemcpyRecord> &memcpys,
                          const std::unordered_map<uint32_t, uint64_t> &externalIds);

/// Timestamp checks over complete rows: end >= start, not both zero, and within one
/// (deviceId, streamId) operations in launch order (correlationId) neither start before the
/// previous one ends nor go back in time (a CUDA stream runs its work in order). One message
/// per problem (at most `maxProblems`, then a count).
std::vector<std::string> validateTimestamps(const std::vector<KernelRecord> &kernels,
                                            const std::vector<MemcpyRecord> &memcpys,
                                            size_t maxProblems = 20);

} // namespace loupe::profiler

#endif // LOUPE_PROFILER_CUPTIRECORDS_H
