//===- Registration.h - Make Loupe's passes and phases nameable -*- C++ -*-===//
#ifndef LOUPE_PIPELINES_REGISTRATION_H
#define LOUPE_PIPELINES_REGISTRATION_H

namespace loupe::compiler {

/// Registers upstream passes, Loupe's passes, and one pipeline per phase (`--loupe-graph`,
/// `--loupe-lower`, `--loupe-llvm`) with MLIR's global registry. Idempotent, thread-safe.
void registerPipelines();

} // namespace loupe::compiler

#endif // LOUPE_PIPELINES_REGISTRATION_H
