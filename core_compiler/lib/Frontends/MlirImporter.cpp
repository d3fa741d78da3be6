//===- MlirImporter.cpp - .mlir text -> module --------------------------------===//
#include "loupe/Frontends/MlirImporter.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

OwningOpRef<ModuleOp> loupe::frontends::importMlirFile(const std::string &path,
                                                       MLIRContext &context,
                                                       std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) {
    error = path + ": cannot open: " + buffer.getError().message();
    return nullptr;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  llvm::raw_string_ostream os(error);
  // Prints "file:line:col: error: message" plus the offending source line.
  SourceMgrDiagnosticHandler handler(sourceMgr, &context, os);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module || failed(verify(*module)))
    return nullptr;
  return module;
}
