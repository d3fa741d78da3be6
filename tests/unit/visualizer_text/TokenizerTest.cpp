//===- TokenizerTest.cpp - Syntax tokens of MLIR, LLVM IR and assembly lines ===//

#include "loupe/visualizer/text/IrDocument.h"
#include "loupe/visualizer/text/Token.h"

#include "TestData.h"

#include <gtest/gtest.h>

using namespace loupe::visualizer::text;
using loupe::visualizer::text::testing::readTestData;

namespace {

/// Kind name of the token spanning exactly the first occurrence of `piece` in `line`, or a
/// description of what covers it instead.
std::string kindOf(Language language, std::string_view line, std::string_view piece,
                   size_t occurrence = 0) {
  size_t at = line.find(piece);
  for (size_t k = 0; k < occurrence && at != std::string_view::npos; ++k)
    at = line.find(piece, at + 1);
  if (at == std::string_view::npos)
    return "<not in line>";
  for (const Token &t : tokenizeLine(language, line)) {
    if (t.begin == at && t.end == at + piece.size())
      return tokenKindName(t.kind);
    if (t.begin <= at && at < t.end)
      return std::string("<inside ") + tokenKindName(t.kind) + " '" +
             std::string(line.substr(t.begin, t.end - t.begin)) + "'>";
  }
  return "<no token>";
}

std::string mlir(std::string_view line, std::string_view piece, size_t occurrence = 0) {
  return kindOf(Language::Mlir, line, piece, occurrence);
}

void expectWellFormed(Language language, std::string_view line) {
  std::vector<Token> tokens = tokenizeLine(language, line);
  size_t covered = 0;
  for (size_t k = 0; k < tokens.size(); ++k) {
    ASSERT_LT(tokens[k].begin, tokens[k].end) << line;
    ASSERT_LE(tokens[k].end, line.size()) << line;
    // Only spaces and tabs between tokens.
    for (size_t i = covered; i < tokens[k].begin; ++i)
      ASSERT_TRUE(line[i] == ' ' || line[i] == '\t') << "gap at " << i << " in: " << line;
    covered = tokens[k].end;
  }
  for (size_t i = covered; i < line.size(); ++i)
    ASSERT_TRUE(line[i] == ' ' || line[i] == '\t' || line[i] == '\r') << line;
}

} // namespace

TEST(TokenizerTest, MlirGenericOpWithConstant) {
  // From cnn_import.mlir (tosa after the ONNX importer).
  std::string_view l = R"(    %0 = "tosa.const"() <{value = dense<[-0.0889594852, -0.255225271]> : tensor<8xf32>}> : () -> tensor<8xf32> loc(#loc2))";
  EXPECT_EQ(mlir(l, "%0"), "ssa-value");
  EXPECT_EQ(mlir(l, "="), "punctuation");
  EXPECT_EQ(mlir(l, "\"tosa.const\""), "op-name");
  EXPECT_EQ(mlir(l, "value"), "identifier");
  EXPECT_EQ(mlir(l, "dense"), "keyword");
  EXPECT_EQ(mlir(l, "-0.0889594852"), "number");
  EXPECT_EQ(mlir(l, "tensor<8xf32>"), "type");
  EXPECT_EQ(mlir(l, "->"), "punctuation");
  EXPECT_EQ(mlir(l, "loc"), "keyword");
  EXPECT_EQ(mlir(l, "#loc2"), "alias");
}

TEST(TokenizerTest, MlirCustomOps) {
  std::string_view conv = R"(    %5 = tosa.conv2d %3, %4, %0 {dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>} : (tensor<1x32x32x3xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x32x32x8xf32> loc(#loc4))";
  EXPECT_EQ(mlir(conv, "tosa.conv2d"), "op-name");
  EXPECT_EQ(mlir(conv, "%3"), "ssa-value");
  EXPECT_EQ(mlir(conv, "dilation"), "identifier");
  EXPECT_EQ(mlir(conv, "array"), "keyword");
  EXPECT_EQ(mlir(conv, "i64"), "type");
  EXPECT_EQ(mlir(conv, "tensor<1x32x32x3xf32>"), "type");

  std::string_view generic = R"(    %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%cst_9 : tensor<8xf32>) outs(%1 : tensor<1x32x32x8xf32>) {)";
  EXPECT_EQ(mlir(generic, "linalg.generic"), "op-name");
  EXPECT_EQ(mlir(generic, "#map"), "alias");
  EXPECT_EQ(mlir(generic, "#map1"), "alias");
  EXPECT_EQ(mlir(generic, "\"parallel\""), "string");
  EXPECT_EQ(mlir(generic, "ins"), "keyword");
  EXPECT_EQ(mlir(generic, "outs"), "keyword");
  EXPECT_EQ(mlir(generic, "%cst_9"), "ssa-value");
  EXPECT_EQ(mlir(generic, "{", 1), "punctuation");

  std::string_view block = R"(    ^bb0(%in: f32 loc("conv1.bias"), %out: f32 loc("conv1")):)";
  EXPECT_EQ(mlir(block, "^bb0"), "block-label");
  EXPECT_EQ(mlir(block, "%in"), "ssa-value");
  EXPECT_EQ(mlir(block, "f32"), "type");
  EXPECT_EQ(mlir(block, "\"conv1.bias\""), "string"); // not followed by '(': not an op

  std::string_view func = R"(  func.func @main(%arg0: tensor<1x3x32x32xf32> loc("image")) -> tensor<1x10xf32> {)";
  EXPECT_EQ(mlir(func, "func.func"), "keyword");
  EXPECT_EQ(mlir(func, "@main"), "symbol");
  EXPECT_EQ(mlir(func, "%arg0"), "ssa-value");

  EXPECT_EQ(mlir("module {", "module"), "keyword");
  EXPECT_EQ(mlir("    return %42 : tensor<1x10xf32> loc(#loc14)", "return"), "keyword");
  EXPECT_EQ(mlir("    linalg.yield %in : f32 loc(#loc5)", "linalg.yield"), "op-name");
}

TEST(TokenizerTest, MlirValuesAliasesTypesAndComments) {
  std::string_view l = R"(  %r:2 = "test.op"(%arg0#1, %x) : (memref<?x4xf32, strided<[4, 1], offset: ?>>, index) -> (!ral.context, vector<4xf32>) // done {)";
  EXPECT_EQ(mlir(l, "%r"), "ssa-value");
  EXPECT_EQ(mlir(l, "\"test.op\""), "op-name");
  EXPECT_EQ(mlir(l, "%arg0#1"), "ssa-value");
  EXPECT_EQ(mlir(l, "memref<?x4xf32, strided<[4, 1], offset: ?>>"), "type");
  EXPECT_EQ(mlir(l, "index"), "type");
  EXPECT_EQ(mlir(l, "!ral.context"), "alias");
  EXPECT_EQ(mlir(l, "vector<4xf32>"), "type");
  EXPECT_EQ(mlir(l, "// done {"), "comment");

  std::string_view alias = R"(#map3 = affine_map<(d0, d1, d2, d3) -> (0, d1, 0, 0)>)";
  EXPECT_EQ(mlir(alias, "#map3"), "alias");
  EXPECT_EQ(mlir(alias, "affine_map"), "keyword");
  EXPECT_EQ(mlir(alias, "d0"), "identifier");
  EXPECT_EQ(mlir(alias, "0", 1), "number");

  std::string_view consts = R"(    %cst_1 = arith.constant -3.40282347E+38 : f32 loc(#loc2))";
  EXPECT_EQ(mlir(consts, "-3.40282347E+38"), "number");
  EXPECT_EQ(mlir(consts, "arith.constant"), "op-name");
  EXPECT_EQ(mlir("  %c = arith.constant 0x7F800000 : f32", "0x7F800000"), "number");
  // A dotted attribute name is not an op.
  std::string_view attrs = R"(  func.func @main() attributes {loupe.dispatches = [{id = 0 : i64, loc = "conv1"}]} {)";
  EXPECT_EQ(mlir(attrs, "attributes"), "keyword");
  EXPECT_EQ(mlir(attrs, "loupe.dispatches"), "identifier");
  EXPECT_EQ(mlir(attrs, "\"conv1\""), "string");
  // Escaped quotes stay inside the string.
  std::string_view esc = R"(  "foo.bar"() {s = "a \"q\" b"} : () -> ())";
  EXPECT_EQ(mlir(esc, R"("a \"q\" b")"), "string");
}

TEST(TokenizerTest, LlvmIr) {
  auto llvm = [](std::string_view l, std::string_view p, size_t occ = 0) {
    return kindOf(Language::LlvmIr, l, p, occ);
  };
  std::string_view def = "define void @loupe_entry(ptr nocapture readonly %0) local_unnamed_addr {";
  EXPECT_EQ(llvm(def, "define"), "keyword");
  EXPECT_EQ(llvm(def, "void"), "type");
  EXPECT_EQ(llvm(def, "@loupe_entry"), "symbol");
  EXPECT_EQ(llvm(def, "ptr"), "type");
  EXPECT_EQ(llvm(def, "nocapture"), "keyword");
  EXPECT_EQ(llvm(def, "%0"), "ssa-value");
  std::string_view load = "  %desc0 = load ptr, ptr %0, align 8, !tbaa !12 ; first";
  EXPECT_EQ(llvm(load, "%desc0"), "ssa-value");
  EXPECT_EQ(llvm(load, "load"), "op-name");
  EXPECT_EQ(llvm(load, "8"), "number");
  EXPECT_EQ(llvm(load, "!tbaa"), "alias");
  EXPECT_EQ(llvm(load, "!12"), "alias");
  EXPECT_EQ(llvm(load, "; first"), "comment");
  EXPECT_EQ(llvm("entry:", "entry"), "block-label");
  EXPECT_EQ(llvm(".preheader164:                   ; preds = %18", ".preheader164"), "block-label");
  EXPECT_EQ(llvm("  %21 = add i64 %20, -64", "i64"), "type");
  EXPECT_EQ(llvm("  %21 = add i64 %20, -64", "-64"), "number");
  EXPECT_EQ(llvm("  br label %vector.body", "%vector.body"), "ssa-value");
  EXPECT_EQ(llvm("  br label %vector.body", "br"), "op-name");
  EXPECT_EQ(llvm(R"(@s = constant [3 x i8] c"a\22b")", R"(c"a\22b")"), "string");
  EXPECT_EQ(llvm("declare void @free(ptr) #0", "#0"), "alias");
  EXPECT_EQ(llvm("  %f = fadd float %a, 0x3FBDD3C580000000", "0x3FBDD3C580000000"), "number");
}

TEST(TokenizerTest, Assembly) {
  auto as = [](std::string_view l, std::string_view p, size_t occ = 0) {
    return kindOf(Language::Assembly, l, p, occ);
  };
  EXPECT_EQ(as("main:", "main"), "block-label");
  EXPECT_EQ(as(".LBB0_3:", ".LBB0_3"), "block-label");
  EXPECT_EQ(as("\t.cfi_offset %rbp, -16", ".cfi_offset"), "keyword");
  EXPECT_EQ(as("\t.cfi_offset %rbp, -16", "%rbp"), "register");
  EXPECT_EQ(as("\t.cfi_offset %rbp, -16", "-16"), "number");
  EXPECT_EQ(as("\tsubq\t$520, %rsp", "subq"), "op-name");
  EXPECT_EQ(as("\tsubq\t$520, %rsp", "$520"), "number");
  EXPECT_EQ(as("\tcallq\tmalloc@PLT", "malloc@PLT"), "symbol");
  EXPECT_EQ(as("\tjne\t.LBB0_3   # loop", ".LBB0_3"), "symbol");
  EXPECT_EQ(as("\tjne\t.LBB0_3   # loop", "# loop"), "comment");
  EXPECT_EQ(as("\tmov rax, qword ptr [rbp - 8]", "rax"), "register");
  EXPECT_EQ(as("\tmov rax, qword ptr [rbp - 8]", "qword"), "keyword");
  EXPECT_EQ(as("\tmovq\t%rax, -416(%rbp)", "-416"), "number");
}

TEST(TokenizerTest, EveryFixtureLineIsCovered) {
  for (auto [file, language] : {std::pair{"cnn_import.mlir", Language::Mlir},
                                {"cnn_fuse_elementwise.mlir", Language::Mlir},
                                {"cnn_canonicalize.mlir", Language::Mlir},
                                {"cnn_entry.ll", Language::LlvmIr},
                                {"cnn_main.s", Language::Assembly}}) {
    IrDocument doc(readTestData(file), language);
    ASSERT_GT(doc.lineCount(), 20u) << file;
    for (size_t i = 0; i < doc.lineCount(); ++i)
      expectWellFormed(language, doc.line(i));
  }
  // Unterminated constructs and odd bytes.
  for (std::string_view l : {"\"unterminated", "%", "^", "@", "#", "!", "tensor<1x", "x -> ->",
                             "\xc3\xa9t\xc3\xa9 = 1", "-", "1.", "0x", "@\"q"})
    for (Language lang : {Language::Mlir, Language::LlvmIr, Language::Assembly})
      expectWellFormed(lang, l);
}

TEST(TokenizerTest, DetectLanguage) {
  EXPECT_EQ(detectLanguage("a/b.mlir", ""), Language::Mlir);
  EXPECT_EQ(detectLanguage("x.ll", ""), Language::LlvmIr);
  EXPECT_EQ(detectLanguage("x.s", ""), Language::Assembly);
  EXPECT_EQ(detectLanguage("", "; ModuleID = 'x'\ndefine void @f() {\n"), Language::LlvmIr);
  EXPECT_EQ(detectLanguage("", "module {\n  func.func @f() {\n"), Language::Mlir);
  EXPECT_EQ(detectLanguage("", "\t.text\n\t.file\t\"x\"\n"), Language::Assembly);
  EXPECT_EQ(detectLanguage("notes.txt", "hello"), Language::PlainText);
}
