//===- SessionTest.cpp - Session JSON v1/v2 validation ------------------------===//
#include "loupe/sessions/Session.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

using namespace loupe::sessions;

namespace {
std::string errorOf(const std::string &text) {
  auto s = parseSession(text, "/x/s.json");
  EXPECT_FALSE(s.isOk());
  return s.isOk() ? "" : s.status().message();
}

TEST(SessionTest, ParsesAndResolvesRelativePaths) {
  auto s = parseSession(R"({"loupe_session": 1, "name": "cnn", "model": "../m/cnn.onnx",
    "pipeline": {"target": "cpu", "phase_to": "lower"},
    "run": {"warmup": 1, "reps": 7, "seed": 3, "inputs": "d", "check": "/abs/d", "rtol": 0.1, "atol": 0.2}})",
                        "/work/s/cnn.json");
  ASSERT_TRUE(s.isOk()) << s.status().message();
  EXPECT_EQ(s->name, "cnn");
  EXPECT_EQ(s->model, "/work/m/cnn.onnx");
  EXPECT_EQ(s->pipeline.phaseTo, "lower");
  EXPECT_EQ(s->run.measure.reps, 7);
  EXPECT_EQ(s->run.seed, 3u);
  EXPECT_EQ(s->run.inputsDir, "/work/s/d");
  EXPECT_EQ(s->run.checkDir, "/abs/d");
  EXPECT_DOUBLE_EQ(s->run.atol, 0.2);
}

TEST(SessionTest, DefaultsAndNameFromFile) {
  auto s = parseSession(R"({"loupe_session": 1, "model": "m.mlir"})", "/a/demo.json");
  ASSERT_TRUE(s.isOk());
  EXPECT_EQ(s->name, "demo");
  EXPECT_EQ(s->pipeline.target, "cpu");
  EXPECT_TRUE(s->variants.empty());
  ASSERT_EQ(s->runList().size(), 1u);
  EXPECT_EQ(s->runList()[0].name, "base");
  EXPECT_EQ(s->run.measure.reps, kFileReps) << "the session format's value for a missing field";
  EXPECT_EQ(s->run.measure.warmupReps, kFileWarmupReps);
  EXPECT_EQ(RunSettings().measure.reps, 0) << "without a file: the profiler's defaults";
}

TEST(SessionTest, BadFilesGiveClearErrors) {
  EXPECT_NE(errorOf(R"({"loupe_session": 1, "model": "m", "run": {"repz": 3}})")
                .find("/x/s.json: /run/repz: unknown field 'repz'"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"loupe_session": 1, "modle": "m"})").find("missing required field 'model'"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"loupe_session": 1, "model": 3})").find("/model: field 'model' must be a string"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"loupe_session": 3, "model": "m"})").find("newer Loupe"), std::string::npos);
  EXPECT_NE(errorOf(R"({"model": "m"})").find("'loupe_session'"), std::string::npos);
  EXPECT_NE(errorOf(R"({"loupe_session": 1, "model": "m", "run": {"reps": -1}})").find("'reps' must be >= 1"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"loupe_session": 1, "model": "m", "run": []})").find("/run: must be an object"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"loupe_session": 1, "model": )").find("malformed JSON at byte"),
            std::string::npos);
  EXPECT_NE(errorOf("[1, 2]").find("the session must be a JSON object"), std::string::npos);
}

TEST(SessionTest, SaveRoundTrips) {
  auto dir = std::filesystem::temp_directory_path() / "loupe_session_test";
  std::filesystem::create_directories(dir / "models");
  Session s;
  s.name = "rt";
  s.model = (dir / "models" / "m.onnx").string();
  s.run.measure.reps = 5;
  s.run.inputsDir = (dir / "models" / "data").string();
  std::string path = (dir / "rt.json").string();
  ASSERT_TRUE(saveSession(s, path).isOk());
  EXPECT_NE(sessionToJson(s, path).find("\"models/m.onnx\""), std::string::npos)
      << "paths are stored relative to the session file";
  auto back = loadSession(path);
  ASSERT_TRUE(back.isOk()) << back.status().message();
  EXPECT_EQ(back->model, s.model);
  EXPECT_EQ(back->run.inputsDir, s.run.inputsDir);
  EXPECT_EQ(back->run.measure.reps, 5);
  std::filesystem::remove_all(dir);
}

/// A v2 session: two variants over the top level, compared.
const char *kVariants = R"({"loupe_session": 2, "model": "m.onnx",
  "pipeline": {"phase_to": "lower"},
  "run": {"warmup": 1, "reps": 10, "inputs": "data", "check": "data"},
  "variants": [
    {"name": "short"},
    {"name": "long", "run": {"reps": 30, "seed": 4, "inputs": "", "check": "other"}},
    {"name": "graph", "pipeline": {"phase_to": "graph"}}],
  "compare": ["short", "long"]})";

TEST(SessionTest, VariantsOverrideTheTopLevelFieldByField) {
  auto s = parseSession(kVariants, "/w/s.json");
  ASSERT_TRUE(s.isOk()) << s.status().message();
  ASSERT_EQ(s->variants.size(), 3u);
  const Variant &shortV = s->variants[0], &longV = s->variants[1], &graph = s->variants[2];
  EXPECT_EQ(shortV.name, "short");
  EXPECT_EQ(shortV.run, s->run);
  EXPECT_EQ(shortV.pipeline, s->pipeline);
  EXPECT_EQ(longV.run.measure.reps, 30);
  EXPECT_EQ(longV.run.measure.warmupReps, 1) << "inherited";
  EXPECT_EQ(longV.run.seed, 4u);
  EXPECT_EQ(longV.run.inputsDir, "") << "\"\" clears a path: random inputs";
  EXPECT_EQ(longV.run.checkDir, "/w/other") << "variant paths are relative to the file too";
  EXPECT_EQ(longV.pipeline.phaseTo, "lower");
  EXPECT_EQ(graph.pipeline.phaseTo, "graph");
  EXPECT_EQ(graph.run, s->run);
  EXPECT_EQ(s->compare, (std::vector<std::string>{"short", "long"}));
  // Replay runs the variants; "base" only when compared.
  std::vector<std::string> names;
  for (const Variant &v : s->runList())
    names.push_back(v.name);
  EXPECT_EQ(names, (std::vector<std::string>{"short", "long", "graph"}));
  EXPECT_TRUE(s->variant("base"));
  EXPECT_EQ(s->variant("base")->run, s->run);
  EXPECT_FALSE(s->variant("nope"));

  auto withBase = parseSession(R"({"loupe_session": 2, "model": "m", "variants": [{"name": "a",
    "run": {"reps": 3}}], "compare": ["base", "a"]})", "/w/t.json");
  ASSERT_TRUE(withBase.isOk()) << withBase.status().message();
  ASSERT_EQ(withBase->runList().size(), 2u);
  EXPECT_EQ(withBase->runList()[0].name, "base");
  EXPECT_EQ(withBase->runList()[1].run.measure.reps, 3);
}

TEST(SessionTest, BadVariantsAndComparesNameTheirPointer) {
  auto bad = [](const std::string &body) {
    return errorOf(R"({"loupe_session": 2, "model": "m", )" + body + "}");
  };
  auto has = [](const std::string &error, const std::string &part) {
    EXPECT_NE(error.find(part), std::string::npos) << "'" << part << "' not in: " << error;
  };
  has(bad(R"("variants": [{"name": "a"}, {"name": "b", "run": {"repz": 3}}])"),
      "/x/s.json: /variants/1/run/repz: unknown field 'repz'");
  has(bad(R"("variants": [{"name": "a", "pipeline": {"fuse": true}}])"),
      "/variants/0/pipeline/fuse: unknown field 'fuse'");
  has(bad(R"("variants": [{"name": "a", "colour": 1}])"), "/variants/0/colour: unknown field");
  has(bad(R"("variants": [{"run": {"reps": 3}}])"), "/variants/0: missing required field 'name'");
  has(bad(R"("variants": [{"name": ""}])"), "/variants/0/name: a variant needs a non-empty name");
  has(bad(R"("variants": [{"name": 7}])"), "/variants/0/name: field 'name' must be a string");
  has(bad(R"("variants": [{"name": "a"}, {"name": "b"}, {"name": "a"}])"),
      "/variants/2/name: duplicate variant name 'a' (also at /variants/0)");
  has(bad(R"("variants": [{"name": "base"}])"), "/variants/0/name: 'base' names the top-level");
  has(bad(R"("variants": {"name": "a"})"), "/variants: must be an array");
  has(bad(R"("variants": ["a"])"), "/variants/0: must be an object");
  has(bad(R"("variants": [{"name": "a", "run": {"reps": -1}}])"), "/variants/0/run/reps: 'reps' must be >= 1");
  has(bad(R"("variants": [{"name": "a", "run": {"warmup": -2}}])"), "/variants/0/run/warmup:");
  has(bad(R"("variants": [{"name": "a", "run": {"mode": "warm"}}])"), "/variants/0/run/mode:");
  has(bad(R"("variants": [{"name": "a", "run": {"min_reps": 5}}])"),
      "/variants/0/run/min_reps: 'min_reps' must be >= 10");
  has(bad(R"("variants": [{"name": "a", "run": {"noise": 0}}])"), "/variants/0/run/noise:");
  has(bad(R"("variants": [{"name": "a", "pipeline": {"target": 1}}])"),
      "/variants/0/pipeline/target: field 'target' must be a string");
  has(bad(R"("variants": [{"name": "a", "run": []}])"), "/variants/0/run: must be an object");
  has(bad(R"("variants": [{"name": "a"}], "compare": ["base", "b"])"),
      "/compare/1: unknown variant 'b' (the session has: base, a)");
  has(bad(R"("variants": [{"name": "a"}], "compare": ["a"])"), "/compare: must be two variant names");
  has(bad(R"("variants": [{"name": "a"}], "compare": "a")"), "/compare: must be two variant names");
  has(bad(R"("variants": [{"name": "a"}], "compare": ["a", 2])"), "/compare: must be two variant names");
  has(bad(R"("variants": [{"name": "a"}], "compare": ["a", "a"])"), "/compare/1: compares 'a' with itself");
  has(bad(R"("compare": ["base", "x"])"), "/compare/1: unknown variant 'x' (the session has: base)");
  // v1 has no variants.
  has(errorOf(R"({"loupe_session": 1, "model": "m", "variants": [{"name": "a"}]})"),
      "/variants: 'variants' needs \"loupe_session\": 2");
  has(errorOf(R"({"loupe_session": 1, "model": "m", "compare": ["base", "base"]})"),
      "/compare: 'compare' needs");
}

TEST(SessionTest, V1FilesSaveAsBeforeAndV2SavesOnlyOverrides) {
  auto dir = std::filesystem::temp_directory_path() / "loupe_session_v2_test";
  std::filesystem::create_directories(dir);
  std::string path = (dir / "s.json").string();
  auto v1 = parseSession(R"({"loupe_session": 1, "name": "n", "model": "m.onnx",
    "run": {"reps": 5, "inputs": "d"}})", path);
  ASSERT_TRUE(v1.isOk());
  EXPECT_EQ(sessionToJson(*v1, path), R"({
  "loupe_session": 1,
  "model": "m.onnx",
  "name": "n",
  "pipeline": {
    "phase_to": "artifact",
    "target": "cpu"
  },
  "run": {
    "atol": 1e-05,
    "inputs": "d",
    "reps": 5,
    "rtol": 0.001,
    "seed": 0,
    "warmup": 2
  }
}
)");

  auto v2 = parseSession(kVariants, path);
  ASSERT_TRUE(v2.isOk());
  ASSERT_TRUE(saveSession(*v2, path).isOk());
  std::string text = sessionToJson(*v2, path);
  EXPECT_NE(text.find("\"loupe_session\": 2"), std::string::npos);
  auto back = loadSession(path);
  ASSERT_TRUE(back.isOk()) << back.status().message() << "\n" << text;
  ASSERT_EQ(back->variants.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(back->variants[i].name, v2->variants[i].name);
    EXPECT_EQ(back->variants[i].run, v2->variants[i].run) << i;
    EXPECT_EQ(back->variants[i].pipeline, v2->variants[i].pipeline) << i;
  }
  EXPECT_EQ(back->compare, v2->compare);
  // Only what differs from the top level is written.
  auto doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc["variants"][0], nlohmann::json({{"name", "short"}}));
  EXPECT_EQ(doc["variants"][1]["run"],
            nlohmann::json({{"reps", 30}, {"seed", 4}, {"inputs", ""}, {"check", "other"}}));
  EXPECT_FALSE(doc["variants"][2].contains("run"));
  std::filesystem::remove_all(dir);
}

TEST(SessionTest, MeasuringFields) {
  // Adaptive sampling in both modes; optional fields are written only when not default.
  auto s = parseSession(R"({"loupe_session": 1, "model": "m.onnx", "run": {"warmup": -1,
      "reps": 0, "warmup_ms": 50, "max_ms": 800, "noise": 0.05, "mode": "both"}})",
                        "/w/s.json");
  ASSERT_TRUE(s.isOk()) << s.status().message();
  EXPECT_EQ(s->run.measure.warmupReps, -1);
  EXPECT_EQ(s->run.measure.reps, 0);
  EXPECT_EQ(s->run.measure.warmupMs, 50);
  EXPECT_EQ(s->run.measure.maxMs, 800);
  EXPECT_EQ(s->run.mode, "both");
  EXPECT_EQ(s->run.measure.minReps, 10);
  auto doc = nlohmann::json::parse(sessionToJson(*s, "/w/s.json"));
  EXPECT_EQ(doc["run"]["mode"], "both");
  EXPECT_EQ(doc["run"]["noise"], 0.05);
  EXPECT_FALSE(doc["run"].contains("min_reps"));
  auto config = nlohmann::json::parse(runConfigJson(s->pipeline, s->run));
  EXPECT_EQ(config["min_reps"], 10) << "configs hold every field";
  // An old session reads as before: exact counts, hot.
  auto old = parseSession(R"({"loupe_session": 1, "model": "m.onnx", "run": {"reps": 7}})",
                          "/w/s.json");
  ASSERT_TRUE(old.isOk());
  EXPECT_EQ(old->run.measure.reps, 7);
  EXPECT_EQ(old->run.measure.warmupReps, 2);
  EXPECT_EQ(old->run.mode, "hot");
  EXPECT_FALSE(nlohmann::json::parse(sessionToJson(*old, "/w/s.json"))["run"].contains("mode"));
}

TEST(SessionTest, RunConfigsBecomeVariants) {
  auto s = parseSession(kVariants, "/w/s.json");
  ASSERT_TRUE(s.isOk());
  const Variant &longV = s->variants[1];
  std::string config = runConfigJson(longV.pipeline, longV.run);
  auto config_doc = nlohmann::json::parse(config);
  EXPECT_EQ(config_doc["reps"], 30);
  EXPECT_EQ(config_doc["check"], "/w/other");
  EXPECT_FALSE(config_doc.contains("inputs")) << "empty paths are left out";
  auto v = variantFromRunConfig(*s, "again", config);
  ASSERT_TRUE(v.isOk()) << v.status().message();
  EXPECT_EQ(v->name, "again");
  EXPECT_EQ(v->run.measure.reps, 30);
  EXPECT_EQ(v->run.checkDir, "/w/other");
  EXPECT_EQ(v->run.inputsDir, "/w/data") << "a field the config lacks keeps the top level's";
  // Runs compile to the artifact; phase_to stays the session's.
  auto artifact = variantFromRunConfig(*s, "x", R"({"phase_to": "artifact", "reps": 3, "extra": 1})");
  ASSERT_TRUE(artifact.isOk());
  EXPECT_EQ(artifact->pipeline.phaseTo, "lower");
  EXPECT_FALSE(variantFromRunConfig(*s, "x", "{").isOk());
  auto wrong = variantFromRunConfig(*s, "x", R"({"reps": "many"})");
  ASSERT_FALSE(wrong.isOk());
  EXPECT_NE(wrong.status().message().find("/reps: field 'reps' must be an integer"), std::string::npos)
      << wrong.status().message();
}

TEST(SessionTest, BackendFieldsReadWriteAndOverrideInVariants) {
  auto dir = std::filesystem::temp_directory_path() / "loupe_session_backends_test";
  std::filesystem::create_directories(dir);
  std::string path = (dir / "b.json").string();
  auto s = parseSession(R"({"loupe_session": 2, "model": "m.onnx",
    "pipeline": {"backends": ["onednn", "codegen"], "overrides": {"conv1": "codegen"}},
    "variants": [{"name": "library"},
                 {"name": "codegen", "pipeline": {"backends": ["codegen"]}},
                 {"name": "fusion_off", "pipeline": {"fusion": false, "overrides": {}}}],
    "compare": ["library", "codegen"]})", path);
  ASSERT_TRUE(s.isOk()) << s.status().message();
  EXPECT_EQ(s->pipeline.backends, (std::vector<std::string>{"onednn", "codegen"}));
  EXPECT_TRUE(s->pipeline.fusion) << "default";
  EXPECT_EQ(s->pipeline.backendOverrides.at("conv1"), "codegen");
  const Variant &library = s->variants[0], &codegen = s->variants[1], &off = s->variants[2];
  EXPECT_EQ(library.pipeline, s->pipeline);
  EXPECT_EQ(codegen.pipeline.backends, std::vector<std::string>{"codegen"});
  EXPECT_EQ(codegen.pipeline.backendOverrides, s->pipeline.backendOverrides) << "inherited";
  EXPECT_FALSE(off.pipeline.fusion);
  EXPECT_TRUE(off.pipeline.backendOverrides.empty()) << "a variant's overrides replace the map";

  // Written back: the variants hold only what differs; the file reads the same.
  std::string text = sessionToJson(*s, path);
  auto doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc["pipeline"]["backends"], nlohmann::json({"onednn", "codegen"}));
  EXPECT_FALSE(doc["pipeline"].contains("fusion")) << "default left out of the top level";
  EXPECT_EQ(doc["variants"][1]["pipeline"], nlohmann::json({{"backends", {"codegen"}}}));
  EXPECT_EQ(doc["variants"][2]["pipeline"],
            nlohmann::json({{"fusion", false}, {"overrides", nlohmann::json::object()}}));
  ASSERT_TRUE(saveSession(*s, path).isOk());
  auto back = loadSession(path);
  ASSERT_TRUE(back.isOk()) << back.status().message() << "\n" << text;
  for (size_t i = 0; i < 3; ++i)
    EXPECT_EQ(back->variants[i].pipeline, s->variants[i].pipeline) << i;

  // A run's stored config holds every field, defaults included, and comes back as a variant.
  auto config = nlohmann::json::parse(runConfigJson(off.pipeline, off.run));
  EXPECT_EQ(config["fusion"], false);
  EXPECT_EQ(config["backends"], nlohmann::json({"onednn", "codegen"}));
  EXPECT_TRUE(config["overrides"].empty());
  auto v = variantFromRunConfig(*s, "again", config.dump());
  ASSERT_TRUE(v.isOk()) << v.status().message();
  EXPECT_EQ(v->pipeline.fusion, false);
  EXPECT_TRUE(v->pipeline.backendOverrides.empty());
  std::filesystem::remove_all(dir);
}

TEST(SessionTest, BadBackendsNameTheirPointer) {
  auto has = [](const std::string &error, const std::string &part) {
    EXPECT_NE(error.find(part), std::string::npos) << error;
  };
  has(errorOf(R"({"loupe_session": 1, "model": "m", "pipeline": {"backends": ["onednn", "cudaa"]}})"),
      "/x/s.json: /pipeline/backends/1: unknown backend 'cudaa' (known: codegen, onednn");
  has(errorOf(R"({"loupe_session": 1, "model": "m", "pipeline": {"backends": ["codegen", "codegen"]}})"),
      "/pipeline/backends/1: backend 'codegen' listed twice (also at /pipeline/backends/0)");
  has(errorOf(R"({"loupe_session": 1, "model": "m", "pipeline": {"backends": "codegen"}})"),
      "/pipeline/backends: field 'backends' must be an array of strings");
  has(errorOf(R"({"loupe_session": 1, "model": "m", "pipeline": {"fusion": "off"}})"),
      "/pipeline/fusion: field 'fusion' must be true or false");
  has(errorOf(R"({"loupe_session": 1, "model": "m", "pipeline": {"overrides": {"a/b": "blas"}}})"),
      "/pipeline/overrides/a~1b: unknown backend 'blas'");
  has(errorOf(R"({"loupe_session": 1, "model": "m", "pipeline": {"overrides": {"conv1": 3}}})"),
      "/pipeline/overrides: field 'overrides' must be an object of strings");
  has(errorOf(R"({"loupe_session": 2, "model": "m", "variants": [{"name": "a",
      "pipeline": {"backends": ["nope"]}}]})"),
      "/variants/0/pipeline/backends/0: unknown backend 'nope'");
}

TEST(SessionTest, MissingFileIsNotFound) {
  auto s = loadSession("/nonexistent/session.json");
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.status().code(), loupe::ral::StatusCode::kNotFound);
}
} // namespace
