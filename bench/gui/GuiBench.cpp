//===- GuiBench.cpp - Frame time of the IR and Diff panels on 100,000 lines ---===//
//
// Headless Dear ImGui (no window, no GPU): one iteration is one frame, NewFrame + the panel's
// draw + Render, i.e. the CPU time a frame costs before the GPU sees it. The module is a
// generated ~100,000-line MLIR module scrolled to the middle.
//
// Peers (bench/ratios.py): `*_naive` draws the same text with one ImGui::TextUnformatted in a
// scrolling child, what an unclipped text view costs.
//
//===----------------------------------------------------------------------===//
#include "GeneratedModule.h"
#include "ImGuiHarness.h"

#include "loupe/visualizer/DocumentCache.h"
#include "loupe/visualizer/panels/DiffPanel.h"
#include "loupe/visualizer/panels/IrPanel.h"
#include "loupe/visualizer/text/LineDiff.h"

#include <benchmark/benchmark.h>

#include <imgui_internal.h> // SetNextWindowScroll (the naive peer, scrolled like the panel)

using namespace loupe::visualizer;
using namespace loupe::visualizer::testing;

namespace {
constexpr size_t kLines = 100000;

const std::shared_ptr<const text::IrDocument> &module(uint32_t variant) {
  static std::shared_ptr<const text::IrDocument> docs[2];
  if (!docs[variant])
    docs[variant] = std::make_shared<const text::IrDocument>(generateModule(kLines, variant));
  return docs[variant];
}

/// The IR panel scrolled to the middle; `scrollPerFrame` rows more every frame (0: still).
void irFrame(benchmark::State &state, size_t scrollPerFrame, bool search) {
  ImGuiHarness ui(1600, 1000);
  auto doc = module(0);
  DocumentCache cache;
  IrPanel panel(cache);
  if (search)
    panel.setSearch("tosa.mul");
  size_t row = doc->lineCount() / 2;
  panel.scrollToRow(row);
  auto draw = [&] { panel.drawDocument(doc, "generated"); };
  ui.frames(3, draw);
  for (auto _ : state) {
    if (scrollPerFrame) {
      row = (row + scrollPerFrame) % (doc->lineCount() - 100);
      panel.scrollToRow(row);
    }
    ui.frame(draw);
  }
  state.counters["lines"] = static_cast<double>(doc->lineCount());
  state.counters["rows_drawn"] = panel.lastDrawnRows();
}

void BM_IrFrame(benchmark::State &state, int mode) {
  switch (mode) {
  case 0:
    irFrame(state, 0, false);
    break;
  case 1:
    irFrame(state, 0, true);
    break;
  case 2:
    irFrame(state, 70, false); // a new screenful every frame: tokenizing uncached lines
    break;
  case 3: {
    // Peer: the whole text as one TextUnformatted in a scrolling child.
    ImGuiHarness ui(1600, 1000);
    auto doc = module(0);
    float middle = static_cast<float>(doc->lineCount() / 2) * ImGui::GetTextLineHeight();
    auto draw = [&] {
      ImGui::SetNextWindowScroll(ImVec2(-1, middle));
      ImGui::BeginChild("naive", ImVec2(0, 0), true, ImGuiWindowFlags_HorizontalScrollbar);
      ImGui::TextUnformatted(doc->text().data(), doc->text().data() + doc->text().size());
      ImGui::EndChild();
    };
    ui.frames(3, draw);
    for (auto _ : state)
      ui.frame(draw);
    break;
  }
  }
}
BENCHMARK_CAPTURE(BM_IrFrame, 100k_panel, 0)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_IrFrame, 100k_panel_search, 1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_IrFrame, 100k_panel_scrolling, 2)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_IrFrame, 100k_naive, 3)->Unit(benchmark::kMillisecond);

/// Indexing a 100k-line snapshot (what switching to a pass costs once, off the UI thread for
/// texts above DocumentCache::kSyncBytes).
void BM_IrDocument_100k_index(benchmark::State &state) {
  std::string text = generateModule(kLines, 0);
  for (auto _ : state)
    benchmark::DoNotOptimize(std::make_shared<const text::IrDocument>(text));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_IrDocument_100k_index)->Unit(benchmark::kMillisecond);

/// The diff of two 100k-line modules that differ in ~1% of the ops, with every SSA value
/// renumbered (variant 1): exact names (most lines differ) and with ignore-SSA-names.
void BM_Diff(benchmark::State &state, bool ignoreSsa) {
  auto a = module(0), b = module(1);
  text::DiffOptions options;
  options.ignoreSsaNames = ignoreSsa;
  size_t hunks = 0;
  bool approximate = false;
  for (auto _ : state) {
    text::LineDiff diff = text::LineDiff::compute(*a, *b, options);
    hunks = diff.hunks().size();
    approximate = diff.approximate();
    benchmark::DoNotOptimize(hunks);
  }
  state.counters["hunks"] = static_cast<double>(hunks);
  state.counters["approximate"] = approximate;
}
BENCHMARK_CAPTURE(BM_Diff, 100k_renumbered, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Diff, 100k_renumbered_ignore_ssa, true)->Unit(benchmark::kMillisecond);

/// A Diff panel frame (side by side, intra-line highlights) with the diff computed.
void BM_DiffFrame(benchmark::State &state, bool unified) {
  ImGuiHarness ui(1600, 1000);
  DocumentCache cache;
  DiffPanel panel(cache);
  text::DiffOptions options;
  options.ignoreSsaNames = true;
  panel.setOptions(options);
  panel.setLayout(unified ? text::DiffLayout::Unified : text::DiffLayout::SideBySide);
  auto a = module(0), b = module(1);
  auto draw = [&] {
    cache.beginFrame();
    panel.drawDocuments(a, b, "A", "B");
  };
  ui.frame(draw);
  cache.waitIdle(600);
  ui.frames(2, draw);
  for (size_t i = 0; i < panel.hunkCount() / 2; ++i)
    panel.nextHunk(); // the middle of the module
  ui.frames(2, draw);
  for (auto _ : state)
    ui.frame(draw);
  state.counters["hunks"] = static_cast<double>(panel.hunkCount());
  state.counters["rows_drawn"] = panel.lastDrawnRows();
}
BENCHMARK_CAPTURE(BM_DiffFrame, 100k_side_by_side, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_DiffFrame, 100k_unified, true)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
