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
/// Code-generated linalg ops on memrefs -> scf.parallel mapped to GPU blocks/threads ->
/// gpu.launch -> outlined gpu.module -> NVVM -> PTX embedded as a gpu.binary (MLIR's NVVM
/// target, LLVM's NVPTX back end; no CUDA toolkit needed). `chip`: "sm_80", "sm_90".
/// Registered as `loupe-opt --loupe-gpu-kernels=chip=sm_90`.
std::string gpuKernelPassList(const std::string &chip);


} // namespace loupe::compiler

#endif // LOUPE_PIPELINES_PHASES_H
