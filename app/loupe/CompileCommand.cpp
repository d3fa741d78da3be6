//===- CompileCommand.cpp - loupe compile ------------------------------------===//
#include "BackendFlags.h"
#include "CommandLine.h"
#include "loupe/Commands.h"

#include "loupe/Pipelines/Compiler.h"
#include "loupe/ral/TensorIO.h"
#include "loupe/sessions/Runner.h"
#include "loupe/sessions/Tune.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace fs = std::filesystem;
using namespace loupe::compiler;

namespace loupe::app {

static const char *extensionFor(IrKind kind) {
  switch (kind) {
  case IrKind::Mlir: return ".mlir";
  case IrKind::LlvmIr: return ".ll";
  case IrKind::Assembly: return ".s";
  case IrKind::Text: return ".txt";
  }
  return ".txt";
}

/// True for a file an earlier dump wrote: "NNN-phase-pass.ext" or index.json.
static bool isDumpFile(const fs::path &file) {
  std::string name = file.filename().string();
  return name == "index.json" ||
         (name.size() > 4 && std::isdigit(name[0]) && std::isdigit(name[1]) &&
          std::isdigit(name[2]) && name[3] == '-');
}

/// Writes one numbered file per pass ("007-lower-one-shot-bufferize.mlir") and index.json,
/// after removing an earlier dump's files (other files stay). A pass that left the IR
/// unchanged gets a one-line file naming the snapshot it equals.
static bool writeDumpDir(const CompileResult &result, const std::string &dir, std::string &error) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    error = dir + ": cannot create dump directory: " + ec.message();
    return false;
  }
  for (const auto &entry : fs::directory_iterator(dir, ec))
    if (entry.is_regular_file() && isDumpFile(entry.path()))
      fs::remove(entry.path(), ec);
  nlohmann::json index = nlohmann::json::array();
  std::string lastChangedFile;
  for (const PassSnapshot &s : result.snapshots) {
    char prefix[16];
    std::snprintf(prefix, sizeof prefix, "%03d-", s.index);
    std::string file = prefix + s.phase + "-" + s.pass + extensionFor(s.irKind);
    std::ofstream out(fs::path(dir) / file, std::ios::binary | std::ios::trunc);
    if (s.changed)
      out << s.ir;
    else
      out << "// unchanged: the IR is identical to " << lastChangedFile << "\n";
    if (!out) {
      error = (fs::path(dir) / file).string() + ": write failed";
      return false;
    }
    if (s.changed)
      lastChangedFile = file;
    index.push_back({{"index", s.index},
                     {"pass", s.pass},
                     {"options", s.options},
                     {"phase", s.phase},
                     {"anchor", s.anchor},
                     {"duration_ns", s.durationNs},
                     {"ir_hash", s.irHash},
                     {"changed", s.changed},
                     {"failed", s.failed},
                     {"ir_kind", irKindName(s.irKind)},
                     {"file", file},
                     {"ir_file", s.changed ? file : lastChangedFile}});
  }
  std::ofstream out(fs::path(dir) / "index.json", std::ios::binary | std::ios::trunc);
  out << nlohmann::json{{"passes", index}, {"total_ns", result.totalNs},
                        {"last_phase", result.lastPhase}}
             .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
      << "\n";
  return true;
}

int compileCommand(int argc, char **argv, int first) {
  std::set<std::string> valued = {"--target", "--gpu-arch", "--phase-to", "--dump-dir", "--emit", "-o",
                                  "--inputs", "--db"};
  valued.merge(backendFlagNames());
  CommandLine cl(valued, {});
  std::string error;
  CompileOptions options;
  if (!cl.parse(argc, argv, first, error) || cl.positionals().size() != 1 ||
      !applyBackendFlags(cl, options, error)) {
    std::fprintf(stderr, "loupe compile: %s\n",
                 error.empty() ? "expected exactly one MODEL" : error.c_str());
    return 2;
  }
  options.target = cl.get("--target", "cpu");
  options.gpuArch = cl.get("--gpu-arch", options.gpuArch);
  if (!isGpuArch(options.gpuArch)) {
    std::fprintf(stderr, "loupe compile: --gpu-arch must be sm_80 or sm_90, not '%s'\n",
                 options.gpuArch.c_str());
    return 2;
  }
  if (ral::Status s = sessions::resolveTunedBackends(options, cl.get("--db")); !s) {
    std::fprintf(stderr, "loupe compile: --backends auto: %s\n", s.message().c_str());
    return 2;
  }
  std::string emit = cl.get("--emit", "artifact");
  if (emit != "mlir" && emit != "llvm" && emit != "ptx" && emit != "artifact") {
    std::fprintf(stderr, "loupe compile: --emit must be mlir, llvm, ptx or artifact\n");
    return 2;
  }
  if (emit == "ptx" && options.target != "cuda") {
    std::fprintf(stderr, "loupe compile: --emit ptx needs --target cuda\n");
    return 2;
  }
  // --emit picks the default last phase; --phase-to overrides it.
  options.phaseTo = cl.get("--phase-to", emit == "mlir"  ? "lower"
                                         : emit == "llvm" ? "llvm"
                                         : emit == "ptx"  ? "ral"
                                                          : "artifact");
  if (!isPhase(options.phaseTo)) {
    std::fprintf(stderr, "loupe compile: unknown phase '%s'\n", options.phaseTo.c_str());
    return 2;
  }
  std::string out = cl.get("-o");
  if (emit == "artifact" && options.phaseTo == "artifact")
    options.artifactPath = out.empty() ? fs::path(cl.positionals()[0]).stem().string() + ".so" : out;
  options.keepIrText = cl.has("--dump-dir") || emit != "artifact";
  // The tensors a run will feed bind free dims and shape-tensor inputs, as in `loupe run`.
  if (cl.has("--inputs")) {
    auto inputs = ral::readTensorDir(cl.get("--inputs"), "input");
    if (!inputs) {
      std::fprintf(stderr, "loupe compile: %s\n", inputs.status().message().c_str());
      return 2;
    }
    sessions::bindInputTensors(options, *inputs);
  }

  CompileResult result = compileModel(cl.positionals()[0], options);
  if (cl.has("--dump-dir") && !writeDumpDir(result, cl.get("--dump-dir"), error)) {
    std::fprintf(stderr, "loupe compile: %s\n", error.c_str());
    return 2;
  }
  if (!result.ok()) {
    std::fprintf(stderr, "loupe compile: %s\n", result.error->message.c_str());
    return result.error->kind == CompileError::Kind::BadInput ? 2 : 3;
  }
  for (const std::string &w : result.warnings)
    std::fprintf(stderr, "loupe compile: warning: %s\n", w.c_str());
  int changed = 0;
  for (const auto &s : result.snapshots)
    changed += s.changed;
  std::string cache = result.cache.empty() ? "" : result.cache == "miss" ? " (compile cache: miss, stored)"
                                                                      : " (compile cache: " + result.cache + " hit)";
  std::fprintf(stderr, "compiled %s: %zu passes (%d changed the IR) through phase '%s' in %.1f ms%s\n",
               cl.positionals()[0].c_str(), result.snapshots.size(), changed,
               result.lastPhase.c_str(), result.totalNs / 1e6, cache.c_str());
  if (!result.artifactPath.empty() && emit == "artifact") {
    std::fprintf(stderr, "artifact: %s\n", result.artifactPath.c_str());
    return 0;
  }
  const std::string &text = emit == "ptx" ? result.ptx : result.finalIr;
  if (emit == "ptx" && text.empty()) {
    std::fprintf(stderr, "loupe compile: no PTX: --phase-to must reach 'ral'\n");
    return 2;
  }
  if (out.empty()) {
    std::cout << text;
  } else {
    std::ofstream file(out, std::ios::binary | std::ios::trunc);
    file << text;
    if (!file) {
      std::fprintf(stderr, "loupe compile: %s: write failed\n", out.c_str());
      return 2;
    }
  }
  return 0;
}

} // namespace loupe::app
