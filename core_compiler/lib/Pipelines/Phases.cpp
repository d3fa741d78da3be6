//===- Phases.cpp - The passes of each pipeline phase ------------------------===//
//
// Phases are textual pipelines of upstream MLIR passes plus Loupe's own, so the same string
// is what the compiler runs, what `loupe-opt --loupe-<phase>` runs and what the docs show.
//
//===----------------------------------------------------------------------===//
#include "Phases.h"

#include "loupe/Transforms/Passes.h"

#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassRegistry.h"

#include <mutex>

using namespace mlir;

namespace loupe::compiler {

const char *irKindName(IrKind kind) {
  switch (kind) {
  case IrKind::Mlir: return "mlir";
  case IrKind::LlvmIr: return "llvm";
  case IrKind::Assembly: return "asm";
  case IrKind::Text: return "text";
  }
  return "text";
}

/// `{device=cpu backends=onednn,codegen overrides=Conv_3=codegen}`: the backend preferences
/// of loupe-form-clusters and ral-lower-to-library-call.
static std::string backendOptions(const CompileOptions &options, const std::string &extra = "") {
  std::string text = "{device=" + std::string(options.target == "cuda" ? "gpu" : "cpu");
  auto list = [&](const char *key, const std::vector<std::string> &items) {
    if (items.empty())
      return;
    text += std::string(" ") + key + "=";
    for (size_t i = 0; i < items.size(); ++i)
      text += (i ? "," : "") + items[i];
  };
  list("backends", options.backends);
  std::vector<std::string> overrides;
  for (const auto &[loc, backend] : options.backendOverrides)
    overrides.push_back(loc + "=" + backend);
  list("overrides", overrides);
  std::vector<std::string> tuned;
  for (const auto &[signature, backend] : options.tunedBackends)
    tuned.push_back(signature + "=" + backend);
  list("tuned", tuned);
  return text + extra + "}";
}

std::string phasePassList(const std::string &phase, const CompileOptions &options) {
  // graph: TOSA-level clean-up, shape inference and folding of constant weights.
  if (phase == "graph")
    return "func.func(tosa-infer-shapes,tosa-make-broadcastable,tosa-optional-decompositions),"
           "canonicalize,cse,"
           "func.func(loupe-sink-transposes,loupe-move-scales-to-weights,tosa-layerwise-constant-fold),"
           "canonicalize";
  // cluster: TOSA -> linalg on tensors; backend choice, clustering into loupe.fusion regions,
  // fusion inside each region.
  if (phase == "cluster")
    return "func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor),"
           "canonicalize,func.func(loupe-fold-constant-transposes),"
           "loupe-form-clusters" +
           backendOptions(options, options.fusion ? "" : " fusion=false") + ","
           "loupe-fuse-clusters";
  // lower: dissolve the regions (ops keep their cluster id), one-shot bufferization.
  if (phase == "lower")
    return "loupe-inline-clusters,cse,canonicalize,"
           "loupe-protect-entry-inputs,"
           "eliminate-empty-tensors,empty-tensor-to-alloc-tensor,"
           "one-shot-bufferize{bufferize-function-boundaries "
           "function-boundary-type-conversion=identity-layout-map},"
           "canonicalize";
  // ral: context injection, deallocation, backends and library calls, dispatch tracing, CPU
  // kernels.
  // ral, cuda target: library calls as on the CPU; code-generated kernels mapped to GPU
  // threads, lowered to NVVM and assembled to PTX by LLVM's NVPTX back end.
  if (phase == "ral" && options.target == "cuda")
    return "ral-inject-execution-context{device=gpu},ral-externalize-constants,"
           "buffer-deallocation-pipeline,"
           "ral-lower-to-library-call" + backendOptions(options) + ","
           "loupe-instrument-dispatches{device=gpu},"
           "ral-outline-gpu-kernels,"
           "lower-affine,canonicalize,cse,"
           "loupe-dedup-executables,"
           "nvvm-attach-target{chip=" + options.gpuArch + " O=3},"
           "gpu.module(expand-strided-metadata,lower-affine,convert-scf-to-cf,"
           "convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=1},reconcile-unrealized-casts,"
           "canonicalize),"
           "gpu-module-to-binary{format=isa}";
  if (phase == "ral")
    return "ral-inject-execution-context,ral-externalize-constants,"
           "buffer-deallocation-pipeline,"
           "ral-lower-to-library-call" + backendOptions(options) + ","
           "loupe-instrument-dispatches" + std::string(options.exactMath ? "{exact-math=true}" : "") + ","
           "loupe-pack-gemv-weights,"
           "func.func(loupe-reassociate-reductions,loupe-interchange-reductions,loupe-linearize-elementwise,loupe-vectorize-cpu,scf-forall-to-parallel,"
           "convert-linalg-to-parallel-loops),"
           "ral-outline-cpu-kernels,ral-stream-output-stores,"
           "loupe-dedup-executables,canonicalize,cse,ral-plan-buffers";
  // llvm: everything to the LLVM dialect.
  if (phase == "llvm")
    return std::string("loupe-approximate-math") + (options.exactMath ? "{exact=true}" : "") +
           ",lower-affine,convert-scf-to-cf,expand-strided-metadata,lower-affine,"
           "ral-to-llvm" + std::string(options.target == "cuda" ? "{device=gpu}" : "") + ","
           "convert-math-to-llvm,convert-math-to-libm,convert-vector-to-llvm,finalize-memref-to-llvm,"
           "convert-arith-to-llvm,convert-index-to-llvm,convert-func-to-llvm,"
           "convert-cf-to-llvm,reconcile-unrealized-casts";
  return "";
}

std::string phasePipeline(const std::string &phase, const CompileOptions &options) {
  std::string passes = phasePassList(phase, options);
  return passes.empty() ? "" : "builtin.module(" + passes + ")";
}

namespace {
struct CudaRalOptions : PassPipelineOptions<CudaRalOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::desc("NVIDIA architecture: sm_80 or sm_90"),
                           llvm::cl::init("sm_80")};
};
} // namespace

void registerPipelines() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerAllPasses();
    loupe::registerLoupePasses();
    for (const char *phase : {"graph", "cluster", "lower", "ral", "llvm"}) {
      std::string name = std::string("loupe-") + phase;
      std::string passes = phasePassList(phase, CompileOptions());
      PassPipelineRegistration<>(
          name, "Loupe's '" + std::string(phase) + "' phase: " + passes,
          [passes](OpPassManager &pm) { (void)parsePassPipeline(passes, pm); });
    }
    auto cudaOptions = [](const std::string &chip) {
      CompileOptions options;
      options.target = "cuda";
      options.gpuArch = chip;
      return options;
    };
    PassPipelineRegistration<CudaRalOptions>(
        "loupe-ral-cuda",
        "Loupe's 'ral' phase for the cuda target: " +
            phasePassList("ral", cudaOptions("<chip>")),
        [cudaOptions](OpPassManager &pm, const CudaRalOptions &options) {
          (void)parsePassPipeline(phasePassList("ral", cudaOptions(options.chip)), pm);
        });
  });
}

} // namespace loupe::compiler
