//===- GeneratedModule.cpp - A large MLIR-like module for benchmarks --------===//

#include "GeneratedModule.h"

#include <cctype>
#include <random>
#include <vector>

namespace loupe::bench {

namespace {

std::vector<std::string> splitLines(const std::string &text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos)
      nl = text.size();
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

std::string joinLines(const std::vector<std::string> &lines) {
  std::string out;
  for (const std::string &l : lines)
    out += l + "\n";
  return out;
}

} // namespace

std::string generateModule(size_t lines, uint32_t seed) {
  std::mt19937 rng(seed);
  const char *kOps[] = {"arith.addf", "arith.mulf", "arith.subf", "arith.maximumf"};
  const char *kTosa[] = {"tosa.add", "tosa.mul", "tosa.sub", "tosa.maximum"};
  const std::string t = "tensor<1x64x56x56xf32>";
  std::string out;
  out.reserve(lines * 90);
  out += "#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>\n";
  out += "#map1 = affine_map<(d0, d1, d2, d3) -> (0, d1, 0, 0)>\n";
  out += "module {\n";
  size_t n = 3, locs = 0;
  const size_t locTable = lines / 50 + 1;
  for (size_t f = 0; n + locTable + 2 < lines; ++f) {
    auto loc = [&] { return " loc(#loc" + std::to_string(1 + locs++ % (locTable - 1)) + ")"; };
    out += "  func.func @f" + std::to_string(f) + "(%arg0: " + t + " loc(\"input\"), %arg1: " + t +
           " loc(\"bias\")) -> " + t + " {\n";
    out += "    %cst = arith.constant 0.000000e+00 : f32" + loc() + "\n";
    out += "    %c1 = arith.constant 1 : index" + loc() + "\n";
    n += 3;
    int v = 0;
    std::string prev = "%arg0";
    size_t body = 40 + rng() % 20;
    for (size_t k = 0; k < body && n + locTable + 4 < lines; ++k) {
      std::string res = "%" + std::to_string(v++);
      if (rng() % 4 == 0) {
        std::string op = kOps[rng() % 4];
        out += "    " + res + " = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = "
               "[\"parallel\", \"parallel\", \"parallel\", \"parallel\"]} ins(" + prev +
               ", %arg1 : " + t + ", " + t + ") outs(" + prev + " : " + t + ") {\n";
        out += "    ^bb0(%in: f32 loc(\"a\"), %in_0: f32 loc(\"b\"), %out: f32 loc(\"c\")):\n";
        std::string inner = "%" + std::to_string(v++);
        out += "      " + inner + " = " + op + " %in, %in_0 : f32" + loc() + "\n";
        out += "      linalg.yield " + inner + " : f32" + loc() + "\n";
        out += "    } -> " + t + loc() + "\n";
        n += 5;
        k += 4;
      } else {
        out += "    " + res + " = " + kTosa[rng() % 4] + " " + prev + ", %arg1 : (" + t + ", " + t +
               ") -> " + t + loc() + "\n";
        ++n;
      }
      prev = res;
    }
    out += "    return " + prev + " : " + t + loc() + "\n";
    out += "  } loc(#loc" + std::to_string(f % (locTable - 1) + 1) + ")\n";
    n += 2;
  }
  out += "} loc(#loc)\n";
  out += "#loc = loc(\"model\")\n";
  for (size_t k = 1; k < locTable; ++k)
    out += "#loc" + std::to_string(k) + " = loc(\"Op_" + std::to_string(k) + "\")\n";
  return out;
}

/// Adds `delta` to every `%<digits>` of lines [from, end of the function).
static void renumberFunctionTail(std::vector<std::string> &lines, size_t from, long delta) {
  for (size_t i = from; i < lines.size() && lines[i].rfind("  }", 0) != 0; ++i) {
    const std::string &l = lines[i];
    std::string out;
    for (size_t k = 0; k < l.size(); ++k) {
      if (l[k] == '%' && k + 1 < l.size() && std::isdigit(static_cast<unsigned char>(l[k + 1]))) {
        size_t end = k + 1;
        while (end < l.size() && std::isdigit(static_cast<unsigned char>(l[end])))
          ++end;
        out += "%" + std::to_string(std::stol(l.substr(k + 1, end - k - 1)) + delta);
        k = end - 1;
      } else {
        out += l[k];
      }
    }
    lines[i] = out;
  }
}

std::string scatterChanges(const std::string &text, size_t changes, bool renumber) {
  std::vector<std::string> lines = splitLines(text);
  const size_t step = lines.size() / (changes + 1);
  // Back to front, so earlier positions stay valid.
  for (size_t c = changes; c >= 1; --c) {
    size_t at = c * step;
    // An op line with a numbered result inside a function.
    while (at < lines.size() &&
           (lines[at].rfind("    %", 0) != 0 || !std::isdigit(static_cast<unsigned char>(lines[at][5]))))
      ++at;
    if (at >= lines.size())
      continue;
    switch (c % 3) {
    case 0: {
      size_t eq = lines[at].find(" = ");
      lines[at].insert(eq + 3, "x");
      break;
    }
    case 1:
      if (renumber)
        renumberFunctionTail(lines, at, 1);
      lines.insert(lines.begin() + static_cast<long>(at),
                   "    %" + std::to_string(std::stol(lines[at].substr(5)) - 1) +
                       " = arith.constant 7 : i32 loc(#loc1)");
      break;
    default:
      if (renumber)
        renumberFunctionTail(lines, at + 1, -1);
      lines.erase(lines.begin() + static_cast<long>(at));
    }
  }
  return joinLines(lines);
}

} // namespace loupe::bench
