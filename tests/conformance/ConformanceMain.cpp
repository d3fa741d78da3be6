//===- ConformanceMain.cpp - ONNX backend test data through the whole stack ----===//
//
// Compiles, runs and checks every model of Debian's libonnx-testdata in the four groups of the
// ONNX backend tests (node, pytorch-converted, pytorch-operator, simple: 1,072 models) against
// every test_data_set_N, prints one line per model, per-group counts and "N passed, M failed",
// and fails when fewer than --min-pass models pass (the ratchet). A model passes when it
// compiles and every data set checks.
//
// usage: loupe-conformance [--min-pass N] [--filter SUBSTRING] [--shard K/N]
//                          [--backends B1,B2] [--fusion off]
// (the backend flags as `loupe run`: the same models must pass under every backend choice;
// --shard K/N takes every N-th model starting at K, so ctest can run shards in parallel).
//
//===----------------------------------------------------------------------===//
#include "loupe/Backends/BackendRegistry.h"
#include "loupe/sessions/Runner.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace fs = std::filesystem;

static const char *kDataRoot = "/usr/share/libonnx-testdata/data";
static const char *kGroups[] = {"node", "pytorch-converted", "pytorch-operator", "simple"};

struct Case {
  std::string group;
  std::string name; ///< group/model
  fs::path model;
  std::vector<fs::path> dataSets; ///< test_data_set_N, in order
};

static std::vector<Case> collectCases(const std::string &filter) {
  std::vector<Case> cases;
  for (const char *group : kGroups) {
    fs::path root = fs::path(kDataRoot) / group;
    if (!fs::exists(root))
      continue;
    for (const auto &entry : fs::directory_iterator(root)) {
      Case c{group, std::string(group) + "/" + entry.path().filename().string(),
             entry.path() / "model.onnx", {}};
      if (!fs::exists(c.model) || (!filter.empty() && c.name.find(filter) == std::string::npos))
        continue;
      for (const auto &data : fs::directory_iterator(entry.path()))
        if (data.path().filename().string().rfind("test_data_set_", 0) == 0)
          c.dataSets.push_back(data.path());
      std::sort(c.dataSets.begin(), c.dataSets.end());
      cases.push_back(std::move(c));
    }
  }
  std::sort(cases.begin(), cases.end(), [](const Case &a, const Case &b) { return a.name < b.name; });
  return cases;
}

/// Compiles `model` for one data set (its shape-tensor inputs are specialized to the data
/// set's values), runs and checks it; returns the first failure's message, empty when it
/// passed.
static std::string runDataSet(const fs::path &model, const fs::path &data,
                              const std::vector<std::string> &backends, bool fusion) {
  loupe::sessions::RunRequest request;
  request.model = model.string();
  request.compile.keepIrText = false;
  request.compile.backends = backends;
  request.compile.fusion = fusion;
  request.run.measure.warmupReps = 0;
  request.run.measure.reps = 1;
  request.run.inputsDir = data.string();
  request.run.checkDir = data.string();
  // The ONNX backend tests' own tolerances (onnx/backend/test/runner: rtol 1e-3, atol 1e-7).
  request.run.rtol = 1e-3;
  request.run.atol = 1e-5;
  loupe::sessions::RunOutcome outcome = loupe::sessions::runModel(request);
  if (outcome.compile && !outcome.artifactPath.empty())
    fs::remove(outcome.artifactPath);
  std::string why = outcome.error;
  for (const auto &check : outcome.checks)
    if (!check.record.passed && why.empty())
      why = check.message;
  if (outcome.exitCode != loupe::sessions::kExitOk && why.empty())
    why = "exit " + std::to_string(outcome.exitCode);
  if (outcome.exitCode == loupe::sessions::kExitOk)
    return {};
  std::string firstLine = why.substr(0, why.find('\n'));
  return data.filename().string() + ": " + firstLine;
}

int main(int argc, char **argv) {
  int minPass = 0, shard = 0, shards = 1;
  std::string filter;
  std::vector<std::string> backends;
  bool fusion = true;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--min-pass") && i + 1 < argc)
      minPass = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--filter") && i + 1 < argc)
      filter = argv[++i];
    else if (!std::strcmp(argv[i], "--shard") && i + 1 < argc &&
             std::sscanf(argv[i + 1], "%d/%d", &shard, &shards) == 2 && shards > 0 &&
             shard >= 0 && shard < shards)
      ++i;
    else if (!std::strcmp(argv[i], "--backends") && i + 1 < argc)
      backends = loupe::backends::parseBackendList(argv[++i]);
    else if (!std::strcmp(argv[i], "--fusion") && i + 1 < argc)
      fusion = std::strcmp(argv[++i], "off") != 0;
    else {
      std::fprintf(stderr,
                   "usage: %s [--min-pass N] [--filter SUBSTRING] [--shard K/N] "
                   "[--backends B1,B2] [--fusion on|off]\n",
                   argv[0]);
      return 2;
    }
  }
  if (!fs::exists(kDataRoot)) {
    std::fprintf(stderr, "%s is missing: install libonnx-testdata (./x setup)\n", kDataRoot);
    return 2;
  }

  std::vector<Case> cases = collectCases(filter);
  std::map<std::string, std::pair<int, int>> perGroup; // group -> (passed, failed)
  int passed = 0, failed = 0;
  for (size_t i = shard; i < cases.size(); i += shards) {
    const Case &c = cases[i];
    std::string why = c.dataSets.empty() ? "no test_data_set_N" : "";
    for (const fs::path &data : c.dataSets)
      if (!(why = runDataSet(c.model, data, backends, fusion)).empty())
        break;
    bool ok = why.empty();
    (ok ? passed : failed)++;
    (ok ? perGroup[c.group].first : perGroup[c.group].second)++;
    std::printf("%-4s %s%s%s\n", ok ? "ok" : "FAIL", c.name.c_str(), ok ? "" : ": ", why.c_str());
    std::fflush(stdout);
  }
  for (const auto &[group, counts] : perGroup)
    std::printf("%s: %d/%d\n", group.c_str(), counts.first, counts.first + counts.second);
  std::printf("%d passed, %d failed\n", passed, failed);
  if (passed < minPass) {
    std::fprintf(stderr, "conformance regressed: %d passed, the ratchet requires %d\n", passed,
                 minPass);
    return 1;
  }
  return 0;
}
