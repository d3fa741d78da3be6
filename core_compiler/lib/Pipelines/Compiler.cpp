//===- Compiler.cpp - Run the phases of the pipeline --------------------------===//
#include "loupe/Pipelines/Compiler.h"

#include "ArtifactEmitter.h"
#include "CompileCache.h"
#include "GraphCapture.h"
#include "Phases.h"
#include "SnapshotRecorder.h"

#include "loupe/Dialect/Loupe/IR/LoupeDialect.h"
#include "loupe/Dialect/Ral/IR/RalDialect.h"
#include "loupe/Frontends/MlirImporter.h"
#include "loupe/Frontends/OnnxImporter.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

using namespace mlir;
using namespace loupe::compiler;

namespace {
using Clock = std::chrono::steady_clock;

int64_t nsSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
}

int phaseIndex(const std::string &phase) {
  const auto &names = phaseNames();
  return static_cast<int>(std::find(names.begin(), names.end(), phase) - names.begin());
}

/// Collects the context's diagnostics as "file:line:col: error: message" lines; ops imported
/// from ONNX carry a NameLoc, printed as "loc("Conv_3"): error: ...".
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext &context)
      : handler_(&context, [this](Diagnostic &diag) {
          if (diag.getSeverity() != DiagnosticSeverity::Error)
            return success();
          std::string line;
          llvm::raw_string_ostream os(line);
          Location loc = diag.getLocation();
          if (auto file = dyn_cast<FileLineColLoc>(loc))
            os << file.getFilename().getValue() << ":" << file.getLine() << ":"
               << file.getColumn();
          else
            os << loc;
          os << ": error: " << diag;
          for (auto &note : diag.getNotes())
            os << "\n  note: " << note;
          messages_ += messages_.empty() ? line : "\n" + line;
          return success();
        }) {}
  const std::string &messages() const { return messages_; }

private:
  std::string messages_;
  ScopedDiagnosticHandler handler_;
};

void registerDialects(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registry.insert<loupe::ralir::RalDialect, loupe::loupeir::LoupeDialect>();
  registerAllToLLVMIRTranslations(registry); // the host module, and NVVM for gpu-module-to-binary
}

/// The PTX of every gpu.binary (gpu-module-to-binary{format=isa}), each after a
/// `// kernel <name>` line.
std::string collectPtx(ModuleOp module) {
  std::string text;
  for (auto binary : module.getOps<gpu::BinaryOp>())
    for (auto object : binary.getObjects().getAsRange<gpu::ObjectAttr>()) {
      StringRef ptx = object.getObject().getValue().rtrim('\0'); // NUL-terminated for the driver
      text += "// kernel " + binary.getName().str() + "\n" + ptx.str() + "\n";
    }
  return text;
}

/// The first libdevice function (`__nv_*`) the PTX still declares `.extern`, or "": MLIR's NVVM
/// serialisation links libdevice only when it finds the CUDA toolkit, and an unresolved call
/// would only fail when the driver loads the module.
std::string unresolvedLibdeviceCall(const std::string &ptx) {
  size_t at = ptx.find(".extern .func");
  while (at != std::string::npos) {
    size_t end = ptx.find('\n', at);
    std::string line = ptx.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (size_t nv = line.find("__nv_"); nv != std::string::npos)
      return line.substr(nv, line.find_first_of(" (", nv) - nv);
    at = ptx.find(".extern .func", at + 1);
  }
  return "";
}

/// A hash of the bytes of `blobs` (the weights), which printed IR elides.
std::string hashResourceBlobs(ArrayRef<DenseResourceElementsAttr> blobs) {
  uint64_t hash = 0;
  for (DenseResourceElementsAttr resource : blobs) {
    ArrayRef<char> data = resource.getRawHandle().getBlob()->getData();
    hash = hash * 0x100000001b3ull ^ // Stable across processes (a disk cache key).
           llvm::xxh3_64bits(ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(data.data()),
                                               data.size()));
  }
  return std::to_string(hash);
}

/// Shape, type, size and value statistics of every blob of `blobs` (the weights).
std::vector<WeightSummary> summarizeWeights(ArrayRef<DenseResourceElementsAttr> blobs) {
  std::vector<WeightSummary> weights;
  for (DenseResourceElementsAttr resource : blobs) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    WeightSummary w;
    w.name = resource.getRawHandle().getKey().str();
    llvm::raw_string_ostream(w.dtype) << resource.getElementType();
    w.shape.assign(resource.getType().getShape().begin(), resource.getType().getShape().end());
    ArrayRef<char> data = blob->getData();
    w.bytes = static_cast<int64_t>(data.size());
    auto stats = [&](auto *values, size_t n) {
      double sum = 0, sq = 0;
      w.min = n ? double(values[0]) : 0;
      w.max = w.min;
      for (size_t i = 0; i < n; ++i) {
        double v = values[i];
        w.min = std::min(w.min, v);
        w.max = std::max(w.max, v);
        sum += v;
        sq += v * v;
        w.zeros += v == 0;
      }
      w.mean = n ? sum / n : 0;
      w.stddev = n ? std::sqrt(std::max(0.0, sq / n - w.mean * w.mean)) : 0;
    };
    Type type = resource.getElementType();
    const char *bytes = data.data();
    if (type.isF32())
      stats(reinterpret_cast<const float *>(bytes), data.size() / 4);
    else if (type.isF64())
      stats(reinterpret_cast<const double *>(bytes), data.size() / 8);
    else if (type.isInteger(64))
      stats(reinterpret_cast<const int64_t *>(bytes), data.size() / 8);
    else if (type.isInteger(32))
      stats(reinterpret_cast<const int32_t *>(bytes), data.size() / 4);
    else if (type.isInteger(8))
      stats(reinterpret_cast<const int8_t *>(bytes), data.size());
    else // f16, bf16, i16: shape and size only
      w.min = w.max = w.mean = w.stddev = std::nan("");
    weights.push_back(std::move(w));
  }
  return weights;
}

/// $TMPDIR/loupe when it is a directory of this user (created 0700 if missing), else a fresh
/// private directory: a symlink or another user's directory there is never followed.
llvm::SmallString<128> privateTempDir() {
  llvm::SmallString<128> dir;
  llvm::sys::path::system_temp_directory(/*erasedOnReboot=*/true, dir);
  llvm::sys::path::append(dir, "loupe");
  ::mkdir(dir.c_str(), 0700);
  struct stat st;
  if (::lstat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::getuid())
    return dir;
  llvm::SmallString<128> unique;
  llvm::sys::fs::createUniqueDirectory("loupe", unique);
  return unique;
}

/// Why the artifact of `modelPath` may not be written to `outPath` (a path the user gave), or
/// "": its directory must exist, and an existing file there must be a regular file that is
/// not the model and already an ELF file (an earlier artifact), so nothing else is replaced.
std::string outputPathProblem(const std::string &outPath, const std::string &modelPath) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path parent = fs::path(outPath).parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec))
    return "the directory of the output '" + outPath + "' does not exist";
  fs::file_status status = fs::status(outPath, ec);
  if (status.type() == fs::file_type::not_found)
    return "";
  if (status.type() == fs::file_type::directory)
    return "the output '" + outPath + "' is a directory";
  if (status.type() != fs::file_type::regular)
    return "the output '" + outPath + "' is not a regular file";
  if (fs::equivalent(outPath, modelPath, ec))
    return "the output '" + outPath + "' is the model itself";
  char magic[4] = {};
  std::ifstream(outPath, std::ios::binary).read(magic, sizeof magic);
  if (fs::file_size(outPath, ec) > 0 && std::memcmp(magic, "\x7f" "ELF", 4) != 0)
    return "the output '" + outPath + "' exists and is not an artifact; not replacing it";
  return "";
}

/// Warns about each backend override whose loc is in no dispatch's loc list (a typo, or an op
/// of another model): it changed nothing.
void warnAboutUnusedOverrides(const CompileOptions &options, CompileResult &result) {
  if (result.dispatches.empty())
    return; // The ral phase did not run.
  std::set<std::string> locs;
  for (const DispatchSummary &d : result.dispatches)
    for (llvm::StringRef loc : llvm::split(d.loc, ','))
      locs.insert(loc.trim().str());
  for (const auto &[loc, backend] : options.backendOverrides)
    if (!locs.count(loc))
      result.warnings.push_back("the override " + loc + "=" + backend +
                                " names no op of the model's dispatches; it changed nothing");
}

std::string defaultArtifactPath(const std::string &modelPath) {
  llvm::SmallString<128> path = privateTempDir();
  llvm::sys::path::append(path, llvm::sys::path::stem(modelPath) + "-%%%%%%.so");
  llvm::SmallString<128> unique;
  llvm::sys::fs::createUniquePath(path, unique, /*MakeAbsolute=*/false);
  return unique.str().str();
}
} // namespace

bool ModelInput::symbolic() const {
  return llvm::any_of(dims, [](const std::string &d) {
    return d.empty() || d.find_first_not_of("0123456789") != std::string::npos;
  });
}

CompileResult loupe::compiler::compileModel(const std::string &modelPath,
                                            const CompileOptions &options) {
  CompileResult result;
  auto compileStart = Clock::now();
  auto fail = [&](CompileError::Kind kind, std::string message) {
    result.error = CompileError{kind, std::move(message)};
    result.totalNs = nsSince(compileStart);
    return result;
  };
  if (!isPhase(options.phaseTo))
    return fail(CompileError::Kind::BadInput, "unknown phase '" + options.phaseTo + "'");
  if (options.target != "cpu" && options.target != "cuda")
    return fail(CompileError::Kind::BadInput,
                "unsupported target '" + options.target + "' (targets: cpu, cuda)");
  if (options.target == "cuda" && !isGpuArch(options.gpuArch))
    return fail(CompileError::Kind::BadInput,
                "unsupported GPU architecture '" + options.gpuArch + "' (sm_80, sm_90)");
  if (!options.artifactPath.empty() && phaseIndex(options.phaseTo) >= phaseIndex("artifact"))
    if (std::string why = outputPathProblem(options.artifactPath, modelPath); !why.empty())
      return fail(CompileError::Kind::BadInput, why);

  registerPipelines();
  DialectRegistry registry;
  registerDialects(registry);
  MLIRContext context(registry);
  context.disableMultithreading(); // Deterministic snapshot order; models are small.
  context.loadAllAvailableDialects();
  DiagnosticCollector diagnostics(context);
  SnapshotRecorder recorder(result.snapshots, options.keepIrText);

  // import
  auto start = Clock::now();
  std::string error;
  bool isOnnx = llvm::sys::path::extension(modelPath) == ".onnx";
  loupe::frontends::InputBindings inputs{options.inputShapes, options.inputTensorShapes,
                                         options.inputTensorValues};
  if (!isOnnx && !options.inputShapes.empty())
    return fail(CompileError::Kind::BadInput,
                modelPath + ": --input-shape applies to ONNX models (an .mlir entry's types are "
                            "its shapes)");
  std::vector<loupe::frontends::InputDeclaration> declared;
  OwningOpRef<ModuleOp> module =
      isOnnx ? loupe::frontends::importOnnxFile(modelPath, context, error, inputs, &declared)
             : loupe::frontends::importMlirFile(modelPath, context, error);
  for (auto &d : declared)
    result.modelInputs.push_back({std::move(d.name), std::move(d.dims)});
  if (!module)
    return fail(CompileError::Kind::BadInput, error.empty() ? diagnostics.messages() : error);
  recorder.recordModule("import", isOnnx ? "import-onnx" : "parse-mlir", module.get(),
                        nsSince(start));
  std::vector<DenseResourceElementsAttr> blobs = resourceBlobsOf(module.get());
  result.weights = summarizeWeights(blobs);
  result.lastPhase = "import";

  int last = phaseIndex(options.phaseTo);
  std::string outPath = options.artifactPath.empty() ? defaultArtifactPath(modelPath)
                                                     : options.artifactPath;
  std::string cacheKey, cacheDir;
  if (options.useCache && last >= phaseIndex("artifact")) {
    // The import snapshot's text when it was kept, else one more print of the module.
    std::string moduleText = result.snapshots.empty() ? "" : result.snapshots.back().ir;
    if (moduleText.empty()) {
      llvm::raw_string_ostream os(moduleText);
      SnapshotRecorder::printIr(module.get(), os);
    }
    cacheKey = compileCacheKey(moduleText + "\nresources " + hashResourceBlobs(blobs), options);
    cacheDir = compileCacheDir(options);
    // Without an output path the cache's own copy is the artifact (no temporary file).
    if (std::optional<CompileResult> hit =
            lookupCompile(cacheKey, cacheDir, options.artifactPath)) {
      hit->totalNs = nsSince(compileStart);
      hit->modelInputs = result.modelInputs;
      hit->weights = result.weights;
      warnAboutUnusedOverrides(options, *hit);
      return *hit;
    }
  }

  ArtifactInfo info;
  info.modelPath = modelPath;
  info.target = options.target;
  for (const char *phase : {"graph", "cluster", "lower", "ral", "llvm"}) {
    if (phaseIndex(phase) > last)
      break;
    if (std::string(phase) == "cluster" &&
        failed(captureSignature(module.get(), info, error)))
      return fail(CompileError::Kind::BadInput, modelPath + ": " + error);

    PassManager pm(&context, ModuleOp::getOperationName());
    if (options.recordPasses)
      pm.addInstrumentation(recorder.instrumentation(phase));
    std::string pipeline = phasePassList(phase, options);
    if (failed(parsePassPipeline(pipeline, pm)))
      return fail(CompileError::Kind::Internal,
                  "cannot build the '" + std::string(phase) + "' pipeline: " + pipeline);
    if (failed(pm.run(module.get()))) {
      std::string failedPass = result.snapshots.empty() ? "" : result.snapshots.back().pass;
      return fail(CompileError::Kind::BadInput,
                  modelPath + ": pass '" + failedPass + "' of phase '" + phase + "' failed:\n" +
                      diagnostics.messages());
    }
    if (std::string(phase) == "graph")
      captureGraph(module.get(), result.graph);
    if (std::string(phase) == "cluster")
      captureClusters(module.get(), result.clusters, result.refusedMerges);
    if (std::string(phase) == "ral") {
      if (failed(captureWeights(module.get(), info, error)))
        return fail(CompileError::Kind::BadInput, modelPath + ": " + error);
      captureDispatches(module.get(), info);
      result.dispatches = info.dispatches;
      if (options.target == "cuda") {
        result.ptx = collectPtx(module.get());
        recorder.recordStep("ral", "ptx", options.gpuArch, 0, IrKind::Assembly, result.ptx);
        if (std::string missing = unresolvedLibdeviceCall(result.ptx); !missing.empty())
          return fail(CompileError::Kind::Internal,
                      modelPath + ": the PTX calls libdevice's " + missing +
                          " but libdevice was not linked: install the CUDA toolkit or set "
                          "CUDA_ROOT to one (nvvm/libdevice/libdevice.10.bc)");
      }
    }
    result.lastPhase = phase;
  }

  if (last < phaseIndex("llvm")) {
    llvm::raw_string_ostream os(result.finalIr);
    SnapshotRecorder::printIr(module.get(), os);
    result.totalNs = nsSince(compileStart);
    return result;
  }

  bool toArtifact = last >= phaseIndex("artifact");
  if (!emitArtifact(module.get(), info, toArtifact, outPath, recorder, result.finalIr, error))
    return fail(CompileError::Kind::Internal, modelPath + ": " + error);
  result.finalIrKind = IrKind::LlvmIr;
  if (toArtifact) {
    result.artifactPath = outPath;
    result.lastPhase = "artifact";
  }
  result.totalNs = nsSince(compileStart);
  if (!cacheKey.empty()) {
    result.cache = "miss";
    std::string cached = storeCompile(cacheKey, cacheDir, result);
    if (options.artifactPath.empty() && !cached.empty()) { // The temporary file goes.
      llvm::sys::fs::remove(outPath);
      result.artifactPath = cached;
    }
  }
  warnAboutUnusedOverrides(options, result);
  return result;
}
