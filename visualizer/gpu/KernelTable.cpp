//===- KernelTable.cpp - The GPU kernel table's columns and cells -------------===//
#include "loupe/visualizer/gpu/KernelTable.h"

#include "loupe/visualizer/Format.h"

#include <cmath>
#include <cstdio>

namespace loupe::visualizer::gpu {

namespace {
bool isKernel(const KernelRow &row) { return row.kind == ActivityKind::Kernel; }

std::string triple(const int32_t v[3]) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%dx%dx%d", v[0], v[1], v[2]);
  return buf;
}

int64_t product(const int32_t v[3]) {
  return int64_t(v[0]) * int64_t(v[1]) * int64_t(v[2]);
}

template <class T> int cmp(T a, T b) { return a < b ? -1 : (b < a ? 1 : 0); }

/// A rate for sorting: unknown below every known one.
double sortable(double rate) { return std::isnan(rate) ? -1 : rate; }

const char *kNoArithmetic = "copies and sets do no floating-point arithmetic";

/// What a kernel's rate divides by: its median duration, or for a dispatch of several kernels
/// their summed time, so the rate is the dispatch's.
std::string dispatchRateNote(const KernelRow &row) {
  if (row.dispatchKernels <= 1)
    return ", at the median duration";
  return ", at the median summed time of the dispatch's " + std::to_string(row.dispatchKernels) +
         " kernels per repetition (" + formatNs(row.dispatchNs) +
         "): the dispatch's rate, not this kernel's";
}
} // namespace

const char *kernelColumnName(KernelColumn column) {
  switch (column) {
  case KernelColumn::Name: return "kernel";
  case KernelColumn::Streams: return "stream";
  case KernelColumn::Calls: return "calls";
  case KernelColumn::Grid: return "grid";
  case KernelColumn::Block: return "block";
  case KernelColumn::Registers: return "regs";
  case KernelColumn::SharedMemory: return "shared mem";
  case KernelColumn::Median: return "median";
  case KernelColumn::Total: return "total";
  case KernelColumn::Bytes: return "bytes";
  case KernelColumn::Bandwidth: return "GB/s";
  case KernelColumn::FlopRate: return "GFLOP/s";
  case KernelColumn::Count: break;
  }
  return "?";
}

std::string kernelCell(const KernelRow &row, KernelColumn column) {
  switch (column) {
  case KernelColumn::Name:
    return row.shortName;
  case KernelColumn::Streams: {
    std::string s;
    for (int64_t id : row.streams)
      s += (s.empty() ? "" : ", ") + std::to_string(id);
    return s;
  }
  case KernelColumn::Calls:
    return std::to_string(row.calls);
  case KernelColumn::Grid:
    return isKernel(row) ? triple(row.grid) : "";
  case KernelColumn::Block:
    return isKernel(row) ? triple(row.block) : "";
  case KernelColumn::Registers:
    return isKernel(row) ? std::to_string(row.registersPerThread) : "";
  case KernelColumn::SharedMemory:
    return isKernel(row) ? formatBytes(static_cast<double>(row.sharedMemory())) : "";
  case KernelColumn::Median:
    return formatNs(row.medianNs);
  case KernelColumn::Total:
    return formatNs(row.totalNs);
  case KernelColumn::Bytes:
    return row.bytes >= 0 ? formatBytes(static_cast<double>(row.bytes)) : "";
  case KernelColumn::Bandwidth:
    return std::isnan(row.bandwidthGBs()) ? "" : formatRate(row.bandwidthGBs());
  case KernelColumn::FlopRate:
    return std::isnan(row.gflops()) ? "" : formatRate(row.gflops());
  case KernelColumn::Count:
    break;
  }
  return "";
}

std::string kernelCellWhy(const KernelRow &row, KernelColumn column) {
  switch (column) {
  case KernelColumn::Name: {
    std::string s = row.name;
    if (row.dispatchId >= 0)
      s += "\ndispatch " + std::to_string(row.dispatchId);
    if (row.clusterId >= 0)
      s += ", cluster " + std::to_string(row.clusterId);
    return s;
  }
  case KernelColumn::SharedMemory:
    return isKernel(row) ? "static " + std::to_string(row.staticSharedMemory) + " B + dynamic " +
                               std::to_string(row.dynamicSharedMemory) + " B per block"
                         : "";
  case KernelColumn::Median:
    return "min " + formatNs(static_cast<double>(row.minNs)) + ", max " +
           formatNs(static_cast<double>(row.maxNs));
  case KernelColumn::Total:
    return formatPercent(row.share) + " of the GPU time";
  case KernelColumn::Bytes:
  case KernelColumn::Bandwidth:
    if (row.bytes < 0)
      return row.rateWhy;
    if (isKernel(row))
      return std::to_string(row.bytes) +
             " bytes per call of dispatch " + std::to_string(row.dispatchId) +
             " (its distinct buffers read and written, as the compiler counted them)" +
             (column == KernelColumn::Bandwidth ? dispatchRateNote(row) : "");
    if (row.kind == ActivityKind::Memset)
      return std::to_string(row.bytes) + " bytes of " + memoryKindName(row.dstKind) +
             " memory set per call" +
             (column == KernelColumn::Bandwidth ? ", at the median duration" : "");
    return std::to_string(row.bytes) + " bytes " + memoryKindName(row.srcKind) + " -> " +
           memoryKindName(row.dstKind) + " per call" +
           (column == KernelColumn::Bandwidth ? ", at the median duration" : "");
  case KernelColumn::FlopRate:
    if (row.flops < 0)
      return isKernel(row) ? row.rateWhy : kNoArithmetic;
    return std::to_string(row.flops) + " FLOPs per call of dispatch " +
           std::to_string(row.dispatchId) + " (as the compiler counted them)" +
           dispatchRateNote(row);
  default:
    return "";
  }
}

int compareKernelRows(const KernelRow &a, const KernelRow &b, KernelColumn column) {
  switch (column) {
  case KernelColumn::Name: {
    int c = a.shortName.compare(b.shortName);
    return c != 0 ? (c < 0 ? -1 : 1) : cmp(a.name, b.name);
  }
  case KernelColumn::Streams:
    return cmp(a.streams, b.streams);
  case KernelColumn::Calls: return cmp(a.calls, b.calls);
  case KernelColumn::Grid: return cmp(product(a.grid), product(b.grid));
  case KernelColumn::Block: return cmp(product(a.block), product(b.block));
  case KernelColumn::Registers: return cmp(a.registersPerThread, b.registersPerThread);
  case KernelColumn::SharedMemory: return cmp(a.sharedMemory(), b.sharedMemory());
  case KernelColumn::Median: return cmp(a.medianNs, b.medianNs);
  case KernelColumn::Total: return cmp(a.totalNs, b.totalNs);
  case KernelColumn::Bytes: return cmp(a.bytes, b.bytes);
  case KernelColumn::Bandwidth: return cmp(sortable(a.bandwidthGBs()), sortable(b.bandwidthGBs()));
  case KernelColumn::FlopRate: return cmp(sortable(a.gflops()), sortable(b.gflops()));
  case KernelColumn::Count: break;
  }
  return 0;
}

} // namespace loupe::visualizer::gpu
