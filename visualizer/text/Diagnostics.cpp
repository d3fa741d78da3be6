//===- Diagnostics.cpp - Parse `file:line:col: error: message` lines --------===//

#include "loupe/visualizer/text/Diagnostics.h"

#include "loupe/visualizer/text/Location.h"

#include "Lexing.h"

#include <array>
#include <utility>

namespace loupe::visualizer::text {

using namespace lex;

const char *severityName(Severity severity) {
  switch (severity) {
  case Severity::Error: return "error";
  case Severity::Warning: return "warning";
  case Severity::Note: return "note";
  case Severity::Remark: return "remark";
  }
  return "?";
}

namespace {

/// Position and severity of the earliest ` error: `-like marker (or one at column 0).
struct Marker {
  size_t pos = std::string_view::npos;
  size_t length = 0;
  Severity severity = Severity::Error;
};

Marker findMarker(std::string_view line) {
  static constexpr std::array<std::pair<std::string_view, Severity>, 4> kMarkers = {{
      {"error: ", Severity::Error},
      {"warning: ", Severity::Warning},
      {"note: ", Severity::Note},
      {"remark: ", Severity::Remark},
  }};
  Marker best;
  for (const auto &[word, severity] : kMarkers) {
    for (size_t at = line.find(word); at != std::string_view::npos && at < best.pos;
         at = line.find(word, at + 1)) {
      if (at == 0 || line[at - 1] == ' ') {
        best = Marker{at, word.size(), severity};
        break;
      }
    }
  }
  return best;
}

/// Parses the location prefix `[tool: ]file:line[:col]: ` or `[tool: ]loc(...): ` (what
/// Loupe's DiagnosticCollector prints for locations without a file, e.g. ONNX node names).
/// Returns false when it is not one.
bool parseLocationPrefix(std::string_view prefix, const LocationTable &aliases, Diagnostic &d) {
  size_t end = prefix.find_last_not_of(' ');
  if (end == std::string_view::npos)
    return true; // no prefix
  if (prefix[end] != ':')
    return false;
  std::string_view loc = prefix.substr(0, end);
  if (auto body = findTrailingLoc(loc)) {
    d.locationNames = aliases.resolve(*body);
    return true;
  }
  // Up to two trailing `:<digits>` groups.
  std::vector<size_t> numbers;
  while (numbers.size() < 2) {
    size_t colon = loc.rfind(':');
    if (colon == std::string_view::npos)
      break;
    std::string_view digits = loc.substr(colon + 1);
    if (digits.empty() || digits.size() > 18 || scanWhile(digits, 0, isDigit) != digits.size())
      break;
    numbers.push_back(std::stoull(std::string(digits)));
    loc = loc.substr(0, colon);
  }
  if (numbers.empty())
    return true; // `tool: error: ...`: no location
  size_t sep = loc.rfind(": ");
  d.file = std::string(sep == std::string_view::npos ? loc : loc.substr(sep + 2));
  d.line = numbers.back();
  d.column = numbers.size() == 2 ? numbers.front() : 0;
  return true;
}

bool isCaretLine(std::string_view line) {
  size_t at = line.find_first_not_of(" \t");
  return at != std::string_view::npos && line[at] == '^' &&
         line.find_first_not_of("^~ \t\r", at) == std::string_view::npos;
}

} // namespace

std::vector<Diagnostic> parseDiagnostics(std::string_view log) {
  std::vector<std::string_view> lines;
  for (size_t start = 0; start < log.size();) {
    size_t nl = log.find('\n', start);
    size_t end = nl == std::string_view::npos ? log.size() : nl;
    std::string_view l = log.substr(start, end - start);
    if (!l.empty() && l.back() == '\r')
      l.remove_suffix(1);
    lines.push_back(l);
    start = end + 1;
  }
  std::vector<Diagnostic> out;
  const LocationTable noAliases;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    Marker m = findMarker(line);
    if (m.pos == std::string_view::npos)
      continue;
    Diagnostic d;
    d.severity = m.severity;
    if (!parseLocationPrefix(line.substr(0, m.pos), noAliases, d))
      continue;
    std::string_view message = line.substr(m.pos + m.length);
    if (message.substr(0, 4) == "loc(") {
      if (auto body = findTrailingLoc(message.substr(0, message.find("): ") + 1))) {
        d.locationNames = noAliases.resolve(*body);
        message = message.substr(message.find("): ") + 3);
      }
    }
    d.message = std::string(message);
    d.logLine = i;
    if (i + 2 < lines.size() && isCaretLine(lines[i + 2]) && findMarker(lines[i + 1]).pos ==
                                                                 std::string_view::npos)
      d.contextLines = 2;
    else if (i + 1 < lines.size() && isCaretLine(lines[i + 1]))
      d.contextLines = 1;
    out.push_back(std::move(d));
  }
  return out;
}

} // namespace loupe::visualizer::text
