//===- Attribution.cpp - Which pass made two compiles differ for some ops -------===//
#include "loupe/sessions/Attribution.h"

#include "loupe/sessions/Comparison.h"

#include <map>

namespace loupe::sessions {

std::vector<std::string> splitSourceOps(const std::string &loc) {
  std::vector<std::string> ops;
  for (size_t begin = 0; begin <= loc.size();) {
    size_t end = std::min(loc.find(',', begin), loc.size());
    if (end > begin)
      ops.push_back(loc.substr(begin, end - begin));
    begin = end + 1;
  }
  return ops;
}

namespace {
bool hasHashes(const profiler::CompileRecord &c) {
  for (const profiler::PassRecord &p : c.passes)
    if (!p.locHashes.empty())
      return true;
  return false;
}
} // namespace

PassAttribution attributePass(const profiler::CompileRecord &a, const profiler::CompileRecord &b,
                              const std::string &loc) {
  PassAttribution out;
  if (!hasHashes(a) || !hasHashes(b)) {
    out.note = "no per-source-op hashes (compiled by an older Loupe, or not stored)";
    return out;
  }
  std::vector<std::string> ops = splitSourceOps(loc);
  std::map<std::string, uint64_t> stateA, stateB;
  size_t n = std::min(a.passes.size(), b.passes.size());
  for (size_t i = 0; i < n; ++i) {
    const profiler::PassRecord &pa = a.passes[i], &pb = b.passes[i];
    out.index = static_cast<int64_t>(i);
    out.pass = pa.pass;
    out.phase = pa.phase;
    if (pa.pass != pb.pass) {
      out.note = "pipelines differ: " + pa.pass + " vs " + pb.pass;
      return out;
    }
    for (const auto &[op, hash] : pa.locHashes)
      stateA[op] = hash;
    for (const auto &[op, hash] : pb.locHashes)
      stateB[op] = hash;
    for (const std::string &op : ops)
      if (stateA[op] != stateB[op]) {
        out.sourceOp = op;
        return out;
      }
  }
  out = PassAttribution();
  out.note = a.passes.size() == b.passes.size() ? "the same IR after every pass"
                                                : "the same IR until one pipeline ends";
  return out;
}

void attributeChanges(RunComparison &comparison, const profiler::CompileRecord &baseline,
                      const profiler::CompileRecord &candidate) {
  auto attribute = [&](DispatchComparison &row, const std::string &loc) {
    profiler::Verdict v = row.comparison.verdict;
    if (v == profiler::Verdict::Faster || v == profiler::Verdict::Slower)
      row.attribution = attributePass(baseline, candidate, loc);
  };
  attribute(comparison.total, "");
  for (DispatchComparison &row : comparison.rows)
    if (row.group < 0 && row.inBaseline && row.inCandidate)
      attribute(row, row.loc);
  for (GroupComparison &g : comparison.groups)
    attribute(g.row, g.loc);
  comparison.total.attribution.reset(); // the whole model has no single source op
}

std::string describe(const PassAttribution &a) {
  if (a.index < 0)
    return a.note;
  std::string text = "pass #" + std::to_string(a.index) + " " + a.pass + " (" + a.phase + ")";
  if (!a.sourceOp.empty())
    text += ", source op " + a.sourceOp;
  if (!a.note.empty())
    text += "; " + a.note;
  return text;
}

} // namespace loupe::sessions
