//===- OnnxModelsTest.cpp - Import + lower the ONNX test-data models ------===//
//
// Every pytorch-converted model is one parameterized test: it must import and
// lower to linalg unless it is listed in kPytorchUnsupported, with the reason.
// The node and pytorch-operator models are swept by one test each: an import
// may fail (with a message naming the file), but a model that imports must
// lower, and at least a minimum number must succeed. The example models of
// this repository must all import and lower.
//
//===----------------------------------------------------------------------===//

#include "FrontendTestUtils.h"
#include "loupe/Frontends/OnnxImporter.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>

namespace fs = std::filesystem;

namespace {

/// pytorch-converted models the importer rejects, with a substring of the
/// error (none at the moment).
const std::map<std::string, std::string> kPytorchUnsupported = {};

/// Sorted names of the model directories under `suite`.
std::vector<std::string> listModels(const std::string &suite) {
  std::vector<std::string> names;
  fs::path dir = fs::path(loupe::test::onnxTestDataDir()) / suite;
  std::error_code ec;
  for (const auto &entry : fs::directory_iterator(dir, ec))
    if (fs::exists(entry.path() / "model.onnx"))
      names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

struct Outcome {
  bool imported = false;
  bool lowered = false;
  std::string message;
};

Outcome importAndLower(const std::string &path) {
  mlir::MLIRContext ctx;
  Outcome outcome;
  auto module = loupe::frontends::importOnnxFile(path, ctx, outcome.message);
  outcome.imported = static_cast<bool>(module);
  if (module)
    outcome.lowered = mlir::succeeded(
        loupe::test::lowerTosaToLinalg(*module, outcome.message));
  return outcome;
}

std::string modelPath(const std::string &suite, const std::string &name) {
  return std::string(loupe::test::onnxTestDataDir()) + "/" + suite + "/" +
         name + "/model.onnx";
}

class PytorchConvertedTest : public ::testing::TestWithParam<std::string> {};

TEST_P(PytorchConvertedTest, ImportsAndLowers) {
  const std::string &name = GetParam();
  Outcome outcome = importAndLower(modelPath("pytorch-converted", name));
  auto unsupported = kPytorchUnsupported.find(name);
  if (unsupported != kPytorchUnsupported.end()) {
    EXPECT_FALSE(outcome.imported) << "now imports: update kPytorchUnsupported";
    EXPECT_NE(outcome.message.find(unsupported->second), std::string::npos)
        << outcome.message;
    return;
  }
  ASSERT_TRUE(outcome.imported) << outcome.message;
  EXPECT_TRUE(outcome.lowered) << outcome.message;
}

INSTANTIATE_TEST_SUITE_P(
    Models, PytorchConvertedTest,
    ::testing::ValuesIn(listModels("pytorch-converted")),
    [](const ::testing::TestParamInfo<std::string> &info) {
      return info.param.substr(info.param.find('_') + 1);
    });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(PytorchConvertedTest);

TEST(OnnxModelsTest, PytorchConvertedSupportedCount) {
  std::vector<std::string> models = listModels("pytorch-converted");
  if (models.empty())
    GTEST_SKIP() << "libonnx-testdata is not installed";
  EXPECT_GE(models.size() - kPytorchUnsupported.size(), 82u);
}

/// Imports and lowers every model of `suite`; failures to import are listed,
/// failures to lower after a successful import are test failures.
void sweep(const std::string &suite, size_t minimumLowered) {
  std::vector<std::string> models = listModels(suite);
  if (models.empty())
    GTEST_SKIP() << "libonnx-testdata is not installed";
  size_t lowered = 0;
  std::map<std::string, std::vector<std::string>> rejected; // reason -> models
  for (const std::string &name : models) {
    std::string path = modelPath(suite, name);
    Outcome outcome = importAndLower(path);
    if (!outcome.imported) {
      EXPECT_EQ(outcome.message.rfind(path + ": ", 0), 0u) << outcome.message;
      // Group by the message with the path and node name cut out.
      std::string reason = outcome.message.substr(path.size() + 2);
      if (auto node = reason.find(" (node '"); node != std::string::npos)
        reason = reason.substr(0, node);
      if (reason.rfind("node '", 0) == 0)
        reason = reason.substr(reason.find("' (") + 3);
      rejected[reason.substr(0, 100)].push_back(name);
      continue;
    }
    EXPECT_TRUE(outcome.lowered) << name << ": " << outcome.message;
    lowered += outcome.lowered;
  }
  std::cout << suite << ": " << lowered << " of " << models.size()
            << " models import and lower; rejected:\n";
  for (const auto &[reason, names] : rejected)
    std::cout << "  " << names.size() << " x " << reason << " (e.g. "
              << names.front() << ")\n";
  EXPECT_GE(lowered, minimumLowered);
}

TEST(OnnxModelsTest, NodeModels) { sweep("node", 629); }

TEST(OnnxModelsTest, PytorchOperatorModels) { sweep("pytorch-operator", 35); }

TEST(OnnxModelsTest, RepositoryExamples) {
  for (const char *name : {"mlp", "cnn", "transformer_block"}) {
    std::string path =
        std::string(LOUPE_SOURCE_DIR) + "/examples/models/" + name + ".onnx";
    Outcome outcome = importAndLower(path);
    EXPECT_TRUE(outcome.imported && outcome.lowered)
        << name << ": " << outcome.message;
  }
}

} // namespace
