//===- DispatchTable.cpp - The entry's dispatch table, for CPU passes ---------===//
#include "DispatchTable.h"

#include "loupe/Dialect/Ral/IR/RalDialect.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

std::optional<int64_t> loupe::dispatchOf(Operation *op, func::FuncOp func) {
  while (op && op->getParentOp() != func)
    op = op->getParentOp();
  for (; op; op = op->getPrevNode()) {
    auto marker = dyn_cast<ralir::DispatchOp>(op);
    if (!marker)
      continue;
    if (marker.getCallee() != "ral_dispatch_begin" || marker.getArgs().empty())
      return std::nullopt;
    return getConstantIntValue(marker.getArgs().front());
  }
  return std::nullopt;
}

void loupe::updateDispatchRows(func::FuncOp func,
                               llvm::function_ref<void(int64_t, NamedAttrList &)> update) {
  auto table = func->getAttrOfType<ArrayAttr>("loupe.dispatches");
  if (!table)
    return;
  SmallVector<Attribute> rows;
  for (Attribute row : table) {
    auto dict = cast<DictionaryAttr>(row);
    auto id = dict.getAs<IntegerAttr>("id");
    if (!id) {
      rows.push_back(row);
      continue;
    }
    NamedAttrList fields(dict);
    update(id.getInt(), fields);
    rows.push_back(fields.getDictionary(func.getContext()));
  }
  func->setAttr("loupe.dispatches", ArrayAttr::get(func.getContext(), rows));
}
