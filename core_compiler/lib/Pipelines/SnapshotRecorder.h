//===- SnapshotRecorder.h - IR snapshot after every pass --------*- C++ -*-===//
//
// A PassInstrumentation that records, after every pass, its name and options, phase, anchor,
// wall time, the hash of the printed IR and, when the hash changed, the IR text. An
// OperationFingerPrint (identity hash of ops, attributes, types) detects unchanged IR without
// printing it; changed IR is printed once, into the kept text or straight into the hash.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_PIPELINES_SNAPSHOTRECORDER_H
#define LOUPE_PIPELINES_SNAPSHOTRECORDER_H

#include "LocHashes.h"
#include "loupe/Pipelines/CompileResult.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include "loupe/common/Fnv1a.h"

#include <chrono>
#include <map>
#include <optional>

namespace loupe::compiler {

using loupe::fnv1a;

/// The distinct resource blobs with bytes (the weights) that `root` and the ops in it refer to,
/// in walk order: what printing hides, the compile cache hashes and the GUI summarizes.
std::vector<mlir::DenseResourceElementsAttr> resourceBlobsOf(mlir::Operation *root);

/// An output stream that only hashes what is written to it.
class HashingStream : public llvm::raw_ostream {
public:
  HashingStream() { SetUnbuffered(); }
  uint64_t hash() const { return hash_; }

private:
  void write_impl(const char *ptr, size_t size) override {
    hash_ = fnv1a(ptr, size, hash_);
    pos_ += size;
  }
  uint64_t current_pos() const override { return pos_; }
  uint64_t hash_ = kFnv1aOffset;
  uint64_t pos_ = 0;
};

/// Collects snapshots into a vector shared by every phase of one compile.
class SnapshotRecorder {
public:
  SnapshotRecorder(std::vector<PassSnapshot> &out, bool keepIrText)
      : snapshots_(out), keepIrText_(keepIrText) {}

  /// The instrumentation to add to a phase's PassManager; it tags snapshots with `phase`.
  std::unique_ptr<mlir::PassInstrumentation> instrumentation(const std::string &phase);

  /// Records a step that is not an MLIR pass (import, LLVM translation, object emission).
  void recordStep(const std::string &phase, const std::string &pass, const std::string &anchor,
                  int64_t durationNs, IrKind kind, llvm::StringRef irText);
  /// Records the MLIR `op` (printed with locations) as the result of a non-pass step.
  void recordModule(const std::string &phase, const std::string &pass, mlir::Operation *op,
                    int64_t durationNs);

  /// True when changed snapshots keep their text (else only hashes).
  bool keepsIrText() const { return keepIrText_; }

  /// Prints `op` the way snapshots print it: custom form with `loc(...)`, re-parseable by
  /// loupe-opt; resource blobs (weights) print by name only, without their bytes.
  static void printIr(mlir::Operation *op, llvm::raw_ostream &os, bool generic = false);

private:
  friend class SnapshotInstrumentation;
  void recordPass(const std::string &phase, mlir::Pass *pass, mlir::Operation *op,
                  int64_t durationNs, bool failed);
  /// Sets snap.locHashes to what changed per source op since the last changed snapshot.
  void recordLocHashes(PassSnapshot &snap, mlir::Operation *root);

  std::vector<PassSnapshot> &snapshots_;
  bool keepIrText_;
  uint64_t lastHash_ = 0;
  std::optional<mlir::OperationFingerPrint> lastFingerPrint_;
  std::map<std::string, uint64_t> lastLocHashes_; ///< After the last changed MLIR snapshot.
  LocHasher locHasher_;
};

} // namespace loupe::compiler

#endif // LOUPE_PIPELINES_SNAPSHOTRECORDER_H
