//===- LocationTest.cpp - loc(...) parsing, alias table, line <-> location --===//

#include "loupe/visualizer/text/IrDocument.h"
#include "loupe/visualizer/text/Location.h"

#include "TestData.h"

#include <gtest/gtest.h>

using namespace loupe::visualizer::text;
using loupe::visualizer::text::testing::readTestData;
using Names = std::vector<std::string>;

TEST(LocationTest, TrailingLoc) {
  EXPECT_EQ(findTrailingLoc("  %0 = tosa.add %a, %b : tensor<f32> loc(#loc3)"), "#loc3");
  EXPECT_EQ(findTrailingLoc("  return loc(\"a(b\")  "), "\"a(b\"");
  EXPECT_EQ(findTrailingLoc("x loc(fused[#loc1, \"m.mlir\":3:4])"), "fused[#loc1, \"m.mlir\":3:4]");
  EXPECT_EQ(findTrailingLoc("x loc(callsite(\"f\" at \"g\"))"), "callsite(\"f\" at \"g\")");
  EXPECT_FALSE(findTrailingLoc("  func.func @main(%a: i32 loc(\"image\")) -> i32 {"));
  EXPECT_FALSE(findTrailingLoc("  ^bb0(%in: f32 loc(\"conv1\")):"));
  EXPECT_FALSE(findTrailingLoc("  %x = foo.myloc(%a)"));
  EXPECT_FALSE(findTrailingLoc(""));
}

TEST(LocationTest, AliasDefinition) {
  auto def = parseLocAliasDefinition("#loc12 = loc(\"fc\")");
  ASSERT_TRUE(def);
  EXPECT_EQ(def->alias, "#loc12");
  EXPECT_EQ(def->body, "\"fc\"");
  EXPECT_FALSE(parseLocAliasDefinition("#map = affine_map<(d0) -> (d0)>"));
  EXPECT_FALSE(parseLocAliasDefinition("  %0 = x loc(#loc)"));
}

TEST(LocationTest, ResolveNamesFilesFusedCallsite) {
  LocationTable t;
  t.add(*parseLocAliasDefinition("#loc1 = loc(\"Conv_3\")"), 10);
  t.add(*parseLocAliasDefinition("#loc2 = loc(\"model.mlir\":12:4)"), 11);
  t.add(*parseLocAliasDefinition("#loc3 = loc(fused[#loc1, #loc2])"), 12);
  t.add(*parseLocAliasDefinition("#loc4 = loc(fused<\"meta\">[#loc3, \"Relu_1\", #loc1])"), 13);
  t.add(*parseLocAliasDefinition("#loc5 = loc(unknown)"), 14);
  t.add(*parseLocAliasDefinition("#loc6 = loc(\"outer\"(#loc2))"), 15);
  t.add(*parseLocAliasDefinition("#loc7 = loc(callsite(#loc1 at \"caller.py\":1:2))"), 16);
  t.add(*parseLocAliasDefinition("#loc8 = loc(#loc9)"), 17); // forward reference
  t.add(*parseLocAliasDefinition("#loc9 = loc(\"late\")"), 18);
  t.add(*parseLocAliasDefinition("#loc10 = loc(#loc10)"), 19); // cycle: must terminate
  t.finalize();
  EXPECT_EQ(t.resolve("#loc1"), (Names{"Conv_3"}));
  EXPECT_EQ(t.resolve("#loc2"), (Names{"model.mlir:12:4"}));
  EXPECT_EQ(t.resolve("#loc3"), (Names{"Conv_3", "model.mlir:12:4"}));
  EXPECT_EQ(t.resolve("#loc4"), (Names{"Conv_3", "model.mlir:12:4", "Relu_1"}));
  EXPECT_EQ(t.resolve("#loc5"), Names{});
  EXPECT_EQ(t.resolve("#loc6"), (Names{"outer"}));
  EXPECT_EQ(t.resolve("#loc7"), (Names{"Conv_3"}));
  EXPECT_EQ(t.resolve("#loc8"), (Names{"late"}));
  EXPECT_EQ(t.resolve("#loc10"), Names{});
  EXPECT_EQ(t.resolve("#nope"), Names{});
  EXPECT_EQ(t.resolve("\"a\\\"b\""), (Names{"a\"b"}));
  EXPECT_EQ(t.resolve("\"x\\22y\""), (Names{"x\"y"}));
  EXPECT_EQ(t.resolve("fused[\"a\", garbage"), (Names{"a"})); // malformed: what parses
  EXPECT_EQ(t.definitionLine("#loc3"), 12u);
  EXPECT_FALSE(t.definitionLine("#loc99"));
}

TEST(LocationTest, DocumentLinesAndReverseLookup) {
  // cnn_import.mlir: aliases at the bottom; cnn_fuse_elementwise.mlir: at the top.
  for (const char *file : {"cnn_import.mlir", "cnn_fuse_elementwise.mlir"}) {
    IrDocument doc(readTestData(file));
    std::vector<size_t> conv1 = doc.linesWithLocation("conv1");
    ASSERT_FALSE(conv1.empty()) << file;
    for (size_t line : conv1) {
      Names names = doc.locationOfLine(line);
      EXPECT_NE(std::find(names.begin(), names.end(), "conv1"), names.end())
          << file << ":" << line + 1 << ": " << doc.line(line);
      EXPECT_NE(doc.line(line).find_first_not_of(' '), std::string_view::npos);
    }
    Names all = doc.locationNames();
    EXPECT_TRUE(std::is_sorted(all.begin(), all.end()));
    EXPECT_NE(std::find(all.begin(), all.end(), "softmax"), all.end()) << file;
  }
  IrDocument doc(readTestData("cnn_import.mlir"));
  // `%5 = tosa.conv2d ... loc(#loc4)` with `#loc4 = loc("conv1")` at the end of the module.
  size_t conv = doc.findAll("tosa.conv2d", true).matches.at(0).line;
  EXPECT_EQ(doc.locationOfLine(conv), (Names{"conv1"}));
  EXPECT_EQ(doc.locationOfLine(0), (Names{"image"})); // the alias definition itself
  EXPECT_EQ(doc.locationTable().definitionLine("#loc4"), doc.findAll("#loc4 = ", true).matches.at(0).line);
  // `module {` takes the loc after its closing brace: `} loc(#loc)`, `#loc = loc("cnn")`.
  EXPECT_EQ(doc.locationOfLine(1), (Names{"cnn"}));
  EXPECT_EQ(doc.linesWithLocation("cnn"), (std::vector<size_t>{1, 2}));
  EXPECT_TRUE(doc.linesWithLocation("no such op").empty());
}

TEST(LocationTest, RegionOpTakesLocOfClosingLine) {
  IrDocument doc(readTestData("cnn_fuse_elementwise.mlir"));
  // `%padded = tensor.pad ... {` ... `} : ... loc(#loc5)`, `#loc5 = loc("conv1")`.
  size_t pad = doc.findAll("tensor.pad", true).matches.at(0).line;
  EXPECT_EQ(doc.locationOfLine(pad), (Names{"conv1"}));
  std::vector<size_t> conv1 = doc.linesWithLocation("conv1");
  EXPECT_NE(std::find(conv1.begin(), conv1.end(), pad), conv1.end());
  EXPECT_EQ(std::find(conv1.begin(), conv1.end(), pad + 3), conv1.end()); // the `}` line
  // Block arguments' locs are not the line's location.
  EXPECT_TRUE(doc.locationOfLine(pad + 1).empty()) << doc.line(pad + 1);
}
