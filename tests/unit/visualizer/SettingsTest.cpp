//===- SettingsTest.cpp - Settings folder and recent files --------------------===//
#include "loupe/visualizer/Settings.h"

#include "Fixtures.h"

#include <cstdlib>
#include <gtest/gtest.h>

using namespace loupe::visualizer;
using namespace loupe::visualizer::testing;

TEST(Settings, ConfigDirFollowsXdgConfigHome) {
  TempDir dir;
  const char *old = std::getenv("XDG_CONFIG_HOME");
  std::string saved = old ? old : "";
  setenv("XDG_CONFIG_HOME", dir.str().c_str(), 1);
  EXPECT_EQ(defaultConfigDir(), dir.str("loupe"));
  EXPECT_TRUE(std::filesystem::is_directory(dir.path() / "loupe"));
  setenv("XDG_CONFIG_HOME", "relative/path", 1); // not absolute: ignored
  setenv("HOME", dir.str().c_str(), 1);
  EXPECT_EQ(defaultConfigDir(), (dir.path() / ".config" / "loupe").string());
  if (old)
    setenv("XDG_CONFIG_HOME", saved.c_str(), 1);
  else
    unsetenv("XDG_CONFIG_HOME");
}

TEST(RecentFiles, MostRecentFirstWithoutDuplicatesAndPersisted) {
  TempDir dir;
  std::string file = dir.str("recent.txt");
  {
    RecentFiles recent(3);
    recent.load(file);
    recent.add(dir.str("a.onnx"));
    recent.add(dir.str("b.json"));
    recent.add(dir.str("a.onnx"));
    recent.add(dir.str("c.mlir"));
    recent.add(dir.str("d.mlir"));
    EXPECT_EQ(recent.paths(), (std::vector<std::string>{dir.str("d.mlir"), dir.str("c.mlir"),
                                                        dir.str("a.onnx")}));
  }
  RecentFiles again(3);
  again.load(file);
  EXPECT_EQ(again.paths().size(), 3u);
  EXPECT_EQ(again.paths()[0], dir.str("d.mlir"));
  again.remove(dir.str("c.mlir"));
  EXPECT_EQ(again.paths().size(), 2u);
}
