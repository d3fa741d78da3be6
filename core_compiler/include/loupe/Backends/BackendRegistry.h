//===- BackendRegistry.h - Which backend runs which op (RAF op dialects) -*- C++ -*-===//
//
// Backends and the ops they run, after RAF's op dialects (seed document 004): a backend is
// enabled on devices, registers the ops it supports with a priority level (plevel) and the RAL
// kernel that implements each, and may register fusion patterns. An op is supported by a
// backend exactly when it registered the op; `codegen` runs every op (the compiler generates
// its code). Selection follows RAF's `with_dialect` scoping: a per-op
// override keyed by the op's `loc`, else the backend `loupe tune` measured fastest for the op's
// signature (`--backends auto`: seed 001's profile-guided placement), else the first backend
// of the session's ordered preference list that runs the op, else the highest plevel enabled
// on the device. No MLIR in here: the
// CLI, sessions and the GUI read the same table the compiler uses.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_BACKENDS_BACKENDREGISTRY_H
#define LOUPE_BACKENDS_BACKENDREGISTRY_H

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace loupe::backends {

/// The backend that runs every op: the compiler generates its code.
inline constexpr const char *kCodegen = "codegen";
/// The name in a backend list (`--backends auto,onednn`) that asks for the tuning table.
inline constexpr const char *kAuto = "auto";

/// One op a backend runs. `op` is the compiler's op kind ("matmul", "batch_matmul", "conv2d");
/// `kernel` the RAL API implementing it (e.g. "ral_gemm_onednn"); empty for generated code.
struct BackendOp {
  std::string backend, op, kernel;
  int plevel = 0;
  BackendOp &set_kernel(std::string name) { kernel = std::move(name); return *this; }
};

/// A chain of ops a backend runs as one kernel (e.g. matmul + bias + relu as oneDNN post-ops).
struct FusePattern {
  std::string backend, name, kernel;
  std::vector<std::string> ops;
  int plevel = 0;
  FusePattern &set_ops(std::vector<std::string> chain) { ops = std::move(chain); return *this; }
  FusePattern &set_kernel(std::string name) { kernel = std::move(name); return *this; }
};

class Backend {
public:
  explicit Backend(std::string name) : name_(std::move(name)) {}
  /// Enables the backend on a device ("cpu", "gpu"); chainable.
  Backend &set_enable(const std::string &device);
  const std::string &name() const { return name_; }
  const std::vector<std::string> &devices() const { return devices_; }
  bool enabledOn(const std::string &device) const;
  /// True for codegen, which runs every op.
  bool runsEveryOp() const { return name_ == kCodegen; }

private:
  std::string name_;
  std::vector<std::string> devices_;
};

/// The backend chosen for one op, and why (shown in the dispatch table, reports and the GUI).
struct Selection {
  std::string backend;
  std::string kernel; ///< RAL API, or empty for generated code.
  int plevel = 0;
  std::string reason;
};

/// How a compile chooses backends: from CompileOptions, the CLI or a session.
struct Preferences {
  std::string device = "cpu";
  std::vector<std::string> order;               ///< Ordered preference; empty: by plevel.
  std::map<std::string, std::string> overrides; ///< `loc` (ONNX node name) -> backend.
  /// Op signature (loupe::opSignature: kind, operand shapes and dtypes, strides) -> the
  /// backend `loupe tune` measured fastest for it on this device (the DB's `tuning` table).
  std::map<std::string, std::string> tuned;
};

class BackendRegistry {
public:
  /// The process-wide registry with Loupe's default backends (DefaultBackends.cpp).
  static BackendRegistry &global();

  /// Registers a backend; a second registration of the same name is recorded in errors().
  Backend &addBackend(const std::string &name);
  BackendOp &addOp(const std::string &backend, const std::string &op, int plevel);
  FusePattern &addFusePattern(const std::string &backend, const std::string &name, int plevel);

  const std::vector<std::unique_ptr<Backend>> &backends() const { return backends_; }
  const std::vector<std::unique_ptr<BackendOp>> &ops() const { return ops_; }
  const std::vector<std::unique_ptr<FusePattern>> &fusePatterns() const { return patterns_; }
  const Backend *find(const std::string &name) const;
  /// The fusion pattern `name` of `backend`, or null.
  const FusePattern *findFusePattern(const std::string &backend, const std::string &name) const;
  /// Registration mistakes (duplicate backends, ops of unknown backends).
  const std::vector<std::string> &errors() const { return errors_; }

  /// Backends that can run `op` on `device`, highest plevel first (codegen, plevel 10, when
  /// no registration ranks it).
  std::vector<Selection> candidates(const std::string &op, const std::string &device) const;
  /// The backend for `op` with source `loc` and signature `signature` under `prefs`. Unknown
  /// or unsupported preferred backends are skipped (the reason says so); codegen is the last
  /// resort.
  Selection select(const std::string &op, const std::string &loc, const Preferences &prefs,
                   const std::string &signature = "") const;
  /// The library kernels that may stand in for `chosen` (select()'s result for `op` under
  /// `prefs`) when it fails at run time, best first: the other backends that register `op` with
  /// a kernel on prefs.device, ranked as select() ranks them (the backends of prefs.order in
  /// that order when it names any that run `op`, else by plevel). Every kernel registered for
  /// one op has that op's ABI (ral/include/loupe/ral/Kernels.h), so any of them can take the
  /// same arguments. Codegen never appears: no code is generated for an op given to a library.
  /// Empty when `chosen` has no kernel.
  std::vector<Selection> fallbacks(const std::string &op, const Selection &chosen,
                                   const Preferences &prefs) const;

private:
  std::vector<std::unique_ptr<Backend>> backends_;
  std::vector<std::unique_ptr<BackendOp>> ops_;
  std::vector<std::unique_ptr<FusePattern>> patterns_;
  std::vector<std::string> errors_;
};

/// Parses "onednn,codegen" into an ordered list; names are not checked here.
std::vector<std::string> parseBackendList(const std::string &text);

} // namespace loupe::backends

#define LOUPE_BACKENDS_CONCAT_(a, b) a##b
#define LOUPE_BACKENDS_CONCAT(a, b) LOUPE_BACKENDS_CONCAT_(a, b)
/// LOUPE_REGISTER_BACKEND("onednn").set_enable("cpu");
#define LOUPE_REGISTER_BACKEND(name)                                                        \
  [[maybe_unused]] static ::loupe::backends::Backend &LOUPE_BACKENDS_CONCAT(                \
      loupeBackend_, __COUNTER__) = ::loupe::backends::BackendRegistry::global().addBackend(name)
/// LOUPE_REGISTER_BACKEND_OP("onednn", "matmul", 15).set_kernel("ral_gemm_onednn");
#define LOUPE_REGISTER_BACKEND_OP(backend, op, plevel)                                      \
  [[maybe_unused]] static ::loupe::backends::BackendOp &LOUPE_BACKENDS_CONCAT(              \
      loupeBackendOp_, __COUNTER__) =                                                       \
      ::loupe::backends::BackendRegistry::global().addOp(backend, op, plevel)
/// LOUPE_REGISTER_FUSE_PATTERN("onednn", "matmul_bias_relu", 15).set_ops({...}).set_kernel(...);
#define LOUPE_REGISTER_FUSE_PATTERN(backend, name, plevel)                                  \
  [[maybe_unused]] static ::loupe::backends::FusePattern &LOUPE_BACKENDS_CONCAT(            \
      loupeFusePattern_, __COUNTER__) =                                                     \
      ::loupe::backends::BackendRegistry::global().addFusePattern(backend, name, plevel)

#endif // LOUPE_BACKENDS_BACKENDREGISTRY_H
