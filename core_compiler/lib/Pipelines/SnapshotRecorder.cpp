//===- SnapshotRecorder.cpp - IR snapshot after every pass ------------------===//
#include "SnapshotRecorder.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace loupe::compiler;

std::vector<DenseResourceElementsAttr> loupe::compiler::resourceBlobsOf(Operation *root) {
  std::vector<DenseResourceElementsAttr> blobs;
  llvm::SmallPtrSet<DialectResourceBlobManager::BlobEntry *, 16> seen;
  root->walk([&](Operation *op) {
    op->getAttrDictionary().walk([&](DenseResourceElementsAttr attr) {
      DialectResourceBlobManager::BlobEntry *entry = attr.getRawHandle().getResource();
      if (entry && entry->getBlob() && !entry->getBlob()->getData().empty() &&
          seen.insert(entry).second)
        blobs.push_back(attr);
    });
  });
  return blobs;
}

namespace {
/// Weights are resource blobs whose bytes printed IR never shows (the compile cache hashes them
/// apart). MLIR 19 still turns every referenced blob into hex before `elideLargeResourceString`
/// drops it: for a real model, hundreds of MB of text at every print. While the IR prints, each
/// blob it references is swapped for an empty one, and restored afterwards.
class HiddenResourceBlobs {
public:
  explicit HiddenResourceBlobs(Operation *root) {
    for (DenseResourceElementsAttr attr : resourceBlobsOf(root)) {
      DialectResourceBlobManager::BlobEntry *entry = attr.getRawHandle().getResource();
      hidden_.emplace_back(entry, std::move(*entry->getBlob()));
      entry->setBlob(AsmResourceBlob());
    }
  }
  bool empty() const { return hidden_.empty(); }
  ~HiddenResourceBlobs() {
    for (auto &[entry, blob] : hidden_)
      entry->setBlob(std::move(blob));
  }

private:
  std::vector<std::pair<DialectResourceBlobManager::BlobEntry *, AsmResourceBlob>> hidden_;
};
} // namespace

void SnapshotRecorder::printIr(Operation *op, llvm::raw_ostream &os, bool generic) {
  OpPrintingFlags flags;
  flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  // An empty blob prints as its alignment alone ("0x04000000"): elided too.
  flags.elideLargeResourceString(/*largeResourceLimit=*/8);
  HiddenResourceBlobs hidden(op);
  if (generic) // A failed pass may leave IR that the custom printers cannot handle.
    flags.printGenericOpForm();
  else // The pass manager verified it after the pass; don't verify again to print it.
    flags.assumeVerified();
  if (hidden.empty()) {
    op->print(os, flags);
    return;
  }
  // The hidden blobs leave an empty resource section behind: drop it.
  std::string text;
  llvm::raw_string_ostream buffer(text);
  op->print(buffer, flags);
  llvm::StringRef printed(text);
  printed.consume_back("\n{-#\n\n#-}\n");
  os << printed;
}

static Operation *topLevel(Operation *op) {
  while (Operation *parent = op->getParentOp())
    op = parent;
  return op;
}

static std::string describeAnchor(Operation *op) {
  std::string anchor = op->getName().getStringRef().str();
  if (auto name = op->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
    anchor += " @" + name.str();
  return anchor;
}

namespace loupe::compiler {
/// Times each pass and hands it to the recorder. Multithreading is disabled on the context
/// (Compiler.cpp), so passes nested under functions are recorded in a deterministic order.
class SnapshotInstrumentation : public PassInstrumentation {
public:
  SnapshotInstrumentation(SnapshotRecorder &recorder, std::string phase)
      : recorder_(recorder), phase_(std::move(phase)) {}

  void runBeforePass(Pass *pass, Operation *op) override {
    starts_[{pass, op}] = std::chrono::steady_clock::now();
  }
  void runAfterPass(Pass *pass, Operation *op) override { finish(pass, op, /*failed=*/false); }
  void runAfterPassFailed(Pass *pass, Operation *op) override { finish(pass, op, /*failed=*/true); }

private:
  void finish(Pass *pass, Operation *op, bool failed) {
    // Adaptors only wrap nested pipelines, whose passes are recorded one by one; the adaptor
    // class is private to MLIR, so recognise it by name.
    if (pass->getArgument().empty() && pass->getName().contains("OpToOpPassAdaptor"))
      return;
    auto it = starts_.find({pass, op});
    auto end = std::chrono::steady_clock::now();
    int64_t ns = it == starts_.end()
                     ? 0
                     : std::chrono::duration_cast<std::chrono::nanoseconds>(end - it->second).count();
    if (it != starts_.end())
      starts_.erase(it);
    recorder_.recordPass(phase_, pass, op, ns, failed);
  }

  SnapshotRecorder &recorder_;
  std::string phase_;
  llvm::DenseMap<std::pair<Pass *, Operation *>, std::chrono::steady_clock::time_point> starts_;
};
} // namespace loupe::compiler

std::unique_ptr<PassInstrumentation> SnapshotRecorder::instrumentation(const std::string &phase) {
  return std::make_unique<SnapshotInstrumentation>(*this, phase);
}

void SnapshotRecorder::recordPass(const std::string &phase, Pass *pass, Operation *op,
                                  int64_t durationNs, bool failed) {
  PassSnapshot snap;
  snap.index = static_cast<int>(snapshots_.size());
  snap.pass = pass->getArgument().str();
  if (snap.pass.empty())
    snap.pass = pass->getName().str();
  {
    llvm::raw_string_ostream os(snap.options);
    pass->printAsTextualPipeline(os);
  }
  snap.phase = phase;
  snap.anchor = describeAnchor(op);
  snap.durationNs = durationNs;
  snap.irKind = IrKind::Mlir;

  Operation *root = topLevel(op);
  snap.failed = failed;
  // The fingerprint hashes ops, attributes and types by identity: cheap, and it tells
  // unchanged IR apart without printing it. Only IR that moved is printed and hashed.
  OperationFingerPrint fingerPrint(root);
  if (!snapshots_.empty() && lastFingerPrint_ && fingerPrint == *lastFingerPrint_) {
    snap.irHash = lastHash_;
  } else if (keepIrText_) {
    llvm::raw_string_ostream os(snap.ir);
    printIr(root, os, failed);
    snap.irHash = fnv1a(snap.ir);
  } else {
    HashingStream hasher;
    printIr(root, hasher, failed);
    snap.irHash = hasher.hash();
  }
  lastFingerPrint_.emplace(fingerPrint);
  snap.changed = snapshots_.empty() || snap.irHash != lastHash_;
  lastHash_ = snap.irHash;
  if (!snap.changed)
    snap.ir.clear(); // Re-printed identically (e.g. ops rebuilt as they were).
  else if (!failed)
    recordLocHashes(snap, root);
  snapshots_.push_back(std::move(snap));
}

void SnapshotRecorder::recordLocHashes(PassSnapshot &snap, Operation *root) {
  std::map<std::string, uint64_t> now = locHasher_.hashOpsBySourceOp(root);
  for (const auto &[name, hash] : now)
    if (auto it = lastLocHashes_.find(name); it == lastLocHashes_.end() || it->second != hash)
      snap.locHashes.push_back({name, hash});
  for (const auto &[name, hash] : lastLocHashes_)
    if (!now.count(name))
      snap.locHashes.push_back({name, 0});
  lastLocHashes_ = std::move(now);
}

void SnapshotRecorder::recordStep(const std::string &phase, const std::string &pass,
                                  const std::string &anchor, int64_t durationNs, IrKind kind,
                                  llvm::StringRef irText) {
  PassSnapshot snap;
  snap.index = static_cast<int>(snapshots_.size());
  snap.pass = pass;
  snap.options = pass;
  snap.phase = phase;
  snap.anchor = anchor;
  snap.durationNs = durationNs;
  snap.irKind = kind;
  snap.irHash = fnv1a(irText);
  lastFingerPrint_.reset();
  snap.changed = snapshots_.empty() || snap.irHash != lastHash_;
  lastHash_ = snap.irHash;
  if (snap.changed && keepIrText_)
    snap.ir = irText.str();
  snapshots_.push_back(std::move(snap));
}

void SnapshotRecorder::recordModule(const std::string &phase, const std::string &pass,
                                    Operation *op, int64_t durationNs) {
  std::string text;
  llvm::raw_string_ostream os(text);
  printIr(op, os);
  recordStep(phase, pass, describeAnchor(op), durationNs, IrKind::Mlir, text);
  if (snapshots_.back().changed)
    recordLocHashes(snapshots_.back(), op);
}
