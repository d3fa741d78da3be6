//===- ConformanceMain.cpp - ONNX backend test data through the whole stack ----===//
//
// Compiles, runs and checks every selected model of Debian's libonnx-testdata
// (pytorch-converted/* and the node/* tests of supported ops), prints one line per model and
// "N passed, M failed", and fails when fewer than --min-pass models pass (the ratchet).
//
// usage: loupe-conformance [--min-pass N] [--filter SUBSTRING] [--backends B1,B2] [--fusion off]
// (the backend flags as `loupe run`: the same models must pass under every backend choice).
//
//===----------------------------------------------------------------------===//
#include "loupe/Backends/BackendRegistry.h"
#include "loupe/sessions/Runner.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace fs = std::filesystem;

static const char *kDataRoot = "/usr/share/libonnx-testdata/data";

/// node/ tests are selected by op name prefix: the ops issue #2 requires, and their relatives.
static const char *kNodePrefixes[] = {
    "test_gemm",        "test_matmul",     "test_conv_",      "test_basic_conv",
    "test_relu",        "test_sigmoid",    "test_tanh",       "test_softmax",
    "test_logsoftmax",  "test_batchnorm",  "test_maxpool",    "test_averagepool",
    "test_globalaveragepool", "test_flatten", "test_reshape", "test_add",
    "test_mul",         "test_sub",        "test_div",        "test_erf",
    "test_layer_normalization", "test_transpose", "test_concat", "test_reduce_mean",
    "test_reduce_sum",  "test_reduce_max", "test_constant",   "test_exp",
    "test_log",         "test_sqrt",       "test_neg",        "test_abs",
    "test_identity",    "test_squeeze",    "test_unsqueeze",  "test_clip",
    "test_leakyrelu",   "test_prelu",      "test_elu",        "test_selu",
    "test_pow",         "test_softplus",   "test_softsign",   "test_gelu",
};

struct Case {
  std::string name;
  fs::path model;
  fs::path data;
};

static std::vector<Case> collectCases(const std::string &filter) {
  std::vector<Case> cases;
  auto add = [&](const fs::path &dir, const std::string &group) {
    fs::path data = dir / "test_data_set_0";
    if (!fs::exists(dir / "model.onnx") || !fs::exists(data))
      return;
    std::string name = group + "/" + dir.filename().string();
    if (filter.empty() || name.find(filter) != std::string::npos)
      cases.push_back({name, dir / "model.onnx", data});
  };
  for (const auto &entry : fs::directory_iterator(fs::path(kDataRoot) / "pytorch-converted"))
    add(entry.path(), "pytorch-converted");
  for (const auto &entry : fs::directory_iterator(fs::path(kDataRoot) / "node")) {
    std::string name = entry.path().filename().string();
    for (const char *prefix : kNodePrefixes)
      if (name.rfind(prefix, 0) == 0) {
        add(entry.path(), "node");
        break;
      }
  }
  std::sort(cases.begin(), cases.end(), [](const Case &a, const Case &b) { return a.name < b.name; });
  return cases;
}

int main(int argc, char **argv) {
  int minPass = 0;
  std::string filter;
  std::vector<std::string> backends;
  bool fusion = true;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--min-pass") && i + 1 < argc)
      minPass = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--filter") && i + 1 < argc)
      filter = argv[++i];
    else if (!std::strcmp(argv[i], "--backends") && i + 1 < argc)
      backends = loupe::backends::parseBackendList(argv[++i]);
    else if (!std::strcmp(argv[i], "--fusion") && i + 1 < argc)
      fusion = std::strcmp(argv[++i], "off") != 0;
    else {
      std::fprintf(stderr,
                   "usage: %s [--min-pass N] [--filter SUBSTRING] [--backends B1,B2] "
                   "[--fusion on|off]\n",
                   argv[0]);
      return 2;
    }
  }
  if (!fs::exists(kDataRoot)) {
    std::fprintf(stderr, "%s is missing: install libonnx-testdata (./x setup)\n", kDataRoot);
    return 2;
  }

  std::vector<Case> cases = collectCases(filter);
  int passed = 0, failed = 0;
  for (const Case &c : cases) {
    loupe::sessions::RunRequest request;
    request.model = c.model.string();
    request.compile.keepIrText = false;
    request.compile.backends = backends;
    request.compile.fusion = fusion;
    request.run.warmup = 0;
    request.run.reps = 1;
    request.run.inputsDir = c.data.string();
    request.run.checkDir = c.data.string();
    // The ONNX backend tests' own tolerances (onnx/backend/test/runner: rtol 1e-3, atol 1e-7).
    request.run.rtol = 1e-3;
    request.run.atol = 1e-5;
    loupe::sessions::RunOutcome outcome = loupe::sessions::runModel(request);
    std::string why = outcome.error;
    for (const auto &check : outcome.checks)
      if (!check.record.passed && why.empty())
        why = check.message;
    bool ok = outcome.exitCode == loupe::sessions::kExitOk;
    (ok ? passed : failed)++;
    std::string firstLine = why.substr(0, why.find('\n'));
    std::printf("%-4s %s%s%s\n", ok ? "ok" : "FAIL", c.name.c_str(), ok ? "" : ": ",
                firstLine.c_str());
    if (!outcome.artifactPath.empty() && outcome.compile)
      fs::remove(outcome.artifactPath);
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  if (passed < minPass) {
    std::fprintf(stderr, "conformance regressed: %d passed, the ratchet requires %d\n", passed,
                 minPass);
    return 1;
  }
  return 0;
}
