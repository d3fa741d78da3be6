//===- DocumentCache.cpp - IR documents of the compile's snapshots -----------===//
#include "loupe/visualizer/DocumentCache.h"

namespace loupe::visualizer {

text::Language languageOf(compiler::IrKind kind) {
  switch (kind) {
  case compiler::IrKind::Mlir:
    return text::Language::Mlir;
  case compiler::IrKind::LlvmIr:
    return text::Language::LlvmIr;
  case compiler::IrKind::Assembly:
    return text::Language::Assembly;
  case compiler::IrKind::Text:
    return text::Language::PlainText;
  }
  return text::Language::PlainText;
}

DocumentCache::DocumentCache(size_t capacity) : capacity_(capacity) {}

DocumentCache::~DocumentCache() = default;

DocumentCache::Entry *DocumentCache::find(const CompileView *compile, int holder) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it)
    if (it->compile == compile && it->holder == holder) {
      entries_.splice(entries_.begin(), entries_, it);
      return &entries_.front();
    }
  return nullptr;
}

std::shared_ptr<const text::IrDocument>
DocumentCache::get(const std::shared_ptr<const CompileView> &compile, int pass, bool *pending) {
  if (pending)
    *pending = false;
  if (!compile)
    return nullptr;
  int holder = pass == kSourcePass ? kSourcePass
               : (pass >= 0 && pass < compile->passCount()) ? compile->irSource[pass]
                                                            : kNoPass;
  if (holder == kNoPass || (holder == kSourcePass && !compile->hasSource()))
    return nullptr;
  if (Entry *e = find(compile.get(), holder)) {
    if (!e->document && pending)
      *pending = true;
    return e->document;
  }
  const std::string &textRef = compile->irAfter(holder);
  text::Language language =
      holder == kSourcePass ? text::Language::Mlir : languageOf(compile->irKindAfter(holder));
  Entry entry;
  entry.compile = compile.get();
  entry.holder = holder;
  entry.keepAlive = compile;
  if (textRef.size() < kSyncBytes) {
    entry.document = std::make_shared<const text::IrDocument>(textRef, language);
  } else {
    if (pending)
      *pending = true;
    std::shared_ptr<const CompileView> keep = compile;
    const CompileView *key = compile.get();
    worker_.post("index", [this, keep, key, holder, language](JobContext &ctx) {
      auto doc = std::make_shared<const text::IrDocument>(keep->irAfter(holder), language);
      ctx.deliver([this, key, holder, doc] {
        for (Entry &e : entries_)
          if (e.compile == key && e.holder == holder)
            e.document = doc;
      });
    });
  }
  entries_.push_front(std::move(entry));
  while (entries_.size() > capacity_) {
    // Never evict an entry still being built: its job writes into it by key.
    auto victim = std::prev(entries_.end());
    if (!victim->document)
      break;
    entries_.erase(victim);
  }
  return entries_.front().document;
}

void DocumentCache::beginFrame() { worker_.drain(); }

} // namespace loupe::visualizer
