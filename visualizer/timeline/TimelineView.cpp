//===- TimelineView.cpp - One repetition's work on a time axis ----------------===//
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

/// The time axis of the draw in progress: ns <-> screen x over [x0, x1].
struct Axis {
  float x0 = 0, x1 = 0;
  double viewStart = 0, viewEnd = 1;
  double nsPerPixel() const { return (viewEnd - viewStart) / std::max(1.0f, x1 - x0); }
  float x(double ns) const { return x0 + static_cast<float>((ns - viewStart) / nsPerPixel()); }
};

/// Tick lines from `top` to `bottom` and their labels in a ruler `rulerH` tall at `top`.
void drawRuler(ImDrawList *dl, const Axis &axis, float top, float bottom, float rulerH) {
  double step = tickStep(axis.viewEnd - axis.viewStart, (axis.x1 - axis.x0) / 110.0);
  for (double t = std::ceil(axis.viewStart / step) * step; t <= axis.viewEnd; t += step) {
    if (std::fabs(t) < step * 1e-6)
      t = 0; // "0 ns", not "-0 ns" or a rounding residue
    float x = axis.x(t);
    dl->AddLine(ImVec2(x, top), ImVec2(x, bottom), IM_COL32(255, 255, 255, 22));
    dl->AddLine(ImVec2(x, top + rulerH - 4), ImVec2(x, top + rulerH), IM_COL32(200, 200, 200, 160));
    std::string label = formatNs(t);
    dl->AddText(ImVec2(x + 3, top), IM_COL32(190, 190, 190, 255), label.c_str());
  }
}

struct LaneStats {
  int drawn = 0, merged = 0, hovered = -1;
};

/// Draws one lane of `slices` (sorted by start, not overlapping) between y0 and y1: slices
/// wider than kMergePixels as coloured boxes with `name(s)` (a std::string pointer, null for
/// none) and the duration inside when they fit, runs of narrower ones as grey blocks.
/// `tooltip(s)` fills the tooltip of the hovered slice; `what` names the merged items.
template <class Name, class Color, class Tooltip>
LaneStats drawLane(ImDrawList *dl, const Axis &axis, const std::vector<TimelineSlice> &slices,
                   float y0, float y1, bool canvasHovered, const char *what, Name name,
                   Color color, Tooltip tooltip) {
  LaneStats stats;
  const ImGuiIO &io = ImGui::GetIO();
  bool mouseIn = canvasHovered && io.MousePos.y >= y0 && io.MousePos.y <= y1;
  float lineH = ImGui::GetTextLineHeight();
  // First slice that can be visible: binary search on start (slices are sequential, so the one
  // before the first start >= viewStart may still reach into the view).
  auto first = std::lower_bound(slices.begin(), slices.end(), axis.viewStart,
                                [](const TimelineSlice &s, double t) { return s.startNs < t; });
  if (first != slices.begin())
    --first;
  for (auto it = first; it != slices.end() && it->startNs <= axis.viewEnd;) {
    float x0 = axis.x(static_cast<double>(it->startNs));
    float x1 = axis.x(static_cast<double>(it->endNs));
    if (it->endNs < axis.viewStart) {
      ++it;
      continue;
    }
    if (x1 - x0 < kMergePixels) {
      // Merge the run of narrow slices that starts here.
      auto runEnd = it;
      int count = 0;
      float mx1 = x1;
      while (runEnd != slices.end() && runEnd->startNs <= axis.viewEnd) {
        float a = axis.x(static_cast<double>(runEnd->startNs));
        float b = axis.x(static_cast<double>(runEnd->endNs));
        if (b - a >= kMergePixels || a - mx1 > kMergePixels)
          break;
        mx1 = std::max(mx1, b);
        ++count;
        ++runEnd;
      }
      dl->AddRectFilled(ImVec2(x0, y0), ImVec2(std::max(mx1, x0 + 1), y1),
                        IM_COL32(140, 140, 150, 200));
      ++stats.merged;
      if (mouseIn && io.MousePos.x >= x0 && io.MousePos.x <= std::max(mx1, x0 + 1))
        ImGui::SetTooltip("%d %s (zoom in to see them)", count, what);
      it = runEnd;
      continue;
    }
    const TimelineSlice &s = *it;
    dl->AddRectFilled(ImVec2(x0, y0), ImVec2(x1, y1), color(s));
    dl->AddRect(ImVec2(x0, y0), ImVec2(x1, y1), IM_COL32(0, 0, 0, 120));
    ++stats.drawn;
    if (const std::string *label = name(s)) {
      // The name, cut at the slice's end when it is longer (a few letters still tell kernels
      // apart); the duration under it when both fit.
      float lx = std::max(x0, axis.x0) + 3;
      float room = std::min(x1, axis.x1) - lx;
      float ty = y0 + std::max(1.0f, std::min(3.0f, (y1 - y0 - lineH) / 2));
      if (room > ImGui::CalcTextSize("abc").x) {
        ImVec4 clip(lx, y0, lx + room - 1, y1);
        dl->AddText(ImGui::GetFont(), ImGui::GetFontSize(), ImVec2(lx, ty),
                    IM_COL32(15, 15, 15, 255), label->c_str(), nullptr, 0.0f, &clip);
        std::string d = formatNs(static_cast<double>(s.endNs - s.startNs));
        if (y1 - ty >= 2 * lineH && room > ImGui::CalcTextSize(label->c_str()).x + 2 &&
            room > ImGui::CalcTextSize(d.c_str()).x + 2)
          dl->AddText(ImVec2(lx, ty + lineH), IM_COL32(15, 15, 15, 255), d.c_str());
      }
    }
    if (mouseIn && io.MousePos.x >= x0 && io.MousePos.x < x1) {
      stats.hovered = static_cast<int>(it - slices.begin());
      ImGui::BeginTooltip();
      tooltip(s);
      ImGui::Text("start %s, duration %s", formatNs(static_cast<double>(s.startNs)).c_str(),
                  formatNs(static_cast<double>(s.endNs - s.startNs)).c_str());
      ImGui::EndTooltip();
    }
    ++it;
  }
  return stats;
}

/// Colour of a GPU operation: kernels by row, copies by direction, sets steel blue.
ImU32 gpuColor(const gpu::KernelRow &row, int index) {
  switch (row.kind) {
  case gpu::ActivityKind::Kernel:
    return paletteColor(index);
  case gpu::ActivityKind::Memset:
    return IM_COL32(110, 150, 190, 255);
  case gpu::ActivityKind::Memcpy:
    break;
  }
  switch (row.copyKind) {
  case 1: return IM_COL32(90, 185, 110, 255);  // HtoD
  case 2: return IM_COL32(225, 150, 60, 255);  // DtoH
  case 8: return IM_COL32(165, 120, 215, 255); // DtoD
  default: return IM_COL32(160, 160, 120, 255);
  }
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

ImVec2 TimelineView::trackMin(int track) const {
  return track >= 0 && size_t(2 * track + 1) < trackRects_.size() ? trackRects_[2 * track]
                                                                   : ImVec2(0, 0);
}

ImVec2 TimelineView::trackMax(int track) const {
  return track >= 0 && size_t(2 * track + 1) < trackRects_.size() ? trackRects_[2 * track + 1]
                                                                   : ImVec2(0, 0);
}

void TimelineView::beginCanvas(int64_t durationNs, float height, float gutter) {
  drawn_ = merged_ = lanes_ = 0;
  hovered_ = hoveredTrack_ = -1;
  if (fitRequested_ || fittedDuration_ != durationNs) {
    double margin = std::max<double>(1, durationNs * 0.02);
    viewStart_ = -margin;
    viewEnd_ = std::max<double>(durationNs, 1) + margin;
    fitRequested_ = false;
    fittedDuration_ = durationNs;
  }
  origin_ = ImGui::GetCursorScreenPos();
  float width = std::max(gutter + 50.0f, ImGui::GetContentRegionAvail().x);
  end_ = ImVec2(origin_.x + width, origin_.y + height);
  dataX_ = origin_.x + gutter;
  ImGui::InvisibleButton("timeline", ImVec2(width, height),
                         ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight);
  canvasHovered_ = ImGui::IsItemHovered();
  bool active = ImGui::IsItemActive();
  ImGuiIO &io = ImGui::GetIO();
  double nsPerPixel = (viewEnd_ - viewStart_) / std::max(1.0f, end_.x - dataX_);

  // Interaction: wheel zooms around the cursor, drag pans, double click fits.
  if (canvasHovered_ && io.MouseWheel != 0) {
    double anchor = viewStart_ + (io.MousePos.x - dataX_) * nsPerPixel;
    zoom(std::pow(1.25, io.MouseWheel), anchor);
    nsPerPixel = (viewEnd_ - viewStart_) / std::max(1.0f, end_.x - dataX_);
  }
  if (active && io.MouseDelta.x != 0)
    pan(-io.MouseDelta.x * nsPerPixel);
  if (canvasHovered_ && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left))
    fitRequested_ = true;
}

void TimelineView::draw(const std::vector<TimelineSlice> &slices, int64_t durationNs,
                        const std::vector<DispatchRow> &rows, float height) {
  beginCanvas(durationNs, std::max(height, 60.0f), 0);
  Axis axis{dataX_, end_.x, viewStart_, viewEnd_};
  ImDrawList *dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(origin_, end_, true);
  dl->AddRectFilled(origin_, end_, IM_COL32(22, 24, 28, 255));
  float rulerH = ImGui::GetTextLineHeight() + 4;
  drawRuler(dl, axis, origin_.y, end_.y, rulerH);

  // Lane 0: the whole repetition.
  float laneH = ImGui::GetTextLineHeight() + 8;
  float y0 = origin_.y + rulerH + 4;
  {
    float x0 = axis.x(0), x1 = axis.x(static_cast<double>(durationNs));
    dl->AddRectFilled(ImVec2(x0, y0), ImVec2(std::max(x1, x0 + 1), y0 + laneH),
                      IM_COL32(70, 80, 95, 255));
    std::string label = "repetition " + formatNs(static_cast<double>(durationNs));
    float textW = ImGui::CalcTextSize(label.c_str()).x;
    float lx = std::max(x0, origin_.x) + 4;
    if (std::min(x1, end_.x) - lx > textW)
      dl->AddText(ImVec2(lx, y0 + 4), IM_COL32(230, 230, 230, 255), label.c_str());
  }

  // Lane 1: dispatches.
  float y1 = y0 + laneH + 6;
  float laneH1 = std::max(laneH * 2, end_.y - y1 - 6);
  auto rowOf = [&](const TimelineSlice &s) {
    return s.row >= 0 && s.row < static_cast<int>(rows.size()) ? &rows[s.row] : nullptr;
  };
  LaneStats stats = drawLane(
      dl, axis, slices, y1, y1 + laneH1, canvasHovered_, "dispatches",
      [&](const TimelineSlice &s) {
        const DispatchRow *row = rowOf(s);
        return row ? &row->name : nullptr;
      },
      [&](const TimelineSlice &s) {
        const DispatchRow *row = rowOf(s);
        return paletteColor(row ? static_cast<int>(row->id) : 0);
      },
      [&](const TimelineSlice &s) {
        if (const DispatchRow *row = rowOf(s)) {
          showText(row->name);
          ImGui::TextDisabled("%s", row->op.c_str());
          if (!row->loc.empty())
            ImGui::Text("loc: %s", row->loc.c_str());
        }
      });
  drawn_ = stats.drawn;
  merged_ = stats.merged;
  hovered_ = stats.hovered;
  lanes_ = 2;
  dl->PopClipRect();
}

void TimelineView::drawTracks(const gpu::GpuActivity &gpu, const gpu::RepActivity &rep,
                              float height) {
  float lineH = ImGui::GetTextLineHeight();
  float rulerH = lineH + 4;
  float gutter = 0;
  for (const gpu::Track &t : gpu.tracks)
    gutter = std::max(gutter, ImGui::CalcTextSize(t.label.c_str()).x);
  gutter += 12;
  // Two text lines per track when there is room, never less than one.
  int tracks = static_cast<int>(gpu.tracks.size());
  float gap = 3;
  float fit = (std::max(height, 60.0f) - rulerH - 6) / std::max(1, tracks) - gap;
  float laneH = std::clamp(fit, lineH + 4, 2 * lineH + 8);
  float needed = rulerH + 6 + tracks * (laneH + gap);
  beginCanvas(rep.durationNs, std::max({height, 60.0f, needed}), gutter);

  Axis axis{dataX_, end_.x, viewStart_, viewEnd_};
  ImDrawList *dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(origin_, end_, true);
  dl->AddRectFilled(origin_, end_, IM_COL32(22, 24, 28, 255));
  dl->AddRectFilled(origin_, ImVec2(dataX_, end_.y), IM_COL32(30, 33, 38, 255));
  dl->PushClipRect(ImVec2(dataX_, origin_.y), end_, true);
  drawRuler(dl, axis, origin_.y, end_.y, rulerH);
  dl->PopClipRect();
  trackRects_.assign(2 * gpu.tracks.size(), ImVec2(0, 0));
  float y = origin_.y + rulerH + 6;
  for (int t = 0; t < tracks; ++t, y += laneH + gap) {
    const gpu::Track &track = gpu.tracks[t];
    // The label in the gutter; a track's copies and sets sit under its kernels, dimmer.
    bool kernels = track.kind == gpu::ActivityKind::Kernel;
    dl->AddText(ImVec2(origin_.x + 6, y + std::max(0.0f, (laneH - lineH) / 2)),
                kernels ? IM_COL32(220, 220, 220, 255) : IM_COL32(160, 165, 175, 255),
                track.label.c_str());
    dl->AddLine(ImVec2(dataX_, y + laneH + gap / 2), ImVec2(end_.x, y + laneH + gap / 2),
                IM_COL32(255, 255, 255, 14));
    trackRects_[2 * t] = ImVec2(dataX_, y);
    trackRects_[2 * t + 1] = ImVec2(end_.x, y + laneH);
    if (size_t(t) >= rep.tracks.size())
      continue;
    dl->PushClipRect(ImVec2(dataX_, origin_.y), end_, true);
    auto rowOf = [&](const TimelineSlice &s) {
      return s.row >= 0 && s.row < static_cast<int>(gpu.rows.size()) ? &gpu.rows[s.row] : nullptr;
    };
    LaneStats stats = drawLane(
        dl, axis, rep.tracks[t], y, y + laneH, canvasHovered_, kernels ? "kernels" : "operations",
        [&](const TimelineSlice &s) {
          const gpu::KernelRow *row = rowOf(s);
          return row ? &row->shortName : nullptr;
        },
        [&](const TimelineSlice &s) {
          const gpu::KernelRow *row = rowOf(s);
          return row ? gpuColor(*row, s.row) : paletteColor(0);
        },
        [&](const TimelineSlice &s) {
          const gpu::KernelRow *row = rowOf(s);
          if (!row)
            return;
          showText(row->name);
          ImGui::TextDisabled("%s", track.label.c_str());
          if (row->kind == gpu::ActivityKind::Kernel) {
            ImGui::Text("grid (%d, %d, %d), block (%d, %d, %d), %d registers/thread",
                        row->grid[0], row->grid[1], row->grid[2], row->block[0], row->block[1],
                        row->block[2], row->registersPerThread);
          } else {
            double gbs = gpu::ratePerNs(static_cast<double>(row->bytes),
                                        static_cast<double>(s.endNs - s.startNs));
            if (row->kind == gpu::ActivityKind::Memset)
              ImGui::Text("%lld bytes of %s memory set, %.1f GB/s",
                          static_cast<long long>(row->bytes),
                          gpu::memoryKindName(row->dstKind).c_str(), gbs);
            else
              ImGui::Text("%lld bytes, %s -> %s, %.1f GB/s", static_cast<long long>(row->bytes),
                          gpu::memoryKindName(row->srcKind).c_str(),
                          gpu::memoryKindName(row->dstKind).c_str(), gbs);
          }
          if (row->dispatchId >= 0)
            ImGui::Text("dispatch %lld", static_cast<long long>(row->dispatchId));
        });
    dl->PopClipRect();
    drawn_ += stats.drawn;
    merged_ += stats.merged;
    if (stats.hovered >= 0) {
      hovered_ = stats.hovered;
      hoveredTrack_ = t;
    }
  }
  lanes_ = tracks;
  dl->PopClipRect();
}

} // namespace loupe::visualizer
