//===- Artifact.h - Load and run a compiled artifact ------------*- C++ -*-===//
//
// A compiled artifact is a shared object (docs/artifact-abi.md) exporting
//   const char loupe_manifest[];   JSON: entry signature and dispatch table
// and, by its manifest's "abi":
//   loupe-entry-v1: void loupe_entry(void **args); one memref descriptor per input, then per
//                   output; imports the tracer hooks loupe_ral_dispatch_begin/end(int64_t).
//   loupe-ral-v1:   void loupe_ral_entry(void *ctx); ctx is an ExecutionContext*, inputs come
//                   from ral_recv_input, outputs go out through ral_send_output, and every other
//                   runtime call is a ral_api_call (ral_api.h, docs/ral.md).
// Loading needs only libc's dynamic loader: no MLIR or LLVM is in the process.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_RAL_ARTIFACT_H
#define LOUPE_RAL_ARTIFACT_H

#include "loupe/ral/Status.h"
#include "loupe/ral/Tensor.h"
#include "loupe/ral/Tracer.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace loupe::ral {

/// Type of one entry input or output.
struct TensorSpec {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  /// Inputs the compile specialized (an ONNX shape tensor such as Slice's starts): the only
  /// value a run may feed, row-major; empty when any value may be fed.
  std::vector<double> specialized;
  std::string typeString() const; ///< "f32[8x64]"
};

/// One kernel the artifact brackets with tracer hooks (loupe-instrument-dispatches).
struct DispatchInfo {
  int64_t id = 0;   ///< Dense, 0-based, in program order.
  std::string name; ///< "dispatch_3_matmul"
  std::string op;   ///< Op the dispatch was made from: "linalg.matmul".
  std::string loc;  ///< Source ops (ONNX node names or file:line), comma-separated.
  std::string backend; ///< "codegen", "onednn", ... (optional in the manifest; "" if absent).
  std::string kind;    ///< kLoop, kRowReduction, kColReduction, kInput, kLibrary (optional; "" if absent).
  std::string reason;  ///< Why the compiler chose that backend (optional; "" if absent).
  int64_t cluster = -1; ///< The compiler's cluster (loupe.fusion id); -1 if none or absent.
  /// Library kernels to call instead, in order, when the dispatch's kernel fails at run time
  /// (RAL API prefixes with its ABI, e.g. "ral_gemm_openblas"; optional, usually empty).
  std::vector<std::string> fallbacks;
  /// Bytes of the distinct buffers the dispatch reads and writes, and the floating-point
  /// operations it computes, as the compiler counted them (optional; 0 if absent or unknown).
  int64_t bytes = 0, flops = 0;
  /// cuda, code-generated kernels: the GPU thread mapping and the launch sizes the compiler
  /// chose ("thread-per-vector4", "grid 16384x1x1 block 256x1x1"; optional; "" otherwise).
  std::string schedule, launch;
  /// Library-capable ops: the tuning table's key (op kind, operand shapes and dtypes, strides;
  /// optional; "" otherwise).
  std::string signature;
  /// Code-generated kernels: its transcendental math and how ("exp: polynomial; sin: libm");
  /// optional, "" otherwise.
  std::string math;
};

/// The artifact's self-description.
/// How the compiler placed an execution's transient buffers (`ral-plan-buffers`; manifest
/// "buffer_plan"). Bytes; the arena is one allocation per execution.
struct BufferPlan {
  int64_t arenaBytes = 0;       ///< The arena holding the planned buffers.
  int64_t plannedBuffers = 0;   ///< Buffers placed in it ...
  int64_t plannedBytes = 0;     ///< ... and the sum of their sizes.
  int64_t unplannedBuffers = 0; ///< Allocations left to ral_alloc (dynamic, nested, escaping) ...
  int64_t unplannedBytes = 0;   ///< ... and their static bytes (0 for dynamic ones).
};

struct Manifest {
  int version = 0;
  std::string abi;    ///< "loupe-entry-v1" or "loupe-ral-v1"
  std::string model;  ///< Path of the model it was compiled from.
  std::string target; ///< "cpu"
  std::string entry;  ///< Name of the MLIR entry function.
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  std::vector<DispatchInfo> dispatches;
  /// loupe-ral-v1: every RAL API name the artifact calls ("ral_apis", optional). Loading
  /// checks they are all registered, so a missing kernel is reported before anything runs.
  std::vector<std::string> ralApis;
  /// loupe-ral-v1: bytes of the weight blob the artifact exports as `loupe_weights` ("weights":
  /// {"bytes": N}, optional; 0: none).
  int64_t weightBytes = 0;
  /// loupe-ral-v1: the transient buffers' plan ("buffer_plan", optional).
  std::optional<BufferPlan> bufferPlan;
};

/// Parses manifest JSON; errors name the missing or malformed field.
StatusOr<Manifest> parseManifest(const std::string &json);

class Context;
struct DispatchNames;

/// A loaded artifact. Thread-safe: many threads may run() it at once (each call has its own
/// descriptors; the tracer is per thread).
class Artifact {
public:
  /// dlopen()s `path` and reads its manifest. Errors: file missing or not a loadable shared
  /// object (kNotFound / kInvalidArgument, with dlerror's text), no or bad manifest; for
  /// loupe-ral-v1 also Context::create's errors (an unregistered API, no CUDA for "cuda").
  static StatusOr<std::shared_ptr<Artifact>> load(const std::string &path);
  ~Artifact();
  Artifact(const Artifact &) = delete;
  Artifact &operator=(const Artifact &) = delete;

  const Manifest &manifest() const { return manifest_; }
  const std::string &path() const { return path_; }
  /// True for loupe-ral-v1 artifacts (entry takes an ExecutionContext).
  bool usesRal() const { return ralEntry_ != nullptr; }
  /// The RAL context of a loupe-ral-v1 artifact (null for loupe-entry-v1).
  const std::shared_ptr<Context> &context() const { return context_; }

  /// Checks `inputs` against the manifest: count, dtype and shape (errors name the input).
  Status checkInputs(const std::vector<Tensor> &inputs) const;
  /// Deterministic inputs of the manifest's types for `seed`: floats uniform in [-1, 1),
  /// integers in [0, 10), byte-sized and half types as 0/1 bytes; specialized inputs hold
  /// their value.
  /// kInvalidArgument when one cannot be allocated (Tensor::allocate).
  StatusOr<std::vector<Tensor>> randomInputs(uint64_t seed) const;
  /// Allocates zeroed output tensors of the manifest's types; errors as randomInputs.
  StatusOr<std::vector<Tensor>> allocateOutputs() const;
  /// Runs the entry function once on `inputs`, writing into `outputs` (from allocateOutputs()).
  /// `tracer`, when set, receives every dispatch's begin and end. loupe-ral-v1: one
  /// ExecutionContext per call; errors the artifact signalled (or an output it never sent) are
  /// returned. For target "cuda" the inputs are copied to the GPU and the outputs back.
  Status run(const std::vector<Tensor> &inputs, std::vector<Tensor> &outputs,
             Tracer *tracer = nullptr) const;

private:
  Artifact() = default;
  Status runRal(const std::vector<Tensor> &inputs, std::vector<Tensor> &outputs,
                Tracer *tracer) const;
  std::string path_;
  void *handle_ = nullptr;
  void (*entry_)(void **) = nullptr;
  void (*ralEntry_)(void *) = nullptr;
  Manifest manifest_;
  std::shared_ptr<Context> context_;
  std::shared_ptr<const std::vector<DispatchNames>> dispatchNames_;
};

} // namespace loupe::ral

#endif // LOUPE_RAL_ARTIFACT_H
