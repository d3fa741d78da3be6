//===- ReportText.h - Escaping for the report renderers (internal) -*- C++ -*-===//
#ifndef LOUPE_SESSIONS_REPORTTEXT_H
#define LOUPE_SESSIONS_REPORTTEXT_H

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

} // namespace loupe::sessions::report

#endif // LOUPE_SESSIONS_REPORTTEXT_H
