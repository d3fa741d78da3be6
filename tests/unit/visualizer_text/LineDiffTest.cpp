//===- LineDiffTest.cpp - Line diff: scripts, hunks, rows, ignore options ---===//

#include "loupe/visualizer/text/IntraLineDiff.h"
#include "loupe/visualizer/text/IrDocument.h"
#include "loupe/visualizer/text/LineDiff.h"
#include "loupe/visualizer/text/LineNormalizer.h"

#include "LineHash.h" // internal: the diff's line key
#include "TestData.h"

#include <gtest/gtest.h>

#include <random>
#include <regex>
#include <unordered_map>

using namespace loupe::visualizer::text;
using loupe::visualizer::text::testing::readTestData;
using Lines = std::vector<std::string>;

namespace {

std::vector<std::string_view> views(const Lines &lines) {
  return std::vector<std::string_view>(lines.begin(), lines.end());
}

Lines splitLines(const IrDocument &doc) {
  Lines out;
  for (size_t i = 0; i < doc.lineCount(); ++i)
    out.emplace_back(doc.line(i));
  return out;
}

/// Applies the hunks of `diff` to `a`; Equal lines are checked against b.
Lines applyHunks(const LineDiff &diff, const Lines &a, const Lines &b) {
  Lines out;
  size_t cursor = 0;
  for (const DiffHunk &h : diff.hunks()) {
    EXPECT_LE(cursor, h.oldBegin);
    for (; cursor < h.oldBegin; ++cursor)
      out.push_back(a[cursor]);
    for (size_t p = h.opBegin; p < h.opEnd; ++p) {
      const DiffOp &op = diff.ops()[p];
      if (op.kind == DiffOpKind::Equal) {
        EXPECT_EQ(a[op.oldLine], b[op.newLine]);
        out.push_back(a[op.oldLine]);
      } else if (op.kind == DiffOpKind::Insert) {
        out.push_back(b[op.newLine]);
      }
    }
    cursor = h.oldBegin + h.oldCount;
  }
  for (; cursor < a.size(); ++cursor)
    out.push_back(a[cursor]);
  return out;
}

/// Row models list every line of each side once, in order.
void checkRows(const LineDiff &diff, size_t oldCount, size_t newCount) {
  for (DiffLayout layout : {DiffLayout::SideBySide, DiffLayout::Unified}) {
    std::vector<int32_t> left, right;
    for (const DiffRow &r : diff.rows(layout)) {
      ASSERT_NE(r.kind, DiffRowKind::Skipped);
      if (r.oldLine >= 0)
        left.push_back(r.oldLine);
      if (r.newLine >= 0)
        right.push_back(r.newLine);
      if (layout == DiffLayout::Unified)
        ASSERT_NE(r.kind, DiffRowKind::Changed);
      if (r.kind == DiffRowKind::Changed)
        ASSERT_TRUE(r.oldLine >= 0 && r.newLine >= 0);
    }
    ASSERT_EQ(left.size(), oldCount);
    ASSERT_EQ(right.size(), newCount);
    for (size_t i = 0; i < left.size(); ++i)
      ASSERT_EQ(left[i], static_cast<int32_t>(i));
    for (size_t i = 0; i < right.size(); ++i)
      ASSERT_EQ(right[i], static_cast<int32_t>(i));
  }
}

Lines randomDocument(std::mt19937 &rng, size_t n) {
  static const char *kPool[] = {"}", "  return", "%0 = add", "%1 = mul", "{", "",
                                "%2 = sub", "scf.yield", "%3 = load", "func.func @f() {"};
  Lines doc;
  for (size_t i = 0; i < n; ++i)
    doc.push_back(rng() % 3 ? kPool[rng() % 10] : "line " + std::to_string(rng() % 50));
  return doc;
}

Lines randomEdits(std::mt19937 &rng, Lines doc, int edits) {
  for (int e = 0; e < edits; ++e) {
    size_t at = doc.empty() ? 0 : rng() % (doc.size() + 1);
    switch (rng() % 3) {
    case 0:
      doc.insert(doc.begin() + at, "inserted " + std::to_string(rng() % 1000));
      break;
    case 1:
      if (at < doc.size())
        doc.erase(doc.begin() + at);
      break;
    default:
      if (at < doc.size())
        doc[at] = "changed " + std::to_string(rng() % 1000);
    }
  }
  return doc;
}

/// `%N` -> `%(N + 1000)` and `^bbN` -> `^bb(N + 7)`: what a pass that renumbers does.
std::string renumber(const std::string &text) {
  std::string out;
  std::regex re(R"((%|\^bb)([0-9]+))");
  auto last = text.cbegin();
  for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it) {
    out.append(last, (*it)[0].first);
    int n = std::stoi((*it)[2]);
    out += (*it)[1].str() + std::to_string((*it)[1] == "%" ? n + 1000 : n + 7);
    last = (*it)[0].second;
  }
  out.append(last, text.cend());
  return out;
}

} // namespace

TEST(LineDiffTest, IdenticalDocumentsHaveNoHunks) {
  IrDocument a(readTestData("cnn_fuse_elementwise.mlir"));
  IrDocument b(readTestData("cnn_fuse_elementwise.mlir"));
  LineDiff d = LineDiff::compute(a, b);
  EXPECT_TRUE(d.identical());
  EXPECT_EQ(d.deletedLines() + d.insertedLines(), 0u);
  EXPECT_EQ(d.rows(DiffLayout::SideBySide).size(), a.lineCount());
  EXPECT_FALSE(d.nextHunk(DiffLayout::Unified, 0));
  DiffOptions collapse;
  collapse.collapseUnchanged = true;
  LineDiff c = LineDiff::compute(a, b, collapse);
  ASSERT_EQ(c.rows(DiffLayout::Unified).size(), 1u);
  EXPECT_EQ(c.rows(DiffLayout::Unified)[0].kind, DiffRowKind::Skipped);
  EXPECT_EQ(c.rows(DiffLayout::Unified)[0].count, a.lineCount());
  EXPECT_TRUE(LineDiff::compute(IrDocument(""), IrDocument("")).identical());
}

TEST(LineDiffTest, ApplyingHunksReproducesNewOnRandomEdits) {
  std::mt19937 rng(2024);
  for (int round = 0; round < 400; ++round) {
    Lines a = randomDocument(rng, rng() % 120);
    Lines b = randomEdits(rng, a, rng() % 12);
    DiffOptions o;
    o.context = rng() % 5;
    LineDiff d = LineDiff::compute(views(a), views(b), o);
    ASSERT_FALSE(d.approximate());
    ASSERT_EQ(applyHunks(d, a, b), b) << "round " << round;
    checkRows(d, a.size(), b.size());
    EXPECT_EQ(d.identical(), a == b);
    // Every op of the script is one line of one side.
    EXPECT_EQ(d.ops().size(), a.size() + b.size() - (a.size() - d.deletedLines()));
  }
}

TEST(LineDiffTest, BoundedCostStaysCorrect) {
  std::mt19937 rng(9);
  Lines a = randomDocument(rng, 3000), b = randomDocument(rng, 3000);
  DiffOptions o;
  o.maxCost = 5000;
  LineDiff d = LineDiff::compute(views(a), views(b), o);
  EXPECT_TRUE(d.approximate());
  EXPECT_EQ(applyHunks(d, a, b), b);
  checkRows(d, a.size(), b.size());
}

TEST(LineDiffTest, RealPassDiff) {
  // IR before and after linalg-fuse-elementwise-ops on the CNN example.
  IrDocument before(readTestData("cnn_canonicalize.mlir"));
  IrDocument after(readTestData("cnn_fuse_elementwise.mlir"));
  LineDiff d = LineDiff::compute(before, after);
  EXPECT_FALSE(d.identical());
  Lines a = splitLines(before), b = splitLines(after);
  EXPECT_EQ(applyHunks(d, a, b), b);
  checkRows(d, a.size(), b.size());
  DiffOptions ignore;
  ignore.ignoreSsaNames = ignore.ignoreLocations = true;
  LineDiff di = LineDiff::compute(before, after, ignore);
  EXPECT_LT(di.deletedLines() + di.insertedLines(), d.deletedLines() + d.insertedLines());
  checkRows(di, a.size(), b.size());
}

TEST(LineDiffTest, IgnoreSsaNamesEqualsRenumberedIrButKeepsRealChanges) {
  std::string text = readTestData("cnn_fuse_elementwise.mlir");
  IrDocument a(text);
  IrDocument renamed(renumber(text));
  ASSERT_NE(renamed.text(), a.text());
  EXPECT_FALSE(LineDiff::compute(a, renamed).identical());
  DiffOptions o;
  o.ignoreSsaNames = true;
  EXPECT_TRUE(LineDiff::compute(a, renamed, o).identical());

  std::string changed = renumber(text);
  size_t at = changed.find("arith.mulf");
  ASSERT_NE(at, std::string::npos);
  changed.replace(at, 10, "arith.divf");
  LineDiff d = LineDiff::compute(a, IrDocument(changed), o);
  ASSERT_EQ(d.hunks().size(), 1u);
  EXPECT_EQ(d.deletedLines(), 1u);
  EXPECT_EQ(d.insertedLines(), 1u);
  size_t row = *d.nextHunk(DiffLayout::SideBySide, 0);
  const DiffRow &r = d.rows(DiffLayout::SideBySide)[row];
  EXPECT_EQ(r.kind, DiffRowKind::Changed);
  EXPECT_NE(a.line(r.oldLine).find("arith.mulf"), std::string_view::npos);
}

TEST(LineDiffTest, NormalizeLine) {
  DiffOptions o;
  o.ignoreSsaNames = true;
  std::string out;
  normalizeLine("%7 = arith.addf %5, %6 : f32 loc(#loc3)", o, out);
  EXPECT_EQ(out, "%0 = arith.addf %1, %2 : f32 loc(#0)");
  std::string other;
  normalizeLine("%9 = arith.addf %3, %4 : f32 loc(#loc12)", o, other);
  EXPECT_EQ(out, other);
  normalizeLine("%9 = arith.addf %3, %3 : f32 loc(#loc12)", o, other);
  EXPECT_NE(out, other); // a real change: both operands are the same value
  normalizeLine("  ^bb3(%arg0: i32):  // %x in a comment, \"%y\" in a string", o, out);
  EXPECT_EQ(out, "  ^0(%0: i32):  // %1 in a comment, \"%y\" in a string");
  normalizeLine("%res#1 = #linalg.iterator_type<parallel> !12 !llvm.ptr", o, out);
  EXPECT_EQ(out, "%0#1 = #linalg.iterator_type<parallel> !0 !llvm.ptr");
  DiffOptions locs;
  locs.ignoreLocations = true;
  normalizeLine("  ^bb0(%in: f32 loc(\"conv1\"), %out: f32 loc(fused[#a, \"x)\"])):", locs, out);
  EXPECT_EQ(out, "  ^bb0(%in: f32, %out: f32):");
  EXPECT_TRUE(isIgnoredLine("#loc3 = loc(\"conv1\")", locs));
  EXPECT_FALSE(isIgnoredLine("#map = affine_map<(d0) -> (d0)>", locs));
  DiffOptions ws;
  ws.ignoreWhitespace = true;
  normalizeLine("  %a = f(%b,  %c)\t", ws, out);
  EXPECT_EQ(out, "%a=f(%b,%c)");
}

TEST(LineDiffTest, IgnoreLocationsAndWhitespace) {
  Lines a = {"#loc1 = loc(\"a\")", "module {", "  %0 = x.y %1 loc(#loc1)", "}", "#loc2 = loc(\"b\")"};
  Lines b = {"module {", "  %0 = x.y   %1 loc(#loc7)", "}", "#loc7 = loc(\"c\")", "#loc8 = loc(\"d\")"};
  EXPECT_FALSE(LineDiff::compute(views(a), views(b)).identical());
  DiffOptions o;
  o.ignoreLocations = true;
  LineDiff locOnly = LineDiff::compute(views(a), views(b), o);
  EXPECT_FALSE(locOnly.identical()); // the spaces differ
  o.ignoreWhitespace = true;
  LineDiff d = LineDiff::compute(views(a), views(b), o);
  EXPECT_TRUE(d.identical());
  checkRows(d, a.size(), b.size());
  size_t ignored = 0;
  for (const DiffRow &r : d.rows(DiffLayout::Unified))
    ignored += r.kind == DiffRowKind::Ignored;
  EXPECT_EQ(ignored, 4u);
}

TEST(LineDiffTest, HunksContextMergingAndNavigation) {
  Lines a;
  for (int i = 0; i < 60; ++i)
    a.push_back("line " + std::to_string(i));
  Lines b = a;
  b[10] = "changed 10";
  b[15] = "changed 15";              // 4 equal lines apart: merges with 10 (context 3)
  b.erase(b.begin() + 40);           // far: its own hunk
  b.insert(b.begin() + 50, "new 50"); // 9 equal lines after the deletion: own hunk
  DiffOptions o;
  LineDiff d = LineDiff::compute(views(a), views(b), o);
  ASSERT_EQ(d.hunks().size(), 3u);
  const DiffHunk &h0 = d.hunks()[0];
  EXPECT_EQ(h0.oldBegin, 7u);
  EXPECT_EQ(h0.oldCount, 12u); // 7..18
  EXPECT_EQ(h0.newCount, 12u);
  EXPECT_EQ(h0.deleted, 2u);
  EXPECT_EQ(d.hunkHeader(0), "@@ -8,12 +8,12 @@");
  EXPECT_EQ(d.hunks()[1].deleted, 1u);
  EXPECT_EQ(d.hunks()[1].inserted, 0u);
  EXPECT_EQ(applyHunks(d, a, b), b);

  for (DiffLayout layout : {DiffLayout::SideBySide, DiffLayout::Unified}) {
    const auto &rows = d.rows(layout);
    size_t r0 = d.hunkRow(layout, 0), r1 = d.hunkRow(layout, 1), r2 = d.hunkRow(layout, 2);
    EXPECT_EQ(rows[r0].oldLine, 10);
    EXPECT_EQ(rows[r1].oldLine, 40);
    EXPECT_EQ(rows[r2].newLine, 50);
    EXPECT_EQ(d.nextHunk(layout, 0), r0);
    EXPECT_EQ(d.nextHunk(layout, r0), r1);
    EXPECT_EQ(d.nextHunk(layout, r1 + 1), r2);
    EXPECT_FALSE(d.nextHunk(layout, r2));
    EXPECT_EQ(d.previousHunk(layout, r2), r1);
    EXPECT_EQ(d.previousHunk(layout, r1), r0);
    EXPECT_FALSE(d.previousHunk(layout, r0));
    EXPECT_EQ(rows[r0].hunk, 0);
  }
  // Side by side pairs a replaced line; unified shows it as a deletion then an insertion.
  EXPECT_EQ(d.rows(DiffLayout::SideBySide)[d.hunkRow(DiffLayout::SideBySide, 0)].kind,
            DiffRowKind::Changed);
  size_t u = d.hunkRow(DiffLayout::Unified, 0);
  EXPECT_EQ(d.rows(DiffLayout::Unified)[u].kind, DiffRowKind::Deleted);
  EXPECT_EQ(d.rows(DiffLayout::Unified)[u + 1].kind, DiffRowKind::Inserted);

  o.collapseUnchanged = true;
  LineDiff c = LineDiff::compute(views(a), views(b), o);
  const auto &rows = c.rows(DiffLayout::Unified);
  ASSERT_EQ(rows.front().kind, DiffRowKind::Skipped);
  EXPECT_EQ(rows.front().count, 7u);
  size_t shown = 0;
  for (const DiffRow &r : rows)
    shown += r.kind == DiffRowKind::Skipped ? r.count : 1;
  EXPECT_EQ(shown, c.ops().size());
  EXPECT_EQ(rows[c.hunkRow(DiffLayout::Unified, 1)].oldLine, 40);
}

TEST(LineDiffTest, IntraLineSpans) {
  IntraLineDiff d = intraLineDiff("    %5 = arith.mulf %a, %b : f32 loc(#loc7)",
                                  "    %5 = arith.addf %a, %c : f32 loc(#loc7)");
  ASSERT_EQ(d.oldChanged.size(), 2u);
  EXPECT_EQ(d.oldChanged[0], (ByteSpan{9, 19}));  // arith.mulf
  EXPECT_EQ(d.oldChanged[1], (ByteSpan{24, 26})); // %b
  EXPECT_EQ(d.newChanged[1], (ByteSpan{24, 26})); // %c
  IntraLineDiff same = intraLineDiff("a b", "a b");
  EXPECT_TRUE(same.oldChanged.empty() && same.newChanged.empty());
  IntraLineDiff added = intraLineDiff("f(x)", "f(x, y)");
  EXPECT_TRUE(added.oldChanged.empty());
  EXPECT_EQ(added.newChanged, (std::vector<ByteSpan>{{3, 6}}));
}

TEST(LineDiffTest, HashCollisionFallsBackToExactComparison) {
  // Two different lines with the same 32-bit key (found by brute force): the diff must still
  // see them as different.
  std::unordered_map<uint32_t, std::string> seen;
  std::string x, y;
  for (int k = 0; x.empty(); ++k) {
    std::string s = "    %" + std::to_string(k) + " = arith.addf %a, %b : f32";
    auto [it, inserted] = seen.try_emplace(lineKey32(s), s);
    if (!inserted) {
      x = it->second;
      y = s;
    }
  }
  ASSERT_NE(x, y);
  Lines a = {"module {", x, "}"}, b = {"module {", y, "}"};
  LineDiff d = LineDiff::compute(views(a), views(b));
  EXPECT_EQ(d.deletedLines(), 1u);
  EXPECT_EQ(d.insertedLines(), 1u);
  EXPECT_EQ(applyHunks(d, a, b), b);
}
