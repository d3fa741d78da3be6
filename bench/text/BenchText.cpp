//===- BenchText.cpp - IR panel text engine on a 100,000-line module --------===//
//
// What one frame of the IR panel costs (tokenize a screenful, map visible rows through folds),
// and what happens once per snapshot or per keystroke (build the document, search, diff).
// The frame target of the IR panel is 16 ms.
//
//===----------------------------------------------------------------------===//

#include "GeneratedModule.h"

#include "loupe/visualizer/text/FoldState.h"
#include "loupe/visualizer/text/IrDocument.h"
#include "loupe/visualizer/text/LineDiff.h"

#include <benchmark/benchmark.h>

using namespace loupe::visualizer::text;
using loupe::bench::generateModule;
using loupe::bench::scatterChanges;

namespace {

constexpr size_t kLines = 100000;
constexpr size_t kScreen = 60;

const std::string &moduleText() {
  static const std::string text = generateModule(kLines);
  return text;
}

const IrDocument &document() {
  static const IrDocument doc(moduleText());
  return doc;
}

void BM_DocumentConstruct(benchmark::State &state) {
  for (auto _ : state) {
    state.PauseTiming();
    std::string copy = moduleText();
    state.ResumeTiming();
    IrDocument doc(std::move(copy));
    benchmark::DoNotOptimize(doc.foldRegions().data());
  }
  state.counters["lines"] = static_cast<double>(document().lineCount());
  state.counters["MB"] = static_cast<double>(moduleText().size()) / 1e6;
  state.counters["folds"] = static_cast<double>(document().foldRegions().size());
}
BENCHMARK(BM_DocumentConstruct)->Unit(benchmark::kMillisecond);

// A screenful tokenized from scratch (the first frame after a scroll jump).
void BM_TokenizeScreen(benchmark::State &state) {
  const IrDocument &doc = document();
  std::vector<Token> tokens;
  size_t first = 0;
  for (auto _ : state) {
    for (size_t i = first; i < first + kScreen; ++i) {
      tokens.clear();
      tokenizeLine(Language::Mlir, doc.line(i), tokens);
      benchmark::DoNotOptimize(tokens.data());
    }
    first = (first + 7919) % (doc.lineCount() - kScreen);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kScreen));
}
BENCHMARK(BM_TokenizeScreen)->Unit(benchmark::kMicrosecond);

// The steady state of a frame: folds applied, 60 visible rows mapped to document lines, their
// cached tokens fetched.
void BM_FrameVisibleRows(benchmark::State &state) {
  const IrDocument &doc = document();
  FoldState folds(doc.foldRegions(), doc.lineCount());
  for (size_t k = 0; k < doc.foldRegions().size(); k += 3)
    if (doc.foldRegions()[k].depth == 2)
      folds.fold(doc.foldRegions()[k].startLine);
  const size_t top = folds.visibleLineCount() / 2;
  for (size_t v = top; v < top + kScreen; ++v)
    doc.tokens(folds.visibleToDocumentLine(v));
  for (auto _ : state) {
    size_t sum = 0;
    for (size_t v = top; v < top + kScreen; ++v)
      sum += doc.tokens(folds.visibleToDocumentLine(v)).size();
    benchmark::DoNotOptimize(sum);
  }
  state.counters["folded"] = static_cast<double>(folds.hiddenRanges().size());
}
BENCHMARK(BM_FrameVisibleRows)->Unit(benchmark::kMicrosecond);

void BM_FoldToggle(benchmark::State &state) {
  const IrDocument &doc = document();
  FoldState folds(doc.foldRegions(), doc.lineCount());
  const uint32_t line = doc.foldRegions()[doc.foldRegions().size() / 2].startLine;
  for (auto _ : state)
    folds.toggle(line);
}
BENCHMARK(BM_FoldToggle)->Unit(benchmark::kMicrosecond);

// Next match from a cursor in the middle: a frequent op, a rare symbol, and a miss (the whole
// text scanned with wraparound: the worst case).
void BM_FindNext(benchmark::State &state, const char *query, bool caseSensitive) {
  const IrDocument &doc = document();
  size_t line = doc.lineCount() / 2, col = 0;
  for (auto _ : state) {
    auto m = doc.find(query, line, col, true, caseSensitive);
    if (m) {
      line = m->line;
      col = m->column + 1;
    }
    benchmark::DoNotOptimize(m);
  }
}
BENCHMARK_CAPTURE(BM_FindNext, frequent, "arith.mulf", true)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_FindNext, rare, "@f1234(", true)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_FindNext, miss, "no_such_op", true)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_FindNext, miss_ignore_case, "NO_SUCH_OP", false)
    ->Unit(benchmark::kMicrosecond);

void BM_FindAll(benchmark::State &state) {
  const IrDocument &doc = document();
  size_t n = 0;
  for (auto _ : state)
    n = doc.findAll("linalg.yield", true, 10000).matches.size();
  state.counters["matches"] = static_cast<double>(n);
}
BENCHMARK(BM_FindAll)->Unit(benchmark::kMillisecond);

void BM_LocationIndex(benchmark::State &state) {
  for (auto _ : state) {
    state.PauseTiming();
    IrDocument doc(moduleText());
    state.ResumeTiming();
    benchmark::DoNotOptimize(doc.linesWithLocation("Op_7").size());
  }
}
BENCHMARK(BM_LocationIndex)->Unit(benchmark::kMillisecond);

void BM_Diff(benchmark::State &state, bool renumber, bool ignoreSsa) {
  static const IrDocument &a = document();
  const IrDocument b(scatterChanges(moduleText(), 10, renumber));
  DiffOptions o;
  o.ignoreSsaNames = ignoreSsa;
  LineDiff d;
  for (auto _ : state) {
    d = LineDiff::compute(a, b, o);
    benchmark::DoNotOptimize(d.hunks().data());
  }
  state.counters["hunks"] = static_cast<double>(d.hunks().size());
  state.counters["changed_lines"] = static_cast<double>(d.deletedLines() + d.insertedLines());
  state.counters["approximate"] = d.approximate();
}
BENCHMARK_CAPTURE(BM_Diff, 10_changes, false, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Diff, 10_changes_ignore_ssa, false, true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Diff, 10_changes_renumbered, true, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Diff, 10_changes_renumbered_ignore_ssa, true, true)
    ->Unit(benchmark::kMillisecond);

// A pass that rewrites 2% of the lines (2000 scattered edits, SSA values renumbered).
void BM_DiffManyChanges(benchmark::State &state) {
  const IrDocument &a = document();
  const IrDocument b(scatterChanges(moduleText(), 2000, true));
  DiffOptions o;
  o.ignoreSsaNames = state.range(0) != 0;
  LineDiff d;
  for (auto _ : state)
    d = LineDiff::compute(a, b, o);
  state.counters["approximate"] = d.approximate();
  state.counters["hunks"] = static_cast<double>(d.hunks().size());
  state.counters["changed_lines"] = static_cast<double>(d.deletedLines() + d.insertedLines());
}
BENCHMARK(BM_DiffManyChanges)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// Pathological: two unrelated modules (different seeds). The cost bound caps the time.
void BM_DiffUnrelated(benchmark::State &state) {
  const IrDocument &a = document();
  const IrDocument b(generateModule(kLines, 99));
  LineDiff d;
  for (auto _ : state)
    d = LineDiff::compute(a, b);
  state.counters["approximate"] = d.approximate();
  state.counters["changed_lines"] = static_cast<double>(d.deletedLines() + d.insertedLines());
}
BENCHMARK(BM_DiffUnrelated)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
