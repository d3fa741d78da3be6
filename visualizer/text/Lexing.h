//===- Lexing.h - Character classes and scanners shared by the tokenizers -*- C++ -*-===//
//
// Internal to loupe_visualizer_text. Every scanner takes a line and a start position and
// returns the position one past what it consumed (never less than `pos + 1` when it consumes).
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_TEXT_LEXING_H
#define LOUPE_VISUALIZER_TEXT_LEXING_H

#include "loupe/visualizer/text/Token.h"

#include <cstddef>
#include <string_view>
#include <vector>

namespace loupe::visualizer::text::lex {

inline bool isAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool isDigit(char c) { return c >= '0' && c <= '9'; }
inline bool isHexDigit(char c) {
  return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
inline bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
inline bool isHighBit(char c) { return static_cast<unsigned char>(c) >= 0x80; }
/// `[a-zA-Z_]`: the first character of an MLIR bare-id.
inline bool isIdentStart(char c) { return isAlpha(c) || c == '_'; }
/// `[a-zA-Z0-9_$.]`: the rest of an MLIR bare-id (dots make dialect-qualified names one word).
inline bool isIdentChar(char c) { return isAlpha(c) || isDigit(c) || c == '_' || c == '$' || c == '.'; }
/// `[a-zA-Z0-9_$.-]`: characters of an MLIR suffix-id (`%arg0`, `%cst_4`) and of LLVM names.
inline bool isSuffixChar(char c) { return isIdentChar(c) || c == '-'; }

/// End of a run of `pred` characters starting at pos.
template <typename Pred> size_t scanWhile(std::string_view s, size_t pos, Pred pred) {
  while (pos < s.size() && pred(s[pos]))
    ++pos;
  return pos;
}

/// s[pos] is '"': the position after the closing quote, or s.size() when unterminated. With
/// `backslashEscapes`, `\"` does not close (MLIR); LLVM IR strings have only `\XX` hex escapes.
size_t scanString(std::string_view s, size_t pos, bool backslashEscapes);

/// A number at pos: `-`? then `0x` hex digits, or digits with optional `.digits` and exponent.
/// Returns pos when there is none.
size_t scanNumber(std::string_view s, size_t pos);

/// s[pos] is '<': the position after the matching '>' (nested `<>` counted, `->` and strings
/// skipped), or s.size() when unbalanced.
size_t scanAngleBody(std::string_view s, size_t pos);

/// First position >= pos that is not a space or tab (s.size() if none).
inline size_t skipSpaces(std::string_view s, size_t pos) {
  return scanWhile(s, pos, [](char c) { return c == ' ' || c == '\t'; });
}

/// True when `word` is `i<digits>` (LLVM and MLIR integer types), or `si`/`ui<digits>` when
/// `signedness` is set.
bool isIntegerType(std::string_view word, bool signedness);

inline void push(std::vector<Token> &out, size_t begin, size_t end, TokenKind kind) {
  out.push_back(Token{static_cast<uint32_t>(begin), static_cast<uint32_t>(end), kind});
}

void tokenizeMlirLine(std::string_view line, std::vector<Token> &out);
void tokenizeLlvmLine(std::string_view line, std::vector<Token> &out);
void tokenizeAsmLine(std::string_view line, std::vector<Token> &out);

} // namespace loupe::visualizer::text::lex

#endif // LOUPE_VISUALIZER_TEXT_LEXING_H
