//===- ComparisonTest.cpp - Matching dispatches of two runs ---------------------===//
#include "loupe/sessions/Comparison.h"

#include <gtest/gtest.h>

using namespace loupe::sessions;

namespace {
TimedDispatch dispatch(int64_t id, std::string name, std::string loc, std::string backend) {
  return {id, std::move(name), std::move(loc), std::vector<int64_t>(10, 1000 + id),
          std::move(backend)};
}

TEST(ComparisonTest, SameProgramMatchesById) {
  TimedRun a{{1, 2, 3}, {dispatch(0, "dispatch_0_generic", "relu", "codegen"),
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
  TimedRun library{{1}, {dispatch(0, "dispatch_0_transpose", "conv1", "codegen"),
                         dispatch(1, "dispatch_1_ral_conv_onednn", "conv1", "onednn"),
                         dispatch(2, "dispatch_2_generic", "relu1", "codegen"),
                         dispatch(3, "dispatch_3_generic", "relu2", "codegen")}};
  TimedRun codegen{{1}, {dispatch(0, "dispatch_0_transpose", "conv1", "codegen"),
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
}
} // namespace
