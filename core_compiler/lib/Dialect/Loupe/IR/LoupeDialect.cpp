//===- LoupeDialect.cpp - The loupe dialect --------------------------------------===//
#include "loupe/Dialect/Loupe/IR/LoupeDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace loupe::loupeir;

#include "loupe/Dialect/Loupe/IR/LoupeOpsDialect.cpp.inc"

#define GET_OP_CLASSES
#include "loupe/Dialect/Loupe/IR/LoupeOps.cpp.inc"

void LoupeDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "loupe/Dialect/Loupe/IR/LoupeOps.cpp.inc"
      >();
}

LogicalResult FusionOp::verify() {
  auto yield = cast<YieldOp>(getBody().front().getTerminator());
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError("yields ") << yield.getValues().size()
                                  << " values whose types differ from its results";
  return success();
}
