//===- Measure.cpp - Warmup, sampling and the noise stopping rule ----------===//

#include "loupe/profiler/Measure.h"

#include "loupe/profiler/ForwardingTracer.h"
#include "loupe/profiler/GpuRunProfile.h"

#include "loupe/profiler/Statistics.h"
#include "loupe/ral/Context.h"
#include "loupe/ral/CpuDriver.h"
#include "loupe/ral/CudaDriver.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>

#include <sys/resource.h>

namespace loupe::profiler {

std::optional<std::vector<CacheMode>> parseCacheModes(const std::string &name) {
  if (name == "both")
    return std::vector<CacheMode>{CacheMode::Hot, CacheMode::Cold};
  if (std::optional<CacheMode> mode = parseCacheMode(name))
    return std::vector<CacheMode>{*mode};
  return std::nullopt;
}

std::vector<MeasureOptionError> rangeErrors(const MeasureOptions &o) {
  std::vector<MeasureOptionError> errors;
  auto check = [&](bool ok, const char *field, const char *flag, std::string rule) {
    if (!ok)
      errors.push_back({field, flag, std::move(rule)});
  };
  check(o.warmupReps >= -1, "warmup", "--warmup", "must be >= 0, or -1 to warm up for warmup_ms");
  check(o.warmupMs >= 0, "warmup_ms", "--warmup-ms", "must be >= 0");
  check(o.reps >= 0, "reps", "--reps", "must be >= 1, or 0 to sample until the noise target");
  check(o.minReps >= 10, "min_reps", "--min-reps",
        "must be >= 10 (DESIGN.md: at least 10 samples)");
  check(o.maxReps >= o.minReps, "max_reps", "--max-reps",
        "(" + std::to_string(o.maxReps) + ") must be >= min_reps (" + std::to_string(o.minReps) +
            ")");
  check(o.maxMs > 0, "max_ms", "--max-ms", "must be > 0");
  check(o.noise > 0 && o.noise < 1, "noise", "--noise", "must be in (0, 1), e.g. 0.02 for 2%");
  return errors;
}

ral::Status validate(const MeasureOptions &o) {
  std::vector<MeasureOptionError> errors = rangeErrors(o);
  if (errors.empty())
    return ral::Status::ok();
  return ral::invalidArgument(errors.front().flag + " " + errors.front().rule);
}

int64_t timerResolutionNs() {
  static const int64_t resolution = [] {
    using Clock = std::chrono::steady_clock;
    int64_t best = std::numeric_limits<int64_t>::max();
    for (int i = 0; i < 2000; ++i) {
      Clock::time_point a = Clock::now(), b = Clock::now();
      while (b == a)
        b = Clock::now();
      best = std::min<int64_t>(best, std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count());
    }
    return std::max<int64_t>(best, 1);
  }();
  return resolution;
}

double relativeNoise(const std::vector<int64_t> &durationsNs) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (durationsNs.size() < 2)
    return kInf;
  std::vector<int64_t> sorted = durationsNs;
  std::sort(sorted.begin(), sorted.end());
  double iqr = quantileSorted(sorted, 0.75) - quantileSorted(sorted, 0.25);
  if (iqr <= 0)
    return 0;
  double med = quantileSorted(sorted, 0.5);
  if (med <= 0)
    return kInf;
  // sqrt(pi / 2) * (IQR / 1.349) / sqrt(n), relative to the median (Measure.h).
  const double kSigmaPerIqr = 1 / 1.349, kMedianSe = std::sqrt(M_PI / 2);
  return kMedianSe * kSigmaPerIqr * iqr / std::sqrt(double(sorted.size())) / med;
}

std::optional<StopReason> stopAfter(const MeasureOptions &o,
                                    const std::vector<int64_t> &durationsNs, int64_t elapsedNs,
                                    double *noise) {
  int64_t n = static_cast<int64_t>(durationsNs.size());
  if (noise)
    *noise = std::numeric_limits<double>::infinity();
  if (o.reps > 0)
    return n >= o.reps ? std::optional(StopReason::Exact) : std::nullopt;
  if (n < o.minReps)
    return n >= o.maxReps ? std::optional(StopReason::MaxReps) : std::nullopt;
  double current = relativeNoise(durationsNs);
  if (noise)
    *noise = current;
  if (current <= o.noise)
    return StopReason::Noise;
  if (n >= o.maxReps)
    return StopReason::MaxReps;
  if (double(elapsedNs) >= o.maxMs * 1e6)
    return StopReason::MaxTime;
  return std::nullopt;
}

bool warmupDone(const MeasureOptions &o, int64_t repsDone, int64_t elapsedNs) {
  if (o.warmupReps >= 0)
    return repsDone >= o.warmupReps;
  return repsDone >= 1 && double(elapsedNs) >= o.warmupMs * 1e6;
}

namespace {

/// The CUDA-event durations of a measurement, handed out per (repetition, dispatch) in begin
/// order: the k-th execution of a dispatch in a repetition gets the k-th timing of that
/// dispatch there (the timer and the CPU collector see the same events in the same order).
class EventDurations {
public:
  /// Keeps the timings of dispatch `only` when given, else all.
  explicit EventDurations(const std::vector<GpuDispatchTiming> &timings,
                          std::optional<int64_t> only = std::nullopt) {
    for (const GpuDispatchTiming &t : timings)
      if (!only || t.dispatchId == *only)
        byDispatch_[{t.rep, t.dispatchId}].durations.push_back(t.durationNs);
  }
  /// The GPU span of the next execution of `dispatchId` in `rep`; nullopt when the events did
  /// not time it (a CPU dispatch).
  std::optional<int64_t> next(int64_t rep, int64_t dispatchId) {
    auto it = byDispatch_.find({rep, dispatchId});
    if (it == byDispatch_.end() || it->second.taken == it->second.durations.size())
      return std::nullopt;
    return it->second.durations[it->second.taken++];
  }

private:
  struct Queue {
    std::vector<int64_t> durations;
    size_t taken = 0;
  };
  std::map<std::pair<int64_t, int64_t>, Queue> byDispatch_;
};

} // namespace

std::vector<SampleRecord> Measurement::samples() const {
  std::vector<SampleRecord> rows = collector.samples();
  std::optional<EventDurations> events;
  if (!eventTimings.empty())
    events.emplace(eventTimings);
  for (SampleRecord &r : rows) {
    if (r.rep >= 0 && size_t(r.rep) < smClockMhz.size())
      r.smClockMhz = smClockMhz[r.rep];
    if (events && r.dispatchId != kWholeRep)
      if (std::optional<int64_t> gpuNs = events->next(r.rep, r.dispatchId))
        r.endNs = r.startNs + *gpuNs;
  }
  return rows;
}

std::optional<double> medianSmClockMhz(const std::vector<std::optional<int32_t>> &clocks) {
  std::vector<int64_t> read;
  for (const std::optional<int32_t> &c : clocks)
    if (c)
      read.push_back(*c);
  if (read.empty())
    return std::nullopt;
  return median(std::move(read));
}

namespace {

/// Dispatch events to the collector (while measuring) and every event on to `next`.
class MeasureTracer : public ForwardingTracer {
public:
  MeasureTracer(CpuCollector *collector, ral::Tracer *next)
      : ForwardingTracer(next), collector_(collector) {}
  void onDispatchBegin(const ral::DispatchEvent &e) override {
    ForwardingTracer::onDispatchBegin(e);
    if (collector_)
      collector_->beginDispatch(e.dispatchId);
  }
  void onDispatchEnd(const ral::DispatchEvent &e) override {
    if (collector_)
      collector_->endDispatch(e.dispatchId);
    ForwardingTracer::onDispatchEnd(e);
  }

private:
  CpuCollector *collector_;
};

} // namespace

/// The process's minor page faults so far (getrusage), -1 when unknown.
static int64_t minorFaults() {
  rusage usage{};
  return getrusage(RUSAGE_SELF, &usage) == 0 ? int64_t(usage.ru_minflt) : -1;
}

ral::StatusOr<Measurement> measure(const MeasureOptions &options, CacheMode mode,
                                   const RepetitionFn &run, const MeasureEnv &env) {
  if (ral::Status s = validate(options); !s)
    return s;
  if (mode == CacheMode::Cold && !env.flusher)
    return ral::internalError("a cold measurement needs a cache flusher");
  auto cancelled = [&] { return env.cancel && env.cancel->load(std::memory_order_relaxed); };
  auto report = [&](const char *stage, double f) {
    if (env.progress)
      env.progress(stage, std::clamp(f, 0.0, 1.0));
  };
  Measurement m;
  m.record.mode = mode;
  m.record.clockNote = env.clockNote;

  // Warmup: the caller's tracer only (fallbacks are counted over warmup too).
  MeasureTracer warmupTracer(nullptr, env.next);
  int64_t start = CpuCollector::nowNs();
  for (int64_t done = 0;; ++done) {
    int64_t elapsed = CpuCollector::nowNs() - start;
    if (warmupDone(options, done, elapsed)) {
      m.record.warmupReps = done;
      m.record.warmupNs = elapsed;
      break;
    }
    if (cancelled()) {
      m.cancelled = true;
      return m;
    }
    report("warmup", options.warmupReps >= 0 ? double(done) / options.warmupReps
                                             : elapsed / (options.warmupMs * 1e6));
    if (ral::Status s = run(&warmupTracer); !s)
      return s;
  }

  // Sampling.
  size_t reserve = options.reps > 0 ? size_t(options.reps) : size_t(options.maxReps);
  reserve = std::min<size_t>(reserve, 100000);
  m.collector.reserve(reserve, env.dispatchesPerRep);
  m.smClockMhz.reserve(reserve);
  MeasureTracer tracer(&m.collector, env.next);
  // On a GPU, CUPTI (or the CUDA-events timer) sees the samples' kernels (not the warmup's)
  // and forwards every event on.
  std::unique_ptr<GpuRunProfile> gpu;
  if (env.cupti) {
    gpu = env.makeGpuProfile ? env.makeGpuProfile(&tracer)
                             : std::make_unique<GpuRunProfile>(&tracer, env.cuda);
    m.record.kernelTiming = gpu->note();
  }
  ral::Tracer *sampleTracer = gpu ? gpu->tracer() : &tracer;
  std::vector<int64_t> durations;
  durations.reserve(reserve);
  int64_t faultsInReps = 0; // minor faults between each repetition's start and end
  int64_t stallsBefore = env.pool ? env.pool->governor().soloStretches() : 0;
  start = CpuCollector::nowNs();
  while (true) {
    int64_t elapsed = CpuCollector::nowNs() - start;
    double noise = 0;
    if (std::optional<StopReason> stop = stopAfter(options, durations, elapsed, &noise)) {
      m.record.stop = *stop;
      m.record.sampleNs = elapsed;
      break;
    }
    if (cancelled()) {
      m.cancelled = true;
      return m;
    }
    report("run", options.reps > 0 ? double(durations.size()) / options.reps
                                   : std::max(double(durations.size()) / options.maxReps,
                                              elapsed / (options.maxMs * 1e6)));
    if (mode == CacheMode::Cold)
      if (ral::Status s = env.flusher->flush(); !s)
        return ral::Status(s.code(), "flushing the caches: " + s.message());
    if (gpu)
      gpu->beginRep(true);
    m.collector.prepareRep();
    int64_t faultsBefore = minorFaults();
    m.collector.beginRep();
    ral::Status s = run(sampleTracer);
    m.collector.endRep();
    int64_t faultsAfter = minorFaults();
    faultsInReps = faultsBefore < 0 || faultsAfter < 0 || faultsInReps < 0
                       ? -1
                       : faultsInReps + faultsAfter - faultsBefore;
    if (gpu)
      if (ral::Status timed = gpu->endRep(); !timed && s)
        s = timed;
    if (!s)
      return s;
    durations.push_back(m.collector.reps().back().durationNs());
    std::optional<int32_t> mhz;
    if (env.clock) {
      ral::StatusOr<int32_t> read = env.clock->readMhz();
      if (read)
        mhz = *read;
      else if (m.record.clockNote.empty())
        m.record.clockNote = read.status().message();
    }
    m.smClockMhz.push_back(mhz);
  }
  report("run", 1);
  if (faultsInReps >= 0 && !durations.empty())
    m.record.minorFaultsPerRep = double(faultsInReps) / double(durations.size());
  if (env.pool)
    m.record.threadStalls = env.pool->governor().soloStretches() - stallsBefore;
  if (gpu) {
    if (ral::Status s = gpu->finish(); !s)
      return s;
    m.kernels = gpu->kernels();
    m.memcpys = gpu->memcpys();
    m.eventTimings = gpu->eventTimings();
  }
  if (m.collector.unmatchedEvents() != 0)
    return ral::internalError("the artifact's dispatch events do not pair up (" +
                              std::to_string(m.collector.unmatchedEvents()) + " unmatched)");
  m.record.reps = static_cast<int64_t>(durations.size());
  m.record.noise = durations.size() < 2 ? std::nan("") : relativeNoise(durations);
  m.record.flushBytes = mode == CacheMode::Cold ? static_cast<int64_t>(env.flusher->bytes()) : 0;
  return m;
}

std::vector<int64_t> Measurement::dispatchDurations(int64_t id) const {
  if (!eventTimings.empty()) {
    EventDurations events(eventTimings, id);
    std::vector<int64_t> out;
    for (const CpuCollector::DispatchTiming &d : collector.dispatches())
      if (d.dispatchId == id && d.endNs >= 0)
        out.push_back(events.next(d.rep, id).value_or(d.durationNs()));
    return out;
  }
  if (kernels.empty())
    return collector.dispatchDurations(id);
  std::vector<int64_t> perSample(collector.reps().size(), 0);
  bool any = false;
  for (const KernelRecord &k : kernels)
    if (k.dispatchId == id && k.rep >= 0 && k.rep < static_cast<int64_t>(perSample.size())) {
      perSample[static_cast<size_t>(k.rep)] += k.end - k.start;
      any = true;
    }
  return any ? perSample : std::vector<int64_t>();
}

ral::StatusOr<DeviceProbes> probeDevice(const ral::Artifact &artifact, bool needFlusher) {
  DeviceProbes probes;
  const std::string &target = artifact.manifest().target;
  if (target != "cuda" && target != "gpu") {
    if (needFlusher)
      probes.flusher = makeCpuFlusher();
    return probes;
  }
  if (!artifact.context())
    return ral::invalidArgument("a GPU artifact without a RAL context: " + artifact.path());
  ral::StatusOr<ral::CudaDriver *> cuda = artifact.context()->cuda();
  if (!cuda)
    return cuda.status();
  probes.cuda = *cuda;
  if (needFlusher) {
    auto flusher = makeCudaFlusher(**cuda);
    if (!flusher)
      return flusher.status();
    probes.flusher = std::move(*flusher);
  }
  auto clock = SmClock::open((*cuda)->pciBusId());
  if (clock)
    probes.clock = std::move(*clock);
  else
    probes.clockNote = "no SM clock: " + clock.status().message();
  return probes;
}

ral::StatusOr<std::vector<Measurement>> measureArtifact(const ral::Artifact &artifact,
                                                        const std::vector<ral::Tensor> &inputs,
                                                        std::vector<ral::Tensor> &outputs,
                                                        const MeasureOptions &options,
                                                        const std::vector<CacheMode> &modes,
                                                        MeasureEnv env) {
  bool cold = std::find(modes.begin(), modes.end(), CacheMode::Cold) != modes.end();
  ral::StatusOr<DeviceProbes> probes = probeDevice(artifact, cold);
  if (!probes)
    return probes.status();
  env.flusher = probes->flusher.get();
  env.clock = probes->clock.get();
  env.clockNote = probes->clockNote;
  env.cuda = probes->cuda;
  env.dispatchesPerRep = artifact.manifest().dispatches.size();
  env.cupti = artifact.manifest().target == "cuda" || artifact.manifest().target == "gpu";
  if (artifact.context())
    env.pool = &artifact.context()->cpu().threadPool();
  RepetitionFn run = [&](ral::Tracer *tracer) {
    ral::Status status = artifact.run(inputs, outputs, tracer);
    if (env.injectedDelayNs > 0) {
      auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(env.injectedDelayNs);
      while (std::chrono::steady_clock::now() < until) {
      }
    }
    return status;
  };
  std::vector<Measurement> out;
  for (CacheMode mode : modes) {
    ral::StatusOr<Measurement> m = measure(options, mode, run, env);
    if (!m)
      return m.status();
    out.push_back(std::move(*m));
    if (out.back().cancelled)
      break;
  }
  return out;
}

} // namespace loupe::profiler
