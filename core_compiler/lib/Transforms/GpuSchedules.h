//===- GpuSchedules.h - Thread mappings of code-generated GPU kernels -*- C++ -*-===//
//
// The schedules ral-outline-gpu-kernels gives each code-generated linalg op. Each builds a
// `gpu.launch` with static grid and block sizes in front of the op; the caller erases the op.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_TRANSFORMS_GPUSCHEDULES_H
#define LOUPE_TRANSFORMS_GPUSCHEDULES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace loupe {

/// Threads of one warp on every NVIDIA GPU.
constexpr int64_t kWarpSize = 32;

/// `gpu.launch` with grid (grid, 1, 1), block (blockX, blockY, 1) and `workgroupMemory`
/// attributions, its body terminated and the insertion point at the body's start.
mlir::gpu::LaunchOp createLaunch(mlir::RewriterBase &b, mlir::Location loc, int64_t grid,
                                 int64_t blockX, int64_t blockY,
                                 mlir::TypeRange workgroupMemory = {});

/// A generic's reduction that the warp schedule can run: one output, every loop bound
/// static, loops ordered parallel-then-reduction, a 32-bit element type, and a body that
/// folds into the output with one commutative arith op that has a neutral element
/// (`%r = arith.addf %f, %out`: sums, max, min, products of f32 or i32).
struct RowReduction {
  mlir::linalg::GenericOp op;
  mlir::Operation *combiner = nullptr; ///< The arith op that folds into the output.
  mlir::TypedAttr neutral;             ///< Its neutral element (0, -inf, ...).
  int64_t rows = 1;                    ///< Product of the parallel loop extents.
  int64_t length = 1;                  ///< Product of the reduction loop extents.
};

/// The reduction `op` computes when the warp schedule applies, else nullopt.
std::optional<RowReduction> matchRowReduction(mlir::linalg::GenericOp op);

/// Row reduction schedule (after the CUDA reduction kernels of Harris, "Optimizing Parallel
/// Reduction in CUDA", and BladeDISC's kRowReduction schedules): rows of up to `warpRowMax`
/// elements get one warp each (4 rows per block); a longer row gets a block of
/// `threadsPerBlock` threads. Each thread folds a strided part of its row (consecutive
/// threads read consecutive elements; with one reduction loop whose inputs are contiguous or
/// uniform along it and a row length that is a multiple of 4, it reads them as 128-bit vectors
/// as the thread-per-vector4 schedule does, into 4 partials it then folds together), the
/// partials are combined with `gpu.shuffle xor` butterflies, a block combines its warps'
/// partials through workgroup memory, and one thread folds the total into the output's
/// initial value.
mlir::gpu::LaunchOp buildRowReductionLaunch(mlir::RewriterBase &rewriter,
                                            const RowReduction &reduction,
                                            int64_t threadsPerBlock, int64_t warpRowMax);

/// Elements per thread of the `thread-per-vector4` schedule: four 32-bit elements, one 128-bit
/// load or store.
constexpr int64_t kVectorWidth = 4;

/// Whether the `thread-per-vector4` schedule can run `op`: every loop parallel with a static
/// extent, the innermost one a multiple of kVectorWidth; every memref operand 32-bit and either
/// walked contiguously by the innermost loop (last index, unit stride, static offset and outer
/// strides multiples of kVectorWidth: 16-byte aligned vectors in a 16-byte aligned buffer) or
/// not indexed by it (read once, broadcast; inputs only); a body of elementwise-mappable ops
/// (arith, math) and constants, without linalg.index.
bool canVectorizeElementwise(mlir::linalg::GenericOp op);

/// Elementwise schedule with 128-bit accesses (the float4 idiom of hand-written CUDA kernels):
/// one thread per kVectorWidth consecutive innermost iterations, linearised like
/// buildParallelLaunch, the body computed on vector<4xT> values between `vector.load` and
/// `vector.store`. `memref.assume_alignment 16` on the contiguous operands lets the NVPTX back
/// end emit ld.global.v4/st.global.v4 (the runtime's device allocations are at least 256-byte
/// aligned). Requires canVectorizeElementwise(op); inserts before `op`, which the caller erases.
mlir::gpu::LaunchOp buildVectorElementwiseLaunch(mlir::RewriterBase &rewriter,
                                                 mlir::linalg::GenericOp op,
                                                 int64_t threadsPerBlock);

/// One thread per iteration of `loop`, linearised so that consecutive threads take
/// consecutive innermost indices (coalesced accesses), in blocks of `threadsPerBlock`; loops
/// nested in it (reductions) run inside the thread. Replaces `loop`. All bounds must be static
/// with zero lower bounds and unit steps; returns null (with a diagnostic on the loop)
/// otherwise.
mlir::gpu::LaunchOp buildParallelLaunch(mlir::RewriterBase &rewriter, mlir::scf::ParallelOp loop,
                                        int64_t threadsPerBlock);

} // namespace loupe

#endif // LOUPE_TRANSFORMS_GPUSCHEDULES_H
