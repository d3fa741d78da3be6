//===- Schema.h - Profile DB schema and migrations (private) -----*- C++ -*-===//
#ifndef LOUPE_PROFILER_STORE_SCHEMA_H
#define LOUPE_PROFILER_STORE_SCHEMA_H

#include "Sqlite.h"

namespace loupe::profiler::schema {

/// Brings a DB at user_version `from` (0 = empty) to kSchemaVersion, one transaction per step;
/// a failed step leaves the DB at the previous version.
ral::Status migrate(sqlite::Connection &conn, int from);

/// Creates the query indexes if missing (run at the end of a run, after the bulk inserts).
ral::Status createIndexes(sqlite::Connection &conn);

} // namespace loupe::profiler::schema

#endif // LOUPE_PROFILER_STORE_SCHEMA_H
