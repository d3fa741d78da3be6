//===- MeasureTest.cpp - Warmup, stopping rule, cold mode, SM clock ---------===//
//
// The stopping rule on synthetic sample streams, the measurement loop on a fake workload
// (sleeps and dispatch events), the CPU cache flush and its sysfs parsing on a fixture, and
// the GPU paths (NVML, the L2 flush), which skip with the reason where there is no GPU.
//
//===----------------------------------------------------------------------===//

#include "FakeEventClock.h"

#include "loupe/profiler/CacheFlush.h"
#include "loupe/profiler/GpuRunProfile.h"
#include "loupe/profiler/Measure.h"
#include "loupe/profiler/SmClock.h"
#include "loupe/ral/CudaDriver.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <random>
#include <thread>

using namespace loupe::profiler;
using namespace loupe::profiler::testing;
using loupe::ral::Status;
using loupe::ral::StatusCode;

namespace {

MeasureOptions adaptive(int minReps, int maxReps, double noise, double maxMs = 1e9) {
  MeasureOptions o;
  o.minReps = minReps;
  o.maxReps = maxReps;
  o.noise = noise;
  o.maxMs = maxMs;
  return o;
}

/// Feeds `stream` to the stopping rule one sample at a time, as measure() does; returns the
/// samples taken and why it stopped. `nsPerSample` advances the clock.
std::pair<size_t, StopReason> drive(const MeasureOptions &o, const std::vector<int64_t> &stream,
                                    int64_t nsPerSample = 1000) {
  std::vector<int64_t> taken;
  for (int64_t x : stream) {
    if (auto stop = stopAfter(o, taken, int64_t(taken.size()) * nsPerSample))
      return {taken.size(), *stop};
    taken.push_back(x);
  }
  auto stop = stopAfter(o, taken, int64_t(taken.size()) * nsPerSample);
  EXPECT_TRUE(stop.has_value()) << "the stream ran out before the rule stopped";
  return {taken.size(), stop.value_or(StopReason::Exact)};
}

std::vector<int64_t> lognormalStream(size_t n, double sigma, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> d(std::log(100000.0), sigma);
  std::vector<int64_t> out;
  for (size_t i = 0; i < n; ++i)
    out.push_back(static_cast<int64_t>(d(rng)));
  return out;
}

/// Counts flushes and sleeps in each, so a flush inside the timed region would show.
class CountingFlusher : public CacheFlusher {
public:
  Status flush() override {
    ++flushes;
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    return Status::ok();
  }
  size_t bytes() const override { return 4096; }
  std::string describe() const override { return "test"; }
  int flushes = 0;
};

/// A repetition of two dispatches, each sleeping ~`us` microseconds.
RepetitionFn fakeWorkload(int &runs, int us = 200) {
  return [&runs, us](loupe::ral::Tracer *tracer) {
    ++runs;
    for (int64_t id = 0; id < 2; ++id) {
      loupe::ral::DispatchEvent e;
      e.dispatchId = id;
      tracer->onDispatchBegin(e);
      std::this_thread::sleep_for(std::chrono::microseconds(us));
      tracer->onDispatchEnd(e);
    }
    return Status::ok();
  };
}

} // namespace

// --- The stopping rule -----------------------------------------------------------------

TEST(StoppingRule, SteadyStreamStopsAtMinReps) {
  auto [n, why] = drive(adaptive(10, 1000, 0.02), std::vector<int64_t>(2000, 123456));
  EXPECT_EQ(n, 10u);
  EXPECT_EQ(why, StopReason::Noise);
  // A little jitter (IQR/median ~ 0.5%) is as good.
  auto jitter = lognormalStream(2000, 0.004, 1);
  EXPECT_EQ(drive(adaptive(10, 1000, 0.02), jitter).first, 10u);
}

TEST(StoppingRule, NoisyStreamRunsToMaxReps) {
  // IQR/median ~ 1: the median's standard error stays above 2% for n < ~2000.
  auto noisy = lognormalStream(5000, 0.75, 2);
  auto [n, why] = drive(adaptive(10, 200, 0.02), noisy);
  EXPECT_EQ(n, 200u);
  EXPECT_EQ(why, StopReason::MaxReps);
}

TEST(StoppingRule, ModerateNoiseTakesMoreSamplesThanMin) {
  // IQR/median ~ 13.5%: 0.93 * 0.135 / sqrt(n) <= 2% needs n >= ~40.
  auto stream = lognormalStream(5000, 0.1, 3);
  auto [n, why] = drive(adaptive(10, 1000, 0.02), stream);
  EXPECT_EQ(why, StopReason::Noise);
  EXPECT_GT(n, 20u);
  EXPECT_LT(n, 120u);
}

TEST(StoppingRule, TimeLimitStopsOnlyAfterMinReps) {
  auto noisy = lognormalStream(5000, 0.75, 4);
  // Every sample "takes" 1 s against a 5 ms limit: still at least minReps.
  auto [n, why] = drive(adaptive(12, 1000, 0.02, 5), noisy, 1'000'000'000);
  EXPECT_EQ(n, 12u);
  EXPECT_EQ(why, StopReason::MaxTime);
}

TEST(StoppingRule, ExactCountIgnoresNoise) {
  MeasureOptions o;
  o.reps = 3;
  auto [n, why] = drive(o, lognormalStream(100, 0.75, 5));
  EXPECT_EQ(n, 3u);
  EXPECT_EQ(why, StopReason::Exact);
}

TEST(StoppingRule, RelativeNoise) {
  EXPECT_TRUE(std::isinf(relativeNoise({})));
  EXPECT_TRUE(std::isinf(relativeNoise({5})));
  EXPECT_EQ(relativeNoise({7, 7, 7, 7}), 0.0);
  // 1..100: IQR 49.5, median 50.5, n 100 -> sqrt(pi/2) / 1.349 * 49.5 / 10 / 50.5.
  std::vector<int64_t> v;
  for (int i = 1; i <= 100; ++i)
    v.push_back(i);
  EXPECT_NEAR(relativeNoise(v), std::sqrt(M_PI / 2) / 1.349 * 49.5 / 10 / 50.5, 1e-12);
  double noise = -1;
  stopAfter(adaptive(10, 100, 0.5), v, 0, &noise);
  EXPECT_NEAR(noise, relativeNoise(v), 1e-12);
}

TEST(StoppingRule, Validation) {
  EXPECT_TRUE(validate(MeasureOptions()).isOk());
  MeasureOptions o;
  o.minReps = 5;
  EXPECT_NE(validate(o).message().find("--min-reps must be >= 10"), std::string::npos);
  o = MeasureOptions();
  o.maxReps = 5;
  EXPECT_NE(validate(o).message().find("--max-reps"), std::string::npos);
  o = MeasureOptions();
  o.noise = 0;
  EXPECT_EQ(validate(o).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(parseCacheModes("both")->size(), 2u);
  EXPECT_EQ(parseCacheModes("cold")->front(), CacheMode::Cold);
  EXPECT_FALSE(parseCacheModes("warm").has_value());
  EXPECT_EQ(parseStopReason(stopReasonName(StopReason::MaxTime)), StopReason::MaxTime);
}

// --- Warmup ----------------------------------------------------------------------------

TEST(Warmup, Rule) {
  MeasureOptions o; // 100 ms budget
  EXPECT_FALSE(warmupDone(o, 0, 1'000'000'000)); // at least one repetition
  EXPECT_FALSE(warmupDone(o, 5, 99'000'000));
  EXPECT_TRUE(warmupDone(o, 1, 100'000'000));
  o.warmupMs = 0;
  EXPECT_TRUE(warmupDone(o, 1, 0));
  o.warmupReps = 0; // exact count wins
  EXPECT_TRUE(warmupDone(o, 0, 0));
  o.warmupReps = 3;
  EXPECT_FALSE(warmupDone(o, 2, 1'000'000'000));
}

TEST(Warmup, RespectsTheTimeBudget) {
  MeasureOptions o;
  o.warmupMs = 20;
  o.reps = 1;
  int runs = 0;
  auto m = measure(o, CacheMode::Hot, fakeWorkload(runs, 1000)); // >= 2 ms per repetition
  ASSERT_TRUE(m.isOk()) << m.status().message();
  EXPECT_GE(m->record.warmupNs, 20'000'000);
  EXPECT_GE(m->record.warmupReps, 1);
  EXPECT_LE(m->record.warmupReps, 10); // 10 x >= 2 ms reaches the budget
  EXPECT_EQ(runs, m->record.warmupReps + 1);
}

// --- The measurement loop ----------------------------------------------------------------

TEST(Measure, SamplesAndRecord) {
  MeasureOptions o;
  o.warmupReps = 2;
  o.maxMs = 2000;
  o.noise = 0.5; // sleeps are steady enough: stops at minReps
  int runs = 0;
  auto m = measure(o, CacheMode::Hot, fakeWorkload(runs));
  ASSERT_TRUE(m.isOk()) << m.status().message();
  EXPECT_EQ(m->record.warmupReps, 2);
  EXPECT_EQ(m->record.reps, 10);
  EXPECT_EQ(m->record.stop, StopReason::Noise);
  EXPECT_LE(m->record.noise, 0.5);
  EXPECT_EQ(m->record.flushBytes, 0);
  EXPECT_EQ(runs, 12);
  EXPECT_EQ(m->collector.numReps(), 10u);
  EXPECT_EQ(m->collector.dispatchDurations(1).size(), 10u);
  std::vector<SampleRecord> rows = m->samples();
  EXPECT_EQ(rows.size(), 30u); // 10 whole reps + 2 dispatches each
  for (const SampleRecord &r : rows)
    EXPECT_FALSE(r.smClockMhz.has_value());
}

TEST(Measure, ColdFlushesBeforeEverySampleOutsideTheTimedRegion) {
  MeasureOptions o;
  o.warmupReps = 1;
  o.reps = 5;
  CountingFlusher flusher;
  MeasureEnv env;
  env.flusher = &flusher;
  int runs = 0;
  auto m = measure(o, CacheMode::Cold, fakeWorkload(runs, 100), env);
  ASSERT_TRUE(m.isOk()) << m.status().message();
  EXPECT_EQ(flusher.flushes, 5); // not during warmup
  EXPECT_EQ(m->record.mode, CacheMode::Cold);
  EXPECT_EQ(m->record.flushBytes, 4096);
  EXPECT_EQ(m->record.stop, StopReason::Exact);
  // The 3 ms flush sleeps are not in the samples (a repetition sleeps 2 x 100 us).
  EXPECT_LT(summarize(m->collector.repDurations()).median, 2.5e6);
  EXPECT_GE(m->record.sampleNs, 5 * 3'000'000);
  // Cold needs a flusher.
  EXPECT_FALSE(measure(o, CacheMode::Cold, fakeWorkload(runs), {}).isOk());
}

TEST(Measure, ForwardsEventsAndErrors) {
  struct Counter : loupe::ral::Tracer {
    int begins = 0;
    void dispatchBegin(int64_t) override { ++begins; }
  } counter;
  MeasureOptions o;
  o.warmupReps = 3;
  o.reps = 4;
  MeasureEnv env;
  env.next = &counter;
  int runs = 0;
  ASSERT_TRUE(measure(o, CacheMode::Hot, fakeWorkload(runs, 1), env).isOk());
  EXPECT_EQ(counter.begins, 2 * 7); // warmup and measured repetitions

  int calls = 0;
  auto failing = [&](loupe::ral::Tracer *) {
    return ++calls == 3 ? loupe::ral::invalidArgument("boom") : Status::ok();
  };
  auto m = measure(o, CacheMode::Hot, failing);
  EXPECT_EQ(m.status().message(), "boom");

  std::atomic<bool> cancel{true};
  env.cancel = &cancel;
  auto c = measure(o, CacheMode::Hot, fakeWorkload(runs, 1), env);
  ASSERT_TRUE(c.isOk());
  EXPECT_TRUE(c->cancelled);
}

TEST(Measure, SamplesCarryTheirRepetitionsClock) {
  Measurement m;
  m.collector.beginRep();
  m.collector.beginDispatch(0);
  m.collector.endDispatch(0);
  m.collector.endRep();
  m.collector.beginRep();
  m.collector.endRep();
  m.smClockMhz = {1980, std::nullopt};
  std::vector<SampleRecord> rows = m.samples();
  ASSERT_EQ(rows.size(), 3u);
  for (const SampleRecord &r : rows)
    EXPECT_EQ(r.smClockMhz, r.rep == 0 ? std::optional<int32_t>(1980) : std::nullopt);
}


// --- GPU runs whose CUPTI is held by another subscriber -----------------------------------

namespace {

/// A GPU measurement whose CUPTI start reports another subscriber, timed on `gpu`'s fake clock.
MeasureEnv cudaEventsEnv(FakeGpu &gpu) {
  MeasureEnv env;
  env.cupti = true;
  env.makeGpuProfile = [&gpu](loupe::ral::Tracer *next) {
    CuptiCollector::Start start;
    start.state = CuptiState::kOtherSubscriber;
    start.status = loupe::ral::unavailable("another CUPTI client is attached to this process "
                                           "(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)");
    return std::make_unique<GpuRunProfile>(next, std::move(start),
                                           std::make_unique<FakeEventClock>(gpu));
  };
  return env;
}

/// A repetition of a GPU dispatch run twice (1 us, then 3 us on the stream) and a CPU dispatch.
RepetitionFn gpuWorkload(FakeGpu &gpu) {
  return [&gpu](loupe::ral::Tracer *tracer) {
    loupe::ral::DispatchEvent g;
    g.dispatchId = 0;
    g.device = "gpu";
    g.stream = kStreamA;
    for (int64_t ns : {1000, 3000}) {
      tracer->onDispatchBegin(g);
      gpu.nowNs += ns;
      tracer->onDispatchEnd(g);
    }
    loupe::ral::DispatchEvent c;
    c.dispatchId = 1;
    tracer->onDispatchBegin(c);
    std::this_thread::sleep_for(std::chrono::microseconds(50));
    tracer->onDispatchEnd(c);
    return Status::ok();
  };
}

} // namespace

TEST(Measure, CudaEventsTimeGpuDispatchesWhenCuptiIsHeld) {
  FakeGpu gpu;
  MeasureOptions o;
  o.warmupReps = 2;
  o.reps = 4;
  auto m = measure(o, CacheMode::Hot, gpuWorkload(gpu), cudaEventsEnv(gpu));
  ASSERT_TRUE(m.isOk()) << m.status().message();
  EXPECT_EQ(m->record.kernelTiming.rfind("CUDA events (CUPTI is held by another subscriber: another "
                                  "CUPTI client",
                                  0),
            0u)
      << m->record.kernelTiming;
  EXPECT_TRUE(m->kernels.empty()); // no fake kernel rows
  EXPECT_EQ(m->eventTimings.size(), 8u); // warmup repetitions are not timed
  EXPECT_EQ(gpu.created, 4);             // two executions, two events each, reused
  // The GPU dispatch's durations are the events', per execution; the CPU one's the host's.
  EXPECT_EQ(m->dispatchDurations(0),
            (std::vector<int64_t>{1000, 3000, 1000, 3000, 1000, 3000, 1000, 3000}));
  std::vector<int64_t> cpu = m->dispatchDurations(1);
  EXPECT_EQ(cpu, m->collector.dispatchDurations(1));
  ASSERT_EQ(cpu.size(), 4u);
  EXPECT_GE(cpu[0], 50'000);
  // What reaches the DB: the same durations, starts kept on the host's offsets.
  std::vector<SampleRecord> rows = m->samples();
  std::vector<int64_t> stored0, stored1;
  for (const SampleRecord &r : rows) {
    if (r.dispatchId == 0)
      stored0.push_back(r.durationNs());
    if (r.dispatchId == 1)
      stored1.push_back(r.durationNs());
  }
  EXPECT_EQ(stored0, m->dispatchDurations(0));
  EXPECT_EQ(stored1, cpu);
  const CpuCollector::DispatchTiming &first = m->collector.dispatches().front();
  EXPECT_EQ(rows[m->collector.numReps()].startNs, first.startNs);
}

TEST(Measure, CudaEventErrorsFailTheMeasurement) {
  FakeGpu gpu;
  gpu.failElapsedCall = 3; // the second repetition's second read
  MeasureOptions o;
  o.warmupReps = 0;
  o.reps = 10;
  int runs = 0;
  RepetitionFn counted = [&, inner = gpuWorkload(gpu)](loupe::ral::Tracer *t) {
    ++runs;
    return inner(t);
  };
  auto m = measure(o, CacheMode::Hot, counted, cudaEventsEnv(gpu));
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(runs, 2); // stops at the repetition that failed
  EXPECT_EQ(m.status().message().rfind("CUDA events: the elapsed time of dispatch 0 in "
                                       "repetition 1: ",
                                       0),
            0u)
      << m.status().message();
}

TEST(Measure, DispatchDurationsAreTheEventsWhenTheyTimed) {
  Measurement m;
  for (int rep = 0; rep < 2; ++rep) {
    m.collector.beginRep();
    m.collector.beginDispatch(0);
    m.collector.endDispatch(0);
    m.collector.endRep();
  }
  EXPECT_EQ(m.dispatchDurations(0), m.collector.dispatchDurations(0)); // host
  m.eventTimings = {{0, 0, 700}, {1, 0, 900}};
  EXPECT_EQ(m.dispatchDurations(0), (std::vector<int64_t>{700, 900}));
  EXPECT_EQ(m.samples()[2].durationNs(), 700);
  EXPECT_EQ(m.samples()[3].durationNs(), 900);
}

// --- Cache flush -------------------------------------------------------------------------

TEST(CacheFlush, ParsesSysfsSizes) {
  EXPECT_EQ(parseCacheSize("32K\n"), 32u << 10);
  EXPECT_EQ(parseCacheSize("  36608K "), 36608u << 10);
  EXPECT_EQ(parseCacheSize("2M"), 2u << 20);
  EXPECT_EQ(parseCacheSize("512"), 512u);
  EXPECT_EQ(parseCacheSize(""), 0u);
  EXPECT_EQ(parseCacheSize("K"), 0u);
  EXPECT_EQ(parseCacheSize("12Q"), 0u);
}

TEST(CacheFlush, LastLevelCacheFromFixture) {
  // A Sapphire Rapids cpu0: L1d 48K, L1i 32K, L2 2048K, L3 107520K.
  std::string dir = std::string(LOUPE_SOURCE_DIR) + "/tests/unit/profiler/fixtures/sysfs_cache";
  EXPECT_EQ(lastLevelCacheBytes(dir), size_t(107520) << 10);
  EXPECT_EQ(cpuFlushBytes(lastLevelCacheBytes(dir)), size_t(2 * 107520) << 10);
  EXPECT_EQ(lastLevelCacheBytes("/no/such/dir"), 0u);
  EXPECT_EQ(cpuFlushBytes(0), kDefaultCpuFlushBytes);
}

TEST(CacheFlush, CpuFlusherWritesItsBuffer) {
  auto flusher = makeCpuFlusher(1 << 20);
  EXPECT_EQ(flusher->bytes(), size_t(1) << 20);
  EXPECT_TRUE(flusher->flush().isOk());
  EXPECT_NE(flusher->describe().find("1 MiB"), std::string::npos) << flusher->describe();
  // The default size follows this machine's sysfs.
  size_t llc = lastLevelCacheBytes();
  EXPECT_EQ(makeCpuFlusher()->bytes(), cpuFlushBytes(llc));
}

// --- GPU paths (skip without a GPU) ---------------------------------------------------

TEST(SmClockTest, ClearErrorsOrAClock) {
  auto empty = SmClock::open("");
  EXPECT_EQ(empty.status().code(), StatusCode::kUnavailable);
  auto driver = loupe::ral::CudaDriver::create(0);
  if (!driver) {
    auto clock = SmClock::open("0000:00:00.0");
    ASSERT_FALSE(clock.isOk());
    EXPECT_EQ(clock.status().code(), StatusCode::kUnavailable);
    // Without a driver NVML is missing too; with NVML but no GPU the bus id is unknown.
    GTEST_SKIP() << "no GPU (" << driver.status().message() << "); NVML says: "
                 << clock.status().message();
  }
  auto clock = SmClock::open((*driver)->pciBusId());
  ASSERT_TRUE(clock.isOk()) << clock.status().message();
  auto mhz = (*clock)->readMhz();
  ASSERT_TRUE(mhz.isOk()) << mhz.status().message();
  EXPECT_GT(*mhz, 100);
  EXPECT_LT(*mhz, 5000);
}

TEST(CacheFlush, CudaFlusherUsesTwiceTheL2) {
  auto driver = loupe::ral::CudaDriver::create(0);
  if (!driver)
    GTEST_SKIP() << "no GPU: " << driver.status().message();
  EXPECT_GT((*driver)->l2CacheBytes(), 0u);
  auto flusher = makeCudaFlusher(**driver);
  ASSERT_TRUE(flusher.isOk()) << flusher.status().message();
  EXPECT_EQ((*flusher)->bytes(), 2 * (*driver)->l2CacheBytes());
  EXPECT_TRUE((*flusher)->flush().isOk());
  EXPECT_TRUE((*flusher)->flush().isOk());
}
