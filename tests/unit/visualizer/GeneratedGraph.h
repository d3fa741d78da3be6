//===- GeneratedGraph.h - A synthetic op graph with its dispatch table -*- C++ -*-===//
//
// For tests and bench/gui: a compile result whose op graph (CompileResult::graph) is a chain of
// residual blocks, 9 ops each, and whose dispatch table fuses them as the compiler would:
//
//   x -> mm1 -> add1 -> relu1 -> mm2 -> add2 -> res(+x) -> mul -> rsum -> sub(mul - rsum)
//
// mm1+add1+relu1 run as one oneDNN epilogue dispatch, mm2 on oneDNN, add2+res+mul as one fused
// loop, rsum as a reduction, sub as a loop: 5 clusters (ids as their dispatches'), 5 dispatches
// and 11 edges per block, and 3 refused merges (relu1 -> mm2, mm2 -> add2, rsum -> sub).
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_TESTS_VISUALIZER_GENERATEDGRAPH_H
#define LOUPE_TESTS_VISUALIZER_GENERATEDGRAPH_H

#include "loupe/Pipelines/CompileResult.h"

#include <string>
#include <vector>

namespace loupe::visualizer::testing {

/// About `ops` ops (a multiple of 9, plus the input).
inline compiler::CompileResult generatedGraph(int ops) {
  compiler::CompileResult r;
  auto node = [&](const std::string &op, const std::string &name) {
    int id = static_cast<int>(r.graph.nodes.size());
    r.graph.nodes.push_back({id, op, name, "tensor<8x256xf32>"});
    return id;
  };
  auto dispatch = [&](const std::string &kernel, const std::string &op, const std::string &loc,
                      const std::string &backend, const std::string &kind,
                      const std::string &reason, const std::vector<std::string> &ops) {
    compiler::ClusterSummary c;
    c.id = static_cast<int64_t>(r.clusters.size());
    c.kind = kind;
    c.backend = backend;
    c.pattern = backend == "codegen" ? "injective" : "matmul_bias_act";
    c.plevel = backend == "codegen" ? 10 : 15;
    c.reason = reason.empty() ? "codegen: no library backend runs " + op : reason;
    c.ops = ops;
    c.loc = loc;
    r.clusters.push_back(c);
    compiler::DispatchSummary d;
    d.cluster = c.id;
    d.id = static_cast<int64_t>(r.dispatches.size());
    d.name = "dispatch_" + std::to_string(d.id) + "_" + kernel;
    d.op = op;
    d.loc = loc;
    d.backend = backend;
    d.kind = kind;
    d.reason = reason;
    r.dispatches.push_back(d);
  };
  int x = node("input", "input0");
  for (int b = 0; b < ops / 9; ++b) {
    std::string p = "b" + std::to_string(b) + "_";
    int mm1 = node("tosa.matmul", p + "mm1"), add1 = node("tosa.add", p + "add1"),
        relu1 = node("tosa.clamp", p + "relu1"), mm2 = node("tosa.matmul", p + "mm2"),
        add2 = node("tosa.add", p + "add2"), res = node("tosa.add", p + "res"),
        mul = node("tosa.mul", p + "mul"), rsum = node("tosa.reduce_sum", p + "rsum"),
        sub = node("tosa.sub", p + "sub");
    for (auto [a, c] : {std::pair{x, mm1}, {mm1, add1}, {add1, relu1}, {relu1, mm2}, {mm2, add2},
                        {add2, res}, {x, res}, {res, mul}, {mul, rsum}, {mul, sub}, {rsum, sub}})
      r.graph.edges.push_back({a, c});
    std::string why = "highest plevel for matmul on cpu (onednn 15, openblas 12, codegen 10)";
    int64_t c0 = static_cast<int64_t>(r.clusters.size());
    dispatch("ral_gemm_epilogue_onednn", "ral.dispatch", p + "mm1," + p + "add1," + p + "relu1",
             "onednn", "kLibrary", why,
             {"linalg.matmul@" + p + "mm1", "linalg.generic@" + p + "add1",
              "linalg.generic@" + p + "relu1"});
    dispatch("ral_gemm_onednn", "ral.dispatch", p + "mm2", "onednn", "kLibrary", why,
             {"tensor.empty@" + p + "mm2", "linalg.matmul@" + p + "mm2"});
    dispatch("generic", "linalg.generic", p + "add2," + p + "res," + p + "mul", "codegen", "kLoop",
             "", {"linalg.generic@" + p + "add2,"  + p + "res," + p + "mul"});
    dispatch("generic_reduce", "linalg.generic", p + "rsum", "codegen", "kRowReduction", "",
             {"linalg.fill@" + p + "rsum", "linalg.reduce@" + p + "rsum"});
    dispatch("generic", "linalg.generic", p + "sub", "codegen", "kLoop", "",
             {"linalg.generic@" + p + "sub"});
    auto refuse = [&](const std::string &from, const std::string &fromOp, int64_t fromCluster,
                      const std::string &to, const std::string &toOp, int64_t toCluster,
                      const std::string &rule) {
      r.refusedMerges.push_back({p + from, fromOp, c0 + fromCluster, p + to, toOp, c0 + toCluster, rule});
    };
    refuse("relu1", "linalg.generic", 0, "mm2", "linalg.matmul", 1,
           "inputs of a library kernel (onednn linalg.matmul) are materialised");
    refuse("mm2", "linalg.matmul", 1, "add2", "linalg.generic", 2,
           "onednn linalg.matmul: its result has other readers, so no epilogue can take it");
    refuse("rsum", "linalg.reduce", 3, "sub", "linalg.generic", 4,
           "reduction result consumed inside its own fusion (needs kStitch, not generated)");
    x = sub;
  }
  r.lastPhase = "artifact";
  return r;
}

} // namespace loupe::visualizer::testing

#endif // LOUPE_TESTS_VISUALIZER_GENERATEDGRAPH_H
