//===- IrDocument.h - An immutable, indexed view of a large IR text --*- C++ -*-===//
//
// What the IR and diff panels read: the text of one snapshot (MLIR, LLVM IR or assembly; tens
// of MB, 100,000+ lines) with its line index, fold regions, `#loc` alias table and a per-line
// token cache. Build it off the UI thread (construction is O(n)) and share it as
// std::shared_ptr<const IrDocument>. Every const method is safe to call from several threads;
// tokens() and linesWithLocation() fill caches under a lock on first use.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_TEXT_IRDOCUMENT_H
#define LOUPE_VISUALIZER_TEXT_IRDOCUMENT_H

#include "loupe/visualizer/text/FoldRegion.h"
#include "loupe/visualizer/text/LineIndex.h"
#include "loupe/visualizer/text/Location.h"
#include "loupe/visualizer/text/TextSearch.h"
#include "loupe/visualizer/text/Token.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace loupe::visualizer::text {

class IrDocument {
public:
  /// Takes the text; builds the line index, fold regions and loc alias table. O(n) time,
  /// about n + 8 bytes per line + 12 bytes per fold region of memory.
  explicit IrDocument(std::string text, Language language = Language::Mlir);
  /// As above, with the language from detectLanguage(path, text).
  static std::shared_ptr<const IrDocument> fromText(std::string text, std::string_view path);
  /// Reads `path` into a document (language from its extension); nullptr and `error` set on
  /// failure.
  static std::shared_ptr<const IrDocument> load(const std::string &path, std::string *error);
  ~IrDocument();
  IrDocument(const IrDocument &) = delete;
  IrDocument &operator=(const IrDocument &) = delete;

  std::string_view text() const { return text_; }
  Language language() const { return language_; }
  const LineIndex &lineIndex() const { return lines_; }
  size_t lineCount() const { return lines_.lineCount(); }
  /// Line i (0-based) without its terminator. O(1).
  std::string_view line(size_t i) const { return lines_.line(text_, i); }

  /// Syntax tokens of line i, computed on first request and cached (O(line length) once,
  /// then O(1) plus a lock). The reference stays valid for the document's lifetime; the cache
  /// keeps every line ever asked for (about 100 bytes per line).
  const std::vector<Token> &tokens(size_t i) const;

  /// `{`...`}` regions spanning lines, sorted by start line (see computeFoldRegions).
  const std::vector<FoldRegion> &foldRegions() const { return folds_; }

  /// See text::findNext: next match from (fromLine, fromCol) with wraparound.
  std::optional<TextMatch> find(std::string_view query, size_t fromLine, size_t fromCol,
                                bool forward, bool caseSensitive) const {
    return findNext(text_, lines_, query, fromLine, fromCol, forward, caseSensitive);
  }
  /// See text::findAll; at most `maxMatches` matches.
  FindAllResult findAll(std::string_view query, bool caseSensitive,
                        size_t maxMatches = 100000) const {
    return text::findAll(text_, lines_, query, caseSensitive, maxMatches);
  }

  /// Resolved location names of line i: the names of its trailing `loc(...)` ("Conv_3",
  /// "model.mlir:12:4", several for a fused loc), aliases expanded. A line that opens a region
  /// (`... {`) and has no loc of its own takes the loc printed after its closing `}`.
  /// Empty when there is none. O(length of the loc) plus the names' size.
  std::vector<std::string> locationOfLine(size_t i) const;
  /// Lines whose location resolves to `name` (exact match), ascending. Alias definition
  /// lines and `}` lines (whose loc belongs to the op that opened the region, reported
  /// instead) are left out. The first call builds an index over all lines (O(n)); later calls
  /// are O(1) plus the answer's size.
  std::vector<size_t> linesWithLocation(std::string_view name) const;
  /// Builds the index linesWithLocation uses now (about 20 ms per 100k lines), e.g. on the
  /// worker thread that made the document, so the UI thread's first lookup is O(1).
  void prepareLocationIndex() const { linesWithLocation({}); }
  /// Every distinct location name in the document, sorted (builds the same index).
  std::vector<std::string> locationNames() const;
  const LocationTable &locationTable() const { return locations_; }

private:
  struct Caches;
  std::string text_;
  Language language_;
  LineIndex lines_;
  std::vector<FoldRegion> folds_;
  LocationTable locations_;
  std::unique_ptr<Caches> caches_;
};

} // namespace loupe::visualizer::text

#endif // LOUPE_VISUALIZER_TEXT_IRDOCUMENT_H
