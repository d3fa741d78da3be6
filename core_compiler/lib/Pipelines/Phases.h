//===- Phases.h - The passes of each pipeline phase ------------*- C++ -*-===//
#ifndef LOUPE_PIPELINES_PHASES_H
#define LOUPE_PIPELINES_PHASES_H

#include "loupe/Pipelines/Compiler.h"
#include "loupe/Pipelines/Registration.h"

#include "mlir/Pass/PassManager.h"

namespace loupe::compiler {

/// The textual pass pipeline of an MLIR-level phase ("graph", "lower", "llvm") for `target`,
/// e.g. "builtin.module(canonicalize,cse)"; empty for phases that are not MLIR pass pipelines
/// ("import", "artifact"). docs/pipeline.md explains every pass.
std::string phasePipeline(const std::string &phase, const CompileOptions &options);


} // namespace loupe::compiler

#endif // LOUPE_PIPELINES_PHASES_H
