//===- MlirImporter.cpp - .mlir text -> module ----------------------------===//

#include "loupe/Frontends/MlirImporter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace loupe::frontends {

OwningOpRef<ModuleOp> importMlirFile(const std::string &path,
                                     MLIRContext &context, std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) {
    error = path + ": cannot open file: " + buffer.getError().message();
    return nullptr;
  }
  return importMlirText((*buffer)->getBuffer().str(), path, context, error);
}

OwningOpRef<ModuleOp> importMlirText(const std::string &text, const std::string &name,
                                     MLIRContext &context, std::string &error) {
  error.clear();
  context.loadDialect<func::FuncDialect, tosa::TosaDialect,
                      linalg::LinalgDialect, arith::ArithDialect,
                      tensor::TensorDialect, math::MathDialect,
                      memref::MemRefDialect, scf::SCFDialect,
                      bufferization::BufferizationDialect>();

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, name), llvm::SMLoc());
  // Diagnostics print as "file:line:col: error: message" with the source line.
  llvm::raw_string_ostream os(error);
  SourceMgrDiagnosticHandler handler(sourceMgr, &context, os);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (module && failed(verify(*module)))
    module = nullptr;
  // The entry (@main, else the one public function) must have a body to compile.
  if (module) {
    auto entry = module->lookupSymbol<func::FuncOp>("main");
    if (entry && entry.isExternal()) {
      entry.emitError("the entry function @main is a declaration without a body");
      module = nullptr;
    }
  }
  os.flush();
  // A diagnostic without a source location (an op the parser built without one) still names
  // the file.
  for (size_t at = error.find("<unknown>:0: "); at != std::string::npos;
       at = error.find("<unknown>:0: ", at + name.size()))
    error.replace(at, 13, name + ": ");
  if (!module && error.empty())
    error = name + ": failed to parse";
  return module;
}

} // namespace loupe::frontends
