//===- Tokenizer.cpp - Language dispatch and the shared scanners -----------===//

#include "Lexing.h"

namespace loupe::visualizer::text {

namespace lex {

size_t scanString(std::string_view s, size_t pos, bool backslashEscapes) {
  for (size_t i = pos + 1; i < s.size(); ++i) {
    if (backslashEscapes && s[i] == '\\') {
      ++i;
      continue;
    }
    if (s[i] == '"')
      return i + 1;
  }
  return s.size();
}

size_t scanNumber(std::string_view s, size_t pos) {
  size_t i = pos;
  if (i < s.size() && (s[i] == '-' || s[i] == '+'))
    ++i;
  if (i >= s.size() || !isDigit(s[i]))
    return pos;
  if (s[i] == '0' && i + 1 < s.size() && (s[i + 1] == 'x' || s[i + 1] == 'X') && i + 2 < s.size() &&
      isHexDigit(s[i + 2]))
    return scanWhile(s, i + 2, isHexDigit);
  i = scanWhile(s, i, isDigit);
  if (i + 1 < s.size() && s[i] == '.' && isDigit(s[i + 1]))
    i = scanWhile(s, i + 1, isDigit);
  else if (i < s.size() && s[i] == '.' && (i + 1 == s.size() || !isIdentChar(s[i + 1])))
    ++i; // "1." is a float in LLVM IR
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-'))
      ++j;
    if (j < s.size() && isDigit(s[j]))
      i = scanWhile(s, j, isDigit);
  }
  return i;
}

size_t scanAngleBody(std::string_view s, size_t pos) {
  int depth = 0;
  for (size_t i = pos; i < s.size(); ++i) {
    char c = s[i];
    if (c == '"') {
      i = scanString(s, i, true) - 1;
    } else if (c == '-' && i + 1 < s.size() && s[i + 1] == '>') {
      ++i;
    } else if (c == '<') {
      ++depth;
    } else if (c == '>') {
      if (--depth == 0)
        return i + 1;
    }
  }
  return s.size();
}

bool isIntegerType(std::string_view w, bool signedness) {
  size_t i = 0;
  if (signedness && w.size() > 2 && (w[0] == 's' || w[0] == 'u') && w[1] == 'i')
    i = 2;
  else if (!w.empty() && w[0] == 'i')
    i = 1;
  else
    return false;
  if (i >= w.size())
    return false;
  for (; i < w.size(); ++i)
    if (!isDigit(w[i]))
      return false;
  return true;
}

} // namespace lex

const char *tokenKindName(TokenKind kind) {
  switch (kind) {
  case TokenKind::Identifier: return "identifier";
  case TokenKind::Keyword: return "keyword";
  case TokenKind::OpName: return "op-name";
  case TokenKind::SsaValue: return "ssa-value";
  case TokenKind::BlockLabel: return "block-label";
  case TokenKind::Symbol: return "symbol";
  case TokenKind::Alias: return "alias";
  case TokenKind::Type: return "type";
  case TokenKind::Number: return "number";
  case TokenKind::String: return "string";
  case TokenKind::Comment: return "comment";
  case TokenKind::Punctuation: return "punctuation";
  case TokenKind::Register: return "register";
  }
  return "?";
}

void tokenizeLine(Language language, std::string_view line, std::vector<Token> &out) {
  switch (language) {
  case Language::Mlir: return lex::tokenizeMlirLine(line, out);
  case Language::LlvmIr: return lex::tokenizeLlvmLine(line, out);
  case Language::Assembly: return lex::tokenizeAsmLine(line, out);
  case Language::PlainText:
    if (!line.empty())
      lex::push(out, 0, line.size(), TokenKind::Identifier);
    return;
  }
}

std::vector<Token> tokenizeLine(Language language, std::string_view line) {
  std::vector<Token> out;
  tokenizeLine(language, line, out);
  return out;
}

static bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

Language detectLanguage(std::string_view path, std::string_view text) {
  if (endsWith(path, ".mlir"))
    return Language::Mlir;
  if (endsWith(path, ".ll"))
    return Language::LlvmIr;
  if (endsWith(path, ".s") || endsWith(path, ".S") || endsWith(path, ".asm"))
    return Language::Assembly;
  std::string_view head = text.substr(0, 4096);
  auto has = [&](std::string_view needle) { return head.find(needle) != std::string_view::npos; };
  if (has("\ndefine ") || has("\ndeclare ") || has("; ModuleID") || head.rfind("define ", 0) == 0)
    return Language::LlvmIr;
  if (has("func.func") || has("module {") || has("module attributes") || has(" = \"") ||
      has("#loc") || has("llvm.func"))
    return Language::Mlir;
  if (has("\t.text") || has("\t.section") || has("\t.globl") || has("\t.file"))
    return Language::Assembly;
  return Language::PlainText;
}

} // namespace loupe::visualizer::text
