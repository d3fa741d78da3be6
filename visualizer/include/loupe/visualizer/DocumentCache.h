//===- DocumentCache.h - IR documents and diffs of the compile's snapshots -*- C++ -*-===//
//
// The IR and Diff panels read snapshots as text::IrDocument (line index, folds, tokens, loc
// table). Building one is O(text size): small texts (< kSyncBytes) are indexed at once on the UI
// thread, larger ones on a worker thread while the panel keeps showing what it had (a frame
// never waits). Documents are keyed by the snapshot that holds the text (unchanged passes share
// their predecessor's document) and evicted least recently used.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_DOCUMENTCACHE_H
#define LOUPE_VISUALIZER_DOCUMENTCACHE_H

#include "loupe/visualizer/ViewModel.h"
#include "loupe/visualizer/Worker.h"
#include "loupe/visualizer/text/IrDocument.h"

#include <list>
#include <memory>
#include <string>

namespace loupe::visualizer {

/// The text engine's language for a snapshot's IR kind.
text::Language languageOf(compiler::IrKind kind);

class DocumentCache {
public:
  /// Texts smaller than this are indexed synchronously (a few ms at most).
  static constexpr size_t kSyncBytes = 4u << 20;

  explicit DocumentCache(size_t capacity = 12);
  ~DocumentCache();

  /// The document of the IR after pass `pass` of `compile` (kSourcePass: the model source), or
  /// nullptr while it is being built (then `*pending` is set) or when there is no text.
  std::shared_ptr<const text::IrDocument> get(const std::shared_ptr<const CompileView> &compile,
                                              int pass, bool *pending = nullptr);
  /// Applies finished builds; call at the start of a frame.
  void beginFrame();
  bool busy() const { return worker_.busy(); }
  /// Tests: waits for pending builds.
  bool waitIdle(double timeoutSeconds) { return worker_.waitIdle(timeoutSeconds); }
  void setWake(std::function<void()> wake) { worker_.setWake(std::move(wake)); }
  /// The worker, shared by the Diff panel for its diffs.
  Worker &worker() { return worker_; }

private:
  struct Entry {
    const CompileView *compile = nullptr;
    int holder = kNoPass;
    std::shared_ptr<const CompileView> keepAlive;
    std::shared_ptr<const text::IrDocument> document; ///< null while building
  };
  Entry *find(const CompileView *compile, int holder);

  size_t capacity_;
  std::list<Entry> entries_; // most recently used first
  Worker worker_{"loupe-text"};
};

} // namespace loupe::visualizer

#endif // LOUPE_VISUALIZER_DOCUMENTCACHE_H
