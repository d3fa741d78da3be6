//===- GraphCapture.cpp - The op graph and clusters for the GUI ------------------===//
#include "GraphCapture.h"

#include "loupe/Transforms/Passes.h"

#include "llvm/ADT/DenseMap.h"

using namespace mlir;

void loupe::compiler::captureGraph(ModuleOp module, OpGraph &graph) {
  graph = OpGraph();
  func::FuncOp entry = loupe::lookupEntryFunction(module);
  if (!entry || entry.isExternal())
    return;
  llvm::DenseMap<Value, int> producer;
  auto typeOf = [](Type type) {
    std::string text;
    llvm::raw_string_ostream os(text);
    type.print(os);
    return text;
  };
  for (BlockArgument arg : entry.getArguments()) {
    int id = int(graph.nodes.size());
    graph.nodes.push_back({id, "input", "input" + std::to_string(arg.getArgNumber()),
                           typeOf(arg.getType())});
    producer[arg] = id;
  }
  for (Operation &op : entry.getBody().getOps()) {
    // Weights and other constants are operands, not nodes of the graph.
    if (op.hasTrait<OpTrait::ConstantLike>())
      continue;
    int id = int(graph.nodes.size());
    graph.nodes.push_back({id, op.getName().getStringRef().str(), loupe::describeLoc(op.getLoc()),
                           op.getNumResults() ? typeOf(op.getResult(0).getType()) : ""});
    for (Value operand : op.getOperands())
      if (auto it = producer.find(operand); it != producer.end())
        graph.edges.emplace_back(it->second, id);
    for (Value result : op.getResults())
      producer[result] = id;
  }
}

void loupe::compiler::captureClusters(ModuleOp module, std::vector<ClusterSummary> &clusters,
                                      std::vector<RefusedMerge> &refused) {
  clusters.clear();
  refused.clear();
  func::FuncOp entry = loupe::lookupEntryFunction(module);
  if (!entry || entry.isExternal())
    return;
  for (auto fusion : entry.getBody().getOps<loupe::loupeir::FusionOp>()) {
    ClusterSummary cluster{fusion.getId(), fusion.getKind().str(), fusion.getBackend().str(),
                           fusion.getPattern().str(), fusion.getPlevel(),
                           fusion.getReason().str(), {}, ""};
    llvm::SmallVector<Location> locs;
    for (Operation &op : fusion.getBody().front().without_terminator()) {
      cluster.ops.push_back(op.getName().getStringRef().str() + "@" +
                            loupe::describeLoc(op.getLoc()));
      locs.push_back(op.getLoc());
    }
    cluster.loc = loupe::describeLoc(FusedLoc::get(module.getContext(), locs));
    clusters.push_back(std::move(cluster));
  }
  auto records = entry->getAttrOfType<ArrayAttr>("loupe.refused_merges");
  for (auto dict : records ? records.getAsRange<DictionaryAttr>()
                           : ArrayAttr().getAsRange<DictionaryAttr>()) {
    auto text = [&](const char *key) { return dict.getAs<StringAttr>(key).str(); };
    auto number = [&](const char *key) { return dict.getAs<IntegerAttr>(key).getInt(); };
    refused.push_back({text("producer"), text("producer_op"), number("producer_cluster"),
                       text("consumer"), text("consumer_op"), number("consumer_cluster"),
                       text("rule")});
  }
}
