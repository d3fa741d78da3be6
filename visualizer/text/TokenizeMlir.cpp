//===- TokenizeMlir.cpp - MLIR line tokenizer -------------------------------===//
//
// Follows the lexical structure of mlir/lib/AsmParser/Lexer.cpp (llvmorg-19.1.7): `%`/`^`/`#`/`!`
// /`@` prefixed identifiers, bare-ids with dots, string literals with backslash escapes,
// `//` comments. Op names are recognised by position: a dotted bare word (or a quoted one
// followed by `(`) that starts the line or follows `=`.
//
//===----------------------------------------------------------------------===//

#include "Lexing.h"

#include <algorithm>
#include <array>

namespace loupe::visualizer::text::lex {

// Sorted for binary search.
static constexpr std::array<std::string_view, 30> kMlirKeywords = {
    "affine_map", "affine_set", "array",     "at",        "attributes", "builtin.module",
    "callsite",   "dense",      "dense_resource", "do",   "else",       "false",
    "func.func",  "fused",      "init",      "ins",       "into",       "iter_args",
    "loc",        "module",     "nested",    "outs",      "private",    "public",
    "return",     "shared_outs", "step",     "to",        "true",       "unknown"};

static constexpr std::array<std::string_view, 5> kShapedTypes = {"complex", "memref", "tensor",
                                                                 "tuple", "vector"};
static constexpr std::array<std::string_view, 9> kScalarTypes = {
    "bf16", "f128", "f16", "f32", "f64", "f80", "index", "none", "tf32"};

template <size_t N>
static bool contains(const std::array<std::string_view, N> &sorted, std::string_view w) {
  return std::binary_search(sorted.begin(), sorted.end(), w);
}

/// `dialect.op`: a bare-id with at least one interior dot.
static bool isDottedName(std::string_view w) {
  if (w.empty() || !isIdentStart(w[0]))
    return false;
  size_t dot = w.find('.');
  if (dot == std::string_view::npos || dot + 1 >= w.size())
    return false;
  return std::all_of(w.begin(), w.end(), isIdentChar);
}

/// True when the previous token allows an op name here: none, or `=`.
static bool atOpPosition(std::string_view line, const std::vector<Token> &out, size_t first) {
  if (out.size() == first)
    return true;
  const Token &prev = out.back();
  return prev.kind == TokenKind::Punctuation && prev.end - prev.begin == 1 &&
         line[prev.begin] == '=';
}

void tokenizeMlirLine(std::string_view s, std::vector<Token> &out) {
  const size_t first = out.size();
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (c == ' ' || c == '\t') {
      ++i;
      continue;
    }
    size_t start = i;
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      push(out, start, s.size(), TokenKind::Comment);
      return;
    }
    if (c == '"') {
      size_t end = scanString(s, i, true);
      TokenKind kind = TokenKind::String;
      size_t next = skipSpaces(s, end);
      if (end - start > 2 && s[end - 1] == '"' && next < s.size() && s[next] == '(' &&
          isDottedName(s.substr(start + 1, end - start - 2)) && atOpPosition(s, out, first))
        kind = TokenKind::OpName;
      push(out, start, end, kind);
      i = end;
      continue;
    }
    if (c == '%' || c == '^') {
      size_t end = scanWhile(s, i + 1, isSuffixChar);
      if (end == i + 1) {
        push(out, start, end, TokenKind::Punctuation);
      } else {
        // `%res#2`: a use of one result of a multi-result op.
        if (c == '%' && end + 1 < s.size() && s[end] == '#' && isDigit(s[end + 1]))
          end = scanWhile(s, end + 1, isDigit);
        push(out, start, end, c == '%' ? TokenKind::SsaValue : TokenKind::BlockLabel);
      }
      i = end;
      continue;
    }
    if (c == '@') {
      size_t end = (i + 1 < s.size() && s[i + 1] == '"') ? scanString(s, i + 1, true)
                                                          : scanWhile(s, i + 1, isSuffixChar);
      push(out, start, end, end == i + 1 ? TokenKind::Punctuation : TokenKind::Symbol);
      i = end;
      continue;
    }
    if (c == '#' || c == '!') {
      size_t end = scanWhile(s, i + 1, isSuffixChar);
      push(out, start, end, end == i + 1 ? TokenKind::Punctuation : TokenKind::Alias);
      i = end;
      continue;
    }
    if (isDigit(c) || (c == '-' && i + 1 < s.size() && isDigit(s[i + 1]))) {
      size_t end = scanNumber(s, i);
      if (end < s.size() && isIdentStart(s[end])) { // `2x3` outside a type: one plain word
        end = scanWhile(s, end, isIdentChar);
        push(out, start, end, TokenKind::Identifier);
      } else {
        push(out, start, end, TokenKind::Number);
      }
      i = end;
      continue;
    }
    if (isIdentStart(c)) {
      size_t end = scanWhile(s, i, isIdentChar);
      std::string_view w = s.substr(start, end - start);
      TokenKind kind = TokenKind::Identifier;
      if (end < s.size() && s[end] == '<' && contains(kShapedTypes, w)) {
        end = scanAngleBody(s, end);
        kind = TokenKind::Type;
      } else if (contains(kScalarTypes, w) || isIntegerType(w, true) || w.rfind("f8E", 0) == 0) {
        kind = TokenKind::Type;
      } else if (contains(kMlirKeywords, w)) {
        kind = TokenKind::Keyword;
      } else if (isDottedName(w) && atOpPosition(s, out, first)) {
        kind = TokenKind::OpName;
      }
      push(out, start, end, kind);
      i = end;
      continue;
    }
    if (isHighBit(c)) { // UTF-8 sequence: keep it in one token
      size_t end = scanWhile(s, i, isHighBit);
      push(out, start, end, TokenKind::Identifier);
      i = end;
      continue;
    }
    size_t end = i + 1;
    if (c == '-' && end < s.size() && s[end] == '>')
      ++end;
    else if (c == ':' && end < s.size() && s[end] == ':')
      ++end;
    push(out, start, end, TokenKind::Punctuation);
    i = end;
  }
}

} // namespace loupe::visualizer::text::lex
