//===- ArtifactEmitter.cpp - LLVM dialect -> shared object -------------------===//
#include "loupe/common/ArtifactAbi.h"
#include "loupe/common/TensorLimits.h"
#include "ArtifactEmitter.h"

#include "loupe/Transforms/Passes.h"

#include "mlir/IR/BuiltinTypes.h"
#include "../Support/ConstantBytes.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <optional>

using namespace mlir;
using namespace loupe::compiler;

namespace {
using Clock = std::chrono::steady_clock;
int64_t nsSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
}
std::string printLlvm(const llvm::Module &module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  return text;
}
} // namespace

static bool signatureOf(Type type, TensorSignature &sig) {
  auto shaped = dyn_cast<RankedTensorType>(type);
  if (!shaped || !shaped.hasStaticShape())
    return false;
  std::string name;
  llvm::raw_string_ostream os(name);
  Type element = shaped.getElementType();
  if (auto integer = dyn_cast<IntegerType>(element))
    os << (integer.isUnsigned() ? "ui" : "i") << integer.getWidth();
  else
    element.print(os);
  sig.dtype = name;
  sig.shape.assign(shaped.getShape().begin(), shaped.getShape().end());
  return true;
}

LogicalResult loupe::compiler::captureSignature(ModuleOp module, ArtifactInfo &info,
                                                std::string &error) {
  func::FuncOp entry = loupe::lookupEntryFunction(module);
  if (!entry) {
    error = "no entry function: expected @main or a single public function";
    return failure();
  }
  info.entry = entry.getName().str();
  info.inputs.clear();
  info.outputs.clear();
  auto capture = [&](TypeRange types, std::vector<TensorSignature> &out,
                     const char *what) -> LogicalResult {
    for (auto [i, type] : llvm::enumerate(types)) {
      TensorSignature sig;
      if (!signatureOf(type, sig)) {
        std::string printed;
        llvm::raw_string_ostream os(printed);
        type.print(os);
        error = "@" + info.entry + " " + what + " " + std::to_string(i) + " has type " + printed +
                ": the runtime binds only statically shaped tensors";
        return failure();
      }
      // A size no machine holds (a dim of 1e12) is refused here, not when a run allocates it.
      if (exceedsElementLimit(sig.shape)) {
        error = "@" + info.entry + " " + what + " " + std::to_string(i) + " has more than 2^37 " +
                "elements: more than a run can allocate";
        return failure();
      }
      out.push_back(std::move(sig));
    }
    return success();
  };
  if (failed(capture(entry.getArgumentTypes(), info.inputs, "input")) ||
      failed(capture(entry.getResultTypes(), info.outputs, "result")))
    return failure();
  // ONNX unsigned tensors: signless storage the importer marks `loupe.unsigned`.
  for (auto [i, sig] : llvm::enumerate(info.inputs))
    if (entry.getArgAttr(i, "loupe.unsigned"))
      sig.dtype = "u" + sig.dtype;
  for (auto [i, sig] : llvm::enumerate(info.outputs))
    if (entry.getResultAttr(i, "loupe.unsigned"))
      sig.dtype = "u" + sig.dtype;
  for (auto [i, sig] : llvm::enumerate(info.inputs)) {
    auto value = entry.getArgAttrOfType<DenseElementsAttr>(i, "loupe.specialized");
    if (!value)
      continue;
    if (isa<FloatType>(value.getElementType()))
      for (const APFloat &v : value.getValues<APFloat>())
        sig.specialized.push_back(v.convertToDouble());
    else
      for (const APInt &v : value.getValues<APInt>())
        sig.specialized.push_back(value.getElementType().isUnsignedInteger(64) ||
                                          value.getElementType().isInteger(1)
                                      ? static_cast<double>(v.getZExtValue())
                                      : static_cast<double>(v.getSExtValue()));
  }
  return success();
}

void loupe::compiler::captureDispatches(ModuleOp module, ArtifactInfo &info) {
  info.dispatches.clear();
  func::FuncOp entry = loupe::lookupEntryFunction(module);
  auto table = entry ? entry->getAttrOfType<ArrayAttr>("loupe.dispatches") : ArrayAttr();
  if (!table)
    return;
  for (auto dict : table.getAsRange<DictionaryAttr>()) {
    auto text = [&](const char *key) {
      auto value = dict.getAs<StringAttr>(key);
      return value ? value.str() : std::string();
    };
    auto integer = [&](const char *key) {
      auto value = dict.getAs<IntegerAttr>(key);
      return value ? value.getInt() : int64_t(0);
    };
    info.dispatches.push_back({cast<IntegerAttr>(dict.get("id")).getInt(), text("name"),
                               text("op"), text("loc"), text("backend"), text("kind"),
                               text("reason"), cast<IntegerAttr>(dict.get("cluster")).getInt(), {},
                               text("schedule"), text("launch"), integer("bytes"),
                               integer("flops"), text("signature"), {}, text("selected_loc"),
                               text("math")});
    if (auto candidates = dict.getAs<ArrayAttr>("candidates"))
      for (auto name : candidates.getAsRange<StringAttr>())
        info.dispatches.back().candidates.push_back(name.str());
  }
  info.bufferPlan.clear();
  if (auto plan = entry->getAttrOfType<DictionaryAttr>("loupe.buffer_plan"))
    for (NamedAttribute field : plan)
      if (auto value = dyn_cast<IntegerAttr>(field.getValue()))
        info.bufferPlan.emplace_back(field.getName().str(), value.getInt());
  // ral-lower-to-library-call's fallback kernels, from the dispatches that still carry them.
  entry.walk([&](Operation *op) {
    auto id = op->getAttrOfType<IntegerAttr>("loupe.dispatch_id");
    auto fallbacks = op->getAttrOfType<ArrayAttr>("loupe.fallbacks");
    if (!id || !fallbacks)
      return;
    for (DispatchSummary &d : info.dispatches)
      if (d.id == id.getInt())
        for (auto kernel : fallbacks.getAsRange<StringAttr>())
          d.fallbacks.push_back(kernel.str());
  });
}

LogicalResult loupe::compiler::captureWeights(ModuleOp module, ArtifactInfo &info,
                                              std::string &error) {
  info.weights.clear();
  info.weightBytes = 0;
  auto table = module->getAttrOfType<DictionaryAttr>("ral.weights");
  if (!table)
    return success();
  auto bytes = table.getAs<IntegerAttr>("bytes");
  auto constants = table.getAs<ArrayAttr>("constants");
  if (!bytes || !constants) {
    error = "malformed ral.weights table (expected {bytes, constants})";
    return failure();
  }
  info.weightBytes = bytes.getInt();
  for (auto slot : constants.getAsRange<DictionaryAttr>()) {
    auto name = slot.getAs<StringAttr>("name");
    auto offset = slot.getAs<IntegerAttr>("offset");
    ArrayRef<char> data = loupe::elementBytes(slot.get("value")).value_or(ArrayRef<char>());
    std::string label = name ? name.str() : "?";
    if (!offset || data.empty() || offset.getInt() < 0 ||
        offset.getInt() + static_cast<int64_t>(data.size()) > info.weightBytes) {
      error = "constant @" + label + " has no bytes to write (an elided resource?) or lies " +
              "outside the weight blob";
      return failure();
    }
    info.weights.push_back({label, offset.getInt(), data});
  }
  return success();
}

/// The manifest's dispatch table (ral/lib/core/Artifact.cpp reads it).
static nlohmann::json dispatchesJson(const std::vector<DispatchSummary> &dispatches) {
  nlohmann::json out = nlohmann::json::array();
  for (const DispatchSummary &d : dispatches)
    out.push_back({{"id", d.id}, {"name", d.name}, {"op", d.op}, {"loc", d.loc},
                   {"backend", d.backend}, {"kind", d.kind}, {"reason", d.reason},
                   {"cluster", d.cluster}, {"fallbacks", d.fallbacks},
                   {"schedule", d.schedule}, {"launch", d.launch}, {"bytes", d.bytes},
                   {"flops", d.flops}, {"signature", d.signature}, {"math", d.math}});
  return out;
}

static std::string manifestJson(const ArtifactInfo &info,
                                const std::vector<std::string> &ralApis) {
  auto tensors = [](const std::vector<TensorSignature> &sigs) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto &sig : sigs) {
      list.push_back({{"dtype", sig.dtype}, {"shape", sig.shape}});
      if (!sig.specialized.empty())
        list.back()["specialized"] = sig.specialized;
    }
    return list;
  };
  nlohmann::json manifest = {
      {"version", LOUPE_MANIFEST_VERSION}, {"abi", LOUPE_RAL_ABI},
      {"ral_apis", ralApis},
      {"model", info.modelPath}, {"target", info.target},
      {"entry", info.entry},   {"inputs", tensors(info.inputs)},
      {"outputs", tensors(info.outputs)},
      {"dispatches", dispatchesJson(info.dispatches)},
  };
  if (info.weightBytes > 0)
    manifest["weights"] = {{"bytes", info.weightBytes}, {"constants", info.weights.size()}};
  if (!info.bufferPlan.empty()) {
    nlohmann::json &plan = manifest["buffer_plan"] = nlohmann::json::object();
    for (const auto &[name, value] : info.bufferPlan)
      plan[name] = value;
  }
  return manifest.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

/// Every RAL API name the module passes to ral_api_call (its second argument, a string global).
static std::vector<std::string> ralApiNames(llvm::Module &module) {
  std::vector<std::string> names;
  llvm::Function *apiCall = module.getFunction("ral_api_call");
  if (!apiCall)
    return names;
  for (llvm::User *user : apiCall->users()) {
    auto *call = llvm::dyn_cast<llvm::CallInst>(user);
    auto *global = call ? llvm::dyn_cast<llvm::GlobalVariable>(
                              call->getArgOperand(1)->stripPointerCasts())
                        : nullptr;
    auto *text = global && global->hasInitializer()
                     ? llvm::dyn_cast<llvm::ConstantDataArray>(global->getInitializer())
                     : nullptr;
    if (text && text->isCString())
      names.push_back(text->getAsCString().str());
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

/// Adds the artifact's exports: `void loupe_ral_entry(void *ctx)`, which calls the entry
/// function with the runtime's ExecutionContext, and the `loupe_manifest` string.
static bool addEntryAbi(llvm::Module &module, const ArtifactInfo &info, std::string &error) {
  llvm::Function *entry = module.getFunction(info.entry);
  if (!entry || entry->arg_size() != 1 || !entry->getArg(0)->getType()->isPointerTy()) {
    error = "LLVM module has no entry function @" + info.entry + "(ptr ctx)";
    return false;
  }
  llvm::LLVMContext &ctx = module.getContext();
  llvm::IRBuilder<> b(ctx);
  auto *wrapperTy = llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy()}, false);
  auto *wrapper = llvm::Function::Create(wrapperTy, llvm::GlobalValue::ExternalLinkage,
                                         LOUPE_RAL_ENTRY_SYMBOL, module);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", wrapper));
  b.CreateCall(entry, {wrapper->getArg(0)});
  b.CreateRetVoid();

  auto *text = llvm::ConstantDataArray::getString(
      ctx, manifestJson(info, ralApiNames(module)), /*AddNull=*/true);
  new llvm::GlobalVariable(module, text->getType(), /*isConstant=*/true,
                           llvm::GlobalValue::ExternalLinkage, text, LOUPE_MANIFEST_SYMBOL);
  return true;
}

static std::unique_ptr<llvm::TargetMachine> hostTargetMachine(std::string &error) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  std::string triple = llvm::sys::getProcessTriple();
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  llvm::SubtargetFeatures features;
  for (auto &feature : llvm::sys::getHostCPUFeatures())
    features.AddFeature(feature.first(), feature.second);
  llvm::TargetOptions options;
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      triple, llvm::sys::getHostCPUName(), features.getString(), options, llvm::Reloc::PIC_,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
}

static void optimize(llvm::Module &module, llvm::TargetMachine &tm) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(module, mam);
}

static bool emitFile(llvm::Module &module, llvm::TargetMachine &tm, llvm::CodeGenFileType type,
                     llvm::raw_pwrite_stream &os, std::string &error) {
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, os, nullptr, type)) {
    error = "the host target cannot emit this file type";
    return false;
  }
  pm.run(module);
  return true;
}

/// Finds the C compiler driver used as linker: $LOUPE_CC, cc, clang-19, gcc.
static std::string findLinker() {
  if (const char *env = std::getenv("LOUPE_CC"))
    return env;
  for (const char *name : {"cc", "clang-19", "gcc", "clang"})
    if (auto path = llvm::sys::findProgramByName(name))
      return *path;
  return "";
}

/// Writes the weight blob to `blobPath` and an assembly file to `asmPath` that places it in
/// section `.loupe.weights` under the exported symbol `loupe_weights` (ral_api.h), so the
/// linker copies the bytes into the shared object and LLVM never sees them.
static bool writeWeights(const ArtifactInfo &info, llvm::StringRef blobPath,
                         llvm::StringRef asmPath, std::string &error) {
  std::error_code ec;
  {
    llvm::raw_fd_ostream blob(blobPath, ec);
    int64_t at = 0;
    for (const WeightSlot &slot : info.weights) {
      blob.write_zeros(slot.offset - at);
      blob.write(slot.data.data(), slot.data.size());
      at = slot.offset + static_cast<int64_t>(slot.data.size());
    }
    blob.write_zeros(info.weightBytes - at);
    if (blob.has_error())
      ec = blob.error();
  }
  if (!ec) {
    llvm::raw_fd_ostream os(asmPath, ec);
    const char *symbol = LOUPE_RAL_WEIGHTS_SYMBOL;
    os << "\t.section .loupe.weights,\"a\",@progbits\n"
       << "\t.globl " << symbol << "\n\t.type " << symbol << ",@object\n"
       << "\t.balign 64\n" << symbol << ":\n"
       << "\t.incbin \"" << blobPath << "\"\n"
       << "\t.size " << symbol << ", " << info.weightBytes << "\n"
       << "\t.section .note.GNU-stack,\"\",@progbits\n";
  }
  if (ec)
    error = "cannot write the weight blob: " + ec.message();
  return !ec;
}

static bool link(llvm::ArrayRef<llvm::StringRef> inputs, const std::string &out,
                 std::string &command, std::string &error) {
  std::string linker = findLinker();
  if (linker.empty()) {
    error = "no C compiler driver to link the artifact (install gcc or clang-19, or set LOUPE_CC)";
    return false;
  }
  llvm::SmallVector<llvm::StringRef> args = {linker, "-shared", "-o", out};
  args.append(inputs.begin(), inputs.end());
  args.push_back("-lm");
  command = llvm::join(args, " ");
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(linker, args, std::nullopt, {}, 0, 0, &message);
  if (rc != 0) {
    error = "linking the artifact failed (" + command + "): " +
            (message.empty() ? "exit code " + std::to_string(rc) : message);
    return false;
  }
  return true;
}

bool loupe::compiler::emitArtifact(ModuleOp module, const ArtifactInfo &info, bool toArtifact,
                                   const std::string &outPath, SnapshotRecorder &recorder,
                                   std::string &finalIr, std::string &error) {
  llvm::LLVMContext llvmContext;
  auto start = Clock::now();
  module->removeAttr("ral.weights"); // captureWeights has it; LLVM does not need the bytes.
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "loupe_artifact");
  if (!llvmModule) {
    error = "translation of the LLVM dialect to LLVM IR failed";
    return false;
  }
  finalIr = printLlvm(*llvmModule);
  recorder.recordStep("llvm", "translate-to-llvmir", "module", nsSince(start),
                      IrKind::LlvmIr, finalIr);
  if (!toArtifact)
    return true;

  start = Clock::now();
  auto tm = hostTargetMachine(error);
  if (!tm)
    return false;
  llvmModule->setDataLayout(tm->createDataLayout());
  llvmModule->setTargetTriple(tm->getTargetTriple().str());
  if (!addEntryAbi(*llvmModule, info, error))
    return false;
  std::string verifyMessage;
  llvm::raw_string_ostream verifyStream(verifyMessage);
  if (llvm::verifyModule(*llvmModule, &verifyStream)) {
    error = "invalid LLVM IR after adding the entry ABI: " + verifyMessage;
    return false;
  }
  recorder.recordStep("artifact", "loupe-entry-abi", "module", nsSince(start), IrKind::LlvmIr,
                      printLlvm(*llvmModule));

  start = Clock::now();
  optimize(*llvmModule, *tm);
  finalIr = printLlvm(*llvmModule);
  recorder.recordStep("artifact", "llvm-O3", "module", nsSince(start), IrKind::LlvmIr, finalIr);

  start = Clock::now();
  llvm::SmallString<128> objectPath;
  int fd = -1;
  if (auto ec = llvm::sys::fs::createTemporaryFile("loupe-artifact", "o", fd, objectPath)) {
    error = "cannot create a temporary object file: " + ec.message();
    return false;
  }
  llvm::FileRemover removeObject(objectPath);
  std::string assembly;
  {
    llvm::raw_fd_ostream objectStream(fd, /*shouldClose=*/true);
    // The assembly is a second code generation: only for a compile that keeps snapshot text.
    if (recorder.keepsIrText()) {
      std::unique_ptr<llvm::Module> forAsm = llvm::CloneModule(*llvmModule);
      llvm::raw_string_ostream asmStream(assembly);
      llvm::buffer_ostream asmBuffer(asmStream);
      if (!emitFile(*forAsm, *tm, llvm::CodeGenFileType::AssemblyFile, asmBuffer, error))
        return false;
    }
    if (!emitFile(*llvmModule, *tm, llvm::CodeGenFileType::ObjectFile, objectStream, error))
      return false;
  }
  recorder.recordStep("artifact", "llvm-codegen", tm->getTargetCPU().str(), nsSince(start),
                      IrKind::Assembly, assembly);

  start = Clock::now();
  llvm::SmallVector<llvm::StringRef> inputs = {objectPath};
  llvm::SmallString<128> blobPath, asmPath;
  std::optional<llvm::FileRemover> removeBlob, removeAsm;
  if (info.weightBytes > 0) {
    if (auto ec = llvm::sys::fs::createTemporaryFile("loupe-weights", "bin", blobPath)) {
      error = "cannot create a temporary weight blob: " + ec.message();
      return false;
    }
    removeBlob.emplace(blobPath);
    if (auto ec = llvm::sys::fs::createTemporaryFile("loupe-weights", "s", asmPath)) {
      error = "cannot create a temporary assembly file: " + ec.message();
      return false;
    }
    removeAsm.emplace(asmPath);
    if (!writeWeights(info, blobPath, asmPath, error))
      return false;
    inputs.push_back(asmPath);
  }
  std::string command;
  if (!link(inputs, outPath, command, error))
    return false;
  recorder.recordStep("artifact", "link-shared-object", outPath, nsSince(start), IrKind::Text,
                      command + "\n\nloupe_manifest:\n" +
                          manifestJson(info, ralApiNames(*llvmModule)) + "\n");

  return true;
}
