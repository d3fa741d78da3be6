//===- ProfileGpu.cpp - The Profile panel's GPU kernel table ------------------===//
#include "loupe/visualizer/Format.h"
#include "loupe/visualizer/Style.h"
#include "loupe/visualizer/panels/ProfilePanel.h"

#include <imgui_internal.h> // TableSetColumnSortDirection: reflect setGpuSort in the headers

#include <algorithm>
#include <numeric>

namespace loupe::visualizer {

using gpu::KernelColumn;

void ProfilePanel::setGpuSort(KernelColumn column, bool ascending) {
  gpuSortColumn_ = column;
  gpuSortAscending_ = ascending;
  gpuSortDirty_ = true;
  gpuPushSort_ = true;
}

const std::vector<int> &ProfilePanel::gpuRows(const ViewModel &vm) {
  const gpu::GpuActivity *g = vm.profile ? vm.profile->gpu.get() : nullptr;
  if (!gpuSortDirty_ && gpuSortedFor_ == g)
    return gpuOrder_;
  gpuSortedFor_ = g;
  gpuSortDirty_ = false;
  gpuOrder_.clear();
  if (!g)
    return gpuOrder_;
  gpuOrder_.resize(g->rows.size());
  std::iota(gpuOrder_.begin(), gpuOrder_.end(), 0);
  std::stable_sort(gpuOrder_.begin(), gpuOrder_.end(), [&](int a, int b) {
    int c = gpu::compareKernelRows(g->rows[a], g->rows[b], gpuSortColumn_);
    if (c == 0)
      return a < b; // ties: by first start, whatever the direction
    return gpuSortAscending_ ? c < 0 : c > 0;
  });
  return gpuOrder_;
}

void ProfilePanel::drawGpuKernels(const ViewModel &vm, float height) {
  const gpu::GpuActivity &g = *vm.profile->gpu;
  constexpr int kColumns = static_cast<int>(KernelColumn::Count);
  // Columns keep their width and scroll sideways under the frozen name when the panel is narrow.
  ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY |
                          ImGuiTableFlags_ScrollX | ImGuiTableFlags_BordersInnerV |
                          ImGuiTableFlags_Resizable | ImGuiTableFlags_Sortable |
                          ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_Hideable;
  // No taller than its rows (and a horizontal scrollbar): the timeline gets the rest.
  float rowsHeight = (static_cast<float>(g.rows.size()) + 1) * ImGui::GetFrameHeight() +
                     ImGui::GetStyle().ScrollbarSize + 4;
  if (!ImGui::BeginTable("gpu_kernels", kColumns, flags, ImVec2(0, std::min(height, rowsHeight))))
    return;
  ImGui::TableSetupScrollFreeze(1, 1);
  for (int c = 0; c < kColumns; ++c) {
    auto column = static_cast<KernelColumn>(c);
    ImGuiTableColumnFlags f = 0;
    if (column == gpuSortColumn_)
      f |= ImGuiTableColumnFlags_DefaultSort |
           (gpuSortAscending_ ? ImGuiTableColumnFlags_PreferSortAscending
                              : ImGuiTableColumnFlags_PreferSortDescending);
    // The name gets a readable width; the numbers take what they need.
    float width = column == KernelColumn::Name ? ImGui::GetFontSize() * 13 : 0;
    ImGui::TableSetupColumn(gpu::kernelColumnName(column), f, width, c);
  }
  ImGui::TableHeadersRow();
  for (int c = 0; c < kColumns; ++c)
    gpuHeaders_.push_back(ImGui::TableGetColumnName(c));

  if (gpuPushSort_) {
    ImGui::TableSetColumnSortDirection(static_cast<int>(gpuSortColumn_),
                                       gpuSortAscending_ ? ImGuiSortDirection_Ascending
                                                         : ImGuiSortDirection_Descending,
                                       false);
    gpuPushSort_ = false;
  }
  if (ImGuiTableSortSpecs *specs = ImGui::TableGetSortSpecs()) {
    if (specs->SpecsDirty && specs->SpecsCount > 0) {
      const ImGuiTableColumnSortSpecs &s = specs->Specs[0];
      auto col = static_cast<KernelColumn>(s.ColumnUserID);
      bool asc = s.SortDirection == ImGuiSortDirection_Ascending;
      if (col != gpuSortColumn_ || asc != gpuSortAscending_) {
        gpuSortColumn_ = col;
        gpuSortAscending_ = asc;
        gpuSortDirty_ = true;
      }
      specs->SpecsDirty = false;
    }
  }

  const std::vector<int> &order = gpuRows(vm);
  float lineH = ImGui::GetTextLineHeight();
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(order.size()));
  while (clipper.Step())
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const gpu::KernelRow &row = g.rows[order[i]];
      ImGui::PushID(order[i]);
      ImGui::TableNextRow();
      for (int c = 0; c < kColumns; ++c) {
        auto column = static_cast<KernelColumn>(c);
        if (!ImGui::TableSetColumnIndex(c))
          continue;
        std::string text = gpu::kernelCell(row, column);
        std::string why = gpu::kernelCellWhy(row, column);
        if (column == KernelColumn::Total) {
          // Share of the GPU time as a bar behind the total.
          ImVec2 cell = ImGui::GetCursorScreenPos();
          float w = ImGui::GetContentRegionAvail().x;
          ImGui::GetWindowDrawList()->AddRectFilled(
              cell, ImVec2(cell.x + w * static_cast<float>(row.share), cell.y + lineH),
              IM_COL32(118, 185, 0, 70));
        }
        if (text.empty()) {
          // Unknown or not applicable: an empty cell whose tooltip says why.
          ImGui::Dummy(ImVec2(std::max(1.0f, ImGui::GetContentRegionAvail().x), lineH));
        } else if (column == KernelColumn::Name) {
          ImU32 color = row.kind == gpu::ActivityKind::Kernel
                            ? ImGui::GetColorU32(ImGuiCol_Text)
                            : IM_COL32(150, 190, 230, 255);
          textColored(color, text);
        } else {
          showText(text);
        }
        if (!why.empty() && ImGui::IsItemHovered()) {
          ImGui::BeginTooltip();
          ImGui::PushTextWrapPos(ImGui::GetFontSize() * 36);
          showText(why);
          ImGui::PopTextWrapPos();
          ImGui::EndTooltip();
        }
      }
      ImGui::PopID();
    }
  ImGui::EndTable();
}

} // namespace loupe::visualizer
