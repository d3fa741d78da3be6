//===- MlirImporter.h - .mlir text -> module ---------------------*- C++ -*-===//
#ifndef LOUPE_FRONTENDS_MLIRIMPORTER_H
#define LOUPE_FRONTENDS_MLIRIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include <string>

namespace loupe::frontends {

/// Parses and verifies the MLIR file at `path`. On failure returns null and sets `error` to
/// MLIR's diagnostics, each as "file:line:col: error: ...".
mlir::OwningOpRef<mlir::ModuleOp> importMlirFile(const std::string &path,
                                                 mlir::MLIRContext &context,
                                                 std::string &error);

/// Same, from the text of a file; `name` stands for the file in messages.
mlir::OwningOpRef<mlir::ModuleOp> importMlirText(const std::string &text, const std::string &name,
                                                 mlir::MLIRContext &context, std::string &error);

} // namespace loupe::frontends

#endif // LOUPE_FRONTENDS_MLIRIMPORTER_H
