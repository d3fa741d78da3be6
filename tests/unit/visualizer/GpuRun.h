//===- GpuRun.h - A synthetic GPU run for the Profile panel's GPU views -*- C++ -*-===//
//
// No GPU is needed: the rows are what the CUPTI collector or `loupe db import-nsys` store.
// Per repetition, on the collector's clock from its origin T (ns):
//
//   stream 7:  memcpy HtoD 1 MiB pageable->device [0, 100000]   (10.48576 GB/s)
//              gemm_kernel  grid (64,32,1) block (256,1,1) 168 regs, 16 KiB + 32 KiB shared
//                                                 [110000, 560000]
//              fusion_3_kLoop grid (256,1,1) block (128,1,1) 16 regs [570000, 610000]
//              memcpy DtoH 64 KiB device->pinned [700000, 710000] (6.5536 GB/s)
//   stream 13: memset 4 KiB of device memory      [105000, 110000] (0.8192 GB/s)
//              cub::DeviceReduceKernel grid (132,1,1) block (512,1,1) 40 regs, 4 KiB static
//                                                 [120000, 300000]
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_TESTS_VISUALIZER_GPURUN_H
#define LOUPE_TESTS_VISUALIZER_GPURUN_H

#include "loupe/profiler/Records.h"

#include <string>
#include <vector>

namespace loupe::visualizer::testing {

inline const char *kGemmName = "void gemm_kernel<float, 128>(float const*, float const*, float*, int)";
inline const char *kReduceName = "void cub::DeviceReduceKernel<float>(float const*, float*, int)";
inline const char *kGpuName = "NVIDIA H100 80GB HBM3";

/// The GPU rows of `reps` repetitions (rep r starts at 10 ms + r ms). `dispatches`: kernels
/// carry dispatch ids 0 (gemm), 1 (fusion), 2 (reduce and the memset), as a CUPTI run of a
/// Loupe artifact does; else every row has dispatch -1, as an Nsight Systems import.
inline void addGpuRows(profiler::RunData &data, int reps, bool dispatches) {
  for (int rep = 0; rep < reps; ++rep) {
    int64_t t = 10000000 + int64_t(rep) * 1000000;
    auto id = [&](int64_t d) { return dispatches ? d : profiler::kWholeRep; };
    auto kernel = [&](int64_t dispatch, int64_t start, int64_t end, int64_t stream,
                      const std::string &name, int gx, int gy, int bx, int regs, int64_t smem,
                      int64_t dyn) {
      profiler::KernelRecord k;
      k.rep = rep;
      k.dispatchId = id(dispatch);
      k.start = t + start;
      k.end = t + end;
      k.streamId = stream;
      k.correlationId = 100 + start;
      k.name = name;
      k.gridX = gx, k.gridY = gy, k.gridZ = 1;
      k.blockX = bx, k.blockY = 1, k.blockZ = 1;
      k.registersPerThread = regs;
      k.staticSharedMemory = smem;
      k.dynamicSharedMemory = dyn;
      data.kernels.push_back(k);
    };
    auto copy = [&](int64_t dispatch, int64_t start, int64_t end, int64_t stream, int64_t bytes,
                    int32_t kind, int32_t src, int32_t dst) {
      profiler::MemcpyRecord m;
      m.rep = rep;
      m.dispatchId = id(dispatch);
      m.start = t + start;
      m.end = t + end;
      m.streamId = stream;
      m.correlationId = 100 + start;
      m.bytes = bytes;
      m.copyKind = kind;
      m.srcKind = src;
      m.dstKind = dst;
      data.memcpys.push_back(m);
    };
    kernel(0, 110000, 560000, 7, kGemmName, 64, 32, 256, 168, 16384, 32768);
    kernel(2, 120000, 300000, 13, kReduceName, 132, 1, 512, 40, 4096, 0);
    kernel(1, 570000, 610000, 7, "fusion_3_kLoop", 256, 1, 128, 16, 0, 0);
    copy(-1, 0, 100000, 7, 1 << 20, 1, 1, 3);
    copy(2, 105000, 110000, 13, 4096, -1, 0, 3);
    copy(-1, 700000, 710000, 7, 65536, 2, 3, 2);
  }
}

/// An imported GPU run (Nsight Systems): one repetition, no dispatches, no samples.
inline profiler::RunData makeImportedGpuRun(int64_t id) {
  profiler::RunData data;
  data.summary.id = id;
  data.summary.status = profiler::RunStatus::Complete;
  data.summary.model = "/tmp/report.sqlite";
  data.summary.deviceKind = "cuda";
  data.summary.deviceName = kGpuName;
  data.summary.startedNs = 1700000000000000000 + id;
  addGpuRows(data, 1, false);
  return data;
}

/// The dispatch table of a Loupe GPU run of the rows above: gemm, fusion, reduce.
inline std::vector<profiler::DispatchRecord> gpuDispatches() {
  return {{0, "dispatch_0_matmul", "linalg.matmul", "fc1", "cublas", 0},
          {1, "dispatch_1_generic", "linalg.generic", "relu1", "codegen", 1},
          {2, "dispatch_2_reduce", "linalg.reduce", "sum1", "codegen", 2}};
}

/// A profiler::RunSummary of a run on `kind`/`name`.
inline profiler::RunSummary runOn(int64_t id, const std::string &kind, const std::string &name) {
  profiler::RunSummary r;
  r.id = id;
  r.status = profiler::RunStatus::Complete;
  r.model = "model.mlir";
  r.deviceKind = kind;
  r.deviceName = name;
  return r;
}

} // namespace loupe::visualizer::testing

#endif // LOUPE_TESTS_VISUALIZER_GPURUN_H
