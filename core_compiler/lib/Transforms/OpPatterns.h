//===- OpPatterns.h - How ops fuse and which backend runs them --------*- C++ -*-===//
//
// The op classifications the cluster phase and the dispatch table share: TVM/RAF op
// patterns, DISC fusion kinds, the registry's name of a library-capable op, and the
// backend preferences passes take as options.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_TRANSFORMS_OPPATTERNS_H
#define LOUPE_TRANSFORMS_OPPATTERNS_H

#include "loupe/Backends/BackendRegistry.h"
#include "loupe/Transforms/Passes.h"

namespace loupe {

/// TVM's op pattern kinds (RAF FuseOps), from most to least fusable.
enum class OpPattern { kElemWise, kBroadcast, kInjective, kReduce, kOutElemwiseFusable, kOpaque };
const char *opPatternName(OpPattern pattern);

/// elemwise: an all-parallel linalg op whose maps are all identities; broadcast: inputs read
/// through projected permutations that drop dims; injective: other parallel ops, reshapes,
/// tensor.pad; reduce: linalg ops with reduction loops (pooling included);
/// out_elemwise_fusable: matmul, batch_matmul, convolutions; opaque: everything else.
OpPattern classifyOp(mlir::Operation *op);

/// The backend registry's name of a library-capable op ("matmul", "batch_matmul", "conv2d",
/// "depthwise_conv2d", "quantized_batch_matmul", "quantized_conv2d"), or "".
std::string libraryOpKind(mlir::Operation *op);

/// The fuse pattern a backend may register for a library op of `kind` (libraryOpKind):
/// "matmul_bias_act" for matmul and batch_matmul, "conv_bias_act" for conv2d and
/// depthwise_conv2d; "" otherwise.
std::string fusePatternName(llvm::StringRef kind);

/// True when `result` is ReLU(`x`) computed by scalar ops: `max(x, 0)`, or a clamp of `x` to
/// [0, hi] with hi the largest f32 or +inf (TOSA's clamp: min then max, or max then min).
bool isReluOf(mlir::Value result, mlir::Value x);

/// True when `result` is hardswish(`x`) = `x * clamp(x * 1/6 + 1/2, 0, 1)` computed by scalar
/// ops, as the ONNX importer lowers HardSwish (the clamp as min then max or max then min;
/// commuted operands accepted).
bool isHardSwishOf(mlir::Value result, mlir::Value x);

/// True when `result` is sigmoid(`x`) computed by scalar ops as TOSA's sigmoid lowers:
/// `1 / (1 + exp(-x))` (the add's operands commuted too).
bool isSigmoidOf(mlir::Value result, mlir::Value x);

/// True when `result` is SiLU(`x`) = `x * sigmoid(x)` (isSigmoidOf; commuted operands accepted).
bool isSiluOf(mlir::Value result, mlir::Value x);

/// True when `map` reads an operand of shape `type` at the index the op writes: the identity,
/// except that unit dims may be pinned to 0 (TOSA reads a batch of 1 that way).
bool readsAtOutputIndex(mlir::AffineMap map, mlir::ShapedType type);

/// True when `map` reads an operand of shape `type` as a bias along the innermost loop: one
/// value per index of the last dim, broadcast over the others (a rank-1 `[N]` read at
/// `(d_last)`, or `[1, ..., 1, N]` read at `(0, ..., 0, d_last)`).
bool readsLastDimBias(mlir::AffineMap map, mlir::ShapedType type);

/// The DISC fusion kind of a reduction: kRowReduction when its first input's innermost
/// dimension is reduced, kColReduction when an outer one is, kInput for windowed reductions
/// (pooling, convolution). nullptr for an op without reduction loops.
const char *reductionKind(mlir::Operation *op);

/// Cheap to recompute: tensor.empty, a linalg.fill of a constant, an all-parallel op that
/// only broadcasts constants. Cloned into each user's cluster (IREE rematerialisation).
bool isCheapProducer(mlir::Operation *op);

/// The bytes a dispatch (a linalg op, memref.copy or library ral.dispatch on static memrefs)
/// moves: the byte size of each distinct memref it reads or writes, counted once (linalg: DPS
/// inputs and inits; copy: source and target; ral.dispatch: every memref argument). A lower
/// bound on its memory traffic; 0 when a memref's shape is dynamic or the op is none of these.
int64_t dispatchBytes(mlir::Operation *op);

/// The floating-point operations a dispatch computes: 2 per loop point for matmul,
/// batch_matmul and conv2d (a multiply and an add, 2*M*N*K, 2*out*C/groups*KH*KW), else the
/// float-valued ops of the linalg payload times the product of the static loop ranges; for a
/// library ral.dispatch (ral_gemm*, ral_batch_gemm*, ral_conv*) the same counts from its
/// operand shapes, plus a fused epilogue's bias (1 per output element) and activation (ReLU 1,
/// exact GELU 5, tanh GELU 8 per output element). 0 for copies, dynamic loop ranges and unknown
/// kernels.
int64_t dispatchFlops(mlir::Operation *op);

/// The transcendental math a kernel computes, and how: "exp, tanh: polynomial; sin: libm"
/// (loupe-approximate-math approximates what isApproximatedMath accepts unless `exactMath`);
/// "" when it has none.
std::string describeKernelMath(mlir::Operation *kernel, bool exactMath);
/// The math ops loupe-approximate-math replaces by polynomials (f32).
bool isApproximatedMath(mlir::Operation *op);

/// What the tuning table keys a library op of `kind` by (backends::Preferences::tuned): the
/// kind, the shape and element type of every shaped operand (inputs, then inits) and a
/// convolution's strides and dilations, e.g.
/// "conv2d:1x226x226x3xf32:32x3x3x3xf32:1x224x224x32xf32:s1x1:d1x1". The same on tensors
/// (loupe-form-clusters) and on buffers (ral-lower-to-library-call); dynamic dims read "?".
/// Only [A-Za-z0-9:x?] appear, so it travels in pass options as it is.
std::string opSignature(mlir::Operation *op, llvm::StringRef kind);

/// Preferences from a pass's `device`, `backends`, `overrides` (loc=backend) and `tuned`
/// (signature=backend) options; "auto" in `backends` only marks that the tuning table is
/// consulted (it is the `tuned` option). Emits an error on `anchor` and fails on an unknown
/// backend or a malformed entry.
mlir::FailureOr<backends::Preferences> parsePreferences(mlir::Operation *anchor,
                                                        llvm::StringRef device,
                                                        llvm::ArrayRef<std::string> order,
                                                        llvm::ArrayRef<std::string> overrides,
                                                        llvm::ArrayRef<std::string> tuned);

} // namespace loupe

#endif // LOUPE_TRANSFORMS_OPPATTERNS_H
