//===- Tracer.h - Dispatch events of one execution --------------*- C++ -*-===//
//
// Every dispatch of an artifact is bracketed by begin/end events: `loupe_ral_dispatch_begin/end`
// in loupe-entry-v1 artifacts, `ral_dispatch_begin/end` calls through ral_api_call in
// loupe-ral-v1 artifacts. The runtime forwards them, on the executing thread, to the tracer of
// the execution (ExecutionContext::setTracer, Artifact::run), and so every fallback from a
// failing library kernel to the next one. The profiler's collectors are tracers.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_RAL_TRACER_H
#define LOUPE_RAL_TRACER_H

#include <cstdint>
#include <string>

namespace loupe::ral {

/// One dispatch event. The strings are owned by the artifact (string literals or its manifest)
/// and stay valid while the artifact is loaded; any of them may be empty, never null.
struct DispatchEvent {
  int64_t dispatchId = 0;       ///< Dense id of the dispatch in the manifest's table.
  const char *name = "";        ///< Kernel name: "dispatch_3_matmul".
  const char *backend = "";     ///< "codegen", "onednn", "openblas", "cublas", ...
  const char *loc = "";         ///< The cluster's source locations (ONNX node names).
  const char *device = "cpu";   ///< "cpu" or "gpu".
  int64_t executionId = 0;      ///< ExecutionContext::id() of the execution it belongs to.
  int64_t sequence = 0;         ///< 0, 1, 2, ... per execution (CUPTI external correlation id).
  /// The execution's CUDA stream (CUstream) for "gpu" dispatches reported by an
  /// ExecutionContext whose CUDA driver loaded: the stream their work is queued on, so a tracer
  /// can record CUDA events around it. Null otherwise (CPU dispatches, no CUDA, v1 hooks).
  void *stream = nullptr;
};

/// A library kernel that failed inside a dispatch, and the kernel the runtime called instead
/// with the same arguments (the dispatch's fallbacks in the manifest; docs/ral.md, Fallbacks).
struct FallbackEvent {
  int64_t dispatchId = 0;     ///< The dispatch, as in DispatchEvent.
  int64_t executionId = 0;    ///< ExecutionContext::id() of the execution it belongs to.
  std::string failedKernel;   ///< RAL API prefix of the kernel that failed: "ral_gemm_onednn".
  std::string message;        ///< The error it signalled (names the kernel).
  std::string fallbackKernel; ///< The kernel called next: "ral_gemm_openblas".
};

/// Receives the dispatch events of one execution, on the executing thread. Override either the
/// id-only pair (what the CPU collector uses) or the event pair; by default the event pair
/// forwards to the id-only pair.
class Tracer {
public:
  virtual ~Tracer() = default;
  virtual void dispatchBegin(int64_t dispatchId) {}
  virtual void dispatchEnd(int64_t dispatchId) {}
  virtual void onDispatchBegin(const DispatchEvent &event) { dispatchBegin(event.dispatchId); }
  virtual void onDispatchEnd(const DispatchEvent &event) { dispatchEnd(event.dispatchId); }
  /// Output `index` has been sent (ral_send_output): it may be consumed before the entry
  /// returns (partial outputs).
  virtual void outputReady(int64_t index) {}
  /// A kernel failed and the runtime falls back to the next one; called before that one runs.
  virtual void onFallback(const FallbackEvent &event) {}
};

} // namespace loupe::ral

#endif // LOUPE_RAL_TRACER_H
