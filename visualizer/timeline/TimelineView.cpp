//===- TimelineView.cpp - One repetition's dispatches on a time axis ----------===//
#include "loupe/visualizer/timeline/TimelineView.h"

#include "loupe/visualizer/Format.h"
#include "loupe/visualizer/Style.h"

#include <algorithm>
#include <cmath>

namespace loupe::visualizer {

namespace {
/// Slices narrower than this (pixels) merge with their neighbours.
constexpr float kMergePixels = 3.0f;

/// A "nice" tick step (1, 2 or 5 times a power of ten) giving about `targetTicks` ticks.
double tickStep(double range, double targetTicks) {
  double raw = range / std::max(1.0, targetTicks);
  double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= raw)
      return m * p;
  return 10 * p;
}
} // namespace

void TimelineView::setView(double startNs, double endNs) {
  if (endNs - startNs < 1)
    endNs = startNs + 1;
  viewStart_ = startNs;
  viewEnd_ = endNs;
  fitRequested_ = false;
}

void TimelineView::zoom(double factor, double anchorNs) {
  double range = (viewEnd_ - viewStart_) / factor;
  range = std::max(range, 10.0); // 10 ns is as far as zooming makes sense
  double t = (anchorNs - viewStart_) / (viewEnd_ - viewStart_);
  viewStart_ = anchorNs - t * range;
  viewEnd_ = viewStart_ + range;
}

void TimelineView::pan(double deltaNs) {
  viewStart_ += deltaNs;
  viewEnd_ += deltaNs;
}

void TimelineView::draw(const std::vector<TimelineSlice> &slices, int64_t durationNs,
                        const std::vector<DispatchRow> &rows, float height) {
  drawn_ = merged_ = 0;
  hovered_ = -1;
  if (fitRequested_ || fittedDuration_ != durationNs) {
    double margin = std::max<double>(1, durationNs * 0.02);
    viewStart_ = -margin;
    viewEnd_ = std::max<double>(durationNs, 1) + margin;
    fitRequested_ = false;
    fittedDuration_ = durationNs;
  }

  ImVec2 origin = ImGui::GetCursorScreenPos();
  float width = std::max(50.0f, ImGui::GetContentRegionAvail().x);
  height = std::max(height, 60.0f);
  ImGui::InvisibleButton("timeline", ImVec2(width, height),
                         ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight);
  bool hovered = ImGui::IsItemHovered();
  bool active = ImGui::IsItemActive();
  ImGuiIO &io = ImGui::GetIO();
  double nsPerPixel = (viewEnd_ - viewStart_) / width;
  auto toX = [&](double ns) { return origin.x + static_cast<float>((ns - viewStart_) / nsPerPixel); };

  // Interaction: wheel zooms around the cursor, drag pans, double click fits.
  if (hovered && io.MouseWheel != 0) {
    double anchor = viewStart_ + (io.MousePos.x - origin.x) * nsPerPixel;
    zoom(std::pow(1.25, io.MouseWheel), anchor);
    nsPerPixel = (viewEnd_ - viewStart_) / width;
  }
  if (active && (io.MouseDelta.x != 0)) {
    pan(-io.MouseDelta.x * nsPerPixel);
  }
  if (hovered && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
    fitRequested_ = true;
  }

  ImDrawList *dl = ImGui::GetWindowDrawList();
  ImVec2 end(origin.x + width, origin.y + height);
  dl->PushClipRect(origin, end, true);
  dl->AddRectFilled(origin, end, IM_COL32(22, 24, 28, 255));

  // Ruler.
  float rulerH = ImGui::GetTextLineHeight() + 4;
  double step = tickStep(viewEnd_ - viewStart_, width / 110.0);
  for (double t = std::ceil(viewStart_ / step) * step; t <= viewEnd_; t += step) {
    float x = toX(t);
    dl->AddLine(ImVec2(x, origin.y), ImVec2(x, end.y), IM_COL32(255, 255, 255, 22));
    dl->AddLine(ImVec2(x, origin.y + rulerH - 4), ImVec2(x, origin.y + rulerH),
                IM_COL32(200, 200, 200, 160));
    std::string label = formatNs(t);
    dl->AddText(ImVec2(x + 3, origin.y), IM_COL32(190, 190, 190, 255), label.c_str());
  }

  // Lane 0: the whole repetition.
  float laneH = ImGui::GetTextLineHeight() + 8;
  float y0 = origin.y + rulerH + 4;
  {
    float x0 = toX(0), x1 = toX(static_cast<double>(durationNs));
    dl->AddRectFilled(ImVec2(x0, y0), ImVec2(std::max(x1, x0 + 1), y0 + laneH),
                      IM_COL32(70, 80, 95, 255));
    std::string label = "repetition " + formatNs(static_cast<double>(durationNs));
    float textW = ImGui::CalcTextSize(label.c_str()).x;
    float lx = std::max(x0, origin.x) + 4;
    if (std::min(x1, end.x) - lx > textW)
      dl->AddText(ImVec2(lx, y0 + 4), IM_COL32(230, 230, 230, 255), label.c_str());
  }

  // Lane 1: dispatches. First slice that can be visible: binary search on start (slices are
  // sorted by start and sequential, so the one before the first start >= viewStart may still
  // reach into the view).
  float y1 = y0 + laneH + 6;
  float laneH1 = std::max(laneH * 2, end.y - y1 - 6);
  auto first = std::lower_bound(slices.begin(), slices.end(), viewStart_,
                                [](const TimelineSlice &s, double t) { return s.startNs < t; });
  if (first != slices.begin())
    --first;
  for (auto it = first; it != slices.end() && it->startNs <= viewEnd_;) {
    float x0 = toX(static_cast<double>(it->startNs));
    float x1 = toX(static_cast<double>(it->endNs));
    if (it->endNs < viewStart_) {
      ++it;
      continue;
    }
    if (x1 - x0 < kMergePixels) {
      // Merge the run of narrow slices that starts here.
      auto runEnd = it;
      int count = 0;
      float mx1 = x1;
      while (runEnd != slices.end() && runEnd->startNs <= viewEnd_) {
        float a = toX(static_cast<double>(runEnd->startNs));
        float b = toX(static_cast<double>(runEnd->endNs));
        if (b - a >= kMergePixels || a - mx1 > kMergePixels)
          break;
        mx1 = std::max(mx1, b);
        ++count;
        ++runEnd;
      }
      dl->AddRectFilled(ImVec2(x0, y1), ImVec2(std::max(mx1, x0 + 1), y1 + laneH1),
                        IM_COL32(140, 140, 150, 200));
      ++merged_;
      if (hovered && io.MousePos.x >= x0 && io.MousePos.x <= std::max(mx1, x0 + 1) &&
          io.MousePos.y >= y1 && io.MousePos.y <= y1 + laneH1)
        ImGui::SetTooltip("%d dispatches (zoom in to see them)", count);
      it = runEnd;
      continue;
    }
    const TimelineSlice &s = *it;
    const DispatchRow *row = s.row >= 0 && s.row < static_cast<int>(rows.size()) ? &rows[s.row] : nullptr;
    ImU32 color = paletteColor(row ? static_cast<int>(row->id) : 0);
    dl->AddRectFilled(ImVec2(x0, y1), ImVec2(x1, y1 + laneH1), color);
    dl->AddRect(ImVec2(x0, y1), ImVec2(x1, y1 + laneH1), IM_COL32(0, 0, 0, 120));
    ++drawn_;
    if (row) {
      const std::string &name = row->name;
      float textW = ImGui::CalcTextSize(name.c_str()).x;
      float lx = std::max(x0, origin.x) + 3;
      if (std::min(x1, end.x) - lx > textW + 2) {
        dl->AddText(ImVec2(lx, y1 + 3), IM_COL32(15, 15, 15, 255), name.c_str());
        std::string d = formatNs(static_cast<double>(s.endNs - s.startNs));
        if (std::min(x1, end.x) - lx > ImGui::CalcTextSize(d.c_str()).x + 2)
          dl->AddText(ImVec2(lx, y1 + 3 + ImGui::GetTextLineHeight()), IM_COL32(15, 15, 15, 255),
                      d.c_str());
      }
    }
    if (hovered && io.MousePos.x >= x0 && io.MousePos.x < x1 && io.MousePos.y >= y1 &&
        io.MousePos.y <= y1 + laneH1) {
      hovered_ = static_cast<int>(it - slices.begin());
      ImGui::BeginTooltip();
      if (row) {
        showText(row->name);
        ImGui::TextDisabled("%s", row->op.c_str());
        if (!row->loc.empty())
          ImGui::Text("loc: %s", row->loc.c_str());
      }
      ImGui::Text("start %s, duration %s", formatNs(static_cast<double>(s.startNs)).c_str(),
                  formatNs(static_cast<double>(s.endNs - s.startNs)).c_str());
      ImGui::EndTooltip();
    }
    ++it;
  }
  dl->PopClipRect();
}

} // namespace loupe::visualizer
