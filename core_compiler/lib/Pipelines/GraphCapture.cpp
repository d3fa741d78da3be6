//===- GraphCapture.cpp - The model's op graph for the GUI's graph panel -------------===//
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
