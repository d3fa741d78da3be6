//===- KernelTable.h - The GPU kernel table's columns and cells ---*- C++ -*-===//
//
// What each cell of the Profile panel's GPU kernel table says about a KernelRow, why an empty
// one is empty, and how a column sorts. The panel draws these; tests read them. No ImGui.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_GPU_KERNELTABLE_H
#define LOUPE_VISUALIZER_GPU_KERNELTABLE_H

#include "loupe/visualizer/gpu/GpuActivity.h"

#include <string>

namespace loupe::visualizer::gpu {

/// Columns of the kernel table, in display order.
enum class KernelColumn {
  Name,         ///< Short kernel name, or "memcpy HtoD" / "memset".
  Streams,      ///< Streams it ran on.
  Calls,        ///< Executions.
  Grid,         ///< "64x32x1".
  Block,        ///< "256x1x1".
  Registers,    ///< Registers per thread.
  SharedMemory, ///< Static + dynamic shared memory per block.
  Median,       ///< Median duration.
  Total,        ///< Summed durations (with its share of the GPU time).
  Bytes,        ///< Bytes per execution (copies and sets).
  Bandwidth,    ///< Achieved GB/s at the median duration.
  FlopRate,     ///< Achieved GFLOP/s at the median duration.
  Count
};

/// Header of a column: "kernel", "stream", "calls", "grid", "block", "regs", "shared mem",
/// "median", "total", "bytes", "GB/s", "GFLOP/s".
const char *kernelColumnName(KernelColumn column);

/// The text of a cell; "" when the value is unknown or does not apply (kernelCellWhy says why).
std::string kernelCell(const KernelRow &row, KernelColumn column);
/// The tooltip of a cell: why it is empty, or the details behind its value (the full kernel
/// name, the shared memory split, exact bytes...); "" for none.
std::string kernelCellWhy(const KernelRow &row, KernelColumn column);

/// Orders two rows by a column (-1, 0, 1). Unknown rates sort below every known one.
int compareKernelRows(const KernelRow &a, const KernelRow &b, KernelColumn column);

} // namespace loupe::visualizer::gpu

#endif // LOUPE_VISUALIZER_GPU_KERNELTABLE_H
