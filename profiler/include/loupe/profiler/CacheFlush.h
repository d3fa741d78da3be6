//===- CacheFlush.h - Evicting caches before a cold sample -------*- C++ -*-===//
//
// Cold measurements (Measure.h) start every sample with caches that hold none of the
// workload's data, as nvbench's cold mode does: write a buffer larger than the cache, outside
// the timed region. CPU: 2 x the last-level cache the kernel reports for cpu0 (sysfs), 64 MiB
// when it says nothing; one thread writes it, so other cores' private L1/L2 are not flushed
// (they are small next to the last-level cache). GPU: 2 x the L2 (ral::CudaDriver::
// l2CacheBytes()), set with cuMemsetD8Async on the flusher's own stream and synchronized.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_PROFILER_CACHEFLUSH_H
#define LOUPE_PROFILER_CACHEFLUSH_H

#include "loupe/ral/Status.h"

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace loupe::ral {
class CudaDriver;
}

namespace loupe::profiler {

/// Where Linux describes cpu0's caches: index*/level, index*/type, index*/size.
inline constexpr const char *kCpuCacheDir = "/sys/devices/system/cpu/cpu0/cache";
/// CPU flush size when the last-level cache is unknown.
inline constexpr size_t kDefaultCpuFlushBytes = size_t(64) << 20;
/// GPU flush size when the driver does not report the L2 size.
inline constexpr size_t kDefaultGpuFlushBytes = size_t(256) << 20;

/// Parses a sysfs cache size ("32768K", "1M", "512": bytes; surrounding whitespace allowed);
/// 0 when malformed or empty.
size_t parseCacheSize(std::string_view text);

/// Size in bytes of the highest-level data or unified cache described under `cacheDir`
/// (index*/level, index*/type, index*/size, as in kCpuCacheDir); 0 when nothing is readable.
size_t lastLevelCacheBytes(const std::string &cacheDir = kCpuCacheDir);

/// Bytes a CPU flush writes: 2 x `llcBytes`, or kDefaultCpuFlushBytes when it is 0.
size_t cpuFlushBytes(size_t llcBytes);

/// Evicts caches before a cold sample. Not thread-safe; one per measuring thread.
class CacheFlusher {
public:
  virtual ~CacheFlusher() = default;
  /// Writes bytes() bytes and returns once the writes are done.
  virtual ral::Status flush() = 0;
  /// Bytes written by one flush.
  virtual size_t bytes() const = 0;
  /// E.g. "cpu: 64 MiB (2 x 32 MiB last-level cache)".
  virtual std::string describe() const = 0;
};

/// A CPU flusher writing `bytes` (cpuFlushBytes(lastLevelCacheBytes()) when 0).
std::unique_ptr<CacheFlusher> makeCpuFlusher(size_t bytes = 0);

/// A GPU flusher on `driver`'s device: 2 x its L2 (kDefaultGpuFlushBytes when unknown), device
/// memory allocated now and freed with the flusher. Errors: stream creation, allocation
/// (the driver's statuses). `driver` must outlive the flusher.
ral::StatusOr<std::unique_ptr<CacheFlusher>> makeCudaFlusher(const ral::CudaDriver &driver);

} // namespace loupe::profiler

#endif // LOUPE_PROFILER_CACHEFLUSH_H
