//===- main.cpp - loupe-opt: mlir-opt with Loupe's passes and phases ---------===//
#include "loupe/Dialect/Loupe/IR/LoupeDialect.h"
#include "loupe/Dialect/Ral/IR/RalDialect.h"
#include "loupe/Pipelines/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  loupe::compiler::registerPipelines();
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry); // gpu-module-to-binary (loupe-ral-cuda)
  registry.insert<loupe::ralir::RalDialect, loupe::loupeir::LoupeDialect>();
  // Exit 2 on any failure (bad input, a failing pass), as every Loupe tool reports bad input.
  return mlir::failed(mlir::MlirOptMain(argc, argv, "Loupe optimizer driver\n", registry)) ? 2 : 0;
}
