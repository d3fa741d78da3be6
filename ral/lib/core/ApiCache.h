//===- ApiCache.h - Per-thread cache of RAL API lookups (internal) -*- C++ -*-===//
#ifndef LOUPE_RAL_LIB_CORE_APICACHE_H
#define LOUPE_RAL_LIB_CORE_APICACHE_H

#include "loupe/ral/Registry.h"

namespace loupe::ral::detail {

/// The function registered under `name`, or nullptr. Cached per thread by the name's pointer
/// (compiled artifacts pass string literals); a miss falls back to Registry::global().
ApiFunction lookupApiCached(const char *name);
/// Drops every thread's cached lookups (the next lookup per name goes to the registry). Called
/// when an artifact is unloaded (its string addresses may be reused) and on registration.
void invalidateApiCaches();

} // namespace loupe::ral::detail

#endif // LOUPE_RAL_LIB_CORE_APICACHE_H
