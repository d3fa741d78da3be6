//===- FileDialog.cpp - Our own ImGui file chooser ----------------------------===//
#include "loupe/visualizer/panels/FileDialog.h"

#include "loupe/visualizer/Format.h"
#include "loupe/visualizer/Style.h"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

namespace fs = std::filesystem;

namespace loupe::visualizer {

namespace {
std::string formatSize(uint64_t bytes) {
  char buf[32];
  if (bytes < 1024)
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  else if (bytes < 1024 * 1024)
    std::snprintf(buf, sizeof buf, "%.1f KiB", bytes / 1024.0);
  else if (bytes < 1024ull * 1024 * 1024)
    std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / (1024.0 * 1024));
  else
    std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
  return buf;
}

int64_t toEpochNs(fs::file_time_type t) {
  // file_clock -> system_clock without C++20's clock_cast.
  auto sys = std::chrono::time_point_cast<std::chrono::nanoseconds>(
      t - fs::file_time_type::clock::now() + std::chrono::system_clock::now());
  return sys.time_since_epoch().count();
}
} // namespace

void FileDialog::open(Mode mode, std::string title, std::vector<std::string> extensions,
                      std::string directory, std::string fileName) {
  mode_ = mode;
  title_ = std::move(title);
  extensions_ = std::move(extensions);
  fileName_ = std::move(fileName);
  selected_.clear();
  result_.clear();
  error_.clear();
  if (directory.empty())
    directory = directory_.empty() ? fs::current_path().string() : directory_;
  if (!setDirectory(directory))
    setDirectory(fs::current_path().string());
  open_ = true;
  openRequested_ = true;
}

bool FileDialog::matches(const std::string &name) const {
  if (extensions_.empty())
    return true;
  std::string ext = fs::path(name).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), ::tolower);
  return std::find(extensions_.begin(), extensions_.end(), ext) != extensions_.end();
}

void FileDialog::setShowHidden(bool on) {
  showHidden_ = on;
  setDirectory(directory_);
}

bool FileDialog::setDirectory(const std::string &directory) {
  std::error_code ec;
  fs::path dir = fs::absolute(directory, ec).lexically_normal();
  if (ec || !fs::is_directory(dir, ec)) {
    error_ = directory + ": not a folder";
    return false;
  }
  std::vector<Entry> entries;
  fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  if (ec) {
    error_ = directory + ": " + ec.message();
    return false;
  }
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec)
      break;
    Entry e;
    e.name = it->path().filename().string();
    if (!showHidden_ && !e.name.empty() && e.name[0] == '.')
      continue;
    std::error_code ec2;
    e.directory = it->is_directory(ec2);
    if (!e.directory) {
      if (mode_ == Mode::ChooseFolder || !matches(e.name))
        continue;
      e.size = it->file_size(ec2);
    }
    auto time = it->last_write_time(ec2);
    if (!ec2)
      e.modifiedNs = toEpochNs(time);
    entries.push_back(std::move(e));
  }
  std::sort(entries.begin(), entries.end(), [](const Entry &a, const Entry &b) {
    if (a.directory != b.directory)
      return a.directory;
    return a.name < b.name;
  });
  std::string path = dir.string();
  if (path.size() > 1 && path.back() == '/')
    path.pop_back();
  directory_ = path;
  pathEdit_ = path;
  entries_ = std::move(entries);
  selected_.clear();
  error_.clear();
  return true;
}

bool FileDialog::activate(const std::string &name) {
  if (name == "..") {
    setDirectory(fs::path(directory_).parent_path().string());
    return false;
  }
  for (const Entry &e : entries_)
    if (e.name == name) {
      if (e.directory) {
        setDirectory((fs::path(directory_) / name).string());
        return false;
      }
      selected_ = name;
      if (mode_ == Mode::SaveFile)
        fileName_ = name;
      return confirm();
    }
  return false;
}

bool FileDialog::confirm() {
  switch (mode_) {
  case Mode::OpenFile:
    if (selected_.empty())
      return false;
    result_ = (fs::path(directory_) / selected_).string();
    break;
  case Mode::SaveFile:
    if (fileName_.empty())
      return false;
    result_ = fs::path(fileName_).is_absolute() ? fileName_
                                                : (fs::path(directory_) / fileName_).string();
    break;
  case Mode::ChooseFolder:
    result_ = selected_.empty() ? directory_ : (fs::path(directory_) / selected_).string();
    break;
  }
  confirmed_ = true;
  open_ = false;
  return true;
}

bool FileDialog::draw() {
  if (confirmed_) {
    // activate()/confirm() called outside draw (tests): report it once.
    confirmed_ = false;
    return true;
  }
  if (!open_)
    return false;
  const char *popupId = "###loupe_file_dialog"; // "###": the id ignores the title
  if (openRequested_) {
    ImGui::OpenPopup(popupId);
    openRequested_ = false;
  }
  ImGuiViewport *vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowSize(ImVec2(std::min(820.0f, vp->WorkSize.x * 0.9f),
                                  std::min(560.0f, vp->WorkSize.y * 0.85f)),
                           ImGuiCond_Appearing);
  ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x * 0.5f,
                                 vp->WorkPos.y + vp->WorkSize.y * 0.5f),
                          ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  std::string windowTitle = title_ + popupId;
  bool keep = true;
  if (!ImGui::BeginPopupModal(windowTitle.c_str(), &keep, ImGuiWindowFlags_NoSavedSettings)) {
    if (!keep)
      open_ = false;
    return false;
  }
  if (ImGui::Button("Up"))
    activate("..");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(-1);
  if (inputText("##path", pathEdit_, ImGuiInputTextFlags_EnterReturnsTrue)) {
    std::error_code ec;
    if (fs::is_directory(pathEdit_, ec)) {
      setDirectory(pathEdit_);
    } else if (mode_ != Mode::ChooseFolder && fs::is_regular_file(pathEdit_, ec)) {
      fs::path p(pathEdit_);
      if (setDirectory(p.parent_path().string())) {
        selected_ = p.filename().string();
        fileName_ = selected_;
        confirm();
      }
    } else if (mode_ == Mode::SaveFile && fs::is_directory(fs::path(pathEdit_).parent_path(), ec)) {
      fs::path p(pathEdit_);
      setDirectory(p.parent_path().string());
      fileName_ = p.filename().string();
      confirm();
    } else {
      error_ = pathEdit_ + ": no such folder";
    }
  }
  if (!error_.empty())
    textColored(IM_COL32(235, 90, 80, 255), error_);
  if (!extensions_.empty() && mode_ != Mode::ChooseFolder) {
    std::string filter = "showing:";
    for (const std::string &e : extensions_)
      filter += " *" + e;
    ImGui::TextDisabled("%s", filter.c_str());
    ImGui::SameLine();
  }
  bool hidden = showHidden_;
  if (ImGui::Checkbox("hidden files", &hidden))
    setShowHidden(hidden);

  float footer = ImGui::GetFrameHeightWithSpacing() * 2;
  std::string activated;
  if (ImGui::BeginTable("files", 3,
                        ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY |
                            ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit,
                        ImVec2(0, -footer))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("name", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("size");
    ImGui::TableSetupColumn("modified");
    ImGui::TableHeadersRow();
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    if (ImGui::Selectable("..", false,
                          ImGuiSelectableFlags_SpanAllColumns |
                              ImGuiSelectableFlags_AllowDoubleClick) &&
        ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left))
      activated = "..";
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(entries_.size()));
    while (clipper.Step())
      for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
        const Entry &e = entries_[i];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        std::string label = e.directory ? e.name + "/" : e.name;
        ImGui::PushID(i);
        if (e.directory)
          ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(120, 180, 240, 255));
        if (ImGui::Selectable(label.c_str(), selected_ == e.name,
                              ImGuiSelectableFlags_SpanAllColumns |
                                  ImGuiSelectableFlags_AllowDoubleClick)) {
          if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left))
            activated = e.name;
          else {
            selected_ = e.name;
            if (!e.directory && mode_ == Mode::SaveFile)
              fileName_ = e.name;
          }
        }
        if (e.directory)
          ImGui::PopStyleColor();
        ImGui::PopID();
        ImGui::TableNextColumn();
        if (!e.directory)
          ImGui::TextDisabled("%s", formatSize(e.size).c_str());
        ImGui::TableNextColumn();
        if (e.modifiedNs)
          ImGui::TextDisabled("%s", formatWallTime(e.modifiedNs).c_str());
      }
    ImGui::EndTable();
  }
  if (!activated.empty())
    activate(activated);

  if (mode_ == Mode::SaveFile) {
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - ImGui::GetFontSize() * 12);
    if (inputTextWithHint("##file_name", "file name", fileName_,
                          ImGuiInputTextFlags_EnterReturnsTrue))
      confirm();
    ImGui::SameLine();
  } else {
    std::string what = mode_ == Mode::ChooseFolder
                           ? (selected_.empty() ? directory_ : selected_)
                           : (selected_.empty() ? std::string("(pick a file)") : selected_);
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - ImGui::GetFontSize() * 12);
    ImGui::TextDisabled("%s", what.c_str());
    ImGui::SameLine(ImGui::GetContentRegionAvail().x - ImGui::GetFontSize() * 11);
  }
  const char *okLabel = mode_ == Mode::SaveFile ? "Save" : (mode_ == Mode::ChooseFolder ? "Choose" : "Open");
  if (ImGui::Button(okLabel, ImVec2(ImGui::GetFontSize() * 5, 0)))
    confirm();
  ImGui::SameLine();
  if (ImGui::Button("Cancel", ImVec2(ImGui::GetFontSize() * 5, 0)) ||
      ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape)))
    open_ = false;
  if (!open_)
    ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
  if (confirmed_) {
    confirmed_ = false;
    return true;
  }
  return false;
}

} // namespace loupe::visualizer
