//===- GeneratedModule.h - Large synthetic MLIR modules for tests and benchmarks -*- C++ -*-===//
#ifndef LOUPE_TESTS_VISUALIZER_GENERATEDMODULE_H
#define LOUPE_TESTS_VISUALIZER_GENERATEDMODULE_H

#include <cstdint>
#include <string>

namespace loupe::visualizer::testing {

/// A module of about `lines` lines: functions of ~100 lines (tosa/arith ops with `loc(#locN)`
/// aliases defined at the end, nested scf.for regions), like a printed snapshot. `variant` != 0
/// changes one op every `changeEvery` ops and renumbers SSA values (as a pass would), so two
/// variants differ in scattered places.
inline std::string generateModule(size_t lines, uint32_t variant = 0, size_t changeEvery = 97) {
  std::string out;
  out.reserve(lines * 110);
  out += "module attributes {loupe.generated} {\n";
  size_t line = 1, op = 0, loc = 0;
  const size_t perFunction = 100;
  for (size_t f = 0; line + 4 < lines; ++f) {
    out += "  func.func @f" + std::to_string(f) +
           "(%arg0: tensor<64x64xf32>, %arg1: tensor<64x64xf32>) -> tensor<64x64xf32> {\n";
    ++line;
    std::string prev = "%arg0";
    size_t body = 0;
    for (; body < perFunction - 8 && line + 4 < lines; ++body, ++op) {
      std::string v = "%" + std::to_string(body + variant * 3);
      bool changed = variant != 0 && op % changeEvery == 0;
      const char *name = changed ? "tosa.sub" : (op % 3 == 0 ? "tosa.add" : (op % 3 == 1 ? "tosa.mul" : "tosa.maximum"));
      if (op % 23 == 0) {
        // A nested region: scf.for with two ops inside.
        out += "    " + v + " = scf.for %i = %c0 to %c64 step %c1 iter_args(%acc = " + prev +
               ") -> (tensor<64x64xf32>) {\n";
        out += "      %t = tosa.abs %acc : (tensor<64x64xf32>) -> tensor<64x64xf32> loc(#loc" +
               std::to_string(loc++) + ")\n";
        out += "      scf.yield %t : tensor<64x64xf32>\n";
        out += "    } loc(#loc" + std::to_string(loc++) + ")\n";
        line += 4;
      } else {
        out += "    " + v + " = " + name + " " + prev +
               ", %arg1 : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32> loc(#loc" +
               std::to_string(loc++) + ")\n";
        ++line;
      }
      prev = v;
    }
    out += "    return " + prev + " : tensor<64x64xf32> loc(#loc" + std::to_string(loc++) + ")\n";
    out += "  } loc(#loc" + std::to_string(loc++) + ")\n";
    line += 2;
  }
  out += "} loc(#loc" + std::to_string(loc) + ")\n";
  ++line;
  // Alias table (not counted in `lines`: real snapshots carry one too).
  for (size_t i = 0; i <= loc && i < 2000; ++i)
    out += "#loc" + std::to_string(i) + " = loc(\"node_" + std::to_string(i) + "\")\n";
  return out;
}

} // namespace loupe::visualizer::testing

#endif // LOUPE_TESTS_VISUALIZER_GENERATEDMODULE_H
