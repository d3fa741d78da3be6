//===- Report.h - Replay reports: JSON and Markdown -------------*- C++ -*-===//
//
// One report document (JSON) is built from a run's outcome (or a replay's variants and their
// comparison); the Markdown report is rendered from that same document, so the two always
// agree. docs/sessions.md lists the fields.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_SESSIONS_REPORT_H
#define LOUPE_SESSIONS_REPORT_H

#include "loupe/sessions/Replay.h"
#include "loupe/sessions/Runner.h"

#include <nlohmann/json_fwd.hpp>

namespace loupe::sessions {

/// The report of one run: model, device, pipeline (every pass with phase, time, changed),
/// dispatches (median/IQR ns, share), kernel fallbacks, run summary, correctness. `sessionName` may be empty.
nlohmann::json buildReport(const RunOutcome &outcome, const std::string &model,
                           const std::string &sessionName);

/// The report of a replay. A session without variants gets buildReport(outcome) of its one
/// run, unchanged; with variants, `loupe_report` 2: `variants[]` (each a run's report body
/// with its `name` and `settings`) and, when the session compares two, `comparison`.
nlohmann::json buildReport(const ReplayResult &replay, const Session &session);

/// The report of a comparison alone (`loupe compare`): `loupe_report` 2 with `model` and
/// `comparison`, as in a replay's report.
nlohmann::json buildReport(const ComparisonResult &comparison, const std::string &model);

/// Renders a report document (any kind) as Markdown.
std::string renderMarkdown(const nlohmann::json &report);

/// Whether a report may be written to `path`: its extension is .md or .json, its directory
/// exists, and it is not `protectedPath` (the session file a replay reports on). Checked before
/// a replay starts; kInvalidArgument naming the path otherwise.
ral::Status checkReportPath(const std::string &path, const std::string &protectedPath = "");

/// Writes the report to `path` (checkReportPath); the format follows the extension.
ral::Status writeReport(const nlohmann::json &report, const std::string &path);

} // namespace loupe::sessions

#endif // LOUPE_SESSIONS_REPORT_H
