//===- Location.h - MLIR `loc(...)` parsing and the `#loc` alias table -*- C++ -*-===//
//
// With debug info, MLIR prints a location after each op: `loc(#loc3)` with an alias table
// `#loc3 = loc("Conv_3")` at the top or bottom of the module, or inline `loc("file.mlir":12:4)`.
// Grammar (mlir/lib/AsmParser/LocationParser.cpp, llvmorg-19.1.7), inside `loc(...)`:
//   unknown | "name" [ '(' child ')' ] | "file":line:col | fused[<attr>] '[' l, ... ']'
//   | callsite(callee at caller) | #alias
// Names resolve to "name", file locations to "file:line:col"; fused to the list of its parts;
// callsite to the callee; a name's child is not reported; unknown to nothing.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_TEXT_LOCATION_H
#define LOUPE_VISUALIZER_TEXT_LOCATION_H

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace loupe::visualizer::text {

/// The body (between `loc(` and its `)`) of the `loc(...)` that ends `line` (trailing spaces
/// allowed), or nullopt. Parentheses are balanced and strings skipped. O(length of the loc).
std::optional<std::string_view> findTrailingLoc(std::string_view line);

/// If `line` is `#name = loc(body)`, its alias name (with '#') and body.
struct LocAliasDefinition {
  std::string_view alias;
  std::string_view body;
};
std::optional<LocAliasDefinition> parseLocAliasDefinition(std::string_view line);

/// The `#loc` aliases of one document. Fill with add(), then finalize() (resolves every alias
/// once); after that the table is read-only and safe to share between threads.
class LocationTable {
public:
  /// Records the alias defined on document line `line` (a later definition of the same alias
  /// replaces an earlier one).
  void add(const LocAliasDefinition &definition, size_t line);
  /// Resolves every alias (aliases may refer to aliases; depth capped at 32). O(total size).
  void finalize();

  /// Human names of a loc body, in order of first appearance, without duplicates. Unknown
  /// aliases resolve to nothing. O(body size) plus copying the names of aliases.
  std::vector<std::string> resolve(std::string_view body) const;
  /// As resolve, appending to `out` (duplicates are not removed).
  void resolveInto(std::string_view body, std::vector<std::string> &out) const;
  /// Document line defining `alias` ("#loc3"), or nullopt.
  std::optional<size_t> definitionLine(std::string_view alias) const;
  size_t size() const { return aliases_.size(); }

private:
  struct Alias {
    std::string body;
    size_t line = 0;
    std::vector<std::string> names; // filled by finalize()
    bool resolved = false;
  };
  void parse(std::string_view body, std::vector<std::string> &out, int depth) const;
  std::unordered_map<std::string, Alias> aliases_;
};

} // namespace loupe::visualizer::text

#endif // LOUPE_VISUALIZER_TEXT_LOCATION_H
