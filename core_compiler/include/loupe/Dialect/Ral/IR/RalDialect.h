//===- RalDialect.h - The ral dialect ---------------------------*- C++ -*-===//
#ifndef LOUPE_DIALECT_RAL_IR_RALDIALECT_H
#define LOUPE_DIALECT_RAL_IR_RALDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "loupe/Dialect/Ral/IR/RalOpsDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "loupe/Dialect/Ral/IR/RalOpsTypes.h.inc"

#define GET_OP_CLASSES
#include "loupe/Dialect/Ral/IR/RalOps.h.inc"

namespace loupe::ralir {
/// A unit attribute on `memref.get_global`: the buffer is read on the host by the library API
/// it is passed to (a descriptor such as ral_conv_cudnn's params), so the cuda target passes
/// the host global itself, not a `ral.device_constant` copy.
inline constexpr llvm::StringLiteral kHostReadAttr = "ral.host_read";
/// The RAL type code of `type` (docs/ral.md): i1..i64, ui8..ui64, f16, bf16, f32, f64,
/// pvoid (context, pointers), m<rank>d<element> for memrefs; index is i64. Empty when the
/// type has no code.
std::string typeCode(mlir::Type type);
/// `callee___device___<in codes joined by _>___<out codes or void>`.
std::string encodeApiName(llvm::StringRef callee, llvm::StringRef device,
                          mlir::TypeRange inputs, mlir::TypeRange outputs);
} // namespace loupe::ralir

#endif // LOUPE_DIALECT_RAL_IR_RALDIALECT_H
