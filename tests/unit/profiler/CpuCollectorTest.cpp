//===- CpuCollectorTest.cpp - Steady-clock collector ------------------------===//

#include "loupe/profiler/CpuCollector.h"

#include <gtest/gtest.h>

#include <sys/resource.h>

#include <chrono>
#include <thread>

using namespace loupe::profiler;

namespace {
void sleepUs(int us) { std::this_thread::sleep_for(std::chrono::microseconds(us)); }

long minorFaults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}
} // namespace

TEST(CpuCollector, RecordsRepsAndDispatches) {
  CpuCollector c(3, 2);
  for (int rep = 0; rep < 3; ++rep) {
    c.beginRep();
    c.beginDispatch(7);
    sleepUs(1000);
    c.endDispatch(7);
    c.beginDispatch(9);
    sleepUs(200);
    c.endDispatch(9);
    c.endRep();
  }
  EXPECT_EQ(c.unmatchedEvents(), 0u);
  ASSERT_EQ(c.numReps(), 3u);
  ASSERT_EQ(c.dispatches().size(), 6u);
  EXPECT_EQ(c.dispatchIds(), (std::vector<int64_t>{7, 9}));

  EXPECT_EQ(c.reps()[0].startNs, 0); // whole-rep times count from the first rep
  for (size_t i = 0; i < 3; ++i) {
    const CpuCollector::RepTiming &r = c.reps()[i];
    EXPECT_GE(r.durationNs(), 1'200'000);
    if (i > 0)
      EXPECT_GE(r.startNs, c.reps()[i - 1].endNs);
    const CpuCollector::DispatchTiming &d7 = c.dispatches()[2 * i];
    const CpuCollector::DispatchTiming &d9 = c.dispatches()[2 * i + 1];
    EXPECT_EQ(d7.rep, static_cast<int64_t>(i));
    EXPECT_EQ(d7.dispatchId, 7);
    EXPECT_EQ(d9.dispatchId, 9);
    // Dispatch times are offsets within their rep, in order, inside the rep.
    EXPECT_GE(d7.startNs, 0);
    EXPECT_GE(d7.durationNs(), 1'000'000);
    EXPECT_GE(d9.startNs, d7.endNs);
    EXPECT_GE(d9.durationNs(), 200'000);
    EXPECT_LE(d9.endNs, r.durationNs());
  }
  EXPECT_EQ(c.repDurations().size(), 3u);
  EXPECT_EQ(c.dispatchDurations(7).size(), 3u);
  EXPECT_EQ(c.dispatchDurations(9)[1], c.dispatches()[3].durationNs());
  EXPECT_TRUE(c.dispatchDurations(8).empty());
}

TEST(CpuCollector, SamplesAreStoreRows) {
  CpuCollector c;
  c.beginRep();
  c.beginDispatch(1);
  c.endDispatch(1);
  c.endRep();
  c.beginRep();
  c.beginDispatch(1);
  c.endDispatch(1);
  c.endRep();
  std::vector<SampleRecord> rows = c.samples();
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].dispatchId, kWholeRep);
  EXPECT_EQ(rows[0].rep, 0);
  EXPECT_EQ(rows[1].dispatchId, kWholeRep);
  EXPECT_EQ(rows[1].rep, 1);
  EXPECT_EQ(rows[1].durationNs(), c.reps()[1].durationNs());
  EXPECT_EQ(rows[2].dispatchId, 1);
  EXPECT_EQ(rows[3].rep, 1);
  EXPECT_EQ(rows[3].startNs, c.dispatches()[1].startNs);
}

TEST(CpuCollector, NestedAndOverlappingDispatches) {
  CpuCollector c;
  c.beginRep();
  c.beginDispatch(1);
  c.beginDispatch(2);
  sleepUs(100);
  c.endDispatch(2);
  c.endDispatch(1);
  c.endRep();
  EXPECT_EQ(c.unmatchedEvents(), 0u);
  ASSERT_EQ(c.dispatches().size(), 2u);
  const auto &outer = c.dispatches()[0];
  const auto &inner = c.dispatches()[1];
  EXPECT_EQ(outer.dispatchId, 1);
  EXPECT_LE(outer.startNs, inner.startNs);
  EXPECT_GE(outer.endNs, inner.endNs);
}

TEST(CpuCollector, UnmatchedEventsAreCountedAndDropped) {
  CpuCollector c;
  c.beginDispatch(1); // outside a rep
  c.endRep();         // no rep open
  c.beginRep();
  c.endDispatch(4);   // never began
  c.beginDispatch(5); // never ends
  c.beginDispatch(6);
  c.endDispatch(6);
  c.endRep();
  EXPECT_EQ(c.unmatchedEvents(), 4u);
  ASSERT_EQ(c.dispatches().size(), 1u);
  EXPECT_EQ(c.dispatches()[0].dispatchId, 6);
  EXPECT_EQ(c.numReps(), 1u);

  c.clear();
  EXPECT_EQ(c.unmatchedEvents(), 0u);
  EXPECT_EQ(c.numReps(), 0u);
  EXPECT_TRUE(c.dispatches().empty());
  EXPECT_FALSE(c.inRep());
}

TEST(CpuCollector, BeginRepClosesOpenRep) {
  CpuCollector c;
  c.beginRep();
  c.beginRep();
  c.endRep();
  EXPECT_EQ(c.numReps(), 2u);
  EXPECT_EQ(c.unmatchedEvents(), 0u);
}

TEST(CpuCollector, ReservedRecordingDoesNotReallocate) {
  CpuCollector c(100, 10);
  c.beginRep();
  c.beginDispatch(0);
  c.endDispatch(0);
  c.endRep();
  const CpuCollector::DispatchTiming *first = &c.dispatches()[0];
  for (int rep = 1; rep < 100; ++rep) {
    c.beginRep();
    for (int d = 0; d < 10; ++d) {
      c.beginDispatch(d);
      c.endDispatch(d);
    }
    c.endRep();
  }
  EXPECT_EQ(&c.dispatches()[0], first);
  EXPECT_EQ(c.dispatches().size(), 991u);
}

// The run reports minor page faults per repetition (the artifact's steady state should have
// none): prepareRep() touches the next repetition's records before it starts, so recording
// into fresh reserved pages faults outside the repetitions. 99 repetitions of 1000 records
// fill 3 MB, about 770 pages; all but the first repetition's were touched ahead.
TEST(CpuCollector, RecordingFaultsNoPagesInsideRepetitions) {
  constexpr int kReps = 100, kDispatches = 1000;
  CpuCollector c(kReps, kDispatches);
  long inside = 0;
  for (int rep = 0; rep < kReps; ++rep) {
    c.prepareRep();
    c.beginRep();
    long before = minorFaults();
    for (int d = 0; d < kDispatches; ++d) {
      c.beginDispatch(d);
      c.endDispatch(d);
    }
    if (rep > 0)
      inside += minorFaults() - before;
    c.endRep();
  }
  EXPECT_EQ(c.dispatches().size(), size_t(kReps * kDispatches));
  EXPECT_LT(inside, 20) << "page faults while recording 99 repetitions";
}
