//===- GpuProfileTest.cpp - Device picker, stream timeline, GPU kernel table ---===//
//
// From DB rows only (no GPU): the synthetic run of GpuRun.h, two streams with kernels, copies
// and a set, as makeProfileView builds it and as the Profile panel draws it headless; and the
// same rows stored in and read back from a profile DB.
//
//===----------------------------------------------------------------------===//
#include "loupe/visualizer/Controller.h"
#include "loupe/visualizer/Format.h"
#include "loupe/visualizer/gpu/GpuActivity.h"
#include "loupe/visualizer/gpu/KernelTable.h"
#include "loupe/visualizer/panels/ProfilePanel.h"

#include "Fixtures.h"
#include "GpuRun.h"
#include "ImGuiHarness.h"
#include "RunDataFactory.h"

#include "loupe/profiler/Store.h"

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

/// A view model showing `data`, listed with `others` (newest first after it).
ViewModel showing(const profiler::RunData &data,
                  const std::vector<profiler::RunSummary> &others = {}) {
  ViewModel vm;
  vm.profile = makeProfileView(data);
  vm.nav.profileRunId = data.summary.id;
  auto runs = std::make_shared<RunListView>();
  runs->runs.push_back(data.summary);
  runs->runs.insert(runs->runs.end(), others.begin(), others.end());
  vm.runs = runs;
  return vm;
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
  // A Loupe run's kernel whose dispatch has no counts: its dispatch and cluster are known, its
  // bytes and FLOPs are not.
  profiler::RunData loupe = makeRunOf(2, gpuDispatches(), {450000, 40000, 180000}, 2, 0, 1);
  addGpuRows(loupe, 2, true);
  auto own = gpu::buildGpuActivity(loupe);
  const gpu::KernelRow &gemm = own->rows[Gemm];
  EXPECT_EQ(gemm.dispatchId, 0);
  EXPECT_EQ(gemm.clusterId, 0);
  EXPECT_TRUE(contains(gemm.rateWhy, "dispatch 0 (cluster 0): the compiler records no bytes or "
                                     "FLOPs for that dispatch"))
      << gemm.rateWhy;
  // The rate itself: amount per ns is giga-units per second; unknown stays unknown.
  EXPECT_DOUBLE_EQ(gpu::ratePerNs(2e9, 1e6), 2000);
  EXPECT_TRUE(std::isnan(gpu::ratePerNs(-1, 1000)));
  EXPECT_TRUE(std::isnan(gpu::ratePerNs(100, 0)));
}

TEST(GpuActivity, KernelRatesFromTheDispatchCounts) {
  // The compiler counted the gemm's bytes and FLOPs, the fusion's bytes only (0 FLOPs).
  std::vector<profiler::DispatchRecord> dispatches = gpuDispatches();
  dispatches[0].bytes = 9000000;
  dispatches[0].flops = 2 * 512 * 1024 * 1024LL;
  dispatches[1].bytes = 400000;
  profiler::RunData run = makeRunOf(2, dispatches, {450000, 40000, 180000}, 2, 0, 1);
  addGpuRows(run, 2, true);
  auto g = gpu::buildGpuActivity(run);
  // One kernel per dispatch: the counts over the kernel's median duration (450 us, 40 us).
  const gpu::KernelRow &gemm = g->rows[Gemm];
  EXPECT_EQ(gemm.bytes, 9000000);
  EXPECT_EQ(gemm.dispatchKernels, 0u);
  EXPECT_DOUBLE_EQ(gemm.bandwidthGBs(), 9000000.0 / 450000.0);
  EXPECT_DOUBLE_EQ(gemm.gflops(), 2 * 512 * 1024 * 1024.0 / 450000.0);
  EXPECT_EQ(cell(gemm, KernelColumn::Bandwidth), "20.0");
  EXPECT_EQ(cell(gemm, KernelColumn::FlopRate), "2386");
  EXPECT_EQ(cell(gemm, KernelColumn::Bytes), formatBytes(9000000.0));
  EXPECT_TRUE(contains(why(gemm, KernelColumn::Bandwidth), "9000000 bytes per call of dispatch 0"));
  EXPECT_TRUE(contains(why(gemm, KernelColumn::FlopRate), "at the median duration"));
  const gpu::KernelRow &fusion = g->rows[Fusion];
  EXPECT_DOUBLE_EQ(fusion.bandwidthGBs(), 400000.0 / 40000.0);
  EXPECT_EQ(cell(fusion, KernelColumn::Bandwidth), "10.0");
  // No FLOPs counted: the cell stays empty and says why.
  EXPECT_TRUE(std::isnan(fusion.gflops()));
  EXPECT_EQ(cell(fusion, KernelColumn::FlopRate), "");
  EXPECT_TRUE(contains(why(fusion, KernelColumn::FlopRate),
                       "dispatch 1 (cluster 1): the compiler records no FLOPs for that dispatch"))
      << why(fusion, KernelColumn::FlopRate);
  EXPECT_TRUE(std::isnan(g->rows[Reduce].bandwidthGBs()));

  // A dispatch of two kernels per repetition (cuBLAS' gemm and a split-K reduction): both show
  // the dispatch's rate, over their summed time (450 + 50 us).
  for (int rep = 0; rep < 2; ++rep) {
    profiler::KernelRecord k = run.kernels[0];
    k.rep = rep;
    k.start = 10000000 + int64_t(rep) * 1000000 + 300000;
    k.end = k.start + 50000;
    k.streamId = 13;
    k.name = "splitKreduce_kernel";
    run.kernels.push_back(k);
  }
  g = gpu::buildGpuActivity(run);
  for (const gpu::KernelRow &k : g->rows) {
    if (k.dispatchId != 0)
      continue;
    EXPECT_EQ(k.dispatchKernels, 2u) << k.name;
    EXPECT_DOUBLE_EQ(k.dispatchNs, 500000) << k.name;
    EXPECT_DOUBLE_EQ(k.bandwidthGBs(), 18) << k.name;
    EXPECT_EQ(cell(k, KernelColumn::Bandwidth), "18.0") << k.name;
    EXPECT_TRUE(contains(why(k, KernelColumn::FlopRate), "the dispatch's rate, not this kernel's"))
        << why(k, KernelColumn::FlopRate);
  }
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

TEST(Devices, PickerListsTheCpuThenEachGpuByName) {
  std::vector<profiler::RunSummary> runs = {
      runOn(5, "cuda", kGpuName), runOn(4, "cpu", "Intel Xeon"),
      runOn(3, "cuda", "NVIDIA A100-SXM4-40GB"), runOn(2, "cpu", "Intel Xeon"),
      runOn(1, "cuda", kGpuName)};
  std::vector<DeviceRuns> devices = devicesOf(runs);
  ASSERT_EQ(devices.size(), 3u);
  EXPECT_EQ(devices[0].device.label(), "cpu: Intel Xeon");
  EXPECT_EQ(devices[0].runs, 2u);
  EXPECT_EQ(devices[1].device.label(), "cuda: NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(devices[2].device.label(), std::string("cuda: ") + kGpuName);
  EXPECT_EQ(devices[2].runs, 2u);
  EXPECT_EQ(runsOn(runs, &devices[2].device), (std::vector<int>{0, 4}));
  EXPECT_EQ(runsOn(runs, nullptr).size(), 5u);
  EXPECT_EQ((Device{"cuda", ""}).label(), "cuda");
}

TEST(ProfilePanel, GpuRunDrawsStreamTracksAndTheKernelTable) {
  ViewModel vm = showing(makeImportedGpuRun(1));
  ProfilePanel panel;
  RecordingActions actions;
  ImGuiHarness ui(1400, 900);
  auto draw = [&] { panel.draw(vm, actions); };
  ui.frames(2, draw);
  // The kernel table, every column drawn.
  std::vector<std::string> headers;
  for (int c = 0; c < static_cast<int>(KernelColumn::Count); ++c)
    headers.push_back(gpu::kernelColumnName(static_cast<KernelColumn>(c)));
  EXPECT_EQ(panel.gpuHeaders(), headers);
  // By total time, highest first: gemm, reduce, HtoD, fusion, DtoH, memset.
  EXPECT_EQ(panel.gpuRows(vm), (std::vector<int>{Gemm, Reduce, HtoD, Fusion, DtoH, Memset}));
  panel.setGpuSort(KernelColumn::Bandwidth, false);
  ui.frame(draw);
  EXPECT_EQ(panel.gpuRows(vm).front(), HtoD);
  // The stream timeline: four tracks, every operation wide enough to be drawn.
  TimelineView &t = panel.timeline();
  EXPECT_TRUE(panel.showsStreams());
  EXPECT_EQ(t.lastLanes(), 4);
  EXPECT_EQ(t.lastDrawnSlices(), 6);
  EXPECT_EQ(t.lastMergedBlocks(), 0);
  // Hovering the middle of stream 7's track finds the gemm (110-560 us of 710 us).
  ImVec2 a = t.trackMin(0), b = t.trackMax(0);
  ASSERT_GT(b.x, a.x);
  ui.setMouse(ImVec2((a.x + b.x) / 2, (a.y + b.y) / 2));
  ui.frame(draw, false);
  EXPECT_EQ(t.hoveredTrack(), 0);
  EXPECT_EQ(t.hoveredSlice(), 0);
  // No dispatches: no dispatch table, and the run's header says what ran on the GPU.
  EXPECT_TRUE(vm.profile->rows.empty());
}

TEST(ProfilePanel, LoupeGpuRunShowsStreamsOrHostDispatches) {
  profiler::RunData data = makeRunOf(2, gpuDispatches(), {450000, 40000, 180000}, 3, 0, 1);
  data.summary.deviceKind = "cuda";
  data.summary.deviceName = kGpuName;
  addGpuRows(data, 3, true);
  ViewModel vm = showing(data);
  ProfilePanel panel;
  RecordingActions actions;
  ImGuiHarness ui(1400, 1000);
  auto draw = [&] { panel.draw(vm, actions); };
  ui.frames(2, draw);
  EXPECT_TRUE(panel.showsStreams());
  EXPECT_EQ(panel.timeline().lastLanes(), 4);
  ASSERT_EQ(vm.profile->gpu->reps.size(), 3u);
  panel.setGpuRepetition(2);
  ui.frame(draw);
  EXPECT_EQ(panel.gpuRepetition(), 2);
  EXPECT_EQ(panel.timeline().lastDrawnSlices(), 6);
  // The host clock's view: the repetition and its dispatches.
  panel.setShowsStreams(false);
  ui.frame(draw);
  EXPECT_EQ(panel.timeline().lastLanes(), 2);
  EXPECT_EQ(panel.timeline().lastDrawnSlices(), 3);
}

TEST(ProfilePanel, DevicePickerFiltersTheRuns) {
  profiler::RunData cpu = makeRun(4, {1000, 2000}, 3, 0, 1);
  cpu.summary.deviceKind = "cpu";
  cpu.summary.deviceName = "Intel Xeon";
  ViewModel vm = showing(cpu, {runOn(3, "cuda", kGpuName), runOn(2, "cpu", "Intel Xeon"),
                               runOn(1, "cuda", kGpuName)});
  ProfilePanel panel;
  RecordingActions actions;
  ImGuiHarness ui;
  auto draw = [&] { panel.draw(vm, actions); };
  ui.frames(2, draw);
  const std::vector<DeviceRuns> &devices = panel.devices(vm);
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0].device.label(), "cpu: Intel Xeon");
  EXPECT_EQ(devices[1].device.label(), std::string("cuda: ") + kGpuName);
  EXPECT_EQ(panel.listedRuns(vm).size(), 4u);
  // The GPU: its runs only, and its newest run is shown in place of the CPU run.
  panel.pickDevice(vm, actions, &devices[1].device);
  ui.frame(draw);
  EXPECT_EQ(panel.listedRuns(vm), (std::vector<int>{1, 3}));
  ASSERT_EQ(actions.profiles.size(), 1u);
  EXPECT_EQ(actions.profiles.back(), 3);
  // The CPU keeps the CPU run shown; all devices lists everything again.
  panel.pickDevice(vm, actions, &devices[0].device);
  EXPECT_EQ(panel.listedRuns(vm), (std::vector<int>{0, 2}));
  EXPECT_EQ(actions.profiles.size(), 1u);
  panel.pickDevice(vm, actions, nullptr);
  EXPECT_FALSE(vm.nav.device.has_value());
  EXPECT_EQ(panel.listedRuns(vm).size(), 4u);
  // Clicking the first listed run (below the picker and the header) loads it.
  panel.pickDevice(vm, actions, &devices[1].device);
  ui.frames(2, draw);
  actions.profiles.clear();
  ui.click(ImVec2(30, 52 + ImGui::GetFrameHeightWithSpacing()), draw);
  ASSERT_FALSE(actions.profiles.empty());
  EXPECT_EQ(actions.profiles.back(), 3);
}

TEST(GpuProfile, StoredRunsKeepTheirDevicesStreamsAndRates) {
  TempDir dir;
  std::string db = dir.str("p.db");
  {
    auto store = profiler::Store::open(db);
    ASSERT_TRUE(store.isOk()) << store.status().message();
    profiler::RunInfo cpu{"model.mlir", "cpu", "Intel Xeon"};
    auto cpuRun = store->beginRun(cpu);
    ASSERT_TRUE(cpuRun.isOk());
    ASSERT_TRUE(store->finishRun(*cpuRun, true));
    // What `loupe db import-nsys` writes.
    profiler::RunData rows = makeImportedGpuRun(0);
    profiler::RunInfo gpuInfo{"/tmp/report.sqlite", "cuda", kGpuName};
    auto gpuRun = store->addImportedRun(gpuInfo, rows.kernels, rows.memcpys);
    ASSERT_TRUE(gpuRun.isOk()) << gpuRun.status().message();
  }
  auto store = profiler::Store::open(db);
  auto runs = store->listRuns();
  ASSERT_TRUE(runs.isOk());
  std::vector<DeviceRuns> devices = devicesOf(*runs);
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0].device.kind, "cpu");
  EXPECT_EQ(devices[1].device.name, kGpuName);
  auto data = store->loadRun((*runs)[0].id);
  ASSERT_TRUE(data.isOk());
  auto view = makeProfileView(*data);
  ASSERT_NE(view->gpu, nullptr);
  EXPECT_EQ(view->gpu->tracks.size(), 4u);
  ASSERT_EQ(view->gpu->rows.size(), 6u);
  EXPECT_DOUBLE_EQ(view->gpu->rows[HtoD].bandwidthGBs(), 1048576.0 / 100000.0);
  EXPECT_EQ(view->gpu->rows[Gemm].dynamicSharedMemory, 32768);

  // The workbench on that DB with the CPU picked: its first look shows the CPU run, though the
  // GPU run is newer; the picker then follows the run shown.
  ControllerOptions options;
  options.dbPath = db;
  Controller controller(options);
  controller.vm().nav.device = Device{"cpu", "Intel Xeon"};
  controller.refreshRuns();
  ASSERT_TRUE(controller.waitIdle(60));
  ASSERT_NE(controller.vm().profile, nullptr);
  EXPECT_EQ(controller.vm().profile->run.deviceKind, "cpu");
  controller.loadProfile((*runs)[0].id);
  controller.refreshRuns();
  ASSERT_TRUE(controller.waitIdle(60));
  ASSERT_TRUE(controller.vm().nav.device.has_value());
  EXPECT_EQ(controller.vm().nav.device->kind, "cuda");
  ASSERT_NE(controller.vm().profile->gpu, nullptr);
}
