//===- Settings.h - Where the workbench keeps its settings --------*- C++ -*-===//
//
// `$XDG_CONFIG_HOME/loupe/` when XDG_CONFIG_HOME is an absolute path, else `~/.config/loupe/`:
//   imgui.ini   window layout, table column widths and sort orders, splitter fractions
//   recent.txt  recently opened models and sessions, most recent first, one path a line
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_SETTINGS_H
#define LOUPE_VISUALIZER_SETTINGS_H

#include <string>
#include <vector>

namespace loupe::visualizer {

/// The settings folder (created if missing); empty when neither variable is usable.
std::string defaultConfigDir();

/// Recently opened files, most recent first, without duplicates, at most `capacity`.
class RecentFiles {
public:
  explicit RecentFiles(size_t capacity = 12) : capacity_(capacity) {}
  /// Reads `file` (missing file: empty list). Keeps `file` as where save() writes.
  void load(const std::string &file);
  /// Writes the list to the file given to load(); no-op without one. Errors are ignored (the
  /// list is a convenience).
  void save() const;
  /// Moves (or inserts) `path` to the front and saves.
  void add(const std::string &path);
  void remove(const std::string &path);
  void clear();
  const std::vector<std::string> &paths() const { return paths_; }

private:
  size_t capacity_;
  std::string file_;
  std::vector<std::string> paths_;
};

} // namespace loupe::visualizer

#endif // LOUPE_VISUALIZER_SETTINGS_H
