//===- MachinePeaks.h - This host's peak FLOP rate and bandwidth -*- C++ -*-===//
//
// The roofs of a roofline (S. Williams, A. Waterman, D. Patterson, "Roofline: an insightful
// visual performance model for multicore architectures", CACM 52(4), 2009), measured rather
// than taken from a data sheet: f32 fused multiply-adds on independent vector accumulators on
// every CPU at once, and a STREAM-style triad (J. McCalpin) over arrays far larger than the
// caches. About 0.3 s. A shared VM gives what it gives at that moment: the report says so.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_PROFILER_MACHINEPEAKS_H
#define LOUPE_PROFILER_MACHINEPEAKS_H

#include <string>

namespace loupe::profiler {

struct MachinePeaks {
  double flopsPerSecond = 0; ///< f32 FLOP/s (an FMA counts 2), all CPUs.
  double bytesPerSecond = 0; ///< Triad a[i] = b[i] + s * c[i]: 12 bytes per element moved.
  std::string how;           ///< e.g. "2 threads, 8-wide FMA x 10 accumulators; triad of 3 x 64 MiB".
};

/// Measures both, best of a few tries; the result is cached for the process.
MachinePeaks measureMachinePeaks();

} // namespace loupe::profiler

#endif // LOUPE_PROFILER_MACHINEPEAKS_H
