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

TEST(DiagnosticsTest, DiagnosticCollectorForms) {
  // As core_compiler's DiagnosticCollector prints them after a failed pass: a FileLineColLoc
  // as `file:line:col`, other locations as MLIR prints them (`loc("Conv_3")`), notes indented.
  std::string log = "/m/cnn.onnx: pass 'tosa-to-linalg' of phase 'lower' failed:\n"
                    "loc(\"Conv_3\"): error: failed to legalize operation 'tosa.conv2d'\n"
                    "  note: see current operation: %0 = tosa.conv2d ...\n"
                    "/m/mlp.mlir:12:5: error: 'tosa.add' op operands don't broadcast\n"
                    "loc(fused[\"Gemm_0\", \"Relu_1\"]): error: fused\n"
                    "loc(\"n\"(\"m.mlir\":3:4)): error: named with a child\n"
                    "loupe compile: loc(\"Conv_3\"): error: with a tool prefix\n"
                    "loc(unknown): error: nowhere\n";
  std::vector<Diagnostic> ds = parseDiagnostics(log);
  ASSERT_EQ(ds.size(), 7u);
  EXPECT_EQ(ds[0].logLine, 1u);
  EXPECT_EQ(ds[0].file, "");
  EXPECT_EQ(ds[0].locationNames, (std::vector<std::string>{"Conv_3"}));
  EXPECT_EQ(ds[0].message, "failed to legalize operation 'tosa.conv2d'");
  EXPECT_EQ(ds[1].severity, Severity::Note);
  EXPECT_EQ(ds[2].file, "/m/mlp.mlir");
  EXPECT_EQ(ds[2].line, 12u);
  EXPECT_EQ(ds[2].column, 5u);
  EXPECT_EQ(ds[2].message, "'tosa.add' op operands don't broadcast");
  EXPECT_EQ(ds[3].locationNames, (std::vector<std::string>{"Gemm_0", "Relu_1"}));
  EXPECT_EQ(ds[4].locationNames, (std::vector<std::string>{"n"}));
  EXPECT_EQ(ds[5].locationNames, (std::vector<std::string>{"Conv_3"}));
  EXPECT_EQ(ds[5].message, "with a tool prefix");
  EXPECT_TRUE(ds[6].locationNames.empty());
  EXPECT_EQ(ds[6].message, "nowhere");
}
