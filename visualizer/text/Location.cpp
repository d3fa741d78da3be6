//===- Location.cpp - `loc(...)` parser and alias resolution ----------------===//

#include "loupe/visualizer/text/Location.h"

#include "Lexing.h"

#include <algorithm>

namespace loupe::visualizer::text {

using namespace lex;

namespace {

/// A cursor over a loc body; every method consumes nothing when it does not match.
struct Cursor {
  std::string_view s;
  size_t i = 0;

  bool done() const { return i >= s.size(); }
  char peek() const { return i < s.size() ? s[i] : '\0'; }
  void skipSpaces() { i = lex::skipSpaces(s, i); }
  bool eat(char c) {
    skipSpaces();
    if (peek() != c)
      return false;
    ++i;
    return true;
  }
  bool eatWord(std::string_view w) {
    skipSpaces();
    if (s.substr(i, w.size()) != w || (i + w.size() < s.size() && isIdentChar(s[i + w.size()])))
      return false;
    i += w.size();
    return true;
  }
  /// A decimal integer, or nullopt.
  std::optional<std::string_view> integer() {
    size_t end = scanWhile(s, i, isDigit);
    if (end == i)
      return std::nullopt;
    std::string_view v = s.substr(i, end - i);
    i = end;
    return v;
  }
  /// A string literal at the cursor, unescaped (`\\`, `\"`, `\n`, `\t`, `\XX`).
  std::string string() {
    size_t end = scanString(s, i, true);
    std::string out;
    for (size_t k = i + 1; k < end && !(k + 1 == end && s[k] == '"'); ++k) {
      char c = s[k];
      if (c == '\\' && k + 1 < end - 1) {
        char e = s[k + 1];
        if (e == 'n') {
          out += '\n';
        } else if (e == 't') {
          out += '\t';
        } else if (isHexDigit(e) && k + 2 < end && isHexDigit(s[k + 2])) {
          out += static_cast<char>(std::stoi(std::string(s.substr(k + 1, 2)), nullptr, 16));
          ++k;
        } else {
          out += e;
        }
        ++k;
        continue;
      }
      out += c;
    }
    i = end;
    return out;
  }
};

} // namespace

std::optional<std::string_view> findTrailingLoc(std::string_view line) {
  size_t last = line.find_last_not_of(" \t\r");
  if (last == std::string_view::npos || line[last] != ')')
    return std::nullopt;
  int tries = 0;
  for (size_t at = line.rfind("loc(", last); at != std::string_view::npos;
       at = at == 0 ? std::string_view::npos : line.rfind("loc(", at - 1)) {
    if (at > 0 && isIdentChar(line[at - 1]))
      continue;
    int depth = 0;
    size_t k = at + 3;
    for (; k <= last; ++k) {
      char c = line[k];
      if (c == '"')
        k = scanString(line, k, true) - 1;
      else if (c == '(')
        ++depth;
      else if (c == ')' && --depth == 0)
        break;
    }
    if (k == last && depth == 0)
      return line.substr(at + 4, last - at - 4);
    if (++tries == 8) // an earlier loc( could enclose this one; a few tries are enough
      break;
  }
  return std::nullopt;
}

std::optional<LocAliasDefinition> parseLocAliasDefinition(std::string_view line) {
  if (line.empty() || line[0] != '#')
    return std::nullopt;
  size_t nameEnd = scanWhile(line, 1, isSuffixChar);
  if (nameEnd == 1)
    return std::nullopt;
  size_t eq = skipSpaces(line, nameEnd);
  if (eq >= line.size() || line[eq] != '=')
    return std::nullopt;
  size_t value = skipSpaces(line, eq + 1);
  if (line.substr(value, 4) != "loc(")
    return std::nullopt;
  std::optional<std::string_view> body = findTrailingLoc(line.substr(value));
  if (!body)
    return std::nullopt;
  return LocAliasDefinition{line.substr(0, nameEnd), *body};
}

void LocationTable::add(const LocAliasDefinition &definition, size_t line) {
  Alias &a = aliases_[std::string(definition.alias)];
  a.body = std::string(definition.body);
  a.line = line;
  a.names.clear();
  a.resolved = false;
}

void LocationTable::finalize() {
  for (auto &[name, alias] : aliases_) {
    if (alias.resolved)
      continue;
    std::vector<std::string> names;
    parse(alias.body, names, 0);
    alias.names = std::move(names);
    alias.resolved = true;
  }
}

void LocationTable::parse(std::string_view body, std::vector<std::string> &out, int depth) const {
  Cursor c{body};
  // One location, recursively; returns false when nothing could be consumed.
  auto one = [&](auto &self, std::vector<std::string> &into, int level) -> bool {
    c.skipSpaces();
    if (level > 32 || c.done())
      return false;
    size_t before = c.i;
    if (c.peek() == '#') {
      size_t end = scanWhile(c.s, c.i + 1, isSuffixChar);
      std::string name(c.s.substr(c.i, end - c.i));
      c.i = end;
      auto it = aliases_.find(name);
      if (it != aliases_.end()) {
        if (it->second.resolved)
          into.insert(into.end(), it->second.names.begin(), it->second.names.end());
        else
          parse(it->second.body, into, level + 1);
      }
    } else if (c.peek() == '"') {
      std::string name = c.string();
      size_t save = c.i;
      std::optional<std::string_view> line, col;
      if (c.eat(':') && (line = c.integer()) && c.eat(':') && (col = c.integer())) {
        into.push_back(name + ":" + std::string(*line) + ":" + std::string(*col));
        // MLIR 20 ranges `"f":1:2 to :3` or `to 4:5`: skip the end position.
        size_t afterCol = c.i;
        if (c.eatWord("to")) {
          c.eat(':');
          if (c.integer() && c.eat(':'))
            c.integer();
        } else {
          c.i = afterCol;
        }
      } else {
        c.i = save;
        into.push_back(std::move(name));
        if (c.eat('(')) { // NameLoc child: not reported
          std::vector<std::string> child;
          self(self, child, level + 1);
          c.eat(')');
        }
      }
    } else if (c.eatWord("loc")) {
      if (c.eat('(')) {
        self(self, into, level + 1);
        c.eat(')');
      }
    } else if (c.eatWord("fused")) {
      c.skipSpaces();
      if (c.peek() == '<')
        c.i = scanAngleBody(c.s, c.i);
      if (c.eat('[')) {
        do {
          if (!self(self, into, level + 1))
            break;
        } while (c.eat(','));
        c.eat(']');
      }
    } else if (c.eatWord("callsite")) {
      if (c.eat('(')) {
        self(self, into, level + 1);
        std::vector<std::string> caller;
        if (c.eatWord("at"))
          self(self, caller, level + 1);
        c.eat(')');
      }
    } else if (c.eatWord("unknown")) {
    }
    return c.i > before;
  };
  if (depth <= 32)
    one(one, out, depth);
}

void LocationTable::resolveInto(std::string_view body, std::vector<std::string> &out) const {
  parse(body, out, 0);
}

std::vector<std::string> LocationTable::resolve(std::string_view body) const {
  std::vector<std::string> names;
  parse(body, names, 0);
  std::vector<std::string> unique;
  for (std::string &n : names)
    if (std::find(unique.begin(), unique.end(), n) == unique.end())
      unique.push_back(std::move(n));
  return unique;
}

std::optional<size_t> LocationTable::definitionLine(std::string_view alias) const {
  auto it = aliases_.find(std::string(alias));
  if (it == aliases_.end())
    return std::nullopt;
  return it->second.line;
}

} // namespace loupe::visualizer::text
