//===- FrontendTestUtils.h - Shared helpers of the front-end tests -*- C++ -*-===//
//
// Lowers an imported module through the upstream TOSA -> linalg pipeline
// (the same passes as `mlir-opt --pass-pipeline=...` in docs) and inspects IR.
// No ONNX headers here: the files including this are built without RTTI.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_TESTS_UNIT_FRONTENDS_FRONTENDTESTUTILS_H
#define LOUPE_TESTS_UNIT_FRONTENDS_FRONTENDTESTUTILS_H

#include "mlir/Conversion/TosaToArith/TosaToArith.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Conversion/TosaToTensor/TosaToTensor.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace loupe::test {

/// Root of the Debian libonnx-testdata models.
inline const char *onnxTestDataDir() {
  return "/usr/share/libonnx-testdata/data";
}

/// Runs tosa-optional-decompositions, canonicalize, tosa-infer-shapes,
/// tosa-make-broadcastable, tosa-to-linalg-named, tosa-to-linalg, tosa-to-arith,
/// tosa-to-tensor, canonicalize. On failure `diagnostics` holds the errors.
inline mlir::LogicalResult lowerTosaToLinalg(mlir::ModuleOp module,
                                             std::string &diagnostics) {
  mlir::MLIRContext *ctx = module.getContext();
  mlir::ScopedDiagnosticHandler handler(ctx, [&](mlir::Diagnostic &diag) {
    llvm::raw_string_ostream os(diagnostics);
    os << diag.getLocation() << ": " << diag << "\n";
    return mlir::success();
  });
  mlir::PassManager pm(ctx);
  pm.addNestedPass<mlir::func::FuncOp>(
      mlir::tosa::createTosaOptionalDecompositions());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addNestedPass<mlir::func::FuncOp>(mlir::tosa::createTosaInferShapesPass());
  pm.addNestedPass<mlir::func::FuncOp>(
      mlir::tosa::createTosaMakeBroadcastablePass());
  pm.addNestedPass<mlir::func::FuncOp>(mlir::tosa::createTosaToLinalgNamed());
  pm.addNestedPass<mlir::func::FuncOp>(mlir::tosa::createTosaToLinalg());
  pm.addNestedPass<mlir::func::FuncOp>(mlir::tosa::createTosaToArith());
  pm.addNestedPass<mlir::func::FuncOp>(mlir::tosa::createTosaToTensor());
  pm.addPass(mlir::createCanonicalizerPass());
  if (mlir::failed(pm.run(module)))
    return mlir::failure();
  // Every TOSA op must be gone.
  bool tosaLeft = false;
  module.walk([&](mlir::Operation *op) {
    if (op->getName().getDialectNamespace() == "tosa") {
      tosaLeft = true;
      diagnostics += "tosa op left after lowering: " +
                     op->getName().getStringRef().str() + "\n";
    }
  });
  return mlir::failure(tosaLeft);
}

/// Number of ops named `name` (e.g. "tosa.conv2d") in `module`.
inline int countOps(mlir::ModuleOp module, llvm::StringRef name) {
  int count = 0;
  module.walk([&](mlir::Operation *op) {
    count += op->getName().getStringRef() == name;
  });
  return count;
}

/// The module printed with locations, for substring checks and messages.
inline std::string printWithLocs(mlir::ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  mlir::OpPrintingFlags flags;
  flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  flags.elideLargeElementsAttrs(32);
  module->print(os, flags);
  return text;
}

} // namespace loupe::test

#endif // LOUPE_TESTS_UNIT_FRONTENDS_FRONTENDTESTUTILS_H
