//===- SessionTest.cpp - Session JSON v1 validation ----------------------------===//
#include "loupe/sessions/Session.h"

#include <gtest/gtest.h>

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
  EXPECT_EQ(s->phaseTo, "lower");
  EXPECT_EQ(s->run.reps, 7);
  EXPECT_EQ(s->run.seed, 3u);
  EXPECT_EQ(s->run.inputsDir, "/work/s/d");
  EXPECT_EQ(s->run.checkDir, "/abs/d");
  EXPECT_DOUBLE_EQ(s->run.atol, 0.2);
}

TEST(SessionTest, DefaultsAndNameFromFile) {
  auto s = parseSession(R"({"loupe_session": 1, "model": "m.mlir"})", "/a/demo.json");
  ASSERT_TRUE(s.isOk());
  EXPECT_EQ(s->name, "demo");
  EXPECT_EQ(s->target, "cpu");
  EXPECT_EQ(s->run.reps, 20);
}

TEST(SessionTest, BadFilesGiveClearErrors) {
  EXPECT_NE(errorOf(R"({"loupe_session": 1, "model": "m", "run": {"repz": 3}})")
                .find("/x/s.json: /run/repz: unknown field 'repz'"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"loupe_session": 1, "modle": "m"})").find("missing required field 'model'"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"loupe_session": 1, "model": 3})").find("/model: field 'model' must be a string"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"loupe_session": 2, "model": "m"})").find("newer Loupe"), std::string::npos);
  EXPECT_NE(errorOf(R"({"model": "m"})").find("'loupe_session'"), std::string::npos);
  EXPECT_NE(errorOf(R"({"loupe_session": 1, "model": "m", "run": {"reps": 0}})").find("'reps' must be >= 1"),
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
  s.run.reps = 5;
  s.run.inputsDir = (dir / "models" / "data").string();
  std::string path = (dir / "rt.json").string();
  ASSERT_TRUE(saveSession(s, path).isOk());
  EXPECT_NE(sessionToJson(s, path).find("\"models/m.onnx\""), std::string::npos)
      << "paths are stored relative to the session file";
  auto back = loadSession(path);
  ASSERT_TRUE(back.isOk()) << back.status().message();
  EXPECT_EQ(back->model, s.model);
  EXPECT_EQ(back->run.inputsDir, s.run.inputsDir);
  EXPECT_EQ(back->run.reps, 5);
  std::filesystem::remove_all(dir);
}

TEST(SessionTest, MissingFileIsNotFound) {
  auto s = loadSession("/nonexistent/session.json");
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.status().code(), loupe::ral::StatusCode::kNotFound);
}
} // namespace
