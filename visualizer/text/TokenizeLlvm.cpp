//===- TokenizeLlvm.cpp - LLVM IR line tokenizer ----------------------------===//
//
// After llvm/lib/AsmParser/LLLexer.cpp: `%`/`@` names (bare, numbered or quoted), `!` metadata,
// `#N` attribute groups, `c"..."` strings with `\XX` escapes only, `;` comments, labels `name:`
// at the start of a line. Instructions are OpName (as MLIR ops), the rest of the reserved
// words Keyword.
//
//===----------------------------------------------------------------------===//

#include "Lexing.h"

#include <algorithm>
#include <array>

namespace loupe::visualizer::text::lex {

// Sorted for binary search.
static constexpr std::array<std::string_view, 63> kInstructions = {
    "add", "addrspacecast", "alloca", "and", "ashr", "atomicrmw", "bitcast", "br", "call",
    "callbr", "catchpad", "catchswitch", "cleanuppad", "cmpxchg", "extractelement",
    "extractvalue", "fadd", "fcmp", "fdiv", "fence", "fmul", "fneg", "fpext", "fptosi", "fptoui",
    "fptrunc", "freeze", "frem", "fsub", "getelementptr", "icmp", "indirectbr", "insertelement",
    "insertvalue", "inttoptr", "invoke", "landingpad", "load", "lshr", "mul", "or", "phi",
    "ptrtoint", "resume", "ret", "sdiv", "select", "sext", "shl", "shufflevector", "sitofp",
    "srem", "store", "sub", "switch", "trunc", "udiv", "uitofp", "unreachable", "urem", "va_arg",
    "xor", "zext"};

static constexpr std::array<std::string_view, 12> kTypes = {
    "bfloat", "double",    "float", "fp128", "half", "label",
    "metadata", "ppc_fp128", "ptr", "token", "void", "x86_fp80"};

/// LLVM identifiers: `[-a-zA-Z$._0-9]`.
static bool isLlvmNameChar(char c) { return isSuffixChar(c); }

void tokenizeLlvmLine(std::string_view s, std::vector<Token> &out) {
  const size_t first = out.size();
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (c == ' ' || c == '\t') {
      ++i;
      continue;
    }
    size_t start = i;
    if (c == ';') {
      push(out, start, s.size(), TokenKind::Comment);
      return;
    }
    if (c == '"' || (c == 'c' && i + 1 < s.size() && s[i + 1] == '"')) {
      size_t end = scanString(s, c == 'c' ? i + 1 : i, false);
      push(out, start, end, TokenKind::String);
      i = end;
      continue;
    }
    if (c == '%' || c == '@' || c == '!' || c == '#') {
      size_t end = (i + 1 < s.size() && s[i + 1] == '"') ? scanString(s, i + 1, false)
                                                          : scanWhile(s, i + 1, isLlvmNameChar);
      if (c == '#')
        end = scanWhile(s, i + 1, isDigit);
      TokenKind kind = c == '%' ? TokenKind::SsaValue
                       : c == '@' ? TokenKind::Symbol
                                  : TokenKind::Alias;
      push(out, start, end, end == i + 1 ? TokenKind::Punctuation : kind);
      i = end;
      continue;
    }
    if (isIdentStart(c) || isDigit(c) || c == '.' || c == '$' || c == '-') {
      size_t end = scanWhile(s, i, isLlvmNameChar);
      // `entry:` / `19:` opening a basic block.
      if (out.size() == first && end < s.size() && s[end] == ':' && end > start) {
        push(out, start, end, TokenKind::BlockLabel);
        i = end;
        continue;
      }
      size_t numEnd = scanNumber(s, i);
      if (numEnd > i && (numEnd >= s.size() || !isLlvmNameChar(s[numEnd]))) {
        push(out, start, numEnd, TokenKind::Number);
        i = numEnd;
        continue;
      }
      if (end == start + 1 && !isIdentStart(c) && !isDigit(c)) { // a lone '-', '.' or '$'
        push(out, start, start + 1, TokenKind::Punctuation);
        i = start + 1;
        continue;
      }
      std::string_view w = s.substr(start, end - start);
      TokenKind kind = TokenKind::Keyword;
      if (isIntegerType(w, false) || std::binary_search(kTypes.begin(), kTypes.end(), w))
        kind = TokenKind::Type;
      else if (std::binary_search(kInstructions.begin(), kInstructions.end(), w))
        kind = TokenKind::OpName;
      else if (isDigit(c) || c == '-')
        kind = TokenKind::Identifier;
      push(out, start, end, kind);
      i = end;
      continue;
    }
    if (isHighBit(c)) {
      size_t end = scanWhile(s, i, isHighBit);
      push(out, start, end, TokenKind::Identifier);
      i = end;
      continue;
    }
    push(out, start, i + 1, TokenKind::Punctuation);
    ++i;
  }
}

} // namespace loupe::visualizer::text::lex
