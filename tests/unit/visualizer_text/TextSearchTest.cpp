//===- TextSearchTest.cpp - Next/previous match with wraparound, find all ---===//

#include "loupe/visualizer/text/IrDocument.h"

#include <gtest/gtest.h>

#include <random>

using namespace loupe::visualizer::text;

namespace {

const char *kText = "alpha beta\n"   // 0
                    "gamma Beta\n"   // 1
                    "\n"             // 2
                    "beta beta\r\n"  // 3
                    "delta";         // 4

TextMatch m(size_t line, size_t col, size_t len) { return TextMatch{line, col, len}; }

} // namespace

TEST(TextSearchTest, ForwardFromCursorAndWrap) {
  IrDocument doc(kText);
  ASSERT_EQ(doc.lineCount(), 5u);
  EXPECT_EQ(doc.line(3), "beta beta");
  EXPECT_EQ(doc.find("beta", 0, 0, true, true), m(0, 6, 4));
  EXPECT_EQ(doc.find("beta", 0, 6, true, true), m(0, 6, 4)); // at the cursor counts
  EXPECT_EQ(doc.find("beta", 0, 7, true, true), m(3, 0, 4)); // case-sensitive skips "Beta"
  EXPECT_EQ(doc.find("beta", 0, 7, true, false), m(1, 6, 4));
  EXPECT_EQ(doc.find("beta", 3, 1, true, true), m(3, 5, 4));
  EXPECT_EQ(doc.find("beta", 3, 6, true, true), m(0, 6, 4)); // wraps
  EXPECT_EQ(doc.find("beta", 4, 99, true, true), m(0, 6, 4));
  EXPECT_EQ(doc.find("delta", 4, 1, true, true), m(4, 0, 5)); // wraps onto itself
}

TEST(TextSearchTest, BackwardAndWrap) {
  IrDocument doc(kText);
  EXPECT_EQ(doc.find("beta", 3, 5, false, true), m(3, 0, 4));
  EXPECT_EQ(doc.find("beta", 3, 0, false, true), m(0, 6, 4));
  EXPECT_EQ(doc.find("beta", 0, 6, false, true), m(3, 5, 4)); // wraps to the last
  EXPECT_EQ(doc.find("BETA", 3, 0, false, false), m(1, 6, 4));
}

TEST(TextSearchTest, NoMatchEmptyOrMultiline) {
  IrDocument doc(kText);
  EXPECT_FALSE(doc.find("omega", 0, 0, true, true));
  EXPECT_FALSE(doc.find("", 0, 0, true, true));
  EXPECT_FALSE(doc.find("beta\ngamma", 0, 0, true, true));
  EXPECT_FALSE(IrDocument("").find("a", 0, 0, true, true));
  EXPECT_FALSE(doc.find("a  b", 0, 0, true, true));
}

TEST(TextSearchTest, FindAllIsCapped) {
  IrDocument doc(kText);
  FindAllResult all = doc.findAll("beta", false);
  ASSERT_EQ(all.matches.size(), 4u);
  EXPECT_FALSE(all.truncated);
  EXPECT_EQ(all.matches[1], m(1, 6, 4));
  FindAllResult two = doc.findAll("beta", false, 2);
  EXPECT_EQ(two.matches.size(), 2u);
  EXPECT_TRUE(two.truncated);
  EXPECT_EQ(doc.findAll("aa", true).matches.size(), 0u);
  EXPECT_EQ(findInLine("aaaa", "aa", true), (std::vector<size_t>{0, 2}));
}

TEST(TextSearchTest, AgreesWithNaiveSearch) {
  std::mt19937 rng(3);
  for (int round = 0; round < 200; ++round) {
    std::string text;
    size_t len = rng() % 300;
    for (size_t i = 0; i < len; ++i)
      text += "abAB \n"[rng() % 6];
    std::string query;
    for (size_t i = 0, q = 1 + rng() % 3; i < q; ++i)
      query += "abAB"[rng() % 4];
    bool cs = rng() % 2;
    IrDocument doc(text);
    auto lower = [&](std::string s) {
      if (!cs)
        for (char &c : s)
          c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return s;
    };
    std::string t = lower(text), q = lower(query);
    std::vector<size_t> starts; // every (overlapping) match start
    for (size_t at = t.find(q); at != std::string::npos; at = t.find(q, at + 1))
      starts.push_back(at);
    for (int probe = 0; probe < 10 && doc.lineCount() > 0; ++probe) {
      size_t line = rng() % doc.lineCount(), col = rng() % (doc.line(line).size() + 1);
      size_t cursor = doc.lineIndex().lineStart(line) + col;
      bool forward = rng() % 2;
      auto got = doc.find(query, line, col, forward, cs);
      if (starts.empty()) {
        EXPECT_FALSE(got);
        continue;
      }
      size_t want;
      if (forward) {
        auto it = std::lower_bound(starts.begin(), starts.end(), cursor);
        want = it == starts.end() ? starts.front() : *it;
      } else {
        auto it = std::lower_bound(starts.begin(), starts.end(), cursor);
        want = it == starts.begin() ? starts.back() : *std::prev(it);
      }
      ASSERT_TRUE(got);
      EXPECT_EQ(doc.lineIndex().lineStart(got->line) + got->column, want)
          << "text '" << text << "' query '" << query << "' cursor " << cursor << " fwd " << forward;
    }
  }
}

TEST(TextSearchTest, LongQueriesAgreeWithNaiveSearch) {
  // Queries longer than the 255-byte shift cap, drawn from the text itself.
  std::mt19937 rng(8);
  std::string text;
  for (int i = 0; i < 5000; ++i)
    text += i % 97 == 96 ? '\n' : "abcab"[rng() % 5];
  IrDocument doc(text);
  for (int round = 0; round < 50; ++round) {
    size_t len = 256 + rng() % 60, from = rng() % (text.size() - len);
    std::string query = text.substr(from, len);
    if (query.find('\n') != std::string::npos)
      query.erase(query.find('\n'));
    if (query.size() < 2)
      continue;
    std::vector<size_t> starts;
    for (size_t at = text.find(query); at != std::string::npos; at = text.find(query, at + 1))
      starts.push_back(at);
    ASSERT_FALSE(starts.empty());
    size_t line = rng() % doc.lineCount(), col = rng() % (doc.line(line).size() + 1);
    size_t cursor = doc.lineIndex().lineStart(line) + col;
    auto fwd = doc.find(query, line, col, true, true);
    auto bwd = doc.find(query, line, col, false, true);
    auto it = std::lower_bound(starts.begin(), starts.end(), cursor);
    size_t wantFwd = it == starts.end() ? starts.front() : *it;
    size_t wantBwd = it == starts.begin() ? starts.back() : *std::prev(it);
    ASSERT_TRUE(fwd && bwd);
    EXPECT_EQ(doc.lineIndex().lineStart(fwd->line) + fwd->column, wantFwd);
    EXPECT_EQ(doc.lineIndex().lineStart(bwd->line) + bwd->column, wantBwd);
  }
}
