//===- IrDocument.cpp - Line index, caches and locations of an IR text ------===//

#include "loupe/visualizer/text/IrDocument.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <unordered_map>

namespace loupe::visualizer::text {

struct IrDocument::Caches {
  std::mutex tokenMutex;
  std::unordered_map<size_t, std::vector<Token>> tokens; // node-based: references stay valid
  std::once_flag locationIndexOnce;
  std::unordered_map<std::string, std::vector<size_t>> linesByLocation;
};

IrDocument::IrDocument(std::string text, Language language)
    : text_(std::move(text)), language_(language), lines_(text_),
      folds_(computeFoldRegions(text_, language_)), caches_(std::make_unique<Caches>()) {
  if (language_ == Language::Mlir) {
    for (size_t i = 0; i < lines_.lineCount(); ++i) {
      std::string_view l = line(i);
      if (l.size() > 4 && l[0] == '#')
        if (auto def = parseLocAliasDefinition(l))
          locations_.add(*def, i);
    }
    locations_.finalize();
  }
}

IrDocument::~IrDocument() = default;

std::shared_ptr<const IrDocument> IrDocument::fromText(std::string text, std::string_view path) {
  Language language = detectLanguage(path, text);
  return std::make_shared<const IrDocument>(std::move(text), language);
}

std::shared_ptr<const IrDocument> IrDocument::load(const std::string &path, std::string *error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (error)
      *error = path + ": " + std::strerror(errno);
    return nullptr;
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) {
    if (error)
      *error = path + ": read error";
    return nullptr;
  }
  return fromText(std::move(buffer).str(), path);
}

const std::vector<Token> &IrDocument::tokens(size_t i) const {
  std::lock_guard<std::mutex> lock(caches_->tokenMutex);
  auto [it, inserted] = caches_->tokens.try_emplace(i);
  if (inserted && i < lineCount())
    tokenizeLine(language_, line(i), it->second);
  return it->second;
}

std::vector<std::string> IrDocument::locationOfLine(size_t i) const {
  if (i >= lineCount())
    return {};
  std::string_view l = line(i);
  if (auto body = findTrailingLoc(l))
    return locations_.resolve(*body);
  size_t last = l.find_last_not_of(" \t");
  if (last == std::string_view::npos || l[last] != '{')
    return {};
  auto it = std::lower_bound(folds_.begin(), folds_.end(), i,
                             [](const FoldRegion &r, size_t line) { return r.startLine < line; });
  if (it == folds_.end() || it->startLine != i)
    return {};
  if (auto body = findTrailingLoc(line(it->endLine)))
    return locations_.resolve(*body);
  return {};
}

static bool opensWithCloseBrace(std::string_view l) {
  size_t first = l.find_first_not_of(" \t");
  return first != std::string_view::npos && l[first] == '}';
}

std::vector<size_t> IrDocument::linesWithLocation(std::string_view name) const {
  std::call_once(caches_->locationIndexOnce, [this] {
    auto &index = caches_->linesByLocation;
    // Most lines repeat a few bodies (`#loc3`): resolve each distinct body once, to the
    // index entries its lines go to.
    std::unordered_map<std::string_view, std::vector<std::vector<size_t> *>> targets;
    auto entriesFor = [&](const std::vector<std::string> &names) {
      std::vector<std::vector<size_t> *> out;
      for (const std::string &n : names)
        out.push_back(&index[n]); // unordered_map values have stable addresses
      return out;
    };
    for (size_t i = 0; i < lineCount(); ++i) {
      std::string_view l = line(i);
      if (l.empty() || (l[0] == '#' && parseLocAliasDefinition(l)) || opensWithCloseBrace(l))
        continue;
      if (auto body = findTrailingLoc(l)) {
        auto [it, inserted] = targets.try_emplace(*body);
        if (inserted)
          it->second = entriesFor(locations_.resolve(*body));
        for (std::vector<size_t> *entry : it->second)
          entry->push_back(i);
      } else if (l.back() == '{' || l.find_last_not_of(" \t") != l.size() - 1) {
        for (std::vector<size_t> *entry : entriesFor(locationOfLine(i)))
          entry->push_back(i);
      }
    }
  });
  auto it = caches_->linesByLocation.find(std::string(name));
  return it == caches_->linesByLocation.end() ? std::vector<size_t>{} : it->second;
}

std::vector<std::string> IrDocument::locationNames() const {
  prepareLocationIndex();
  std::vector<std::string> names;
  names.reserve(caches_->linesByLocation.size());
  for (const auto &entry : caches_->linesByLocation)
    names.push_back(entry.first);
  std::sort(names.begin(), names.end());
  return names;
}

} // namespace loupe::visualizer::text
