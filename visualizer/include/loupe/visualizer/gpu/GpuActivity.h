//===- GpuActivity.h - A run's GPU kernels, copies and sets by stream -*- C++ -*-===//
//
// What the Profile panel shows of a GPU run (CUPTI collection, or `loupe db import-nsys`): the
// kernel table — the executions of each kernel with one launch configuration, and of each kind
// and size of copy or set, with grid, block, registers, shared memory, durations and achieved
// rates — and the stream timeline: per CUDA stream a track of its kernels, plus a track of its
// copies and one of its sets when it has any, per repetition. Built once per loaded run on the
// data worker (makeProfileView). No ImGui.
//
// Achieved rates need the bytes and floating-point operations of an execution. Copies and sets
// know their bytes (MemcpyRecord::bytes); kernels take theirs from their dispatch, as the
// compiler counted them (DispatchRecord::bytes, ::flops; loupe-instrument-dispatches). A
// dispatch that launches several kernels per repetition (a cuBLAS call) has one rate: its
// counts over the median of its kernels' summed time per repetition, shown on each of its
// kernels. Kernels without counts (no dispatch, or 0: an import, an older artifact, an op
// the compiler cannot count) have no rates, and KernelRow::rateWhy says why.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_GPU_GPUACTIVITY_H
#define LOUPE_VISUALIZER_GPU_GPUACTIVITY_H

#include "loupe/profiler/Records.h"
#include "loupe/visualizer/ViewModel.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace loupe::visualizer::gpu {

enum class ActivityKind { Kernel, Memcpy, Memset };

/// CUpti_ActivityMemcpyKind in words: 1 "HtoD", 2 "DtoH", 8 "DtoD", 9 "HtoH", 10 "PtoP", the
/// array kinds ("HtoA", ...); "kind N" for others.
std::string copyKindName(int32_t copyKind);
/// CUpti_ActivityMemoryKind in words: 1 "pageable", 2 "pinned", 3 "device", 4 "array",
/// 5 "managed", 6 "device static", 7 "managed static"; "unknown" for others.
std::string memoryKindName(int32_t memoryKind);

/// A demangled kernel name without return type, namespaces, template arguments and parameters,
/// as Nsight Systems' shortName: "void at::native::vectorized_elementwise_kernel<4, ...>(int,
/// ...)" -> "vectorized_elementwise_kernel"; a plain name ("fusion_3_kLoop") as it is.
std::string shortKernelName(const std::string &name);

/// `amount` per nanosecond, i.e. giga-units per second: bytes -> GB/s, FLOPs -> GFLOP/s. NaN
/// when the amount is unknown (negative) or the duration is not positive.
double ratePerNs(double amount, double durationNs);

/// One row of the kernel table: every execution of one kernel with one launch configuration
/// (name, grid, block, registers, shared memory, dispatch), or of one kind of copy or set of
/// one size.
struct KernelRow {
  ActivityKind kind = ActivityKind::Kernel;
  /// Demangled kernel name; "memcpy HtoD" (copyKindName) for a copy, "memset" for a set.
  std::string name;
  std::string shortName;        ///< shortKernelName(name); `name` for copies and sets.
  int64_t dispatchId = profiler::kWholeRep; ///< The Loupe dispatch that launched it; -1: none.
  int64_t clusterId = -1;       ///< That dispatch's cluster; -1: none or unknown.
  std::vector<int64_t> streams; ///< Streams it ran on, sorted.
  int32_t grid[3] = {0, 0, 0};  ///< Kernels: gridX, gridY, gridZ.
  int32_t block[3] = {0, 0, 0}; ///< Kernels: blockX, blockY, blockZ.
  int32_t registersPerThread = 0;
  int64_t staticSharedMemory = 0, dynamicSharedMemory = 0; ///< Bytes per block.
  int32_t copyKind = 0, srcKind = 0, dstKind = 0; ///< Copies and sets, as MemcpyRecord.
  /// Bytes moved or set by one execution (copies and sets), or by one execution of the
  /// kernel's dispatch (kernels); -1: unknown.
  int64_t bytes = -1;
  /// Floating-point operations of one execution of the kernel's dispatch; -1: unknown (kernels
  /// without counts) or none (copies, sets).
  int64_t flops = -1;
  /// Kernels: why bytes or FLOPs are unknown (shown as the rate cells' tooltip).
  std::string rateWhy;
  /// Kernels of a dispatch that launches several kernels per repetition: how many (at most),
  /// and the median of their summed duration per repetition, which the rates divide by; 0 for
  /// a dispatch of one kernel (the rates divide by medianNs).
  size_t dispatchKernels = 0;
  double dispatchNs = 0;
  size_t calls = 0;         ///< Executions.
  double medianNs = 0;      ///< Median duration.
  double totalNs = 0;       ///< Summed durations.
  int64_t minNs = 0, maxNs = 0;
  double share = 0;         ///< totalNs / the sum of every row's totalNs.

  int64_t sharedMemory() const { return staticSharedMemory + dynamicSharedMemory; }
  /// The duration the rates divide by, ns: dispatchNs for a kernel of a multi-kernel
  /// dispatch, else medianNs.
  double rateNs() const { return dispatchKernels > 1 ? dispatchNs : medianNs; }
  /// Achieved bandwidth at rateNs, GB/s; NaN when bytes are unknown.
  double bandwidthGBs() const { return ratePerNs(static_cast<double>(bytes), rateNs()); }
  /// Achieved FLOP rate at rateNs, GFLOP/s; NaN when FLOPs are unknown.
  double gflops() const { return ratePerNs(static_cast<double>(flops), rateNs()); }
};

/// A track of the stream timeline: one kind of work on one stream.
struct Track {
  int64_t deviceId = 0;
  int64_t streamId = 0;
  ActivityKind kind = ActivityKind::Kernel;
  /// "stream 7" (kernels), "stream 7 memcpy", "stream 7 memset"; "GPU 1 stream 7 ..." when the
  /// run used several GPUs.
  std::string label;
};

/// The GPU work of one repetition on the tracks.
struct RepActivity {
  int64_t rep = 0;        ///< KernelRecord::rep; -1: outside every repetition.
  int64_t originNs = 0;   ///< Start of its first operation (the collector's clock).
  int64_t durationNs = 0; ///< End of its last operation - originNs.
  /// Per track (GpuActivity::tracks) its operations as offsets from originNs, sorted by start
  /// (a stream runs its work in order, so they do not overlap); `row` indexes GpuActivity::rows.
  std::vector<std::vector<TimelineSlice>> tracks;
};

/// A run's GPU activity.
struct GpuActivity {
  std::vector<KernelRow> rows;   ///< By first start.
  std::vector<Track> tracks;     ///< By device, stream, then kernels, copies, sets.
  std::vector<RepActivity> reps; ///< By rep; rep -1 (outside repetitions) first.
  size_t kernels = 0, copies = 0, sets = 0; ///< Executions.
  size_t streams = 0;            ///< Distinct (device, stream) pairs.
  size_t devices = 0;            ///< Distinct GPUs (deviceId).
  double kernelNs = 0;           ///< Summed kernel durations.
};

/// The GPU activity of a stored run (its kernels and memcpy rows); null when it has none.
std::shared_ptr<const GpuActivity> buildGpuActivity(const profiler::RunData &data);

} // namespace loupe::visualizer::gpu

#endif // LOUPE_VISUALIZER_GPU_GPUACTIVITY_H
