//===- CheckTest.cpp - Output comparison ---------------------------------------===//
#include "loupe/profiler/Check.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace loupe;
using namespace loupe::profiler;

namespace {
ral::Tensor floats(std::vector<float> values) {
  ral::Tensor t(ral::DType::F32, {static_cast<int64_t>(values.size())});
  std::copy(values.begin(), values.end(), t.dataAs<float>());
  return t;
}

TEST(CheckTest, PassesWithinTolerance) {
  auto checks = checkOutputs({floats({1.0f, 2.0f})}, {floats({1.0005f, 2.0f})}, 1e-3, 1e-5);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_TRUE(checks[0].record.passed);
  EXPECT_TRUE(checks[0].message.empty());
}

TEST(CheckTest, ReportsTheWorstElement) {
  auto checks =
      checkOutputs({floats({1.0f, 2.5f, 3.1f})}, {floats({1.0f, 2.0f, 3.0f})}, 1e-3, 1e-5);
  ASSERT_FALSE(checks[0].record.passed);
  EXPECT_EQ(checks[0].record.worstIndex, 1);
  EXPECT_FLOAT_EQ(checks[0].record.actual, 2.5f);
  EXPECT_FLOAT_EQ(checks[0].record.expected, 2.0f);
  EXPECT_NEAR(checks[0].record.maxAbsErr, 0.5, 1e-6);
  EXPECT_NE(checks[0].message.find("flat index 1"), std::string::npos);
}

TEST(CheckTest, NanOnlyMatchesNan) {
  EXPECT_TRUE(checkOutputs({floats({NAN})}, {floats({NAN})}, 0, 0)[0].record.passed);
  EXPECT_FALSE(checkOutputs({floats({NAN})}, {floats({1.f})}, 0, 0)[0].record.passed);
}

TEST(CheckTest, TypeAndCountMismatches) {
  auto checks = checkOutputs({floats({1.f})}, {floats({1.f, 2.f})}, 1e-3, 1e-5);
  EXPECT_FALSE(checks[0].record.passed);
  EXPECT_NE(checks[0].message.find("is f32[1], expected f32[2]"), std::string::npos);
  checks = checkOutputs({floats({1.f})}, {}, 1e-3, 1e-5);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_NE(checks[0].message.find("output_0.pb missing"), std::string::npos);
}
} // namespace
