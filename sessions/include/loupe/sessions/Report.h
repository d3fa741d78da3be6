//===- Report.h - Replay reports: JSON and Markdown -------------*- C++ -*-===//
//
// One report document (JSON) is built from a run's outcome; the Markdown report is rendered
// from that same document, so the two always agree. docs/reports.md lists the fields.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_SESSIONS_REPORT_H
#define LOUPE_SESSIONS_REPORT_H

#include "loupe/sessions/Runner.h"

#include <nlohmann/json_fwd.hpp>

namespace loupe::sessions {

/// The report of one run: model, device, pipeline (every pass with phase, time, changed),
/// dispatches (median/IQR ns, share), run summary, correctness. `sessionName` may be empty.
nlohmann::json buildReport(const RunOutcome &outcome, const std::string &model,
                           const std::string &sessionName);

/// Renders a report document as Markdown.
std::string renderMarkdown(const nlohmann::json &report);

/// Writes the report to `path`; the format follows the extension (.md or .json).
ral::Status writeReport(const nlohmann::json &report, const std::string &path);

} // namespace loupe::sessions

#endif // LOUPE_SESSIONS_REPORT_H
