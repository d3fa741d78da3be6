//===- CompileResult.h - What a compile produces ----------------*- C++ -*-===//
//
// The result of compiler::compileModel (Compiler.h): snapshots, dispatch and cluster tables,
// the op graph, the model's inputs and weights. Plain structs, no MLIR: what sessions, the
// profile DB and the GUI read.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_PIPELINES_COMPILERESULT_H
#define LOUPE_PIPELINES_COMPILERESULT_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace loupe::compiler {

/// What the IR of a snapshot is written in.
enum class IrKind { Mlir, LlvmIr, Assembly, Text };
const char *irKindName(IrKind kind);

/// The IR after one pass. Recorded by the pipeline's pass instrumentation; the pseudo-passes
/// outside MLIR's pass manager (import, translation to LLVM IR, LLVM optimisation, object
/// emission, linking) are recorded the same way.
struct PassSnapshot {
  int index = 0;           ///< 0-based position over the whole compile.
  std::string pass;        ///< Pass argument, e.g. "tosa-to-linalg".
  std::string options;     ///< Textual pipeline form with options, e.g. "canonicalize{max-iterations=10}".
  std::string phase;       ///< One of phaseNames().
  std::string anchor;      ///< Op the pass ran on, e.g. "func.func @main".
  int64_t durationNs = 0;  ///< Wall time of the pass, nanoseconds (steady clock).
  uint64_t irHash = 0;     ///< FNV-1a 64 of the printed IR (with locations) after the pass.
  bool changed = false;    ///< irHash differs from the previous snapshot's.
  bool failed = false;     ///< The pass failed; `ir` is then in generic form.
  IrKind irKind = IrKind::Mlir;
  std::string ir;          ///< IR text after the pass when `changed` (else empty, to stay cheap).
  /// The source ops whose ops this pass changed, with their new hash (LocHashes.h; 0: none of
  /// their ops is left): a delta over the previous MLIR snapshots. Empty for unchanged IR and
  /// the steps after MLIR (LLVM IR, objects), which keep no source ops.
  std::vector<std::pair<std::string, uint64_t>> locHashes;
};

/// One kernel of the compiled entry: the dispatch table of loupe-instrument-dispatches.
struct DispatchSummary {
  int64_t id = 0;
  std::string name;    ///< "dispatch_3_generic".
  std::string op;      ///< "linalg.generic", "ral.dispatch", ...
  std::string loc;     ///< Source ops (ONNX node names or file:line), comma-separated.
  std::string backend; ///< "codegen", "onednn", "openblas", ...
  std::string kind;    ///< kLoop, kRowReduction, kColReduction or kLibrary (BladeDISC's names).
  std::string reason;  ///< Why that backend (empty for ops no library backend runs).
  int64_t cluster = -1; ///< ClusterSummary::id of its cluster; -1 for copies bufferization added.
  /// Library kernels the runtime calls instead, in order, when this dispatch's kernel fails at
  /// run time (RAL API prefixes with the same ABI, e.g. "ral_gemm_openblas"); usually empty.
  std::vector<std::string> fallbacks;
  /// cuda, code-generated kernels: the thread mapping of ral-outline-gpu-kernels
  /// ("thread-per-vector4", "thread-per-element", "warp-row-reduction", "block-row-reduction",
  /// "single-thread") and the launch sizes it computed ("grid 4x1x1 block 32x4x1"); empty
  /// otherwise.
  std::string schedule, launch;
  /// What the dispatch moves and computes (loupe-instrument-dispatches): bytes of the distinct
  /// buffers it reads and writes, and floating-point operations; 0 when unknown.
  int64_t bytes = 0, flops = 0;
  /// Library-capable ops (ral-lower-to-library-call): the tuning table's key
  /// (loupe/Transforms OpPatterns.h, opSignature), every backend that runs the op on the
  /// device, highest plevel first, and the op's own source (the key a backend override of it
  /// names; `loc` may add the ops fused into it); empty for other dispatches.
  std::string signature;
  std::vector<std::string> candidates;
  std::string selectedLoc;
  /// Code-generated kernels: its transcendental math and how it is computed, "exp, tanh:
  /// polynomial; sin: libm" (loupe-approximate-math, `--math`); "" when it has none.
  std::string math;
};

/// One cluster of the `cluster` phase (a loupe.fusion region): ops fused into one kernel
/// (or one library call) by one backend.
struct ClusterSummary {
  int64_t id = 0;
  std::string kind;    ///< kLoop, kRowReduction, kColReduction, kInput or kLibrary.
  std::string backend; ///< "codegen", "onednn", ...
  std::string pattern; ///< Library fuse pattern (matmul_bias_act, conv_bias_act) or heaviest
                       ///< op pattern.
  int64_t plevel = 0;  ///< The backend's priority for the op (loupe/Backends).
  std::string reason;  ///< Why this backend and these ops.
  std::vector<std::string> ops; ///< "linalg.generic@Relu_2", in program order.
  std::string loc;     ///< Source ops, comma-separated (as DispatchSummary::loc).
};

/// A producer -> consumer merge the clustering refused, with the rule that refused it.
struct RefusedMerge {
  std::string producer, producerOp; ///< loc and op name of the producer.
  int64_t producerCluster = -1;
  std::string consumer, consumerOp;
  int64_t consumerCluster = -1;
  std::string rule;
};

/// One op of the model after the `graph` phase (TOSA), for the GUI's graph panel.
struct GraphNode {
  int id = 0;
  std::string op;   ///< "tosa.conv2d"; "input" for an argument of the entry function.
  std::string name; ///< Its `loc` as in DispatchSummary::loc (ONNX node name).
  std::string type; ///< First result type, e.g. "tensor<1x8x32x32xf32>".
};
struct OpGraph {
  std::vector<GraphNode> nodes;
  std::vector<std::pair<int, int>> edges; ///< Producer id -> consumer id.
};

/// Why a compile failed. BadInput covers malformed models, unsupported ops and MLIR
/// verification errors (exit code 2); Internal is a bug or a broken tool chain (exit code 3).
struct CompileError {
  enum class Kind { BadInput, Internal } kind = Kind::Internal;
  std::string message; ///< Names the file, position or op ("model.onnx: node 'Conv_3' ...").
};

/// A graph input of an ONNX model as the file declares it (before shapes are bound).
struct ModelInput {
  std::string name;
  std::vector<std::string> dims; ///< Each dim's value, its symbolic name (dim_param) or "?".
  bool symbolic() const;         ///< Some dim is not a number.
};

/// One weight (a resource blob of the imported module): what the GUI shows instead of its bytes.
struct WeightSummary {
  std::string name;            ///< The resource's key (`dense_resource<name>`, ral.constant's loc).
  std::string dtype;           ///< MLIR element type: "f32", "i64", ...
  std::vector<int64_t> shape;
  int64_t bytes = 0;
  /// Statistics of the values (f32, f64, i64, i32, i8); NaN for other types.
  double min = 0, max = 0, mean = 0, stddev = 0;
  int64_t zeros = 0;           ///< Elements equal to zero (types with statistics).
};

struct CompileResult {
  std::optional<CompileError> error; ///< Set when the compile failed; snapshots so far are kept.
  /// ONNX models: the graph inputs as declared, also when binding their dims failed (the GUI
  /// offers the free dims for --input-shape); empty for .mlir and on a cache hit.
  std::vector<ModelInput> modelInputs;
  /// The imported module's weights (resource blobs), in program order.
  std::vector<WeightSummary> weights;
  std::vector<PassSnapshot> snapshots;
  std::string lastPhase;     ///< Last phase that completed.
  std::string finalIr;       ///< Text of the IR after the last completed step.
  IrKind finalIrKind = IrKind::Mlir;
  std::string artifactPath;  ///< Set when the artifact phase ran.
  int64_t totalNs = 0;       ///< Wall time of the whole compile, nanoseconds.
  OpGraph graph;             ///< Ops after the graph phase (when it ran).
  std::vector<ClusterSummary> clusters;    ///< After the cluster phase (when it ran).
  std::vector<RefusedMerge> refusedMerges; ///< Likewise: the fusion explainer's data.
  std::vector<DispatchSummary> dispatches; ///< After the ral phase (when it ran).
  /// cuda target, after the ral phase: the PTX of every kernel, each preceded by a
  /// `// kernel <name>` line (`loupe compile --emit ptx`).
  std::string ptx;
  /// The compile cache's answer: "memory" or "disk" (a hit: snapshots and tables are the
  /// cached compile's, totalNs the lookup's), "miss" (compiled and stored), "" (not used).
  std::string cache;
  /// What the user asked for that had no effect, e.g. "--override 'fc9' names no op of the
  /// model's dispatches"; the CLI prints them, the compile still succeeds.
  std::vector<std::string> warnings;
  bool ok() const { return !error.has_value(); }
};

} // namespace loupe::compiler

#endif // LOUPE_PIPELINES_COMPILERESULT_H
