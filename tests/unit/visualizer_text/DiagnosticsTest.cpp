//===- DiagnosticsTest.cpp - MLIR diagnostics in a log ----------------------===//

#include "loupe/visualizer/text/Diagnostics.h"

#include <gtest/gtest.h>

using namespace loupe::visualizer::text;

TEST(DiagnosticsTest, FileLineColWithSourceAndCaret) {
  // Verbatim from `loupe compile /tmp/bad.mlir` (exit code 2).
  std::string log =
      "loupe compile: /tmp/bad.mlir:2:3: error: type of return operand 0 ('i32') doesn't match "
      "function result type ('i64') in function @f\n"
      "  return %a : i32\n"
      "  ^\n"
      "/tmp/bad.mlir:2:3: note: see current operation: \"func.return\"(%arg0) : (i32) -> ()\n";
  std::vector<Diagnostic> ds = parseDiagnostics(log);
  ASSERT_EQ(ds.size(), 2u);
  EXPECT_EQ(ds[0].severity, Severity::Error);
  EXPECT_EQ(ds[0].file, "/tmp/bad.mlir");
  EXPECT_EQ(ds[0].line, 2u);
  EXPECT_EQ(ds[0].column, 3u);
  EXPECT_EQ(ds[0].message, "type of return operand 0 ('i32') doesn't match function result "
                           "type ('i64') in function @f");
  EXPECT_EQ(ds[0].logLine, 0u);
  EXPECT_EQ(ds[0].contextLines, 2u);
  EXPECT_EQ(ds[1].severity, Severity::Note);
  EXPECT_EQ(ds[1].logLine, 3u);
  EXPECT_EQ(ds[1].contextLines, 0u);
  EXPECT_EQ(ds[1].message, "see current operation: \"func.return\"(%arg0) : (i32) -> ()");
}

TEST(DiagnosticsTest, OtherForms) {
  std::string log = "model.mlir:7: warning: no column\r\n"
                    "error: loc(\"conv1\"): 'tosa.conv2d' op failed to verify\n"
                    "error: loc(fused[\"a\", \"f.mlir\":1:2]): fused\n"
                    "loupe: error: cannot open x.onnx\n"
                    "<unknown>:0: remark: something\n"
                    "just some text with error: inside\n"
                    "nothing here\n";
  std::vector<Diagnostic> ds = parseDiagnostics(log);
  ASSERT_EQ(ds.size(), 5u); // "with error:" has no location prefix ending in ':'
  EXPECT_EQ(ds[0].severity, Severity::Warning);
  EXPECT_EQ(ds[0].file, "model.mlir");
  EXPECT_EQ(ds[0].line, 7u);
  EXPECT_EQ(ds[0].column, 0u);
  EXPECT_EQ(ds[0].message, "no column");
  EXPECT_EQ(ds[1].file, "");
  EXPECT_EQ(ds[1].locationNames, (std::vector<std::string>{"conv1"}));
  EXPECT_EQ(ds[1].message, "'tosa.conv2d' op failed to verify");
  EXPECT_EQ(ds[2].locationNames, (std::vector<std::string>{"a", "f.mlir:1:2"}));
  EXPECT_EQ(ds[2].message, "fused");
  EXPECT_EQ(ds[3].file, "");
  EXPECT_EQ(ds[3].message, "cannot open x.onnx");
  EXPECT_EQ(ds[4].severity, Severity::Remark);
  EXPECT_EQ(ds[4].file, "<unknown>");
  EXPECT_EQ(ds[4].line, 0u);
}
