//===- Diagnostics.h - MLIR diagnostics parsed from a log -----------*- C++ -*-===//
//
// The forms llvm::SourceMgr and mlir::SourceMgrDiagnosticHandler print (any prefix such as
// `loupe compile: ` before the location is skipped):
//   file:line:col: error: message        (followed by the source line and a `^` caret line)
//   file:line: warning: message
//   error: loc("conv1"): message         (a location without a file)
//   loc("conv1"): error: message         (the same, as Loupe's DiagnosticCollector prints it)
//   error: message
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_TEXT_DIAGNOSTICS_H
#define LOUPE_VISUALIZER_TEXT_DIAGNOSTICS_H

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace loupe::visualizer::text {

enum class Severity : unsigned char { Error, Warning, Note, Remark };
const char *severityName(Severity severity);

struct Diagnostic {
  Severity severity = Severity::Error;
  std::string file;    ///< Empty when the location has no file.
  size_t line = 0;     ///< 1-based as printed; 0 when there is none.
  size_t column = 0;   ///< 1-based as printed; 0 when there is none.
  /// Names of a non-file location (`loc("conv1")` -> {"conv1"}), to look up with
  /// IrDocument::linesWithLocation.
  std::vector<std::string> locationNames;
  std::string message;
  size_t logLine = 0;      ///< 0-based line of the log holding the diagnostic.
  size_t contextLines = 0; ///< Following log lines that belong to it (source line + caret).
};

/// Every diagnostic in `log`, in order. O(log size).
std::vector<Diagnostic> parseDiagnostics(std::string_view log);

} // namespace loupe::visualizer::text

#endif // LOUPE_VISUALIZER_TEXT_DIAGNOSTICS_H
