//===- CuptiRecords.cpp - CUPTI activity records to store rows (pure) -------===//

#include "loupe/profiler/CuptiRecords.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>
#include <map>
#include <memory>
#include <tuple>

#if LOUPE_PROFILER_HAVE_CUPTI_HEADERS
#include <cupti.h>
#include <cstddef>
#endif

namespace loupe::profiler {

using ral::Status;

void ActivityBatch::append(ActivityBatch &&other) {
  kernels.insert(kernels.end(), std::make_move_iterator(other.kernels.begin()),
                 std::make_move_iterator(other.kernels.end()));
  memcpys.insert(memcpys.end(), other.memcpys.begin(), other.memcpys.end());
  apis.insert(apis.end(), other.apis.begin(), other.apis.end());
  externalIds.insert(other.externalIds.begin(), other.externalIds.end());
  skippedRecords += other.skippedRecords;
  problems.insert(problems.end(), std::make_move_iterator(other.problems.begin()),
                  std::make_move_iterator(other.problems.end()));
}

uint64_t encodeExternalId(int64_t rep, int64_t dispatchId) {
  uint64_t high = rep == kWarmupRep ? 0x7fffffffu : static_cast<uint64_t>(rep + 1) & 0x7fffffffu;
  uint64_t low = static_cast<uint64_t>(dispatchId + 1) & 0xffffffffu;
  return (uint64_t(1) << 63) | (high << 32) | low;
}

bool decodeExternalId(uint64_t id, int64_t &rep, int64_t &dispatchId) {
  if (!(id >> 63))
    return false;
  uint64_t high = (id >> 32) & 0x7fffffffu;
  rep = high == 0x7fffffffu ? kWarmupRep : static_cast<int64_t>(high) - 1;
  dispatchId = static_cast<int64_t>(id & 0xffffffffu) - 1;
  return true;
}

Attribution attributeRows(std::vector<KernelRecord> &kernels, std::vector<MemcpyRecord> &memcpys,
                          const std::unordered_map<uint32_t, uint64_t> &externalIds) {
  Attribution a;
  // Returns false for a warmup row (to be removed).
  auto attribute = [&](auto &row) {
    row.rep = -1;
    row.dispatchId = kWholeRep;
    auto it = externalIds.find(static_cast<uint32_t>(row.correlationId));
    int64_t rep, dispatchId;
    if (it == externalIds.end() || !decodeExternalId(it->second, rep, dispatchId)) {
      ++a.unattributed;
      return true;
    }
    if (rep == kWarmupRep) {
      ++a.warmup;
      return false;
    }
    row.rep = rep;
    row.dispatchId = dispatchId;
    ++a.attributed;
    return true;
  };
  kernels.erase(std::remove_if(kernels.begin(), kernels.end(),
                               [&](KernelRecord &k) { return !attribute(k); }),
                kernels.end());
  memcpys.erase(std::remove_if(memcpys.begin(), memcpys.end(),
                               [&](MemcpyRecord &m) { return !attribute(m); }),
                memcpys.end());
  return a;
}

std::vector<std::string> validateTimestamps(const std::vector<KernelRecord> &kernels,
                                            const std::vector<MemcpyRecord> &memcpys,
                                            size_t maxProblems) {
  std::vector<std::string> problems;
  size_t more = 0;
  auto report = [&](std::string message) {
    if (problems.size() < maxProblems)
      problems.push_back(std::move(message));
    else
      ++more;
  };
  struct Op {
    int64_t correlationId, start, end;
    std::string what;
  };
  std::map<std::pair<int64_t, int64_t>, std::vector<Op>> streams;
  auto check = [&](int64_t device, int64_t stream, int64_t correlation, int64_t start,
                   int64_t end, std::string what) {
    std::string where = what + " (correlationId " + std::to_string(correlation) + ", device " +
                        std::to_string(device) + ", stream " + std::to_string(stream) + ")";
    if (start == 0 && end == 0)
      report(where + " has no timestamps");
    else if (end < start)
      report(where + " ends before it starts: start " + std::to_string(start) + " ns, end " +
             std::to_string(end) + " ns");
    else if (correlation != 0)
      streams[{device, stream}].push_back({correlation, start, end, std::move(what)});
  };
  for (const KernelRecord &k : kernels)
    check(k.deviceId, k.streamId, k.correlationId, k.start, k.end, "kernel '" + k.name + "'");
  for (const MemcpyRecord &m : memcpys)
    check(m.deviceId, m.streamId, m.correlationId, m.start, m.end,
          m.copyKind < 0 ? "memset" : "memcpy");
  for (auto &[key, ops] : streams) {
    std::sort(ops.begin(), ops.end(), [](const Op &a, const Op &b) {
      return std::tie(a.correlationId, a.start) < std::tie(b.correlationId, b.start);
    });
    for (size_t i = 1; i < ops.size(); ++i)
      if (ops[i].start < ops[i - 1].end)
        report(ops[i].what + " (correlationId " + std::to_string(ops[i].correlationId) +
               ") on device " + std::to_string(key.first) + " stream " +
               std::to_string(key.second) + " starts at " + std::to_string(ops[i].start) +
               " ns, before the previous operation in the stream (" + ops[i - 1].what +
               ", correlationId " + std::to_string(ops[i - 1].correlationId) + ") ends at " +
               std::to_string(ops[i - 1].end) + " ns");
  }
  if (more)
    problems.push_back("... and " + std::to_string(more) + " more timestamp problems");
  return problems;
}

#if LOUPE_PROFILER_HAVE_CUPTI_HEADERS

bool cuptiHeadersAvailable() { return true; }
uint32_t cuptiHeaderApiVersion() { return CUPTI_API_VERSION; }

size_t activityRecordSize(uint32_t kind) {
  switch (kind) {
  case CUPTI_ACTIVITY_KIND_KERNEL:
  case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    return sizeof(CUpti_ActivityKernel10);
  case CUPTI_ACTIVITY_KIND_MEMCPY:
    return sizeof(CUpti_ActivityMemcpy6);
  case CUPTI_ACTIVITY_KIND_MEMSET:
    return sizeof(CUpti_ActivityMemset4);
  case CUPTI_ACTIVITY_KIND_DRIVER:
  case CUPTI_ACTIVITY_KIND_RUNTIME:
  case CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API:
    return sizeof(CUpti_ActivityAPI);
  case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
    return sizeof(CUpti_ActivityExternalCorrelation);
  // Kinds Loupe skips (never enabled by the collector, but other tools may enable them).
  case CUPTI_ACTIVITY_KIND_DEVICE:
    return sizeof(CUpti_ActivityDevice5);
  case CUPTI_ACTIVITY_KIND_DEVICE_ATTRIBUTE:
    return sizeof(CUpti_ActivityDeviceAttribute);
  case CUPTI_ACTIVITY_KIND_CONTEXT:
    return sizeof(CUpti_ActivityContext3);
  case CUPTI_ACTIVITY_KIND_NAME:
    return sizeof(CUpti_ActivityName);
  case CUPTI_ACTIVITY_KIND_MARKER:
    return sizeof(CUpti_ActivityMarker2);
  case CUPTI_ACTIVITY_KIND_MARKER_DATA:
    return sizeof(CUpti_ActivityMarkerData2);
  case CUPTI_ACTIVITY_KIND_OVERHEAD:
    return sizeof(CUpti_ActivityOverhead3);
  case CUPTI_ACTIVITY_KIND_CDP_KERNEL:
    return sizeof(CUpti_ActivityCdpKernel);
  case CUPTI_ACTIVITY_KIND_PREEMPTION:
    return sizeof(CUpti_ActivityPreemption);
  case CUPTI_ACTIVITY_KIND_ENVIRONMENT:
    return sizeof(CUpti_ActivityEnvironment);
  case CUPTI_ACTIVITY_KIND_MEMCPY2:
    return sizeof(CUpti_ActivityMemcpyPtoP4);
  case CUPTI_ACTIVITY_KIND_FUNCTION:
    return sizeof(CUpti_ActivityFunction);
  case CUPTI_ACTIVITY_KIND_MODULE:
    return sizeof(CUpti_ActivityModule);
  case CUPTI_ACTIVITY_KIND_CUDA_EVENT:
    return sizeof(CUpti_ActivityCudaEvent2);
  case CUPTI_ACTIVITY_KIND_STREAM:
    return sizeof(CUpti_ActivityStream);
  case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
    return sizeof(CUpti_ActivitySynchronization2);
  case CUPTI_ACTIVITY_KIND_MEMORY2:
    return sizeof(CUpti_ActivityMemory4);
  case CUPTI_ACTIVITY_KIND_MEMORY_POOL:
    return sizeof(CUpti_ActivityMemoryPool3);
  case CUPTI_ACTIVITY_KIND_GRAPH_TRACE:
    return sizeof(CUpti_ActivityGraphTrace2);
  case CUPTI_ACTIVITY_KIND_JIT:
    return sizeof(CUpti_ActivityJit2);
  default:
    return 0;
  }
}

namespace {

const char *kindName(uint32_t kind) {
  switch (kind) {
  case CUPTI_ACTIVITY_KIND_KERNEL:
    return "KERNEL";
  case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    return "CONCURRENT_KERNEL";
  case CUPTI_ACTIVITY_KIND_MEMCPY:
    return "MEMCPY";
  case CUPTI_ACTIVITY_KIND_MEMSET:
    return "MEMSET";
  case CUPTI_ACTIVITY_KIND_DRIVER:
    return "DRIVER";
  case CUPTI_ACTIVITY_KIND_RUNTIME:
    return "RUNTIME";
  case CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API:
    return "INTERNAL_LAUNCH_API";
  case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
    return "EXTERNAL_CORRELATION";
  default:
    return "activity";
  }
}

/// Copies the record into a zeroed T after checking that the fields up to `needed` bytes are
/// there (CUPTI versions append fields; only the prefix Loupe reads must be present).
template <typename T>
Status load(uint32_t kind, const uint8_t *record, size_t available, size_t needed, T &out) {
  if (available < needed)
    return ral::invalidArgument(std::string("truncated CUPTI ") + kindName(kind) + " record: " + std::to_string(available) + " bytes left, needs " +
                                std::to_string(needed));
  std::memset(static_cast<void *>(&out), 0, sizeof(T));
  std::memcpy(static_cast<void *>(&out), record, std::min(available, sizeof(T)));
  return Status::ok();
}

#define LOUPE_PREFIX(T, field) (offsetof(T, field) + sizeof(T::field))

std::string demangle(const char *name) {
  if (!name)
    return "<unnamed kernel>";
  if (std::strncmp(name, "_Z", 2) != 0)
    return name; // extern "C" / PTX entry names ("b" would demangle as the type bool)
  int status = 0;
  std::unique_ptr<char, void (*)(void *)> out(abi::__cxa_demangle(name, nullptr, nullptr, &status),
                                              std::free);
  return status == 0 && out ? std::string(out.get()) : std::string(name);
}

/// Start/end check of one row; false (with a problem recorded) when it must be left out.
bool timestampsOk(const char *what, uint64_t start, uint64_t end, uint32_t correlationId,
                  ActivityBatch &out) {
  std::string where = std::string(what) + " record (correlationId " +
                      std::to_string(correlationId) + ")";
  if (start == 0 && end == 0) {
    out.problems.push_back(where + " has no timestamps");
    return false;
  }
  if (end < start) {
    out.problems.push_back(where + " ends before it starts: start " + std::to_string(start) +
                           " ns, end " + std::to_string(end) + " ns");
    return false;
  }
  return true;
}

} // namespace

namespace {
/// The fields CUPTI's memcpy and memset records share.
template <typename Record> MemcpyRecord copyOrSetRow(const Record &r) {
  MemcpyRecord m;
  m.start = static_cast<int64_t>(r.start);
  m.end = static_cast<int64_t>(r.end);
  m.deviceId = r.deviceId;
  m.streamId = r.streamId;
  m.correlationId = r.correlationId;
  m.bytes = static_cast<int64_t>(r.bytes);
  return m;
}
} // namespace

Status decodeActivityRecord(const uint8_t *record, size_t available, ActivityBatch &out) {
  if (available < sizeof(uint32_t))
    return ral::invalidArgument("truncated CUPTI activity record: " + std::to_string(available) +
                                " bytes left, the kind alone needs 4");
  uint32_t kind;
  std::memcpy(&kind, record, sizeof(kind));
  switch (kind) {
  case CUPTI_ACTIVITY_KIND_KERNEL:
  case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
    CUpti_ActivityKernel10 r;
    if (Status s = load(kind, record, available, LOUPE_PREFIX(CUpti_ActivityKernel10, name), r); !s)
      return s;
    if (!timestampsOk("kernel", r.start, r.end, r.correlationId, out))
      return Status::ok();
    KernelRecord k;
    k.start = static_cast<int64_t>(r.start);
    k.end = static_cast<int64_t>(r.end);
    k.deviceId = r.deviceId;
    k.streamId = r.streamId;
    k.correlationId = r.correlationId;
    k.name = demangle(r.name);
    k.gridX = r.gridX, k.gridY = r.gridY, k.gridZ = r.gridZ;
    k.blockX = r.blockX, k.blockY = r.blockY, k.blockZ = r.blockZ;
    k.registersPerThread = r.registersPerThread;
    k.staticSharedMemory = r.staticSharedMemory;
    k.dynamicSharedMemory = r.dynamicSharedMemory;
    out.kernels.push_back(std::move(k));
    return Status::ok();
  }
  case CUPTI_ACTIVITY_KIND_MEMCPY: {
    CUpti_ActivityMemcpy6 r;
    if (Status s = load(kind, record, available,
                        LOUPE_PREFIX(CUpti_ActivityMemcpy6, runtimeCorrelationId), r);
        !s)
      return s;
    if (!timestampsOk("memcpy", r.start, r.end, r.correlationId, out))
      return Status::ok();
    MemcpyRecord m = copyOrSetRow(r);
    m.copyKind = r.copyKind;
    m.srcKind = r.srcKind;
    m.dstKind = r.dstKind;
    out.memcpys.push_back(m);
    return Status::ok();
  }
  case CUPTI_ACTIVITY_KIND_MEMSET: {
    CUpti_ActivityMemset4 r;
    if (Status s = load(kind, record, available, LOUPE_PREFIX(CUpti_ActivityMemset4, memoryKind), r);
        !s)
      return s;
    if (!timestampsOk("memset", r.start, r.end, r.correlationId, out))
      return Status::ok();
    MemcpyRecord m = copyOrSetRow(r);
    m.copyKind = -1;
    m.srcKind = 0; // CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN: a set reads nothing.
    m.dstKind = r.memoryKind;
    out.memcpys.push_back(m);
    return Status::ok();
  }
  case CUPTI_ACTIVITY_KIND_DRIVER:
  case CUPTI_ACTIVITY_KIND_RUNTIME:
  case CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API: {
    CUpti_ActivityAPI r;
    if (Status s = load(kind, record, available, LOUPE_PREFIX(CUpti_ActivityAPI, returnValue), r); !s)
      return s;
    if (!timestampsOk(kindName(kind), r.start, r.end, r.correlationId, out))
      return Status::ok();
    out.apis.push_back({kind == CUPTI_ACTIVITY_KIND_RUNTIME, static_cast<uint32_t>(r.cbid),
                        static_cast<int64_t>(r.start), static_cast<int64_t>(r.end), r.threadId,
                        r.correlationId, r.returnValue});
    return Status::ok();
  }
  case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
    CUpti_ActivityExternalCorrelation r;
    if (Status s = load(kind, record, available,
                        LOUPE_PREFIX(CUpti_ActivityExternalCorrelation, correlationId), r);
        !s)
      return s;
    if (r.externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0)
      out.externalIds[r.correlationId] = r.externalId;
    else
      ++out.skippedRecords; // Another tool's correlation kind.
    return Status::ok();
  }
  default:
    ++out.skippedRecords;
    return Status::ok();
  }
}

Status parseActivityBuffer(const uint8_t *data, size_t size, ActivityBatch &out) {
  size_t offset = 0;
  while (offset < size) {
    size_t left = size - offset;
    if (left < sizeof(uint32_t))
      return ral::invalidArgument("CUPTI activity buffer truncated at byte " +
                                  std::to_string(offset) + " of " + std::to_string(size) +
                                  ": " + std::to_string(left) + " bytes left, a record kind needs 4");
    uint32_t kind;
    std::memcpy(&kind, data + offset, sizeof(kind));
    size_t recordSize = activityRecordSize(kind);
    if (recordSize == 0)
      return ral::invalidArgument(
          "CUPTI activity buffer: unknown record kind " + std::to_string(kind) + " at byte " +
          std::to_string(offset) + " (not in the CUPTI " + std::to_string(CUPTI_API_VERSION) +
          " headers Loupe was built with; its size is unknown, so parsing stops)");
    if (left < recordSize)
      return ral::invalidArgument("CUPTI activity buffer truncated at byte " +
                                  std::to_string(offset) + " of " + std::to_string(size) + ": " +
                                  kindName(kind) + " record (kind " + std::to_string(kind) +
                                  ") needs " + std::to_string(recordSize) + " bytes, " +
                                  std::to_string(left) + " left");
    if (Status s = decodeActivityRecord(data + offset, recordSize, out); !s)
      return ral::invalidArgument(s.message() + " at byte " + std::to_string(offset));
    offset += recordSize;
  }
  return Status::ok();
}

#else // !LOUPE_PROFILER_HAVE_CUPTI_HEADERS

bool cuptiHeadersAvailable() { return false; }
uint32_t cuptiHeaderApiVersion() { return 0; }
size_t activityRecordSize(uint32_t) { return 0; }

static Status noHeaders() {
  return ral::unavailable("built without CUPTI headers (cupti.h, cupti_activity.h): the CUPTI "
                          "record layouts are unknown");
}
Status decodeActivityRecord(const uint8_t *, size_t, ActivityBatch &) { return noHeaders(); }
Status parseActivityBuffer(const uint8_t *, size_t, ActivityBatch &) { return noHeaders(); }

#endif

} // namespace loupe::profiler
