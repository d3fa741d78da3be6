//===- FileDialogTest.cpp - Our file chooser: listing, filter, navigation -----===//
#include "loupe/visualizer/panels/FileDialog.h"

#include "Fixtures.h"
#include "ImGuiHarness.h"

#include <fstream>
#include <gtest/gtest.h>

using namespace loupe::visualizer;
using namespace loupe::visualizer::testing;
namespace fs = std::filesystem;

namespace {
void touch(const fs::path &p) { std::ofstream(p) << "x"; }

std::vector<std::string> names(const FileDialog &d) {
  std::vector<std::string> out;
  for (const auto &e : d.entries())
    out.push_back(e.directory ? e.name + "/" : e.name);
  return out;
}

struct Tree {
  TempDir dir;
  Tree() {
    fs::create_directories(dir.path() / "models");
    fs::create_directories(dir.path() / "a_dir");
    touch(dir.path() / "b.mlir");
    touch(dir.path() / "a.onnx");
    touch(dir.path() / "s.json");
    touch(dir.path() / "notes.txt");
    touch(dir.path() / "UPPER.MLIR");
    touch(dir.path() / ".hidden.mlir");
    touch(dir.path() / "models" / "cnn.onnx");
  }
};
} // namespace

TEST(FileDialog, ListsFoldersFirstThenMatchingFiles) {
  Tree t;
  FileDialog d;
  d.open(FileDialog::Mode::OpenFile, "Open", {".mlir", ".onnx", ".json"}, t.dir.str());
  EXPECT_EQ(names(d), (std::vector<std::string>{"a_dir/", "models/", "UPPER.MLIR", "a.onnx",
                                                "b.mlir", "s.json"}));
  d.setShowHidden(true);
  EXPECT_NE(std::find(names(d).begin(), names(d).end(), ".hidden.mlir"), names(d).end());
  FileDialog all;
  all.open(FileDialog::Mode::OpenFile, "Open", {}, t.dir.str());
  EXPECT_EQ(all.entries().size(), 7u); // + notes.txt
}

TEST(FileDialog, NavigatesAndPicks) {
  Tree t;
  FileDialog d;
  d.open(FileDialog::Mode::OpenFile, "Open", {".onnx"}, t.dir.str());
  EXPECT_FALSE(d.activate("models"));
  EXPECT_EQ(fs::path(d.directory()), t.dir.path() / "models");
  EXPECT_EQ(names(d), (std::vector<std::string>{"cnn.onnx"}));
  EXPECT_FALSE(d.activate(".."));
  EXPECT_EQ(fs::path(d.directory()), t.dir.path());
  EXPECT_TRUE(d.activate("a.onnx"));
  EXPECT_EQ(fs::path(d.result()), t.dir.path() / "a.onnx");
  EXPECT_FALSE(d.isOpen());
  EXPECT_FALSE(d.setDirectory(t.dir.str("nope")));
  EXPECT_FALSE(d.error().empty());
}

TEST(FileDialog, SaveAndChooseFolder) {
  Tree t;
  FileDialog save;
  save.open(FileDialog::Mode::SaveFile, "Save", {".json"}, t.dir.str(), "mine.json");
  EXPECT_TRUE(save.confirm());
  EXPECT_EQ(fs::path(save.result()), t.dir.path() / "mine.json");
  FileDialog folder;
  folder.open(FileDialog::Mode::ChooseFolder, "Inputs", {}, t.dir.str());
  EXPECT_EQ(names(folder), (std::vector<std::string>{"a_dir/", "models/"}));
  folder.activate("models");
  EXPECT_TRUE(folder.confirm());
  EXPECT_EQ(fs::path(folder.result()), t.dir.path() / "models");
}

TEST(FileDialog, DrawsAsAModalAndReportsTheChoiceOnce) {
  Tree t;
  FileDialog d;
  ImGuiHarness ui;
  d.open(FileDialog::Mode::OpenFile, "Open a model", {".mlir"}, t.dir.str());
  int chosen = 0;
  auto draw = [&] { chosen += d.draw(); };
  ui.frames(3, draw);
  EXPECT_TRUE(d.isOpen());
  EXPECT_EQ(chosen, 0);
  d.activate("b.mlir");
  ui.frames(2, draw);
  EXPECT_EQ(chosen, 1);
  EXPECT_FALSE(d.isOpen());
}
