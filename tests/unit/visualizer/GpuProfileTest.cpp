//===- GpuProfileTest.cpp - Device picker, stream timeline, GPU kernel table ---===//
//
// From DB rows only (no GPU): the synthetic run of GpuRun.h, two streams with kernels, copies
// and a set, as makeProfileView builds it.
//
//===----------------------------------------------------------------------===//
#include "loupe/visualizer/Format.h"
#include "loupe/visualizer/gpu/GpuActivity.h"
#include "loupe/visualizer/gpu/KernelTable.h"

#include "GpuRun.h"
#include "RunDataFactory.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace loupe::visualizer;
using namespace loupe::visualizer::testing;
namespace profiler = loupe::profiler;
using gpu::KernelColumn;

namespace {
/// Rows of the synthetic run by first start.
enum Row { HtoD, Memset, Gemm, Reduce, Fusion, DtoH };

std::string cell(const gpu::KernelRow &row, KernelColumn c) { return gpu::kernelCell(row, c); }
std::string why(const gpu::KernelRow &row, KernelColumn c) { return gpu::kernelCellWhy(row, c); }

bool contains(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}
} // namespace

TEST(GpuActivity, OneTrackPerStreamAndKindOfWork) {
  auto g = gpu::buildGpuActivity(makeImportedGpuRun(1));
  ASSERT_NE(g, nullptr);
  ASSERT_EQ(g->tracks.size(), 4u);
  std::vector<std::string> labels;
  for (const gpu::Track &t : g->tracks)
    labels.push_back(t.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"stream 7", "stream 7 memcpy", "stream 13",
                                              "stream 13 memset"}));
  EXPECT_EQ(g->tracks[3].kind, gpu::ActivityKind::Memset);
  EXPECT_EQ(g->streams, 2u);
  EXPECT_EQ(g->devices, 1u);
  EXPECT_EQ(g->kernels, 3u);
  EXPECT_EQ(g->copies, 2u);
  EXPECT_EQ(g->sets, 1u);
  EXPECT_DOUBLE_EQ(g->kernelNs, 450000 + 180000 + 40000);

  // One repetition, as offsets from its first operation (the HtoD copy).
  ASSERT_EQ(g->reps.size(), 1u);
  const gpu::RepActivity &rep = g->reps[0];
  EXPECT_EQ(rep.originNs, 10000000);
  EXPECT_EQ(rep.durationNs, 710000);
  ASSERT_EQ(rep.tracks.size(), 4u);
  ASSERT_EQ(rep.tracks[0].size(), 2u); // stream 7: gemm, fusion
  EXPECT_EQ(rep.tracks[0][0].startNs, 110000);
  EXPECT_EQ(rep.tracks[0][0].row, Gemm);
  EXPECT_EQ(rep.tracks[0][1].row, Fusion);
  EXPECT_EQ(rep.tracks[1].size(), 2u); // stream 7: HtoD, DtoH
  EXPECT_EQ(rep.tracks[2].size(), 1u); // stream 13: reduce
  EXPECT_EQ(rep.tracks[3].size(), 1u); // stream 13: memset

  // Several GPUs: the track says which.
  profiler::RunData two = makeImportedGpuRun(2);
  two.kernels[1].deviceId = 1;
  auto g2 = gpu::buildGpuActivity(two);
  EXPECT_EQ(g2->devices, 2u);
  EXPECT_EQ(g2->tracks.back().label, "GPU 1 stream 13");

  // A CPU run has no GPU activity.
  EXPECT_EQ(gpu::buildGpuActivity(makeRun(3, {1000}, 2, 0, 1)), nullptr);
  EXPECT_EQ(makeProfileView(makeRun(3, {1000}, 2, 0, 1))->gpu, nullptr);
}

TEST(GpuActivity, RowsGroupExecutionsOfOneLaunchConfiguration) {
  profiler::RunData data = makeImportedGpuRun(1);
  addGpuRows(data, 3, false); // three more repetitions of the same work
  auto g = gpu::buildGpuActivity(data);
  ASSERT_EQ(g->rows.size(), 6u);
  const gpu::KernelRow &gemm = g->rows[Gemm];
  EXPECT_EQ(gemm.name, kGemmName);
  EXPECT_EQ(gemm.shortName, "gemm_kernel");
  EXPECT_EQ(gemm.calls, 4u);
  EXPECT_DOUBLE_EQ(gemm.medianNs, 450000);
  EXPECT_DOUBLE_EQ(gemm.totalNs, 4 * 450000.0);
  EXPECT_EQ(gemm.streams, (std::vector<int64_t>{7}));
  EXPECT_EQ(g->rows[Memset].name, "memset");
  EXPECT_EQ(g->rows[HtoD].name, "memcpy HtoD");
  EXPECT_EQ(g->rows[DtoH].name, "memcpy DtoH");
  double shares = 0;
  for (const gpu::KernelRow &r : g->rows)
    shares += r.share;
  EXPECT_NEAR(shares, 1.0, 1e-12);
  // Another launch configuration of the same kernel is another row.
  data.kernels[0].gridX = 128;
  EXPECT_EQ(gpu::buildGpuActivity(data)->rows.size(), 7u);
}

TEST(GpuActivity, AchievedBandwidthOnlyWhereTheBytesAreKnown) {
  auto g = gpu::buildGpuActivity(makeImportedGpuRun(1));
  // Copies and sets: their bytes over their median duration.
  EXPECT_DOUBLE_EQ(g->rows[HtoD].bandwidthGBs(), 1048576.0 / 100000.0);
  EXPECT_DOUBLE_EQ(g->rows[DtoH].bandwidthGBs(), 65536.0 / 10000.0);
  EXPECT_DOUBLE_EQ(g->rows[Memset].bandwidthGBs(), 4096.0 / 5000.0);
  EXPECT_EQ(cell(g->rows[HtoD], KernelColumn::Bandwidth), "10.5");
  EXPECT_EQ(cell(g->rows[DtoH], KernelColumn::Bandwidth), "6.55");
  EXPECT_EQ(cell(g->rows[Memset], KernelColumn::Bandwidth), "0.819");
  EXPECT_EQ(cell(g->rows[HtoD], KernelColumn::Bytes), "1 MiB");
  EXPECT_TRUE(contains(why(g->rows[Memset], KernelColumn::Bytes), "4096 bytes of device memory set"));
  EXPECT_TRUE(contains(why(g->rows[HtoD], KernelColumn::Bytes), "1048576 bytes pageable -> device"));
  // They do no arithmetic: no FLOP rate, and the cell says so.
  EXPECT_EQ(cell(g->rows[HtoD], KernelColumn::FlopRate), "");
  EXPECT_TRUE(contains(why(g->rows[HtoD], KernelColumn::FlopRate), "no floating-point"));
  // Kernels: nothing stores their bytes or FLOPs, so no rates, and the cells say why.
  for (Row r : {Gemm, Reduce, Fusion}) {
    const gpu::KernelRow &k = g->rows[r];
    EXPECT_TRUE(std::isnan(k.bandwidthGBs())) << k.name;
    EXPECT_TRUE(std::isnan(k.gflops())) << k.name;
    for (KernelColumn c : {KernelColumn::Bytes, KernelColumn::Bandwidth, KernelColumn::FlopRate}) {
      EXPECT_EQ(cell(k, c), "") << k.name;
      EXPECT_TRUE(contains(why(k, c), "no Loupe dispatch launched this kernel")) << why(k, c);
    }
  }
  // A Loupe run's kernel: its dispatch and cluster are known, its bytes and FLOPs are not.
  profiler::RunData loupe = makeRunOf(2, gpuDispatches(), {450000, 40000, 180000}, 2, 0, 1);
  addGpuRows(loupe, 2, true);
  auto own = gpu::buildGpuActivity(loupe);
  const gpu::KernelRow &gemm = own->rows[Gemm];
  EXPECT_EQ(gemm.dispatchId, 0);
  EXPECT_EQ(gemm.clusterId, 0);
  EXPECT_TRUE(contains(gemm.rateWhy, "dispatch 0 (cluster 0): the compiler records no bytes or "
                                     "FLOPs per cluster"))
      << gemm.rateWhy;
  // The rate itself: amount per ns is giga-units per second; unknown stays unknown.
  EXPECT_DOUBLE_EQ(gpu::ratePerNs(2e9, 1e6), 2000);
  EXPECT_TRUE(std::isnan(gpu::ratePerNs(-1, 1000)));
  EXPECT_TRUE(std::isnan(gpu::ratePerNs(100, 0)));
}

TEST(KernelTable, ColumnsAndCells) {
  std::vector<std::string> names;
  for (int c = 0; c < static_cast<int>(KernelColumn::Count); ++c)
    names.push_back(gpu::kernelColumnName(static_cast<KernelColumn>(c)));
  EXPECT_EQ(names, (std::vector<std::string>{"kernel", "stream", "calls", "grid", "block", "regs",
                                             "shared mem", "median", "total", "bytes", "GB/s",
                                             "GFLOP/s"}));
  auto g = gpu::buildGpuActivity(makeImportedGpuRun(1));
  const gpu::KernelRow &gemm = g->rows[Gemm];
  EXPECT_EQ(cell(gemm, KernelColumn::Name), "gemm_kernel");
  EXPECT_EQ(why(gemm, KernelColumn::Name), kGemmName);
  EXPECT_EQ(cell(gemm, KernelColumn::Streams), "7");
  EXPECT_EQ(cell(gemm, KernelColumn::Grid), "64x32x1");
  EXPECT_EQ(cell(gemm, KernelColumn::Block), "256x1x1");
  EXPECT_EQ(cell(gemm, KernelColumn::Registers), "168");
  EXPECT_EQ(cell(gemm, KernelColumn::SharedMemory), "48 KiB");
  EXPECT_EQ(why(gemm, KernelColumn::SharedMemory), "static 16384 B + dynamic 32768 B per block");
  EXPECT_EQ(cell(gemm, KernelColumn::Median), "450 us");
  EXPECT_EQ(cell(g->rows[Reduce], KernelColumn::Name), "DeviceReduceKernel");
  EXPECT_EQ(cell(g->rows[Reduce], KernelColumn::SharedMemory), "4 KiB");
  // Copies have no launch shape.
  for (KernelColumn c : {KernelColumn::Grid, KernelColumn::Block, KernelColumn::Registers,
                         KernelColumn::SharedMemory})
    EXPECT_EQ(cell(g->rows[HtoD], c), "");
  EXPECT_EQ(cell(g->rows[Memset], KernelColumn::Streams), "13");
  // Sorting: by bandwidth, unknown rates below every known one.
  EXPECT_GT(gpu::compareKernelRows(g->rows[Memset], gemm, KernelColumn::Bandwidth), 0);
  EXPECT_GT(gpu::compareKernelRows(g->rows[HtoD], g->rows[DtoH], KernelColumn::Bandwidth), 0);
  EXPECT_GT(gpu::compareKernelRows(gemm, g->rows[Reduce], KernelColumn::Grid), 0);
}

TEST(GpuActivity, ShortKernelNames) {
  EXPECT_EQ(gpu::shortKernelName(kGemmName), "gemm_kernel");
  EXPECT_EQ(gpu::shortKernelName("void at::native::vectorized_elementwise_kernel<4, "
                                 "at::native::FillFunctor<float>>(int, float*)"),
            "vectorized_elementwise_kernel");
  EXPECT_EQ(gpu::shortKernelName("fusion_3_kLoop"), "fusion_3_kLoop");
  EXPECT_EQ(gpu::shortKernelName("ampere_sgemm_128x64_nn"), "ampere_sgemm_128x64_nn");
  EXPECT_EQ(formatBytes(512), "512 B");
  EXPECT_EQ(formatBytes(1536), "1.5 KiB");
  EXPECT_EQ(formatBytes(1023.5 * 1024), "1024 KiB");
  EXPECT_EQ(formatRate(2048), "2048");
  EXPECT_EQ(formatRate(0.0123), "0.0123");
}
