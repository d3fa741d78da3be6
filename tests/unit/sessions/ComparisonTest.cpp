//===- ComparisonTest.cpp - Matching dispatches of two runs ---------------------===//
#include "loupe/sessions/Comparison.h"

#include <gtest/gtest.h>

using namespace loupe::sessions;

namespace {
TimedDispatch dispatch(int64_t id, std::string name, std::string loc, std::string backend) {
  return {id, std::move(name), std::move(loc), {std::vector<int64_t>(10, 1000 + id)},
          std::move(backend)};
}

TEST(ComparisonTest, SameProgramMatchesById) {
  TimedRun a{{{1, 2, 3}}, {dispatch(0, "dispatch_0_generic", "relu", "codegen"),
                         dispatch(1, "dispatch_1_generic", "add", "codegen")}};
  RunComparison c = compareTimings(a, a, 0.05);
  ASSERT_EQ(c.rows.size(), 2u);
  for (const DispatchComparison &row : c.rows) {
    EXPECT_TRUE(row.inBaseline && row.inCandidate);
    EXPECT_EQ(row.candidateName, row.name);
    EXPECT_EQ(row.baselineBackend, "codegen");
  }
}

TEST(ComparisonTest, AnotherScheduleMatchesByLocAndKernelKind) {
  // Library vs codegen: the conv has no counterpart, the kernels after it shift their ids.
  TimedRun library{{{1}}, {dispatch(0, "dispatch_0_transpose", "conv1", "codegen"),
                         dispatch(1, "dispatch_1_ral_conv_onednn", "conv1", "onednn"),
                         dispatch(2, "dispatch_2_generic", "relu1", "codegen"),
                         dispatch(3, "dispatch_3_generic", "relu2", "codegen")}};
  TimedRun codegen{{{1}}, {dispatch(0, "dispatch_0_transpose", "conv1", "codegen"),
                         dispatch(1, "dispatch_1_fill", "conv1", "codegen"),
                         dispatch(2, "dispatch_2_conv_2d_nhwc_fhwc", "conv1", "codegen"),
                         dispatch(3, "dispatch_3_generic", "relu1", "codegen"),
                         dispatch(4, "dispatch_4_generic", "relu2", "codegen")}};
  RunComparison c = compareTimings(library, codegen, 0.05);
  ASSERT_EQ(c.rows.size(), 6u);
  EXPECT_EQ(c.rows[0].candidateName, "dispatch_0_transpose");
  EXPECT_FALSE(c.rows[1].inCandidate) << "the library conv has no codegen counterpart by kind";
  EXPECT_EQ(c.rows[1].baselineBackend, "onednn");
  // dispatch_3_generic exists on both sides, but with another loc: relu1 pairs by kind.
  EXPECT_EQ(c.rows[2].candidateName, "dispatch_3_generic");
  EXPECT_EQ(c.rows[3].candidateName, "dispatch_4_generic");
  EXPECT_FALSE(c.rows[4].inBaseline);
  EXPECT_EQ(c.rows[4].name, "dispatch_1_fill");
  EXPECT_EQ(c.rows[5].name, "dispatch_2_conv_2d_nhwc_fhwc");
  EXPECT_EQ(c.rows[5].candidateBackend, "codegen");

  // The unmatched conv kernels of both sides form one source-op group, timed as their sums.
  ASSERT_EQ(c.groups.size(), 1u);
  const GroupComparison &g = c.groups[0];
  EXPECT_EQ(g.loc, "conv1");
  EXPECT_EQ(g.baselineIds, (std::vector<int64_t>{1}));
  EXPECT_EQ(g.candidateIds, (std::vector<int64_t>{1, 2}));
  EXPECT_DOUBLE_EQ(g.row.comparison.baseline.median, 1001);
  EXPECT_DOUBLE_EQ(g.row.comparison.candidate.median, 1001 + 1002);
  EXPECT_EQ(g.row.name, "source ops conv1");
  for (size_t r : {1u, 4u, 5u})
    EXPECT_EQ(c.rows[r].group, 0) << r;
  EXPECT_EQ(c.rows[0].group, -1);
}

TEST(ComparisonTest, GroupsFollowSharedSourceOpsTransitively) {
  // A fused conv+relu on one side, conv and relu apart on the other, with a pool joined to the
  // relu: {conv1,relu1} ~ {conv1} ~ {relu1,pool1} ~ {pool1} all form one group; fc stays apart.
  TimedRun a{{{1}}, {dispatch(0, "dispatch_0_ral_conv_onednn", "conv1,relu1", "onednn"),
                     dispatch(1, "dispatch_1_generic_reduce", "pool1", "codegen"),
                     dispatch(2, "dispatch_2_ral_gemm_onednn", "fc", "onednn")}};
  TimedRun b{{{1}}, {dispatch(0, "dispatch_0_conv_2d_nhwc_fhwc", "conv1", "codegen"),
                     dispatch(1, "dispatch_1_generic_reduce", "relu1,pool1", "codegen"),
                     dispatch(2, "dispatch_2_matmul", "fc", "codegen")}};
  RunComparison c = compareTimings(a, b, 0.05);
  ASSERT_EQ(c.groups.size(), 2u);
  EXPECT_EQ(c.groups[0].loc, "conv1,pool1,relu1");
  EXPECT_EQ(c.groups[0].baselineIds, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(c.groups[0].candidateIds, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(c.groups[1].loc, "fc");
}

TEST(ComparisonTest, SourceOpsComparedAsOneGroupWhateverTheMatching) {
  // loupe tune's measurement of one op: every dispatch computing conv1 on either side, plus
  // what they fused (relu1 on the library side pulls in the codegen relu1 kernel).
  TimedRun library{{{1}}, {dispatch(0, "dispatch_0_transpose", "conv0", "codegen"),
                         dispatch(1, "dispatch_1_ral_conv_onednn", "conv1,relu1", "onednn"),
                         dispatch(2, "dispatch_2_generic", "pool1", "codegen")}};
  TimedRun codegen{{{1}}, {dispatch(0, "dispatch_0_transpose", "conv0", "codegen"),
                         dispatch(1, "dispatch_1_conv_2d_nhwc_fhwc", "conv1", "codegen"),
                         dispatch(2, "dispatch_2_generic", "relu1", "codegen"),
                         dispatch(3, "dispatch_3_generic", "pool1", "codegen")}};
  DispatchComparison row =
      compareSourceOps(library, codegen, {"conv1"}, defaultCompareOptions(0.05));
  EXPECT_EQ(row.loc, "conv1,relu1");
  EXPECT_EQ(row.name, "source ops conv1,relu1");
  EXPECT_TRUE(row.inBaseline && row.inCandidate);
  EXPECT_DOUBLE_EQ(row.comparison.baseline.median, 1001);
  EXPECT_DOUBLE_EQ(row.comparison.candidate.median, 1001 + 1002);
  // Barriers: conv2's kernel shares relu1 with conv1's group on the codegen side (a fused
  // elementwise chain), but conv2 is another tuned op: the group takes that kernel and stops.
  TimedRun chain{{{1}}, {dispatch(0, "dispatch_0_conv_2d_nhwc_fhwc", "conv1", "codegen"),
                         dispatch(1, "dispatch_1_generic", "conv1,relu1", "codegen"),
                         dispatch(2, "dispatch_2_generic", "relu1,conv2", "codegen"),
                         dispatch(3, "dispatch_3_conv_2d_nhwc_fhwc", "conv2", "codegen")}};
  DispatchComparison open = compareSourceOps(chain, chain, {"conv1"}, defaultCompareOptions(0.05));
  EXPECT_EQ(open.loc, "conv1,conv2,relu1");
  DispatchComparison stopped =
      compareSourceOps(chain, chain, {"conv1"}, defaultCompareOptions(0.05), {"conv1", "conv2"});
  EXPECT_EQ(stopped.loc, "conv1,relu1");
  EXPECT_DOUBLE_EQ(stopped.comparison.baseline.median, 1000 + 1001 + 1002);
  // An op neither side computes: both sides missing, never a verdict.
  DispatchComparison none =
      compareSourceOps(library, codegen, {"fc"}, defaultCompareOptions(0.05));
  EXPECT_FALSE(none.inBaseline || none.inCandidate);
  EXPECT_EQ(none.comparison.verdict, loupe::profiler::Verdict::Ambiguous);
}

TEST(ComparisonTest, TheGateLooksAtTheWholeModelAndListsSlowerRows) {
  auto failOn = parseFailOn("slower,AMBIGUOUS");
  ASSERT_TRUE(failOn.isOk());
  EXPECT_EQ(failOn->size(), 2u);
  auto bad = parseFailOn("slower,worse");
  ASSERT_FALSE(bad.isOk());
  EXPECT_NE(bad.status().message().find("'worse'"), std::string::npos);

  // Five trials per side; dispatch 1 is 2x slower, so is the whole repetition.
  auto trials = [](int64_t ns) {
    loupe::profiler::Trials t;
    for (int i = 0; i < 5; ++i) {
      t.emplace_back();
      for (int r = 0; r < 10; ++r)
        t.back().push_back(ns + i * 7 + r);
    }
    return t;
  };
  TimedRun a{trials(10000), {{0, "dispatch_0_generic", "relu", trials(4000), "codegen"},
                             {1, "dispatch_1_matmul", "fc", trials(6000), "codegen"}}};
  TimedRun b{trials(16000), {{0, "dispatch_0_generic", "relu", trials(4000), "codegen"},
                             {1, "dispatch_1_matmul", "fc", trials(12000), "codegen"}}};
  RunComparison c = compareTimings(a, b, 0.05);
  EXPECT_EQ(c.total.comparison.verdict, loupe::profiler::Verdict::Slower) << c.total.comparison.reason;
  EXPECT_TRUE(gateFails(*failOn, c));
  EXPECT_FALSE(gateFails({loupe::profiler::Verdict::Faster}, c));
  std::vector<std::string> rows = regressedRows(c);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].rfind("dispatch_1_matmul: +", 0), 0u) << rows[0];
  EXPECT_NE(rows[0].find(" ["), std::string::npos) << "trialed rows carry their interval";
  EXPECT_FALSE(gateFails(*failOn, compareTimings(a, a, 0.05)));
}
} // namespace
