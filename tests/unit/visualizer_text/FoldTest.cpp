//===- FoldTest.cpp - Fold regions and the visible-line mapping -------------===//

#include "loupe/visualizer/text/FoldState.h"
#include "loupe/visualizer/text/IrDocument.h"

#include "TestData.h"

#include <gtest/gtest.h>

#include <random>

using namespace loupe::visualizer::text;
using loupe::visualizer::text::testing::readTestData;

namespace {

std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> spans(const std::vector<FoldRegion> &rs) {
  std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> out;
  for (const FoldRegion &r : rs)
    out.emplace_back(r.startLine, r.endLine, r.depth);
  return out;
}

const char *kNested = R"(module {                                   // 0
  func.func @f(%a: i32) -> i32 {            // 1
    %0 = scf.if %c -> i32 {                 // 2
      %s = "x.str"() {v = "}}{ not a brace"} : () -> i32
      scf.yield %s : i32                    // 4
    } else {                                // 5
      // a comment with { and }
      %t = arith.constant {a = 1} 2 : i32
      scf.yield %t : i32                    // 8
    }                                       // 9
    %e = "x.empty"() ({                     // 10
    }) : () -> i32                          // 11
    return %0 : i32                         // 12
  }                                         // 13
}                                           // 14
)";

} // namespace

TEST(FoldRegionsTest, NestedRegionsIgnoringStringsAndComments) {
  IrDocument doc(kNested);
  // (start, end, depth); the `({`/`})` pair on adjacent lines hides nothing: not a region.
  std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> want = {
      {0, 14, 0}, {1, 13, 1}, {2, 5, 2}, {5, 9, 2}};
  EXPECT_EQ(spans(doc.foldRegions()), want);
}

TEST(FoldRegionsTest, UnbalancedBracesAreDropped) {
  IrDocument doc("}\n{\n a\n}\n{\n b\n c\n");
  std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> want = {{1, 3, 0}};
  EXPECT_EQ(spans(doc.foldRegions()), want);
}

TEST(FoldRegionsTest, LlvmCommentsAndStrings) {
  IrDocument doc("define void @f() {\n; {\n  %s = c\"{\"\nentry:\n  ret void\n}\n", Language::LlvmIr);
  std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> want = {{0, 5, 0}};
  EXPECT_EQ(spans(doc.foldRegions()), want);
}

TEST(FoldRegionsTest, RealModule) {
  IrDocument doc(readTestData("cnn_fuse_elementwise.mlir"));
  const auto &rs = doc.foldRegions();
  ASSERT_FALSE(rs.empty());
  // The module is the outermost region and ends on the last `}` line.
  EXPECT_EQ(doc.line(rs[0].startLine), "module {");
  EXPECT_EQ(rs[0].depth, 0u);
  EXPECT_EQ(doc.line(rs[0].endLine).substr(0, 1), "}");
  for (size_t k = 1; k < rs.size(); ++k) {
    EXPECT_LT(rs[k - 1].startLine, rs[k].startLine);
    EXPECT_EQ(doc.line(rs[k].endLine).find_first_not_of(' '), doc.line(rs[k].startLine).find_first_not_of(' '))
        << "closing brace indented like the opening line " << rs[k].startLine;
  }
}

TEST(FoldStateTest, FoldHidesInteriorLines) {
  IrDocument doc(kNested);
  FoldState fs(doc.foldRegions(), doc.lineCount());
  EXPECT_EQ(fs.visibleLineCount(), 15u);
  EXPECT_FALSE(fs.fold(3)); // no region starts there
  EXPECT_TRUE(fs.fold(2));  // hides 3, 4
  EXPECT_EQ(fs.visibleLineCount(), 13u);
  EXPECT_TRUE(fs.isHidden(3));
  EXPECT_FALSE(fs.isHidden(5));
  EXPECT_EQ(fs.visibleToDocumentLine(2), 2u);
  EXPECT_EQ(fs.visibleToDocumentLine(3), 5u);
  EXPECT_EQ(fs.documentToVisibleLine(4), 2u); // hidden -> the `{` line
  EXPECT_EQ(fs.documentToVisibleLine(14), 12u);
  EXPECT_TRUE(fs.fold(5)); // hides 6..8
  EXPECT_EQ(fs.visibleLineCount(), 10u);
  EXPECT_EQ(fs.visibleToDocumentLine(4), 9u);
  // Folding the function hides both inner folds' lines once.
  EXPECT_TRUE(fs.fold(1));
  EXPECT_EQ(fs.visibleLineCount(), 4u); // 0, 1, 13, 14
  EXPECT_EQ(fs.hiddenRanges().size(), 1u);
  EXPECT_TRUE(fs.toggle(1));
  EXPECT_EQ(fs.visibleLineCount(), 10u); // the inner folds are remembered
  EXPECT_TRUE(fs.reveal(7));
  EXPECT_FALSE(fs.isFolded(5));
  EXPECT_TRUE(fs.isFolded(2));
  fs.unfoldAll();
  EXPECT_EQ(fs.visibleLineCount(), 15u);
  fs.foldDepth(1);
  EXPECT_EQ(fs.visibleLineCount(), 4u);
  fs.foldAll();
  EXPECT_EQ(fs.visibleLineCount(), 2u); // module { ... }
}

TEST(FoldStateTest, MappingRoundTripsUnderRandomFolds) {
  // A synthetic module: many functions with nested regions.
  std::string text = "module {\n";
  for (int f = 0; f < 40; ++f) {
    text += "  func.func @f" + std::to_string(f) + "() {\n";
    for (int b = 0; b < f % 4; ++b) {
      text += "    scf.for %i = %c0 to %c4 step %c1 {\n";
      for (int k = 0; k <= f % 3; ++k)
        text += "      %x = \"op\"() {s = \"}\"} : () -> i32\n";
      text += "    }\n";
    }
    text += "    return\n  }\n";
  }
  text += "}\n";
  IrDocument doc(text);
  FoldState fs(doc.foldRegions(), doc.lineCount());
  std::mt19937 rng(7);
  for (int step = 0; step < 120; ++step) {
    const FoldRegion &r = doc.foldRegions()[rng() % doc.foldRegions().size()];
    if (r.depth == 0 && rng() % 8 != 0)
      continue; // keep most of the module visible
    fs.toggle(r.startLine);
    // Brute-force reference of visible lines.
    std::vector<size_t> visible;
    for (size_t d = 0; d < doc.lineCount(); ++d) {
      bool hidden = false;
      for (const FoldRegion &q : doc.foldRegions())
        hidden |= fs.isFolded(q.startLine) && q.firstHidden() <= d && d <= q.lastHidden();
      if (!hidden)
        visible.push_back(d);
      EXPECT_EQ(fs.isHidden(d), hidden);
    }
    ASSERT_EQ(fs.visibleLineCount(), visible.size());
    for (size_t v = 0; v < visible.size(); ++v) {
      ASSERT_EQ(fs.visibleToDocumentLine(v), visible[v]) << "step " << step << " row " << v;
      ASSERT_EQ(fs.documentToVisibleLine(visible[v]), v);
    }
  }
}
