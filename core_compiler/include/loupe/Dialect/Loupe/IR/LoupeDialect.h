//===- LoupeDialect.h - The loupe dialect (dispatch regions) ----*- C++ -*-===//
#ifndef LOUPE_DIALECT_LOUPE_IR_LOUPEDIALECT_H
#define LOUPE_DIALECT_LOUPE_IR_LOUPEDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "loupe/Dialect/Loupe/IR/LoupeOpsDialect.h.inc"

#define GET_OP_CLASSES
#include "loupe/Dialect/Loupe/IR/LoupeOps.h.inc"

#endif // LOUPE_DIALECT_LOUPE_IR_LOUPEDIALECT_H
