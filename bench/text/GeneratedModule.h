//===- GeneratedModule.h - A large MLIR-like module for benchmarks ---*- C++ -*-===//
#ifndef LOUPE_BENCH_TEXT_GENERATEDMODULE_H
#define LOUPE_BENCH_TEXT_GENERATEDMODULE_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace loupe::bench {

/// A module of about `lines` lines shaped like Loupe's linalg-on-tensors snapshots: functions
/// of 40-60 lines with constants, tosa/linalg ops, linalg.generic regions with block
/// arguments, `loc(#locN)` on every op and the `#locN = loc("Op_N")` table at the end.
/// Deterministic for a given seed.
std::string generateModule(size_t lines, uint32_t seed = 1);

/// `text` with `changes` edits at evenly spread op lines inside function bodies: an op name
/// replaced, an op inserted, or an op deleted, in turn. With `renumber`, the numbered SSA
/// values after an inserted or deleted op are renumbered up to the end of its function, as
/// the MLIR printer does (so most changed lines differ only in SSA names).
std::string scatterChanges(const std::string &text, size_t changes, bool renumber);

} // namespace loupe::bench

#endif // LOUPE_BENCH_TEXT_GENERATEDMODULE_H
