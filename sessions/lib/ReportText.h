//===- ReportText.h - Shared by the report builders and renderers (internal) -*- C++ -*-===//
#ifndef LOUPE_SESSIONS_REPORTTEXT_H
#define LOUPE_SESSIONS_REPORTTEXT_H

#include "loupe/profiler/Run.h"

#include <nlohmann/json.hpp>

#include <string>

namespace loupe::sessions::report {

/// Text for XML and HTML content and attribute values: & < > " ' escaped.
inline std::string escapeXml(const std::string &s) {
  std::string out;
  for (char c : s)
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&#39;"; break;
    default: out += c;
    }
  return out;
}

/// A JSON value as text: strings as they are, null as "", numbers in JSON's spelling.
inline std::string plain(const nlohmann::json &v) {
  if (v.is_null())
    return "";
  if (v.is_string())
    return v.get<std::string>();
  return v.dump();
}

/// What a run's measurement adds to its report: `memory` (profiler::memoryJson) and
/// `thread_stalls` when the pool went to one thread (its times mix one and two threads).
inline void addMeasurement(nlohmann::json &report, const profiler::MeasurementRecord &m) {
  if (nlohmann::json memory = profiler::memoryJson(m); !memory.is_null())
    report["memory"] = memory;
  if (m.threadStalls > 0)
    report["thread_stalls"] = m.threadStalls;
}

} // namespace loupe::sessions::report

#endif // LOUPE_SESSIONS_REPORTTEXT_H
