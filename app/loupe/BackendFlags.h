//===- BackendFlags.h - compile flags shared by compile and run ---*- C++ -*-===//
#ifndef LOUPE_APP_BACKENDFLAGS_H
#define LOUPE_APP_BACKENDFLAGS_H

#include "CommandLine.h"
#include "loupe/Pipelines/Compiler.h"

#include <set>
#include <string>
#include <vector>

namespace loupe::app {

/// The valued flags below, for CommandLine's constructor.
std::set<std::string> backendFlagNames();

/// Applies `--backends onednn,codegen` (ordered preference; `auto` consults the tuning
/// table first), `--override Conv_3=codegen,...`
/// (per-op backends keyed by loc), `--fusion on|off`, `--cache on|off` and the repeatable
/// `--input-shape NAME=D0,D1,...` to `options`. False with `error` set on an unknown backend
/// or a malformed value.
/// Parses one `--input-shape` value, "NAME=D0,D1,..." ("NAME=" for a scalar).
bool parseInputShape(const std::string &text, std::string &name, std::vector<int64_t> &dims,
                     std::string &error);

bool applyBackendFlags(const CommandLine &cl, compiler::CompileOptions &options,
                       std::string &error);

} // namespace loupe::app

#endif // LOUPE_APP_BACKENDFLAGS_H
