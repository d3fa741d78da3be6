//===- Fixtures.h - Shared inputs of the visualizer tests ---------*- C++ -*-===//
#ifndef LOUPE_TESTS_VISUALIZER_FIXTURES_H
#define LOUPE_TESTS_VISUALIZER_FIXTURES_H

#include "loupe/visualizer/Actions.h"
#include "loupe/visualizer/ViewModel.h"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace loupe::visualizer::testing {

/// examples/models/mlp_tosa.mlir
std::string mlpTosaPath();
/// A real compile (keepIrText) of mlp_tosa.mlir up to `phaseTo`, made once per process.
std::shared_ptr<const CompileView> mlpTosaCompile(const std::string &phaseTo = "llvm");
/// A view model showing that compile, as the Controller would set it up.
ViewModel mlpTosaViewModel();
/// A real artifact compile (no IR text) of examples/models/cnn.onnx, made once per process.
std::shared_ptr<const CompileView> cnnCompile();

/// Records what panels ask for.
class RecordingActions : public Actions {
public:
  bool open(const std::string &path) override { opened.push_back(path); return true; }
  void compile() override { ++compiles; }
  void run() override { ++runs; }
  void cancelRun() override { ++cancels; }
  void refreshRuns() override { ++refreshes; }
  void loadProfile(int64_t runId) override { profiles.push_back(runId); }
  void compareRuns(int64_t baseline, int64_t candidate, double threshold) override {
    comparisons.push_back({baseline, candidate});
    (void)threshold;
  }
  void compareVariants(const std::string &baseline, const std::string &candidate,
                       double threshold) override {
    variantComparisons.push_back({baseline, candidate});
    (void)threshold;
  }
  void compileCompared() override { ++crossCompiles; }
  void runVariants(const std::string &baseline, const std::string &candidate) override {
    variantRuns.push_back({baseline, candidate});
  }
  std::vector<std::string> opened;
  int compiles = 0, runs = 0, cancels = 0, refreshes = 0, crossCompiles = 0;
  std::vector<int64_t> profiles;
  std::vector<std::pair<int64_t, int64_t>> comparisons;
  std::vector<std::pair<std::string, std::string>> variantComparisons, variantRuns;
};

/// A fresh temporary directory, removed with the object.
class TempDir {
public:
  TempDir();
  ~TempDir();
  const std::filesystem::path &path() const { return path_; }
  std::string str(const std::string &child = "") const {
    return child.empty() ? path_.string() : (path_ / child).string();
  }

private:
  std::filesystem::path path_;
};

} // namespace loupe::visualizer::testing

#endif // LOUPE_TESTS_VISUALIZER_FIXTURES_H
