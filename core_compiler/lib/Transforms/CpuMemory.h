//===- CpuMemory.h - Sizes behind the CPU kernels' memory decisions --*- C++ -*-===//
//
// Shared by the passes that decide where a CPU kernel keeps its data: loupe-fuse-clusters
// (kStitch scratch rows), ral-outline-cpu-kernels (stack scratch), loupe-vectorize-cpu
// (prefetches) and ral-stream-output-stores (non-temporal stores).
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_TRANSFORMS_CPUMEMORY_H
#define LOUPE_TRANSFORMS_CPUMEMORY_H

#include "mlir/IR/BuiltinTypes.h"

#include <cstdint>
#include <optional>

namespace loupe {

/// Largest scratch buffer of a kernel iteration kept on the stack, in bytes (a row of 16384
/// f32): a kStitch row's intermediate and reduction results.
constexpr int64_t kMaxScratchBytes = 64 * 1024;

/// Bytes of a cache line on the x86 cores the artifacts run on: one prefetch each.
constexpr int64_t kCacheLineBytes = 64;

/// How far ahead a streaming loop prefetches its loads, and the smallest buffer it does
/// that for (docs/pipeline.md, "loupe-vectorize-cpu"): 2 to 16 KiB ahead measured alike
/// on workload b. 1 MiB: an add of two such inputs gained 25%, b's formula lost up to 3%;
/// smaller buffers stay in the 2 MiB L2 and were not measured to gain.
constexpr int64_t kPrefetchDistanceBytes = 4096;
constexpr int64_t kMinPrefetchedStreamBytes = 1 << 20;

/// Smallest output of the entry that its kernel stores non-temporally, in bytes. Streaming
/// stores skip the read for ownership but leave nothing in the caches; below this size the
/// shared L3 still held the output between executions and ordinary stores won. Measured on
/// the 2-core VM (docs/pipeline.md, "ral-stream-output-stores"): softmax and LayerNorm with
/// 32 MiB outputs 10-30% slower with streaming stores, with 64 and 128 MiB outputs 20-30%
/// faster.
constexpr int64_t kMinStreamedOutputBytes = 64 << 20;

/// The bytes of a statically shaped tensor or memref of ints or floats, else nullopt.
inline std::optional<int64_t> staticBytes(mlir::Type type) {
  auto shaped = llvm::dyn_cast<mlir::ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape() || !shaped.getElementType().isIntOrFloat())
    return std::nullopt;
  return shaped.getNumElements() * int64_t((shaped.getElementTypeBitWidth() + 7) / 8);
}

} // namespace loupe

#endif // LOUPE_TRANSFORMS_CPUMEMORY_H
