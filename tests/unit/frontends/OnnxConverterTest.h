//===- OnnxConverterTest.h - The fixture of the ONNX converter tests --*- C++ -*-===//
//
// Imports a test model (anything with bytes(): OnnxModelBuilder.h's ModelBuilder or a file's
// own builder) into a fresh context and inspects the result: @main's result types, the types
// of an op, and whether the upstream TOSA -> linalg pipeline lowers it.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_TESTS_ONNXCONVERTERTEST_H
#define LOUPE_TESTS_ONNXCONVERTERTEST_H

#include "FrontendTestUtils.h"
#include "loupe/Frontends/OnnxImporter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <string>

namespace loupe::test {

class OnnxConverterTest : public ::testing::Test {
protected:
  OnnxConverterTest() { loupe::frontends::registerOnnxImporterDialects(ctx); }

  /// Imports `model`; on failure records the error (also in `error`) and returns null.
  template <typename Model> mlir::OwningOpRef<mlir::ModuleOp> import(const Model &model) {
    error.clear();
    auto module = loupe::frontends::importOnnxBytes(model.bytes(), "test.onnx", ctx, error);
    EXPECT_TRUE(module) << error;
    return module;
  }

  /// Imports `model` expecting failure; returns the error.
  template <typename Model> std::string importError(const Model &model) {
    error.clear();
    auto module = loupe::frontends::importOnnxBytes(model.bytes(), "test.onnx", ctx, error);
    EXPECT_FALSE(module);
    return error;
  }

  static mlir::func::FuncOp mainOf(mlir::ModuleOp module) {
    return module.lookupSymbol<mlir::func::FuncOp>("main");
  }

  /// Result `i` of @main as text, e.g. "tensor<2x3xf32>" (unsigned results are returned in
  /// their N-bit storage: uint8 as i8).
  static std::string resultType(mlir::ModuleOp module, unsigned i = 0) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << mainOf(module).getFunctionType().getResult(i);
    return text;
  }

  /// "(operand types) -> result types" of the first op named `name`; "" when there is none.
  static std::string opTypes(mlir::ModuleOp module, llvm::StringRef name) {
    std::string text;
    module.walk([&](mlir::Operation *op) {
      if (!text.empty() || op->getName().getStringRef() != name)
        return;
      llvm::raw_string_ostream os(text);
      os << "(";
      llvm::interleaveComma(op->getOperandTypes(), os);
      os << ") -> ";
      llvm::interleaveComma(op->getResultTypes(), os);
    });
    return text;
  }

  void expectLowers(mlir::ModuleOp module) {
    std::string diagnostics;
    EXPECT_TRUE(mlir::succeeded(lowerTosaToLinalg(module, diagnostics)))
        << diagnostics << "\n" << printWithLocs(module);
  }

  mlir::MLIRContext ctx;
  std::string error; ///< The last import's error.
};

} // namespace loupe::test

#endif // LOUPE_TESTS_ONNXCONVERTERTEST_H
