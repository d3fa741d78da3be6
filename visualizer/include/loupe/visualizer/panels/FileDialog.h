//===- FileDialog.h - Our own ImGui file chooser -------------------*- C++ -*-===//
//
// A modal listing one directory of the file system: a path box (type a folder or a file and
// press Enter), "..", folders first, then the files whose extension is in the filter
// (.mlir/.onnx/.json by default), with size and modification time. Double-click enters a folder
// or picks a file. Modes: open a file, save a file (name box), choose a folder. No platform
// dialog, no GLFW: std::filesystem only.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_PANELS_FILEDIALOG_H
#define LOUPE_VISUALIZER_PANELS_FILEDIALOG_H

#include <cstdint>
#include <string>
#include <vector>

namespace loupe::visualizer {

class FileDialog {
public:
  enum class Mode { OpenFile, SaveFile, ChooseFolder };

  struct Entry {
    std::string name;
    bool directory = false;
    uint64_t size = 0;       ///< Bytes; 0 for folders.
    int64_t modifiedNs = 0;  ///< Wall ns since the Unix epoch.
  };

  /// Opens the dialog (shown from the next draw). `extensions` like {".mlir", ".onnx"}; empty
  /// shows every file. `directory` empty: the last one used (else the working directory).
  void open(Mode mode, std::string title, std::vector<std::string> extensions,
            std::string directory = "", std::string fileName = "");
  bool isOpen() const { return open_; }
  void close() { open_ = false; }

  /// Draws the modal if open. Returns true once, in the frame the user confirmed; the choice
  /// is then in result().
  bool draw();
  const std::string &result() const { return result_; }
  Mode mode() const { return mode_; }

  /// Lists `directory` (tests, and what the path box does). False with error() set when it
  /// cannot be read; the previous listing is kept then.
  bool setDirectory(const std::string &directory);
  const std::string &directory() const { return directory_; }
  /// Folders first, then matching files, each group by name.
  const std::vector<Entry> &entries() const { return entries_; }
  const std::string &error() const { return error_; }
  /// Picks entry `name` as a double click would: enters a folder, chooses a file. Returns true
  /// when a file (or, in ChooseFolder mode, never) was chosen.
  bool activate(const std::string &name);
  /// Confirms: the selected file, the typed name (SaveFile) or the current folder
  /// (ChooseFolder). Returns true when there is a valid choice.
  bool confirm();
  void setFileName(std::string name) { fileName_ = std::move(name); }
  void setShowHidden(bool on);

private:
  bool matches(const std::string &name) const;

  bool open_ = false;
  bool openRequested_ = false;
  bool confirmed_ = false;
  Mode mode_ = Mode::OpenFile;
  std::string title_;
  std::vector<std::string> extensions_;
  std::string directory_;
  std::string pathEdit_;
  std::string fileName_;
  std::string selected_;
  std::string result_;
  std::string error_;
  bool showHidden_ = false;
  std::vector<Entry> entries_;
};

} // namespace loupe::visualizer

#endif // LOUPE_VISUALIZER_PANELS_FILEDIALOG_H
