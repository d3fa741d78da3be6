//===- GraphModel.h - Ops, dispatches and backend choices of a compile -*- C++ -*-===//
//
// Joins the op graph a compile captured after its graph phase (CompileResult::graph) with the
// dispatch table of its ral phase (CompileResult::dispatches) through `loc` provenance: an op
// belongs to every dispatch whose comma-separated `loc` names it. The graph and dispatch panels
// read this model; it is built once per compile on the worker (makeCompileView). No ImGui.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_GRAPH_GRAPHMODEL_H
#define LOUPE_VISUALIZER_GRAPH_GRAPHMODEL_H

#include "loupe/Pipelines/Compiler.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace loupe::visualizer::graph {

/// A backend that can run an op kind on a device, as the backend registry ranks it.
struct Alternative {
  std::string backend;
  std::string kernel;     ///< RAL API; empty for generated code.
  int plevel = 0;
  bool available = false; ///< Can run on this machine.
  std::string why;        ///< Why not, when unavailable.
};

/// The registry's device for a compile target: "cuda" -> "gpu", else the target itself.
std::string deviceOfTarget(const std::string &target);
/// BackendRegistry::candidates(opKind, device), highest plevel first, each with whether it
/// runs on this machine (its RAL kernel is registered after the kernel plugins load; on "gpu"
/// the CUDA driver and the vendor library load). Thread-safe; cached per (opKind, device).
std::vector<Alternative> alternativesFor(const std::string &opKind, const std::string &device);

/// The registry op kind ("matmul", "batch_matmul", "conv2d") that dispatch `d` runs for a
/// graph op (`tosa.matmul`, `tosa.conv2d`), or "" when `d` is not that op's library-capable
/// kernel (e.g. the transposes around a conv, or an op no library backend runs).
std::string libraryOpKind(const std::string &graphOp, const compiler::DispatchSummary &d);
/// The kind of kernel a dispatch is, in words: the compiler's fusion kind when it records one
/// (kLoop "loop", kRowReduction "row reduction", kColReduction "column reduction", kLibrary
/// "library", kInput "input fusion", kStitch "stitch"), else from its op and name: "library"
/// (ral.dispatch), "reduction" (a reduce or pooling), "copy" (memref.copy), else "loop".
std::string dispatchKind(const compiler::DispatchSummary &d);

/// One dispatch (cluster) with what the panels show about it.
struct DispatchEntry {
  compiler::DispatchSummary summary;
  std::string kind;            ///< dispatchKind().
  std::vector<int> nodes;      ///< Graph nodes named in its loc, by index.
  std::string opKind;          ///< libraryOpKind() of its library-capable op; "" when none.
  std::string overrideLoc;     ///< The op's loc (ONNX node name): the override's key.
  int plevel = 10;             ///< Its backend's plevel for opKind (codegen: 10).
  std::vector<Alternative> alternatives; ///< For opKind on the device; empty without opKind.
};

struct NodeEntry {
  compiler::GraphNode node;
  std::vector<int> dispatches; ///< Dispatches whose loc names it, by index.
  /// The dispatch it is drawn in (coloured by): the one that best matches the op (its library
  /// kernel, a kernel named like the op, a fused one...), -1 when none names it.
  int cluster = -1;
  std::string backend;         ///< The cluster's backend ("" when none).
};

struct GraphModel {
  std::string device;                   ///< "cpu", "gpu".
  std::vector<NodeEntry> nodes;         ///< CompileResult::graph order.
  std::vector<std::pair<int, int>> edges; ///< Producer -> consumer node indices.
  std::vector<DispatchEntry> dispatches;  ///< CompileResult::dispatches order.
  std::multimap<std::string, int> nodesByName;

  /// Index of the dispatch with this id, or -1.
  int dispatchIndex(int64_t id) const;
};

/// Builds the model of a finished compile for `target` ("cpu", "cuda"). Edges naming unknown
/// node ids are dropped.
std::shared_ptr<const GraphModel> buildGraphModel(const compiler::CompileResult &result,
                                                  const std::string &target);

/// Splits "fc1,relu1" into its names.
std::vector<std::string> splitLoc(const std::string &loc);

} // namespace loupe::visualizer::graph

#endif // LOUPE_VISUALIZER_GRAPH_GRAPHMODEL_H
