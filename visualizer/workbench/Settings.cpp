//===- Settings.cpp - Where the workbench keeps its settings -----------------===//
#include "loupe/visualizer/Settings.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace loupe::visualizer {

std::string defaultConfigDir() {
  fs::path dir;
  const char *xdg = std::getenv("XDG_CONFIG_HOME");
  const char *home = std::getenv("HOME");
  if (xdg && *xdg && fs::path(xdg).is_absolute())
    dir = fs::path(xdg) / "loupe";
  else if (home && *home)
    dir = fs::path(home) / ".config" / "loupe";
  else
    return "";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    return "";
  return dir.string();
}

void RecentFiles::load(const std::string &file) {
  file_ = file;
  paths_.clear();
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line) && paths_.size() < capacity_)
    if (!line.empty() && std::find(paths_.begin(), paths_.end(), line) == paths_.end())
      paths_.push_back(line);
}

void RecentFiles::save() const {
  if (file_.empty())
    return;
  std::string tmp = file_ + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!out)
      return;
    for (const std::string &p : paths_)
      out << p << '\n';
  }
  std::error_code ec;
  fs::rename(tmp, file_, ec);
}

void RecentFiles::add(const std::string &path) {
  std::error_code ec;
  fs::path abs = fs::absolute(path, ec);
  std::string p = ec ? path : abs.lexically_normal().string();
  paths_.erase(std::remove(paths_.begin(), paths_.end(), p), paths_.end());
  paths_.insert(paths_.begin(), p);
  if (paths_.size() > capacity_)
    paths_.resize(capacity_);
  save();
}

void RecentFiles::remove(const std::string &path) {
  paths_.erase(std::remove(paths_.begin(), paths_.end(), path), paths_.end());
  save();
}

void RecentFiles::clear() {
  paths_.clear();
  save();
}

} // namespace loupe::visualizer
