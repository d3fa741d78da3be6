//===- GraphModel.h - Ops, clusters, dispatches and backend choices -*- C++ -*-===//
//
// Joins the op graph a compile captured after its graph phase (CompileResult::graph) with the
// clusters of its cluster phase (CompileResult::clusters, refusedMerges) and the dispatch table
// of its ral phase (CompileResult::dispatches) through `loc` provenance: an op belongs to every
// cluster and every dispatch whose comma-separated `loc` names it. The graph, dispatch and
// profile panels read this model; it is built once per compile on the worker
// (makeCompileView). No ImGui.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_GRAPH_GRAPHMODEL_H
#define LOUPE_VISUALIZER_GRAPH_GRAPHMODEL_H

#include "loupe/Pipelines/CompileResult.h"

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

/// The registry op kind ("matmul", "batch_matmul", "conv2d" and the int8
/// "quantized_batch_matmul", "quantized_conv2d") that dispatch `d` runs for a graph op
/// (`tosa.matmul`, `tosa.conv2d`, `linalg.quantized_batch_matmul`), or "" when `d` is not that op's library-capable
/// kernel (e.g. the transposes around a conv, or an op no library backend runs).
std::string libraryOpKind(const std::string &graphOp, const compiler::DispatchSummary &d);
/// The compiler's fusion kind in words (BladeDISC's names): kLoop "loop", kRowReduction "row
/// reduction", kColReduction "column reduction", kLibrary "library", kInput "input fusion",
/// kStitch "stitch", another kFoo "foo"; "" when `kind` is not such a name.
std::string fusionKindName(const std::string &kind);
/// The kind of kernel a dispatch is, in words: fusionKindName() of the kind the compiler
/// records, else from its op and name: "library" (ral.dispatch), "reduction" (a reduce or
/// pooling), "copy" (memref.copy), else "loop".
std::string dispatchKind(const compiler::DispatchSummary &d);
/// A kernel's name without its position in the program: "dispatch_12_generic" -> "generic".
std::string kernelKind(const std::string &name);
/// Ops that only create, move or reshape data (tensor.empty, tensor.pad, tensor.expand_shape,
/// linalg.transpose, linalg.fill, ...): in a cluster they stand for their source op less than
/// its compute ops do.
bool isViewOp(const std::string &op);

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

/// One cluster of the compiler's cluster phase (a loupe.fusion region).
struct ClusterEntry {
  compiler::ClusterSummary summary;
  std::string kind;               ///< fusionKindName(summary.kind).
  /// Graph nodes it names, by index: in its loc or its ops' locs, or in the loc of one of its
  /// kernels (which adds the sources of ops fused into a kernel's body before clustering).
  std::vector<int> nodes;
  std::vector<int> dispatches;    ///< Its kernels (DispatchSummary::cluster == id), by index.
  /// Indices into GraphModel::refusedMerges where it is the producer or the consumer cluster.
  std::vector<int> refusedMerges;
};

struct NodeEntry {
  compiler::GraphNode node;
  std::vector<int> dispatches; ///< Dispatches whose loc names it, by index.
  /// The dispatch that stands for it best (its library kernel, a kernel named like the op, a
  /// fused one...), -1 when none names it.
  int dispatch = -1;
  std::vector<int> clusters;   ///< Clusters that name it (ClusterEntry::nodes), by index.
  /// The cluster it is drawn in (coloured by), -1 when none names it. Of its clusters: one with
  /// a compute (not view) op of its name first, then, for a conv or matmul, a library cluster,
  /// then one whose own loc names it, then the lowest id.
  int cluster = -1;
  std::string backend;         ///< Its cluster's backend, else its dispatch's ("" when none).
};

struct GraphModel {
  std::string device;                   ///< "cpu", "gpu".
  std::vector<NodeEntry> nodes;         ///< CompileResult::graph order.
  std::vector<std::pair<int, int>> edges; ///< Producer -> consumer node indices.
  std::vector<DispatchEntry> dispatches;  ///< CompileResult::dispatches order.
  std::vector<ClusterEntry> clusters;     ///< CompileResult::clusters order.
  std::vector<compiler::RefusedMerge> refusedMerges; ///< CompileResult::refusedMerges order.
  std::multimap<std::string, int> nodesByName;

  /// Index of the dispatch with this id, or -1.
  int dispatchIndex(int64_t id) const;
  /// Index of the cluster with this id, or -1.
  int clusterIndex(int64_t id) const;
  /// Of the ops named `name` (exactly), the one a library backend could run (a conv rather
  /// than the transposes around it), else the first; -1 when none.
  int nodeNamed(const std::string &name) const;
};

/// Builds the model of a finished compile for `target` ("cpu", "cuda"). Edges naming unknown
/// node ids are dropped; so are refused merges' and dispatches' references to unknown clusters.
std::shared_ptr<const GraphModel> buildGraphModel(const compiler::CompileResult &result,
                                                  const std::string &target);

/// The graph with every cluster as one node: labelled with the cluster's pattern (or kind),
/// named, typed and coloured like its main op (its first op that is not a view); ops outside
/// clusters stay as they are; edges between clusters once each. Clusters' and dispatches'
/// node lists point at the collapsed nodes. What the graph panel's "collapse" switch draws.
std::shared_ptr<const GraphModel> collapseClusters(const GraphModel &model);

/// Splits "fc1,relu1" into its names.
std::vector<std::string> splitLoc(const std::string &loc);
/// Splits an op of ClusterSummary::ops, "linalg.generic@relu1,bn1", into its name and loc
/// ({"linalg.generic", "relu1,bn1"}; the loc is empty without an '@').
std::pair<std::string, std::string> splitClusterOp(const std::string &op);

} // namespace loupe::visualizer::graph

#endif // LOUPE_VISUALIZER_GRAPH_GRAPHMODEL_H
