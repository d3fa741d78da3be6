//===- DbMaintenance.h - loupe db merge|export|gc ---------------*- C++ -*-===//
#ifndef LOUPE_APP_DBMAINTENANCE_H
#define LOUPE_APP_DBMAINTENANCE_H

#include "CommandLine.h"

namespace loupe::app {

/// loupe db merge OUT.db IN.db...: copies every run of the inputs (opened read-only) that OUT
/// does not hold yet into OUT (created if missing), with the verdicts between copied runs.
int dbMerge(const CommandLine &cl);
/// loupe db export RUN... [--db DB] -o OUT.db|OUT.csv: the runs (each with the trials of its
/// batch) as a new profile DB, or their samples as CSV.
int dbExport(const CommandLine &cl);
/// loupe db gc [--db DB] [--keep N] [--older-than DAYS] [--failed] [--dry-run]: deletes runs.
int dbGc(const CommandLine &cl);

} // namespace loupe::app

#endif // LOUPE_APP_DBMAINTENANCE_H
