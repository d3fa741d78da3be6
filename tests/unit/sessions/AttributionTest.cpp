//===- AttributionTest.cpp - The first pass where two compiles differ ------===//
#include "loupe/sessions/Attribution.h"
#include "loupe/sessions/Comparison.h"

#include <gtest/gtest.h>

using namespace loupe;
using namespace loupe::sessions;

namespace {

/// A compile whose pass i has the per-source-op deltas `deltas[i]`.
profiler::CompileRecord compile(std::vector<std::string> passes,
                                std::vector<std::vector<std::pair<std::string, uint64_t>>> deltas) {
  profiler::CompileRecord c;
  for (size_t i = 0; i < passes.size(); ++i) {
    profiler::PassRecord p;
    p.idx = static_cast<int64_t>(i);
    p.pass = passes[i];
    p.phase = i == 0 ? "import" : "graph";
    p.locHashes = deltas[i];
    c.passes.push_back(p);
  }
  return c;
}

TEST(Attribution, NamesTheFirstPassWhereASourceOpsHashesDisagree) {
  // Both import the same IR; pass 1 rewrites conv1 only in b; pass 2 rewrites relu1 alike.
  profiler::CompileRecord a = compile({"import", "fold", "fuse"},
                                      {{{"conv1", 1}, {"relu1", 2}}, {}, {{"relu1", 7}}});
  profiler::CompileRecord b = compile({"import", "fold", "fuse"},
                                      {{{"conv1", 1}, {"relu1", 2}}, {{"conv1", 9}}, {{"relu1", 7}}});
  PassAttribution conv = attributePass(a, b, "conv1,relu1");
  EXPECT_EQ(conv.index, 1);
  EXPECT_EQ(conv.pass, "fold");
  EXPECT_EQ(conv.sourceOp, "conv1");
  EXPECT_EQ(describe(conv), "pass #1 fold (graph), source op conv1");
  PassAttribution relu = attributePass(a, b, "relu1");
  EXPECT_EQ(relu.index, -1) << "relu1's IR is the same after every pass";
  EXPECT_EQ(relu.note, "the same IR after every pass");
  // A source op that disappears in one compile (hash 0) differs there.
  profiler::CompileRecord gone = compile({"import", "fold", "fuse"},
                                         {{{"conv1", 1}, {"relu1", 2}}, {}, {{"relu1", 0}}});
  EXPECT_EQ(attributePass(a, gone, "relu1").index, 2);
}

TEST(Attribution, PipelinesThatPartAndCompilesWithoutHashes) {
  profiler::CompileRecord a = compile({"import", "fold"}, {{{"x", 1}}, {}});
  profiler::CompileRecord b = compile({"import", "cse"}, {{{"x", 1}}, {}});
  PassAttribution p = attributePass(a, b, "x");
  EXPECT_EQ(p.index, 1);
  EXPECT_EQ(p.note, "pipelines differ: fold vs cse");
  profiler::CompileRecord none = compile({"import", "fold"}, {{}, {}});
  PassAttribution n = attributePass(a, none, "x");
  EXPECT_EQ(n.index, -1);
  EXPECT_NE(n.note.find("no per-source-op hashes"), std::string::npos);
}

TEST(Attribution, OnlyChangedRowsAreAttributed) {
  auto trials = [](int64_t ns) {
    profiler::Trials t;
    for (int i = 0; i < 5; ++i) {
      t.emplace_back();
      for (int r = 0; r < 10; ++r)
        t.back().push_back(ns + i * 7 + r);
    }
    return t;
  };
  TimedRun base{trials(10000), {{0, "dispatch_0_generic", "relu1", trials(4000), "codegen"},
                                {1, "dispatch_1_matmul", "conv1", trials(6000), "codegen"}}};
  TimedRun cand{trials(16000), {{0, "dispatch_0_generic", "relu1", trials(4000), "codegen"},
                                {1, "dispatch_1_matmul", "conv1", trials(12000), "codegen"}}};
  RunComparison c = compareTimings(base, cand, 0.05);
  profiler::CompileRecord a = compile({"import", "fold"}, {{{"conv1", 1}, {"relu1", 2}}, {}});
  profiler::CompileRecord b = compile({"import", "fold"}, {{{"conv1", 1}, {"relu1", 2}}, {{"conv1", 3}}});
  attributeChanges(c, a, b);
  EXPECT_FALSE(c.rows[0].attribution) << "a SAME row is not attributed";
  ASSERT_TRUE(c.rows[1].attribution);
  EXPECT_EQ(c.rows[1].attribution->pass, "fold");
  EXPECT_FALSE(c.total.attribution) << "the whole model has no single source op";
  std::vector<std::string> slower = regressedRows(c);
  ASSERT_EQ(slower.size(), 1u);
  EXPECT_NE(slower[0].find("IR first differs after pass #1 fold"), std::string::npos) << slower[0];
}

} // namespace
