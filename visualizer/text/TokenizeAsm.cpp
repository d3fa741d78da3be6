//===- TokenizeAsm.cpp - Assembly line tokenizer (GNU as, AT&T or Intel) ----===//
//
// A statement is `[label:] [mnemonic|.directive] operands [# comment]`. AT&T registers are
// `%name`, immediates `$value`; Intel registers are bare names from a short x86-64 table.
//
//===----------------------------------------------------------------------===//

#include "Lexing.h"

#include <algorithm>
#include <array>

namespace loupe::visualizer::text::lex {

/// Symbol characters of GNU as: `[a-zA-Z0-9_.$@]`.
static bool isAsmNameChar(char c) { return isIdentChar(c) || c == '@'; }

static bool isX86Register(std::string_view w) {
  static constexpr std::array<std::string_view, 36> kNamed = {
      "ah",  "al",  "ax",  "bh",  "bl",  "bp",  "bpl", "bx",  "ch",  "cl",  "cs",  "cx",
      "dh",  "di",  "dil", "dl",  "ds",  "dx",  "eax", "ebp", "ebx", "ecx", "edi", "edx",
      "es",  "esi", "esp", "fs",  "gs",  "rip", "si",  "sil", "sp",  "spl", "ss",  "eip"};
  if (std::find(kNamed.begin(), kNamed.end(), w) != kNamed.end())
    return true;
  // rax..rsp, r8..r15 with b/w/d suffixes, xmm/ymm/zmm/k registers.
  static constexpr std::array<std::string_view, 8> k64 = {"rax", "rbx", "rcx", "rdx",
                                                         "rsi", "rdi", "rbp", "rsp"};
  if (std::find(k64.begin(), k64.end(), w) != k64.end())
    return true;
  auto digitsFrom = [&](size_t i) {
    size_t j = scanWhile(w, i, isDigit);
    return j > i ? j : std::string_view::npos;
  };
  if (w.size() >= 2 && w[0] == 'r') {
    size_t j = digitsFrom(1);
    if (j == w.size() || (j + 1 == w.size() && (w[j] == 'b' || w[j] == 'w' || w[j] == 'd')))
      return true;
  }
  for (std::string_view p : {"xmm", "ymm", "zmm"})
    if (w.size() > 3 && w.substr(0, 3) == p && digitsFrom(3) == w.size())
      return true;
  return false;
}

void tokenizeAsmLine(std::string_view s, std::vector<Token> &out) {
  bool sawMnemonic = false;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (c == ' ' || c == '\t') {
      ++i;
      continue;
    }
    size_t start = i;
    if (c == '#' || (c == '/' && i + 1 < s.size() && s[i + 1] == '/')) {
      push(out, start, s.size(), TokenKind::Comment);
      return;
    }
    if (c == '"') {
      size_t end = scanString(s, i, true);
      push(out, start, end, TokenKind::String);
      i = end;
      continue;
    }
    if (c == '%') {
      size_t end = scanWhile(s, i + 1, isAsmNameChar);
      push(out, start, end, end == i + 1 ? TokenKind::Punctuation : TokenKind::Register);
      i = end;
      continue;
    }
    if (c == '$') {
      size_t end = scanNumber(s, i + 1);
      TokenKind kind = TokenKind::Number;
      if (end == i + 1) {
        end = scanWhile(s, i + 1, isAsmNameChar);
        kind = end == i + 1 ? TokenKind::Punctuation : TokenKind::Symbol;
      }
      push(out, start, end, kind);
      i = end;
      continue;
    }
    if (isDigit(c) || (c == '-' && i + 1 < s.size() && isDigit(s[i + 1]))) {
      size_t end = scanNumber(s, i);
      // `1:` local label, `1b`/`1f` references.
      if (!sawMnemonic && out.empty() && end < s.size() && s[end] == ':') {
        push(out, start, end, TokenKind::BlockLabel);
      } else {
        if (end < s.size() && isAsmNameChar(s[end]))
          end = scanWhile(s, end, isAsmNameChar);
        push(out, start, end, TokenKind::Number);
      }
      i = end;
      continue;
    }
    if (isIdentStart(c) || c == '.' || c == '$' || isHighBit(c)) {
      size_t end = scanWhile(s, i, [](char ch) { return isAsmNameChar(ch) || isHighBit(ch); });
      std::string_view w = s.substr(start, end - start);
      TokenKind kind;
      if (!sawMnemonic && end < s.size() && s[end] == ':') {
        kind = TokenKind::BlockLabel;
      } else if (!sawMnemonic) {
        kind = c == '.' ? TokenKind::Keyword : TokenKind::OpName;
        sawMnemonic = true;
      } else if (isX86Register(w)) {
        kind = TokenKind::Register;
      } else if (w == "ptr" || w == "byte" || w == "word" || w == "dword" || w == "qword" ||
                 w == "xmmword" || w == "ymmword" || w == "zmmword" || w == "offset") {
        kind = TokenKind::Keyword;
      } else {
        kind = TokenKind::Symbol;
      }
      push(out, start, end, kind);
      i = end;
      continue;
    }
    push(out, start, i + 1, TokenKind::Punctuation);
    ++i;
  }
}

} // namespace loupe::visualizer::text::lex
