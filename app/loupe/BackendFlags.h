//===- BackendFlags.h - compile flags shared by compile and run ---*- C++ -*-===//
#ifndef LOUPE_APP_BACKENDFLAGS_H
#define LOUPE_APP_BACKENDFLAGS_H

#include "CommandLine.h"
#include "loupe/Pipelines/Compiler.h"

#include <set>
#include <string>

namespace loupe::app {

/// The valued flags below, for CommandLine's constructor.
std::set<std::string> backendFlagNames();

/// Applies `--backends onednn,codegen` (ordered preference), `--override Conv_3=codegen,...`
/// (per-op backends keyed by loc), `--fusion on|off` and `--cache on|off` to `options`. False with `error` set
/// on an unknown backend or a malformed value.
bool applyBackendFlags(const CommandLine &cl, compiler::CompileOptions &options,
                       std::string &error);

} // namespace loupe::app

#endif // LOUPE_APP_BACKENDFLAGS_H
