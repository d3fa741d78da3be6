//===- TimelineBench.cpp - The stream timeline on 100,000 GPU operations ------===//
//
// A generated GPU run as a long Nsight Systems import holds it: 100,000 kernels of 1-20 us on
// four streams, each stream with a copy every 50 kernels, in one repetition. Frames of the
// Profile panel's stream timeline fitted (every operation narrower than a pixel: merged) and
// zoomed on 1 ms; the peer draws every operation as a box, no culling or merging. Building the
// GPU activity (rows, tracks, slices: the data worker's part of loading such a run) is timed too.
//
//===----------------------------------------------------------------------===//
#include "ImGuiHarness.h"

#include "loupe/visualizer/gpu/GpuActivity.h"
#include "loupe/visualizer/timeline/TimelineView.h"

#include <benchmark/benchmark.h>

#include <random>

using namespace loupe::visualizer;
using namespace loupe::visualizer::testing;
namespace profiler = loupe::profiler;

namespace {
constexpr int kKernels = 100000;
constexpr int kStreams = 4;

const profiler::RunData &generatedRun() {
  static profiler::RunData data = [] {
    profiler::RunData d;
    d.summary.deviceKind = "cuda";
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<int64_t> duration(1000, 20000);
    const char *names[] = {"ampere_sgemm_128x64_tn", "fusion_12_kLoop", "flash_fwd_kernel",
                           "layer_norm_fwd_kernel", "gelu_kernel"};
    int64_t clock[kStreams] = {};
    for (int i = 0; i < kKernels; ++i) {
      int s = i % kStreams;
      profiler::KernelRecord k;
      k.streamId = 7 + s;
      k.start = clock[s] + 500;
      k.end = k.start + duration(rng);
      k.name = names[i % 5];
      k.gridX = 64 << (i % 3), k.gridY = k.gridZ = 1;
      k.blockX = 256, k.blockY = k.blockZ = 1;
      k.registersPerThread = 32 + i % 5;
      clock[s] = k.end;
      d.kernels.push_back(k);
      if (i % (50 * kStreams) < kStreams) {
        profiler::MemcpyRecord m;
        m.streamId = k.streamId;
        m.start = k.end + 200;
        m.end = m.start + 4000;
        m.bytes = 1 << 20;
        m.copyKind = 1;
        clock[s] = m.end;
        d.memcpys.push_back(m);
      }
    }
    return d;
  }();
  return data;
}

void BM_GpuActivity_100k_build(benchmark::State &state) {
  const profiler::RunData &data = generatedRun();
  for (auto _ : state)
    benchmark::DoNotOptimize(gpu::buildGpuActivity(data));
}
BENCHMARK(BM_GpuActivity_100k_build)->Unit(benchmark::kMillisecond);

/// Frames of the stream timeline; `windowNs` 0: fitted; `naive`: the peer.
void BM_StreamFrame(benchmark::State &state, double windowNs, bool naive) {
  ImGuiHarness ui(1600, 1000);
  auto g = gpu::buildGpuActivity(generatedRun());
  const gpu::RepActivity &rep = g->reps[0];
  TimelineView view;
  auto draw = [&] { view.drawTracks(*g, rep, 600); };
  ui.frame(draw);
  if (windowNs > 0)
    view.setView(rep.durationNs / 2.0, rep.durationNs / 2.0 + windowNs);
  auto naiveDraw = [&] {
    // Every operation of every track as a box, across the same width.
    ImDrawList *dl = ImGui::GetWindowDrawList();
    ImVec2 o = ImGui::GetCursorScreenPos();
    float width = ImGui::GetContentRegionAvail().x;
    double scale = width / static_cast<double>(rep.durationNs);
    for (size_t t = 0; t < rep.tracks.size(); ++t)
      for (const TimelineSlice &s : rep.tracks[t]) {
        float y = o.y + 20 + 30 * static_cast<float>(t);
        dl->AddRectFilled(ImVec2(o.x + static_cast<float>(s.startNs * scale), y),
                          ImVec2(o.x + static_cast<float>(s.endNs * scale), y + 26),
                          IM_COL32(120, 160, 200, 255));
      }
  };
  for (auto _ : state)
    ui.frame(naive ? std::function<void()>(naiveDraw) : std::function<void()>(draw));
  state.counters["ops"] = static_cast<double>(g->kernels + g->copies);
  state.counters["tracks"] = static_cast<double>(g->tracks.size());
  if (!naive) {
    state.counters["drawn"] = view.lastDrawnSlices();
    state.counters["merged"] = view.lastMergedBlocks();
  }
}
BENCHMARK_CAPTURE(BM_StreamFrame, 100k_fit, 0.0, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_StreamFrame, 100k_zoomed, 1e6, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_StreamFrame, 100k_naive, 0.0, true)->Unit(benchmark::kMillisecond);

} // namespace
