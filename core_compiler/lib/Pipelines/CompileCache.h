//===- CompileCache.h - Compile results by model IR and options ------*- C++ -*-===//
//
// Whole-compile cache after PyTorch LTC / BladeDISC's graph-hash cache (seed 003) and
// OneFlow XRT's JIT cache (seed 002): the key is the imported module (printed with locations,
// so provenance is part of it) plus every compile option and the compiler build; a hit is
// confirmed by comparing the full key text, never by the hash alone. Entries live in memory
// and on disk (`<dir>/<hash>.{key,json,so}`, written to a temporary and renamed, so
// concurrent compiles never see half an entry), where the least recently used entries go once
// the directory exceeds its cap (compileCacheUsage). The CLI and the GUI share the entries.
// Thread-safe.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_PIPELINES_COMPILECACHE_H
#define LOUPE_PIPELINES_COMPILECACHE_H

#include "loupe/Pipelines/Compiler.h"

namespace loupe::compiler {

/// The key text of a compile of `moduleText` with `options` (artifact path excluded).
std::string compileCacheKey(const std::string &moduleText, const CompileOptions &options);

/// The cache directory: CompileOptions::cacheDir, else $LOUPE_CACHE_DIR, else
/// $XDG_CACHE_HOME/loupe/compile, else $HOME/.cache/loupe/compile.
std::string compileCacheDir(const CompileOptions &options);

/// The cached result for `key`, its artifact copied to `artifactPath` (empty: the cache's own
/// copy), with `cache` set to "memory" or "disk"; nullopt on a miss. A corrupt or unreadable
/// entry, or one whose artifact is not the size stored with it, is a miss (and removed).
std::optional<CompileResult> lookupCompile(const std::string &key, const std::string &dir,
                                           const std::string &artifactPath);

/// Stores a successful artifact compile (its artifact is copied into `dir`, with its size) and
/// returns the cache's copy of the artifact. Failures to write give "" and are otherwise
/// ignored: the cache is an optimisation.
std::string storeCompile(const std::string &key, const std::string &dir,
                         const CompileResult &result);

} // namespace loupe::compiler

#endif // LOUPE_PIPELINES_COMPILECACHE_H
