//===- BenchText.cpp - IR panel text engine on a 100,000-line module --------===//
//
// What one frame of the IR panel costs (tokenize a screenful, map visible rows through folds)
// and what happens once per snapshot or keystroke (build the document, search, diff), on a
// generated 9.6 MB, 100,000-line module. The frame target of the IR panel is 16 ms.
//
// Names are `<group>_<variant>`; bench/ratios.py divides each variant by the group's `peer`
// (or `memcpy`) measured in the same run:
//   document/build_memcpy        copying the text (the floor of anything that reads it)
//   tokenize/screen_peer         splitting the 60 lines at spaces
//   find/<case>_peer             glibc memmem from the same cursor, with the same wraparound
//   findall/yield_peer           a memmem loop
//   diff/<case>_peer             hashing every line of both documents (the linear floor)
//
//===----------------------------------------------------------------------===//

#include "GeneratedModule.h"

#include "loupe/visualizer/text/FoldState.h"
#include "loupe/visualizer/text/IrDocument.h"
#include "loupe/visualizer/text/LineDiff.h"

#include <benchmark/benchmark.h>

#include <cstring>
#include <functional>

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

void documentBuild(benchmark::State &state) {
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

void documentMemcpy(benchmark::State &state) {
  std::string copy(moduleText().size(), '\0');
  for (auto _ : state) {
    std::memcpy(copy.data(), moduleText().data(), copy.size());
    benchmark::DoNotOptimize(copy.data());
    benchmark::ClobberMemory();
  }
}

// A screenful tokenized from scratch (the first frame after a jump), 60 lines apart each time.
void tokenizeScreen(benchmark::State &state) {
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
}

void tokenizeScreenPeer(benchmark::State &state) {
  const IrDocument &doc = document();
  std::vector<Token> tokens;
  size_t first = 0;
  for (auto _ : state) {
    for (size_t i = first; i < first + kScreen; ++i) {
      tokens.clear();
      std::string_view l = doc.line(i);
      for (size_t k = 0; k < l.size();) {
        size_t end = l.find(' ', k);
        end = end == std::string_view::npos ? l.size() : end;
        if (end > k)
          tokens.push_back(Token{uint32_t(k), uint32_t(end), TokenKind::Identifier});
        k = end + 1;
      }
      benchmark::DoNotOptimize(tokens.data());
    }
    first = (first + 7919) % (doc.lineCount() - kScreen);
  }
}

// The steady state of a frame: some regions folded, 60 visible rows mapped to document lines
// and their cached tokens fetched.
void frameRows(benchmark::State &state) {
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
  state.counters["hidden_ranges"] = static_cast<double>(folds.hiddenRanges().size());
}

void foldToggle(benchmark::State &state) {
  const IrDocument &doc = document();
  FoldState folds(doc.foldRegions(), doc.lineCount());
  const uint32_t line = doc.foldRegions()[doc.foldRegions().size() / 2].startLine;
  for (auto _ : state)
    folds.toggle(line);
}

// Next match from a cursor in the middle, moving on after each hit.
void bmFindNext(benchmark::State &state, std::string query, bool caseSensitive) {
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

void bmFindNextPeer(benchmark::State &state, std::string query) {
  const std::string &text = moduleText();
  size_t cursor = document().lineIndex().lineStart(document().lineCount() / 2);
  for (auto _ : state) {
    const void *hit = memmem(text.data() + cursor, text.size() - cursor, query.data(), query.size());
    if (!hit)
      hit = memmem(text.data(), cursor + query.size() - 1, query.data(), query.size());
    if (hit)
      cursor = static_cast<size_t>(static_cast<const char *>(hit) - text.data()) + 1;
    benchmark::DoNotOptimize(hit);
  }
}

void bmFindAll(benchmark::State &state) {
  size_t n = 0;
  for (auto _ : state)
    n = document().findAll("linalg.yield", true, 10000).matches.size();
  state.counters["matches"] = static_cast<double>(n);
}

void bmFindAllPeer(benchmark::State &state) {
  const std::string &text = moduleText();
  const std::string q = "linalg.yield";
  for (auto _ : state) {
    size_t n = 0;
    for (const char *p = text.data(), *end = p + text.size(); n < 10000;) {
      const void *hit = memmem(p, static_cast<size_t>(end - p), q.data(), q.size());
      if (!hit)
        break;
      ++n;
      p = static_cast<const char *>(hit) + q.size();
    }
    benchmark::DoNotOptimize(n);
  }
}

void locationIndex(benchmark::State &state) {
  for (auto _ : state) {
    state.PauseTiming();
    IrDocument doc(moduleText());
    state.ResumeTiming();
    doc.prepareLocationIndex();
  }
}

void diff(benchmark::State &state, const std::string *newText, bool ignoreSsa) {
  const IrDocument &a = document();
  const IrDocument b(*newText);
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

void diffPeer(benchmark::State &state, const std::string *newText) {
  const IrDocument &a = document();
  const IrDocument b(*newText);
  for (auto _ : state) {
    size_t h = 0;
    for (const IrDocument *doc : {&a, &b})
      for (size_t i = 0; i < doc->lineCount(); ++i)
        h += std::hash<std::string_view>()(doc->line(i));
    benchmark::DoNotOptimize(h);
  }
}

} // namespace

int main(int argc, char **argv) {
  using benchmark::kMicrosecond;
  using benchmark::kMillisecond;
  using benchmark::RegisterBenchmark;
  // Edited copies of the module: 10 or 2000 scattered edits, with or without the SSA
  // renumbering the printer does after an inserted or deleted op; an unrelated module.
  static const std::string tenChanges = scatterChanges(moduleText(), 10, false);
  static const std::string tenRenumbered = scatterChanges(moduleText(), 10, true);
  static const std::string manyRenumbered = scatterChanges(moduleText(), 2000, true);
  static const std::string unrelated = generateModule(kLines, 99);

  RegisterBenchmark("document/build_loupe", documentBuild)->Unit(kMillisecond);
  RegisterBenchmark("document/build_memcpy", documentMemcpy)->Unit(kMillisecond);
  RegisterBenchmark("tokenize/screen_loupe", tokenizeScreen)->Unit(kMicrosecond);
  RegisterBenchmark("tokenize/screen_peer", tokenizeScreenPeer)->Unit(kMicrosecond);
  RegisterBenchmark("frame/rows_loupe", frameRows)->Unit(kMicrosecond);
  RegisterBenchmark("fold/toggle_loupe", foldToggle)->Unit(kMicrosecond);
  for (auto [name, query] : {std::pair{"frequent", "arith.mulf"}, {"rare", "@f1234("},
                             {"miss", "no_such_op"}}) {
    RegisterBenchmark((std::string("find/") + name + "_loupe").c_str(), bmFindNext, query, true)
        ->Unit(kMicrosecond);
    RegisterBenchmark((std::string("find/") + name + "_peer").c_str(), bmFindNextPeer, query)
        ->Unit(kMicrosecond);
  }
  RegisterBenchmark("find/miss-ignore-case_loupe", bmFindNext, "NO_SUCH_OP", false)
      ->Unit(kMicrosecond);
  RegisterBenchmark("findall/yield_loupe", bmFindAll)->Unit(kMillisecond);
  RegisterBenchmark("findall/yield_peer", bmFindAllPeer)->Unit(kMillisecond);
  RegisterBenchmark("location/index_loupe", locationIndex)->Unit(kMillisecond);
  RegisterBenchmark("diff/10-changes_plain", diff, &tenChanges, false)->Unit(kMillisecond);
  RegisterBenchmark("diff/10-changes_ignore-ssa", diff, &tenChanges, true)->Unit(kMillisecond);
  RegisterBenchmark("diff/10-changes_renumbered", diff, &tenRenumbered, false)->Unit(kMillisecond);
  RegisterBenchmark("diff/10-changes_renumbered-ignore-ssa", diff, &tenRenumbered, true)
      ->Unit(kMillisecond);
  RegisterBenchmark("diff/10-changes_peer", diffPeer, &tenChanges)->Unit(kMillisecond);
  RegisterBenchmark("diff/2000-changes_renumbered", diff, &manyRenumbered, false)
      ->Unit(kMillisecond);
  RegisterBenchmark("diff/2000-changes_renumbered-ignore-ssa", diff, &manyRenumbered, true)
      ->Unit(kMillisecond);
  RegisterBenchmark("diff/2000-changes_peer", diffPeer, &manyRenumbered)->Unit(kMillisecond);
  RegisterBenchmark("diff/unrelated_plain", diff, &unrelated, false)->Unit(kMillisecond);
  RegisterBenchmark("diff/unrelated_peer", diffPeer, &unrelated)->Unit(kMillisecond);

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
