//===- ProfilePanel.cpp - Runs of the model and one run's dispatches ----------===//
#include "loupe/visualizer/panels/ProfilePanel.h"

#include "loupe/visualizer/Format.h"
#include "loupe/visualizer/Style.h"

#include <imgui_internal.h> // TableSetColumnSortDirection: reflect setSort in the headers

#include <algorithm>
#include <filesystem>
#include <numeric>

namespace loupe::visualizer {

void ProfilePanel::setSort(Column column, bool ascending) {
  sortColumn_ = column;
  sortAscending_ = ascending;
  sortDirty_ = true;
  pushSortToTable_ = true;
}

void ProfilePanel::headerRect(Column column, float *minX, float *minY, float *maxX,
                              float *maxY) const {
  *minX = headers_[column][0];
  *minY = headers_[column][1];
  *maxX = headers_[column][2];
  *maxY = headers_[column][3];
}

const std::vector<int> &ProfilePanel::sortedRows(const ViewModel &vm) {
  const ProfileView *view = vm.profile.get();
  if (!sortDirty_ && sortedFor_ == view)
    return order_;
  sortedFor_ = view;
  sortDirty_ = false;
  order_.clear();
  if (!view)
    return order_;
  order_.resize(view->rows.size());
  std::iota(order_.begin(), order_.end(), 0);
  const std::vector<DispatchRow> &rows = view->rows;
  const clusters::RunClusters *run = clusters_.get(vm);
  auto clusterOf = [&](int row) {
    int c = run ? run->clusterOfRow[row] : -1;
    return c < 0 ? int64_t(-1) : run->clusters[c].id;
  };
  Column col = sortColumn_;
  bool asc = sortAscending_;
  std::stable_sort(order_.begin(), order_.end(), [&](int ia, int ib) {
    const DispatchRow &a = rows[ia], &b = rows[ib];
    int c = 0;
    auto cmp = [](auto x, auto y) { return x < y ? -1 : (y < x ? 1 : 0); };
    switch (col) {
    case ColId: c = cmp(a.id, b.id); break;
    case ColName: c = a.name.compare(b.name); break;
    case ColCluster: c = cmp(clusterOf(ia), clusterOf(ib)); break;
    case ColLoc: c = a.loc.compare(b.loc); break;
    case ColBackend: c = a.backend.compare(b.backend); break;
    case ColCalls: c = cmp(a.calls, b.calls); break;
    case ColMedian: c = cmp(a.medianNs, b.medianNs); break;
    case ColIqr: c = cmp(a.iqrNs, b.iqrNs); break;
    case ColShare: c = cmp(a.share, b.share); break;
    default: break;
    }
    if (c == 0)
      return a.id < b.id; // ties: by id, whatever the direction
    return asc ? c < 0 : c > 0;
  });
  return order_;
}

void ProfilePanel::drawRuns(ViewModel &vm, Actions &actions) {
  if (ImGui::Button("Refresh"))
    actions.refreshRuns();
  ImGui::SameLine();
  if (vm.runs && vm.runs->modelFilter.empty())
    ImGui::TextDisabled("%zu runs in the DB", vm.runs->runs.size());
  else if (vm.runs)
    ImGui::TextDisabled("%zu runs of *%s*", vm.runs->runs.size(), vm.runs->modelFilter.c_str());
  if (!vm.runs)
    return;
  drawDevicePicker(vm, actions);
  const std::vector<int> &listed = listedRuns(vm);
  ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY |
                          ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit |
                          ImGuiTableFlags_Resizable;
  if (!ImGui::BeginTable("runs", 4, flags))
    return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("run");
  ImGui::TableSetupColumn("started");
  ImGui::TableSetupColumn("status");
  ImGui::TableSetupColumn("session", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(listed.size()));
  while (clipper.Step())
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const profiler::RunSummary &r = vm.runs->runs[listed[i]];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      char label[32];
      std::snprintf(label, sizeof label, "#%lld", static_cast<long long>(r.id));
      if (ImGui::Selectable(label, r.id == vm.nav.profileRunId,
                            ImGuiSelectableFlags_SpanAllColumns))
        actions.loadProfile(r.id);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s\n%s %s%s%s", r.model.c_str(), r.deviceKind.c_str(),
                          r.deviceName.c_str(), r.error.empty() ? "" : "\nerror: ",
                          r.error.c_str());
      if (ImGui::BeginPopupContextItem()) {
        if (ImGui::MenuItem("Compare: use as baseline"))
          actions.compareRuns(r.id, vm.nav.candidateRunId >= 0 ? vm.nav.candidateRunId : r.id,
                              vm.nav.compareThreshold);
        if (ImGui::MenuItem("Compare: use as candidate"))
          actions.compareRuns(vm.nav.baselineRunId >= 0 ? vm.nav.baselineRunId : r.id, r.id,
                              vm.nav.compareThreshold);
        ImGui::EndPopup();
      }
      ImGui::TableNextColumn();
      showText(formatWallTime(r.startedNs));
      ImGui::TableNextColumn();
      ImU32 statusColor = r.status == profiler::RunStatus::Complete ? IM_COL32(150, 150, 150, 255)
                          : r.status == profiler::RunStatus::Failed ||
                                    r.status == profiler::RunStatus::Interrupted
                              ? IM_COL32(235, 90, 80, 255)
                              : IM_COL32(230, 180, 60, 255);
      textColored(statusColor, profiler::runStatusName(r.status));
      ImGui::TableNextColumn();
      showText(r.session.empty() ? "-" : r.session);
    }
  ImGui::EndTable();
}

ScreenRect ProfilePanel::linkRect(const std::string &key) const {
  auto it = rects_.find(key);
  return it == rects_.end() ? ScreenRect{} : it->second;
}

void ProfilePanel::drawDispatches(ViewModel &vm, float height) {
  const ProfileView &p = *vm.profile;
  const clusters::RunClusters *run = clusters_.get(vm);
  ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY |
                          ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_Resizable |
                          ImGuiTableFlags_Sortable | ImGuiTableFlags_SizingFixedFit |
                          ImGuiTableFlags_Hideable;
  if (!ImGui::BeginTable("dispatches", ColCount, flags, ImVec2(0, height)))
    return;
  ImGui::TableSetupScrollFreeze(0, 1);
  auto defaultSort = [&](Column c) {
    return c == sortColumn_ ? (ImGuiTableColumnFlags_DefaultSort |
                               (sortAscending_ ? ImGuiTableColumnFlags_PreferSortAscending
                                               : ImGuiTableColumnFlags_PreferSortDescending))
                            : 0;
  };
  ImGui::TableSetupColumn("id", defaultSort(ColId), 0, ColId);
  ImGui::TableSetupColumn("dispatch", defaultSort(ColName) | ImGuiTableColumnFlags_WidthStretch,
                          0, ColName);
  ImGui::TableSetupColumn("cluster", defaultSort(ColCluster), 0, ColCluster);
  // A long loc (a kernel fusing several source ops) is clipped: its tooltip has all of it.
  ImGui::TableSetupColumn("loc", defaultSort(ColLoc), ImGui::CalcTextSize("pool2,relu2").x, ColLoc);
  ImGui::TableSetupColumn("backend", defaultSort(ColBackend), 0, ColBackend);
  ImGui::TableSetupColumn("calls", defaultSort(ColCalls), 0, ColCalls);
  ImGui::TableSetupColumn("median", defaultSort(ColMedian), 0, ColMedian);
  ImGui::TableSetupColumn("IQR", defaultSort(ColIqr), 0, ColIqr);
  ImGui::TableSetupColumn("share", defaultSort(ColShare), 0, ColShare);

  // Headers submitted one by one so their rectangles are known.
  ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
  for (int c = 0; c < ColCount; ++c) {
    if (!ImGui::TableSetColumnIndex(c))
      continue;
    ImGui::TableHeader(ImGui::TableGetColumnName(c));
    ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    headers_[c][0] = a.x;
    headers_[c][1] = a.y;
    headers_[c][2] = b.x;
    headers_[c][3] = b.y;
  }

  if (pushSortToTable_) {
    ImGui::TableSetColumnSortDirection(sortColumn_,
                                       sortAscending_ ? ImGuiSortDirection_Ascending
                                                      : ImGuiSortDirection_Descending,
                                       false);
    pushSortToTable_ = false;
  }
  if (ImGuiTableSortSpecs *specs = ImGui::TableGetSortSpecs()) {
    if (specs->SpecsDirty && specs->SpecsCount > 0) {
      const ImGuiTableColumnSortSpecs &s = specs->Specs[0];
      Column col = static_cast<Column>(s.ColumnUserID);
      bool asc = s.SortDirection == ImGuiSortDirection_Ascending;
      if (col != sortColumn_ || asc != sortAscending_) {
        sortColumn_ = col;
        sortAscending_ = asc;
        sortDirty_ = true;
      }
      specs->SpecsDirty = false;
    }
  }

  const std::vector<int> &order = sortedRows(vm);
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(order.size()));
  while (clipper.Step())
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const DispatchRow &row = p.rows[order[i]];
      ImGui::PushID(order[i]);
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%lld", static_cast<long long>(row.id));
      ImGui::TableNextColumn();
      ImVec2 cell = ImGui::GetCursorScreenPos();
      // Share of the total as a bar behind the name.
      float w = ImGui::GetContentRegionAvail().x;
      ImGui::GetWindowDrawList()->AddRectFilled(
          cell, ImVec2(cell.x + w * static_cast<float>(row.share), cell.y + ImGui::GetTextLineHeight()),
          (paletteColor(static_cast<int>(row.id)) & 0x00FFFFFF) | 0x50000000);
      showText(graph::kernelKind(row.name)); // the id is in the first column
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s\nop: %s\nbackend: %s\nmin %s, max %s", row.name.c_str(),
                          row.op.c_str(), row.backend.c_str(),
                          formatNs(static_cast<double>(row.minNs)).c_str(),
                          formatNs(static_cast<double>(row.maxNs)).c_str());
      ImGui::TableNextColumn();
      if (run && run->clusterOfRow[order[i]] >= 0)
        clusterLink(vm, *run, run->clusterOfRow[order[i]], "kernel:" + std::to_string(row.id));
      else
        ImGui::TextDisabled("-");
      ImGui::TableNextColumn();
      locLink(vm, row);
      ImGui::TableNextColumn();
      textColored(backendColor(row.backend), row.backend.empty() ? "-" : row.backend);
      ImGui::TableNextColumn();
      ImGui::Text("%zu", row.calls);
      ImGui::TableNextColumn();
      showText(formatNs(row.medianNs));
      ImGui::TableNextColumn();
      showText(formatNs(row.iqrNs));
      ImGui::TableNextColumn();
      showText(formatPercent(row.share));
      ImGui::PopID();
    }
  ImGui::EndTable();
}

void ProfilePanel::draw(ViewModel &vm, Actions &actions) {
  float runsWidth = std::min(ImGui::GetFontSize() * 19, ImGui::GetContentRegionAvail().x * 0.3f);
  ImGui::BeginChild("runs_list", ImVec2(runsWidth, 0), true);
  drawRuns(vm, actions);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("run_detail", ImVec2(0, 0), false);
  if (!vm.profile) {
    ImGui::TextDisabled(vm.nav.profileRunId >= 0 ? "loading run..."
                                                 : "No run selected. Run the model (Run panel) "
                                                   "or pick a run on the left.");
    ImGui::EndChild();
    return;
  }
  const ProfileView &p = *vm.profile;
  if (!p.error.empty()) {
    textColored(IM_COL32(235, 90, 80, 255), p.error);
    ImGui::EndChild();
    return;
  }
  ImGui::Text("run #%lld", static_cast<long long>(p.run.id));
  ImGui::SameLine();
  ImGui::TextDisabled("%s  %s %s  %s", formatWallTime(p.run.startedNs).c_str(),
                      p.run.deviceKind.c_str(), p.run.deviceName.c_str(),
                      profiler::runStatusName(p.run.status));
  if (p.whole.count > 0) {
    ImGui::Text("repetition median %s, IQR %s, min %s, max %s (%zu reps)",
                formatNs(p.whole.median).c_str(), formatNs(p.whole.iqr()).c_str(),
                formatNs(static_cast<double>(p.whole.min)).c_str(),
                formatNs(static_cast<double>(p.whole.max)).c_str(), p.whole.count);
    if (ImGui::IsItemHovered() && !p.configJson.empty())
      ImGui::SetTooltip("%s", p.configJson.c_str());
  }
  if (p.gpu) {
    const gpu::GpuActivity &g = *p.gpu;
    auto count = [](size_t n, const char *one, const char *many) {
      return std::to_string(n) + " " + (n == 1 ? one : many);
    };
    ImGui::Text("GPU: %s (%s summed), %s, %s on %s", count(g.kernels, "kernel", "kernels").c_str(),
                formatNs(g.kernelNs).c_str(), count(g.copies, "copy", "copies").c_str(),
                count(g.sets, "set", "sets").c_str(),
                count(g.streams, "stream", "streams").c_str());
    if (ImGui::IsItemHovered() && !p.deviceDetailsJson.empty())
      ImGui::SetTooltip("%s", p.deviceDetailsJson.c_str());
  }
  if (!p.kernelTiming.empty())
    ImGui::TextDisabled("dispatch times: %s", p.kernelTiming.c_str());
  if (!p.provenance.empty()) {
    ImGui::TextDisabled("%s", p.provenance.c_str());
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s", p.environmentJson.c_str());
  }

  // Kernels, clusters, fallbacks and GPU kernels above the timeline, each given a share of
  // the height.
  rects_.clear();
  gpuHeaders_.clear();
  float avail = ImGui::GetContentRegionAvail().y;
  bool host = !p.rows.empty();
  if (host) {
    drawDispatches(vm, std::max(120.0f, avail * (p.gpu ? 0.22f : 0.36f)));
    if (ImGui::CollapsingHeader("clusters: kernel medians summed", ImGuiTreeNodeFlags_DefaultOpen))
      drawClusters(vm, std::max(100.0f, avail * (p.gpu ? 0.16f : 0.26f)));
  }
  if (!p.fallbacks.empty() &&
      ImGui::CollapsingHeader(("kernel fallbacks (" + std::to_string(p.fallbacks.size()) + ")").c_str(),
                              ImGuiTreeNodeFlags_DefaultOpen))
    drawFallbacks(vm);
  if (p.gpu && ImGui::CollapsingHeader(("GPU kernels, copies and sets (" +
                                        std::to_string(p.gpu->rows.size()) + ")###gpu_kernels")
                                           .c_str(),
                                       ImGuiTreeNodeFlags_DefaultOpen))
    drawGpuKernels(vm, std::max(120.0f, avail * (host ? 0.22f : 0.42f)));
  drawTimeline(vm);
  ImGui::EndChild();
}

void ProfilePanel::drawTimeline(const ViewModel &vm) {
  const ProfileView &p = *vm.profile;
  int reps = static_cast<int>(p.reps.size());
  int gpuReps = p.gpu ? static_cast<int>(p.gpu->reps.size()) : 0;
  if (reps == 0 && gpuReps == 0) {
    ImGui::TextDisabled("no samples");
    return;
  }
  if (timelineFor_ != p.run.id) {
    timelineFor_ = p.run.id;
    rep_ = 0;
    // The first measured repetition (rep -1, outside every repetition, sorts first).
    gpuRep_ = 0;
    while (gpuRep_ + 1 < gpuReps && p.gpu->reps[gpuRep_].rep < 0)
      ++gpuRep_;
    streams_ = gpuReps > 0;
    timeline_.fit();
  }
  if (reps > 0 && gpuReps > 0) {
    if (ImGui::RadioButton("GPU streams", streams_) && !streams_)
      setShowsStreams(true);
    ImGui::SameLine();
    if (ImGui::RadioButton("dispatches (host clock)", !streams_) && streams_)
      setShowsStreams(false);
    ImGui::SameLine();
  }
  bool streams = gpuReps > 0 && (streams_ || reps == 0);
  int count = streams ? gpuReps : reps;
  int &index = streams ? gpuRep_ : rep_;
  index = std::clamp(index, 0, count - 1);
  if (count > 1) {
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 12);
    ImGui::SliderInt("repetition", &index, 0, count - 1);
    if (streams && p.gpu->reps[index].rep < 0) {
      ImGui::SameLine();
      ImGui::TextDisabled("(outside every repetition)");
    }
    ImGui::SameLine();
  }
  if (ImGui::Button("Fit"))
    timeline_.fit();
  ImGui::SameLine();
  ImGui::TextDisabled("wheel: zoom, drag: pan, double-click: fit");
  if (streams)
    timeline_.drawTracks(*p.gpu, p.gpu->reps[index], ImGui::GetContentRegionAvail().y);
  else
    timeline_.draw(p.reps[index], p.repDurationNs[index], p.rows,
                   ImGui::GetContentRegionAvail().y);
}

} // namespace loupe::visualizer
