//===- IrDocumentTest.cpp - Line index, token cache, loading ----------------===//

#include "loupe/visualizer/text/IrDocument.h"

#include "TestData.h"

#include <gtest/gtest.h>

#include <thread>

using namespace loupe::visualizer::text;
using loupe::visualizer::text::testing::readTestData;

TEST(LineIndexTest, LinesAndOffsets) {
  EXPECT_EQ(IrDocument("").lineCount(), 0u);
  EXPECT_EQ(IrDocument("\n").lineCount(), 1u);
  IrDocument doc("a\nbc\r\n\nd");
  ASSERT_EQ(doc.lineCount(), 4u);
  EXPECT_EQ(doc.line(0), "a");
  EXPECT_EQ(doc.line(1), "bc");
  EXPECT_EQ(doc.line(2), "");
  EXPECT_EQ(doc.line(3), "d");
  EXPECT_EQ(IrDocument("a\nb\n").lineCount(), 2u);
  const LineIndex &ix = doc.lineIndex();
  EXPECT_EQ(ix.lineStart(1), 2u);
  EXPECT_EQ(ix.lineAtOffset(0), 0u);
  EXPECT_EQ(ix.lineAtOffset(1), 0u); // the '\n' ending line 0
  EXPECT_EQ(ix.lineAtOffset(2), 1u);
  EXPECT_EQ(ix.lineAtOffset(7), 3u);
}

TEST(IrDocumentTest, TokensAreCachedAndStable) {
  IrDocument doc(readTestData("cnn_import.mlir"));
  const std::vector<Token> &first = doc.tokens(5);
  const std::vector<Token> *address = &first;
  for (size_t i = 0; i < doc.lineCount(); ++i)
    doc.tokens(i);
  EXPECT_EQ(&doc.tokens(5), address);
  EXPECT_EQ(doc.tokens(5), tokenizeLine(Language::Mlir, doc.line(5)));
  EXPECT_TRUE(doc.tokens(doc.lineCount() + 10).empty());
}

TEST(IrDocumentTest, ConcurrentReaders) {
  auto doc = IrDocument::fromText(readTestData("cnn_fuse_elementwise.mlir"), "x.mlir");
  std::vector<std::thread> threads;
  std::vector<size_t> counts(4);
  for (size_t t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (size_t i = 0; i < doc->lineCount(); ++i)
        counts[t] += doc->tokens((i * 7 + t) % doc->lineCount()).size();
      counts[t] += doc->linesWithLocation("conv1").size();
    });
  for (auto &th : threads)
    th.join();
  for (size_t t = 1; t < 4; ++t)
    EXPECT_EQ(counts[t], counts[0]);
}

TEST(IrDocumentTest, LoadDetectsLanguage) {
  std::string error;
  auto ll = IrDocument::load(std::string(LOUPE_TEXT_TEST_DATA) + "/cnn_entry.ll", &error);
  ASSERT_TRUE(ll) << error;
  EXPECT_EQ(ll->language(), Language::LlvmIr);
  EXPECT_EQ(ll->foldRegions().size(), 1u);
  auto s = IrDocument::load(std::string(LOUPE_TEXT_TEST_DATA) + "/cnn_main.s", &error);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->language(), Language::Assembly);
  EXPECT_FALSE(IrDocument::load("/nonexistent/x.mlir", &error));
  EXPECT_NE(error.find("/nonexistent/x.mlir"), std::string::npos);
}
