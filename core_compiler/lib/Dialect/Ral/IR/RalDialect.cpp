//===- RalDialect.cpp - The ral dialect ----------------------------------------===//
#include "loupe/Dialect/Ral/IR/RalDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace loupe::ralir;

#include "loupe/Dialect/Ral/IR/RalOpsDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "loupe/Dialect/Ral/IR/RalOpsTypes.cpp.inc"

#define GET_OP_CLASSES
#include "loupe/Dialect/Ral/IR/RalOps.cpp.inc"

void RalDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "loupe/Dialect/Ral/IR/RalOpsTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "loupe/Dialect/Ral/IR/RalOps.cpp.inc"
      >();
}

std::string loupe::ralir::typeCode(Type type) {
  if (isa<ContextType, LLVM::LLVMPointerType>(type))
    return "pvoid";
  if (type.isIndex())
    return "i64";
  if (auto integer = dyn_cast<IntegerType>(type))
    return (integer.isUnsigned() ? "ui" : "i") + std::to_string(integer.getWidth());
  if (type.isF16())
    return "f16";
  if (type.isBF16())
    return "bf16";
  if (type.isF32())
    return "f32";
  if (type.isF64())
    return "f64";
  if (auto memref = dyn_cast<MemRefType>(type)) {
    std::string element = typeCode(memref.getElementType());
    if (element.empty())
      return "";
    return "m" + std::to_string(memref.getRank()) + "d" + element;
  }
  return "";
}

std::string loupe::ralir::encodeApiName(StringRef callee, StringRef device, TypeRange inputs,
                                        TypeRange outputs) {
  auto codes = [](TypeRange types) {
    llvm::SmallVector<std::string> out;
    for (Type t : types)
      out.push_back(typeCode(t));
    return out;
  };
  std::string outs = outputs.empty() ? "void" : llvm::join(codes(outputs), "_");
  return (callee + "___" + device + "___" + llvm::join(codes(inputs), "_") + "___" + outs).str();
}

/// Types the RAL ABI can carry (docs/ral.md).
static LogicalResult verifyAbiTypes(Operation *op, TypeRange types, StringRef what) {
  for (Type type : types)
    if (typeCode(type).empty())
      return op->emitOpError() << what << " type " << type << " has no RAL type code";
  return success();
}

LogicalResult RecvInputOp::verify() {
  if (static_cast<int64_t>(getIndex()) < 0) // I64Attr reads back as uint64_t.
    return emitOpError("input index must be >= 0");
  return verifyAbiTypes(*this, getResult().getType(), "result");
}

LogicalResult RecvOutputOp::verify() {
  if (static_cast<int64_t>(getIndex()) < 0) // I64Attr reads back as uint64_t.
    return emitOpError("output index must be >= 0");
  return verifyAbiTypes(*this, getResult().getType(), "result");
}

LogicalResult SendOutputOp::verify() {
  if (static_cast<int64_t>(getIndex()) < 0) // I64Attr reads back as uint64_t.
    return emitOpError("output index must be >= 0");
  return verifyAbiTypes(*this, getValue().getType(), "value");
}

LogicalResult ConstantOp::verify() {
  if (static_cast<int64_t>(getOffset()) < 0) // I64Attr reads back as uint64_t.
    return emitOpError("offset must be >= 0");
  if (!cast<MemRefType>(getType()).getLayout().isIdentity())
    return emitOpError("result must have an identity layout, got ") << getType();
  return success();
}

LogicalResult DeviceConstantOp::verify() {
  auto host = cast<MemRefType>(getHost().getType());
  if (!host.getLayout().isIdentity())
    return emitOpError("host constant must have an identity layout, got ") << host;
  return success();
}

LogicalResult DispatchOp::verify() {
  if (getCallee().empty())
    return emitOpError("callee must not be empty");
  if (getCallee().contains("___") || getDevice().contains("___"))
    return emitOpError("callee and device must not contain the '___' separator");
  if (failed(verifyAbiTypes(*this, getArgs().getTypes(), "operand")) ||
      failed(verifyAbiTypes(*this, getResultTypes(), "result")))
    return failure();
  if (auto abi = getAbi(); abi && *abi != encodedName())
    return emitOpError("abi '") << *abi << "' does not match its types ('" << encodedName()
                                << "')";
  return success();
}

std::string DispatchOp::encodedName() {
  llvm::SmallVector<Type> inputs = {getCtx().getType()};
  llvm::append_range(inputs, getArgs().getTypes());
  return encodeApiName(getCallee(), getDevice(), inputs, getResultTypes());
}
