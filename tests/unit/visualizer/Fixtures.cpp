//===- Fixtures.cpp - Shared inputs of the visualizer tests -------------------===//
#include "Fixtures.h"

#include <chrono>
#include <map>
#include <random>

namespace loupe::visualizer::testing {

std::string mlpTosaPath() { return std::string(LOUPE_SOURCE_DIR) + "/examples/models/mlp_tosa.mlir"; }

std::shared_ptr<const CompileView> mlpTosaCompile(const std::string &phaseTo) {
  static std::map<std::string, std::shared_ptr<const CompileView>> cache;
  auto &slot = cache[phaseTo];
  if (!slot) {
    compiler::CompileOptions options;
    options.phaseTo = phaseTo;
    options.keepIrText = true;
    compiler::CompileResult result = compiler::compileModel(mlpTosaPath(), options);
    slot = makeCompileView(mlpTosaPath(), options, std::move(result), 0, 0);
  }
  return slot;
}

std::shared_ptr<const CompileView> cnnCompile() {
  static const std::shared_ptr<const CompileView> view = [] {
    compiler::CompileOptions options;
    options.keepIrText = false;
    std::string model = std::string(LOUPE_SOURCE_DIR) + "/examples/models/cnn.onnx";
    return makeCompileView(model, options, compiler::compileModel(model, options), 0, 0);
  }();
  return view;
}

ViewModel mlpTosaViewModel() {
  ViewModel vm;
  vm.session.model = mlpTosaPath();
  vm.session.name = "mlp_tosa";
  vm.session.pipeline.phaseTo = "llvm";
  vm.compile = mlpTosaCompile("llvm");
  vm.selectPass(0);
  return vm;
}

TempDir::TempDir() {
  std::mt19937_64 rng(std::chrono::steady_clock::now().time_since_epoch().count());
  path_ = std::filesystem::temp_directory_path() /
          ("loupe-visualizer-test-" + std::to_string(rng() % 1000000000));
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

} // namespace loupe::visualizer::testing
