//===- Report.h - Replay reports: JSON and Markdown -------------*- C++ -*-===//
//
// One report document (JSON) is built from a run's outcome (or a replay's variants and their
// comparison); the Markdown report is rendered from that same document, so the two always
// agree. docs/sessions.md lists the fields.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_SESSIONS_REPORT_H
#define LOUPE_SESSIONS_REPORT_H

#include "loupe/profiler/Records.h"
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

/// The report of a stored run (`loupe report`), as buildReport(RunOutcome) from what the
/// profile DB keeps: pipeline passes, dispatches with bytes and FLOPs, run summary, the median
/// repetition's timeline, checks, fallbacks, environment. No clusters (not stored).
nlohmann::json buildReport(const profiler::RunData &run);

/// Report parts both builders share: a Summary, and the spans of the repetition whose duration
/// is the median: {"rep", "duration_ns", "spans": [[dispatch id, start ns, end ns], ...]}
/// (offsets from the repetition's start); null without samples.
nlohmann::json summaryJson(const profiler::Summary &s);
nlohmann::json timelineJson(const std::vector<profiler::SampleRecord> &samples);

/// The report of a comparison alone (`loupe compare`): `loupe_report` 2 with `model` and
/// `comparison`, as in a replay's report.
nlohmann::json buildReport(const ComparisonResult &comparison, const std::string &model);

/// Renders a report document (any kind) as Markdown.
std::string renderMarkdown(const nlohmann::json &report);

/// Renders a report document as one self-contained HTML page with inline SVG charts: the
/// comparison's changes with their intervals (coloured by verdict), each run's dispatch
/// medians with IQR, its median repetition's timeline, its pass times and a roofline of its
/// kernels against `machine` (peak FLOP/s and memory bandwidth measured on this host).
std::string renderHtml(const nlohmann::json &report);
/// CSV: the comparison's rows when there is one (whole repetition, dispatches, groups), else
/// every variant's dispatches.
std::string renderCsv(const nlohmann::json &report);
/// JUnit XML: one test case per compared row (a failure for SLOWER) or, without a comparison,
/// per variant (a failure when its check failed or it did not run).
std::string renderJunit(const nlohmann::json &report);

/// Whether a report may be written to `path`: its extension is .md, .json, .html, .csv or .xml, its directory
/// exists, and it is not `protectedPath` (the session file a replay reports on). Checked before
/// a replay starts; kInvalidArgument naming the path otherwise.
ral::Status checkReportPath(const std::string &path, const std::string &protectedPath = "");

/// Writes the report to `path` (checkReportPath); the format follows the extension. An HTML
/// report gains "machine" (profiler::measureMachinePeaks) first.
ral::Status writeReport(const nlohmann::json &report, const std::string &path);

} // namespace loupe::sessions

#endif // LOUPE_SESSIONS_REPORT_H
