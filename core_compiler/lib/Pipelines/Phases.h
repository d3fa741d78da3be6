//===- Phases.h - The passes of each pipeline phase ------------*- C++ -*-===//
#ifndef LOUPE_PIPELINES_PHASES_H
#define LOUPE_PIPELINES_PHASES_H

#include "loupe/Pipelines/Compiler.h"
#include "loupe/Pipelines/Registration.h"

#include "mlir/Pass/PassManager.h"

namespace loupe::compiler {

/// The passes of an MLIR-level phase ("graph", "cluster", "lower", "ral", "llvm") as a textual pass list to add
/// to a builtin.module pass manager, e.g. "canonicalize,func.func(cse)"; empty for phases that
/// are not MLIR pass pipelines ("import", "artifact"). docs/pipeline.md explains every pass.
std::string phasePassList(const std::string &phase, const CompileOptions &options);
/// The same, anchored: "builtin.module(<pass list>)", as mlir-opt's --pass-pipeline takes it.
std::string phasePipeline(const std::string &phase, const CompileOptions &options);

} // namespace loupe::compiler

#endif // LOUPE_PIPELINES_PHASES_H
