//===- CuptiRecordsTest.cpp - The CUPTI activity parser on synthetic buffers -===//
//
// Buffers are laid out as CUPTI fills them, from the record structs of the installed CUPTI
// headers (the same ones the parser is built with).
//
//===----------------------------------------------------------------------===//

#include "loupe/profiler/CuptiRecords.h"

#include <gtest/gtest.h>

#include <cstring>

#if LOUPE_PROFILER_HAVE_CUPTI_HEADERS
#include <cupti.h>
#endif

using namespace loupe::profiler;
using loupe::ral::StatusCode;

TEST(ExternalId, RoundTrips) {
  for (auto [rep, dispatch] : std::vector<std::pair<int64_t, int64_t>>{
           {0, 0}, {0, kWholeRep}, {-1, 3}, {kWarmupRep, 7}, {123456, 4000000000}, {2, -1}}) {
    int64_t r = 99, d = 99;
    ASSERT_TRUE(decodeExternalId(encodeExternalId(rep, dispatch), r, d));
    EXPECT_EQ(r, rep);
    EXPECT_EQ(d, dispatch);
  }
  int64_t r, d;
  EXPECT_FALSE(decodeExternalId(42, r, d)); // another tool's id
  EXPECT_NE(encodeExternalId(0, kWholeRep), encodeExternalId(-1, kWholeRep));
}

TEST(AttributeRows, ByCorrelationId) {
  std::vector<KernelRecord> kernels(4);
  kernels[0].correlationId = 10; // rep 2, dispatch 5
  kernels[1].correlationId = 11; // warmup: removed
  kernels[2].correlationId = 12; // no external id
  kernels[3].correlationId = 13; // foreign external id
  std::vector<MemcpyRecord> memcpys(1);
  memcpys[0].correlationId = 14; // rep 0, whole repetition (an input upload)
  std::unordered_map<uint32_t, uint64_t> ids = {{10, encodeExternalId(2, 5)},
                                                {11, encodeExternalId(kWarmupRep, 5)},
                                                {13, 77},
                                                {14, encodeExternalId(0, kWholeRep)}};
  Attribution a = attributeRows(kernels, memcpys, ids);
  EXPECT_EQ(a.attributed, 2u);
  EXPECT_EQ(a.warmup, 1u);
  EXPECT_EQ(a.unattributed, 2u);
  ASSERT_EQ(kernels.size(), 3u);
  EXPECT_EQ(kernels[0].rep, 2);
  EXPECT_EQ(kernels[0].dispatchId, 5);
  EXPECT_EQ(kernels[1].correlationId, 12);
  EXPECT_EQ(kernels[1].rep, -1);
  EXPECT_EQ(kernels[1].dispatchId, kWholeRep);
  EXPECT_EQ(kernels[2].rep, -1);
  EXPECT_EQ(memcpys[0].rep, 0);
  EXPECT_EQ(memcpys[0].dispatchId, kWholeRep);
}

TEST(ValidateTimestamps, PerRecordAndPerStream) {
  auto kernel = [](int64_t stream, int64_t corr, int64_t start, int64_t end) {
    KernelRecord k;
    k.name = "k" + std::to_string(corr);
    k.streamId = stream;
    k.correlationId = corr;
    k.start = start;
    k.end = end;
    return k;
  };
  // Two streams overlapping each other is fine (concurrent kernels); in-order streams are fine.
  std::vector<KernelRecord> ok = {kernel(1, 1, 100, 200), kernel(2, 2, 150, 300),
                                  kernel(1, 3, 200, 250), kernel(2, 4, 300, 310)};
  MemcpyRecord copy;
  copy.streamId = 1;
  copy.correlationId = 5;
  copy.start = 260;
  copy.end = 400;
  EXPECT_TRUE(validateTimestamps(ok, {copy}).empty());

  // Launched later on the same stream but started before the previous one ended.
  std::vector<KernelRecord> overlap = {kernel(1, 1, 100, 200), kernel(1, 2, 150, 300)};
  auto problems = validateTimestamps(overlap, {});
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("kernel 'k2'"), std::string::npos) << problems[0];
  EXPECT_NE(problems[0].find("stream 1"), std::string::npos) << problems[0];

  // Time going backwards in launch order (the later launch ran first).
  std::vector<KernelRecord> backwards = {kernel(3, 8, 500, 600), kernel(3, 7, 700, 800)};
  EXPECT_EQ(validateTimestamps(backwards, {}).size(), 1u);

  std::vector<KernelRecord> bad = {kernel(1, 1, 300, 200), kernel(1, 2, 0, 0)};
  problems = validateTimestamps(bad, {});
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_NE(problems[0].find("ends before it starts"), std::string::npos);
  EXPECT_NE(problems[1].find("no timestamps"), std::string::npos);

  std::vector<KernelRecord> many;
  for (int i = 0; i < 50; ++i)
    many.push_back(kernel(1, i + 1, 10, 5));
  problems = validateTimestamps(many, {}, 20);
  ASSERT_EQ(problems.size(), 21u);
  EXPECT_EQ(problems.back(), "... and 30 more timestamp problems");
}

#if LOUPE_PROFILER_HAVE_CUPTI_HEADERS

namespace {

/// Builds an activity buffer the way CUPTI fills one.
class BufferBuilder {
public:
  template <typename T> BufferBuilder &add(const T &record) {
    static_assert(sizeof(T) % 8 == 0, "CUPTI records are 8-byte aligned");
    size_t at = bytes_.size();
    bytes_.resize(at + sizeof(T));
    std::memcpy(bytes_.data() + at, &record, sizeof(T));
    return *this;
  }
  const std::vector<uint8_t> &bytes() const { return bytes_; }

private:
  std::vector<uint8_t> bytes_;
};

CUpti_ActivityKernel10 kernelRecord(uint32_t correlationId, uint64_t start, uint64_t end,
                                    const char *name) {
  CUpti_ActivityKernel10 r;
  std::memset(&r, 0, sizeof(r));
  r.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  r.registersPerThread = 40;
  r.start = start;
  r.end = end;
  r.deviceId = 1;
  r.contextId = 1;
  r.streamId = 13;
  r.gridX = 120, r.gridY = 2, r.gridZ = 1;
  r.blockX = 256, r.blockY = 1, r.blockZ = 1;
  r.staticSharedMemory = 1024;
  r.dynamicSharedMemory = 49152;
  r.correlationId = correlationId;
  r.name = name;
  return r;
}

CUpti_ActivityMemcpy6 memcpyRecord(uint32_t correlationId, uint64_t start, uint64_t end) {
  CUpti_ActivityMemcpy6 r;
  std::memset(&r, 0, sizeof(r));
  r.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  r.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
  r.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
  r.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  r.bytes = 1 << 20;
  r.start = start;
  r.end = end;
  r.deviceId = 1;
  r.streamId = 13;
  r.correlationId = correlationId;
  return r;
}

CUpti_ActivityMemset4 memsetRecord(uint32_t correlationId, uint64_t start, uint64_t end) {
  CUpti_ActivityMemset4 r;
  std::memset(&r, 0, sizeof(r));
  r.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  r.value = 0;
  r.bytes = 4096;
  r.start = start;
  r.end = end;
  r.deviceId = 1;
  r.streamId = 13;
  r.correlationId = correlationId;
  r.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  return r;
}

CUpti_ActivityAPI apiRecord(CUpti_ActivityKind kind, uint32_t correlationId, uint64_t start) {
  CUpti_ActivityAPI r;
  std::memset(&r, 0, sizeof(r));
  r.kind = kind;
  r.cbid = 307; // cuLaunchKernel's driver cbid; any value round-trips
  r.start = start;
  r.end = start + 5000;
  r.processId = 1;
  r.threadId = 2;
  r.correlationId = correlationId;
  return r;
}

CUpti_ActivityExternalCorrelation externalRecord(uint32_t correlationId, uint64_t id,
                                                 CUpti_ExternalCorrelationKind kind =
                                                     CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0) {
  CUpti_ActivityExternalCorrelation r;
  std::memset(&r, 0, sizeof(r));
  r.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
  r.externalKind = kind;
  r.externalId = id;
  r.correlationId = correlationId;
  return r;
}

/// What one measured repetition of a two-dispatch GPU run produces.
BufferBuilder typicalRun() {
  BufferBuilder b;
  b.add(externalRecord(1, encodeExternalId(0, kWholeRep)))
      .add(apiRecord(CUPTI_ACTIVITY_KIND_DRIVER, 1, 100))
      .add(externalRecord(2, encodeExternalId(0, 3)))
      .add(apiRecord(CUPTI_ACTIVITY_KIND_DRIVER, 2, 200))
      .add(externalRecord(4, encodeExternalId(0, 4)))
      .add(apiRecord(CUPTI_ACTIVITY_KIND_RUNTIME, 4, 300))
      .add(memcpyRecord(1, 1000, 2000))
      .add(kernelRecord(2, 2000, 3000, "_Z10fusion_addPKfS0_Pfi"))
      .add(memsetRecord(3, 3000, 3100))
      .add(kernelRecord(4, 3100, 5000, "ral_gemm_cutlass"));
  return b;
}

} // namespace

TEST(CuptiRecords, HeaderLayouts) {
  EXPECT_TRUE(cuptiHeadersAvailable());
  EXPECT_GE(cuptiHeaderApiVersion(), 130000u);
  for (uint32_t kind : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                        CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_DRIVER,
                        CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
                        CUPTI_ACTIVITY_KIND_DEVICE, CUPTI_ACTIVITY_KIND_NAME}) {
    EXPECT_GT(activityRecordSize(kind), 0u) << kind;
    EXPECT_EQ(activityRecordSize(kind) % 8, 0u) << kind;
  }
  EXPECT_EQ(activityRecordSize(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL),
            sizeof(CUpti_ActivityKernel10));
  EXPECT_EQ(activityRecordSize(9999), 0u);
}

TEST(CuptiRecords, KernelsCopiesSetsAndCorrelations) {
  BufferBuilder b = typicalRun();
  ActivityBatch batch;
  auto s = parseActivityBuffer(b.bytes().data(), b.bytes().size(), batch);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_TRUE(batch.problems.empty());
  EXPECT_EQ(batch.skippedRecords, 0u);

  ASSERT_EQ(batch.kernels.size(), 2u);
  const KernelRecord &k = batch.kernels[0];
  EXPECT_EQ(k.name, "fusion_add(float const*, float const*, float*, int)"); // demangled
  EXPECT_EQ(k.start, 2000);
  EXPECT_EQ(k.end, 3000);
  EXPECT_EQ(k.deviceId, 1);
  EXPECT_EQ(k.streamId, 13);
  EXPECT_EQ(k.correlationId, 2);
  EXPECT_EQ(std::make_tuple(k.gridX, k.gridY, k.gridZ), std::make_tuple(120, 2, 1));
  EXPECT_EQ(std::make_tuple(k.blockX, k.blockY, k.blockZ), std::make_tuple(256, 1, 1));
  EXPECT_EQ(k.registersPerThread, 40);
  EXPECT_EQ(k.staticSharedMemory, 1024);
  EXPECT_EQ(k.dynamicSharedMemory, 49152);
  EXPECT_EQ(batch.kernels[1].name, "ral_gemm_cutlass"); // not mangled: kept as is

  ASSERT_EQ(batch.memcpys.size(), 2u);
  const MemcpyRecord &copy = batch.memcpys[0];
  EXPECT_EQ(copy.bytes, 1 << 20);
  EXPECT_EQ(copy.copyKind, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD);
  EXPECT_EQ(copy.srcKind, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE);
  EXPECT_EQ(copy.dstKind, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
  EXPECT_EQ(copy.start, 1000);
  const MemcpyRecord &set = batch.memcpys[1];
  EXPECT_EQ(set.copyKind, -1);
  EXPECT_EQ(set.bytes, 4096);
  EXPECT_EQ(set.dstKind, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);

  ASSERT_EQ(batch.apis.size(), 3u);
  EXPECT_FALSE(batch.apis[0].runtime);
  EXPECT_TRUE(batch.apis[2].runtime);
  EXPECT_EQ(batch.apis[1].cbid, 307u);
  EXPECT_EQ(batch.apis[1].correlationId, 2u);

  ASSERT_EQ(batch.externalIds.size(), 3u);
  Attribution a = attributeRows(batch.kernels, batch.memcpys, batch.externalIds);
  EXPECT_EQ(a.attributed, 3u);   // the copy (rep-level id) and both kernels
  EXPECT_EQ(a.unattributed, 1u); // the memset: its API call pushed nothing
  EXPECT_EQ(batch.kernels[0].dispatchId, 3);
  EXPECT_EQ(batch.kernels[1].dispatchId, 4);
  EXPECT_EQ(batch.kernels[1].rep, 0);
  EXPECT_EQ(batch.memcpys[0].rep, 0);
  EXPECT_EQ(batch.memcpys[0].dispatchId, kWholeRep);
  EXPECT_EQ(batch.memcpys[1].rep, -1);
  EXPECT_TRUE(validateTimestamps(batch.kernels, batch.memcpys).empty());
}

TEST(CuptiRecords, UnknownKindsAreSkipped) {
  CUpti_ActivityDevice5 device;
  std::memset(&device, 0, sizeof(device));
  device.kind = CUPTI_ACTIVITY_KIND_DEVICE;
  CUpti_ActivityName name;
  std::memset(&name, 0, sizeof(name));
  name.kind = CUPTI_ACTIVITY_KIND_NAME;
  CUpti_ActivityOverhead3 overhead;
  std::memset(&overhead, 0, sizeof(overhead));
  overhead.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
  BufferBuilder b;
  b.add(device)
      .add(kernelRecord(1, 10, 20, "a"))
      .add(name)
      .add(externalRecord(1, 5, CUPTI_EXTERNAL_CORRELATION_KIND_OPENACC)) // another tool's
      .add(overhead)
      .add(kernelRecord(2, 20, 30, "b"));
  ActivityBatch batch;
  auto s = parseActivityBuffer(b.bytes().data(), b.bytes().size(), batch);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(batch.skippedRecords, 4u);
  ASSERT_EQ(batch.kernels.size(), 2u);
  EXPECT_EQ(batch.kernels[1].name, "b");
  EXPECT_TRUE(batch.externalIds.empty());

  // decodeActivityRecord (what the collector uses with cuptiActivityGetNextRecord) skips any
  // kind, even one this build does not know.
  uint8_t unknown[64] = {};
  uint32_t kind = 9999;
  std::memcpy(unknown, &kind, sizeof(kind));
  ActivityBatch one;
  ASSERT_TRUE(decodeActivityRecord(unknown, sizeof(unknown), one).isOk());
  EXPECT_EQ(one.skippedRecords, 1u);
}

TEST(CuptiRecords, KindOfUnknownSizeStopsTheWalk) {
  BufferBuilder b;
  b.add(kernelRecord(1, 10, 20, "a"));
  std::vector<uint8_t> bytes = b.bytes();
  uint32_t kind = 9999;
  bytes.resize(bytes.size() + 64);
  std::memcpy(bytes.data() + sizeof(CUpti_ActivityKernel10), &kind, sizeof(kind));
  ActivityBatch batch;
  auto s = parseActivityBuffer(bytes.data(), bytes.size(), batch);
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("unknown record kind 9999 at byte " +
                             std::to_string(sizeof(CUpti_ActivityKernel10))),
            std::string::npos)
      << s.message();
  EXPECT_EQ(batch.kernels.size(), 1u); // what came before is kept
}

TEST(CuptiRecords, TruncatedBuffersAreErrorsNotCrashes) {
  std::vector<uint8_t> full = typicalRun().bytes();
  std::vector<size_t> boundaries = {0};
  {
    ActivityBatch probe;
    size_t at = 0;
    while (at < full.size()) {
      uint32_t kind;
      std::memcpy(&kind, full.data() + at, 4);
      at += activityRecordSize(kind);
      boundaries.push_back(at);
    }
  }
  for (size_t size = 0; size <= full.size(); ++size) {
    // A copy of exactly `size` bytes, so reading past it is a real overrun (ASan would see it).
    std::vector<uint8_t> cut(full.begin(), full.begin() + size);
    ActivityBatch batch;
    auto s = parseActivityBuffer(cut.data(), cut.size(), batch);
    bool atBoundary = std::find(boundaries.begin(), boundaries.end(), size) != boundaries.end();
    EXPECT_EQ(s.isOk(), atBoundary) << "size " << size << ": " << s.message();
    if (!s.isOk()) {
      EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
      EXPECT_NE(s.message().find("truncated"), std::string::npos) << s.message();
    }
  }
  // A record cut before the fields the parser reads.
  CUpti_ActivityKernel10 k = kernelRecord(1, 10, 20, "a");
  ActivityBatch batch;
  auto s = decodeActivityRecord(reinterpret_cast<const uint8_t *>(&k), 40, batch);
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("truncated CUPTI CONCURRENT_KERNEL record: 40 bytes left"),
            std::string::npos)
      << s.message();
  // The fields after `name` may be missing (an older CUPTI's shorter record).
  size_t prefix = offsetof(CUpti_ActivityKernel10, name) + sizeof(const char *);
  ASSERT_TRUE(decodeActivityRecord(reinterpret_cast<const uint8_t *>(&k), prefix, batch).isOk());
  EXPECT_EQ(batch.kernels.size(), 1u);
}

TEST(CuptiRecords, BadTimestampsAreFlaggedAndLeftOut) {
  BufferBuilder b;
  b.add(kernelRecord(1, 5000, 4000, "backwards"))
      .add(memcpyRecord(2, 0, 0))
      .add(memsetRecord(3, 100, 100)) // zero-length is fine
      .add(kernelRecord(4, 6000, 7000, "fine"));
  ActivityBatch batch;
  ASSERT_TRUE(parseActivityBuffer(b.bytes().data(), b.bytes().size(), batch).isOk());
  ASSERT_EQ(batch.problems.size(), 2u);
  EXPECT_NE(batch.problems[0].find("kernel record (correlationId 1) ends before it starts"),
            std::string::npos)
      << batch.problems[0];
  EXPECT_NE(batch.problems[1].find("memcpy record (correlationId 2) has no timestamps"),
            std::string::npos)
      << batch.problems[1];
  ASSERT_EQ(batch.kernels.size(), 1u);
  EXPECT_EQ(batch.kernels[0].name, "fine");
  EXPECT_EQ(batch.memcpys.size(), 1u);
}

TEST(CuptiRecords, BatchesAppend) {
  BufferBuilder first, second;
  first.add(externalRecord(2, encodeExternalId(1, 9))).add(apiRecord(CUPTI_ACTIVITY_KIND_DRIVER, 2, 1));
  second.add(kernelRecord(2, 10, 20, "late")); // the kernel arrives in a later buffer
  ActivityBatch all, a, b;
  ASSERT_TRUE(parseActivityBuffer(first.bytes().data(), first.bytes().size(), a).isOk());
  ASSERT_TRUE(parseActivityBuffer(second.bytes().data(), second.bytes().size(), b).isOk());
  all.append(std::move(a));
  all.append(std::move(b));
  attributeRows(all.kernels, all.memcpys, all.externalIds);
  ASSERT_EQ(all.kernels.size(), 1u);
  EXPECT_EQ(all.kernels[0].rep, 1);
  EXPECT_EQ(all.kernels[0].dispatchId, 9);
}

#else

TEST(CuptiRecords, WithoutHeaders) {
  EXPECT_FALSE(cuptiHeadersAvailable());
  ActivityBatch batch;
  uint8_t bytes[8] = {};
  auto s = parseActivityBuffer(bytes, sizeof(bytes), batch);
  EXPECT_EQ(s.code(), loupe::ral::StatusCode::kUnavailable);
  GTEST_SKIP() << "built without CUPTI headers: " << s.message();
}

#endif
