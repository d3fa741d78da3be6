//===- ComparePanel.cpp - Two runs, dispatch by dispatch ----------------------===//
#include "loupe/visualizer/panels/ComparePanel.h"

#include "loupe/visualizer/Format.h"
#include "loupe/visualizer/Style.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace loupe::visualizer {

namespace {
std::string runLabel(const profiler::RunSummary &r) {
  return "#" + std::to_string(r.id) + "  " + formatWallTime(r.startedNs) +
         (r.variant.empty() ? "" : "  " + r.variant) +
         (r.status == profiler::RunStatus::Complete ? "" : std::string("  ") + profiler::runStatusName(r.status));
}

} // namespace

void ComparePanel::verdictCell(const profiler::Comparison &c) {
  textColored(verdictColor(c.verdict), profiler::verdictName(c.verdict));
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s\np = %.4g, %zu vs %zu samples", c.reason.c_str(), c.test.pValue,
                      c.baseline.count, c.candidate.count);
}

void ComparePanel::timingCells(const profiler::Comparison &c, bool inBaseline, bool inCandidate,
                               double ratio, int group) {
  ImGui::TableNextColumn();
  showText(inBaseline ? formatNs(medianOr(c.baseline)) : "missing");
  ImGui::TableNextColumn();
  showText(inCandidate ? formatNs(medianOr(c.candidate)) : "missing");
  ImGui::TableNextColumn();
  if (std::isnan(ratio))
    ImGui::TextDisabled("-");
  else
    ImGui::Text("%.3fx", ratio);
  ImGui::TableNextColumn();
  if (group < 0) {
    verdictCell(c);
    return;
  }
  ImGui::TextDisabled("group %d", group + 1);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("No counterpart on the other side: compared with the dispatches of the "
                      "same source ops (the group's row, below the dispatches)");
}

double ComparePanel::medianOr(const profiler::Summary &s) {
  return s.count ? s.median : std::nan("");
}

void ComparePanel::backendPair(const std::string &a, const std::string &b) {
  if (a.empty() && b.empty())
    ImGui::TextDisabled("-");
  else if (a == b || a.empty() || b.empty())
    textColored(backendColor(a.empty() ? b : a), a.empty() ? b : a);
  else {
    textColored(backendColor(a), a);
    ImGui::SameLine(0, 4);
    ImGui::TextDisabled("->");
    ImGui::SameLine(0, 4);
    textColored(backendColor(b), b);
  }
}

void ComparePanel::setSort(Column column, bool ascending) {
  sortColumn_ = column;
  sortAscending_ = ascending;
  sortDirty_ = true;
}

const std::vector<int> &ComparePanel::sortedRows(const ViewModel &vm) {
  const CompareView *c = vm.comparison.get();
  if (!sortDirty_ && sortedFor_ == c)
    return order_;
  sortedFor_ = c;
  sortDirty_ = false;
  order_.clear();
  if (!c)
    return order_;
  order_.resize(c->rows.size());
  std::iota(order_.begin(), order_.end(), 0);
  Column col = sortColumn_;
  bool asc = sortAscending_;
  auto key = [&](const CompareRow &r) -> double {
    switch (col) {
    case ColBaseline: return medianOr(r.comparison.baseline);
    case ColCandidate: return medianOr(r.comparison.candidate);
    case ColRatio: return r.ratio;
    case ColVerdict: return static_cast<double>(r.comparison.verdict);
    default: return static_cast<double>(r.id);
    }
  };
  std::stable_sort(order_.begin(), order_.end(), [&](int ia, int ib) {
    const CompareRow &a = c->rows[ia], &b = c->rows[ib];
    if (col == ColName) {
      int k = a.name.compare(b.name);
      if (k != 0)
        return asc ? k < 0 : k > 0;
      return a.id < b.id;
    }
    double ka = key(a), kb = key(b);
    // NaN (missing on one side) sorts last either way.
    if (std::isnan(ka) != std::isnan(kb))
      return std::isnan(kb);
    if (ka != kb && !std::isnan(ka))
      return asc ? ka < kb : ka > kb;
    return a.id < b.id;
  });
  return order_;
}

std::array<int, 4> ComparePanel::verdictCounts(const ViewModel &vm) const {
  std::array<int, 4> counts{};
  if (vm.comparison)
    for (const CompareRow &r : vm.comparison->rows)
      ++counts[static_cast<int>(r.comparison.verdict)];
  return counts;
}

void ComparePanel::setVariantMode(ViewModel &vm, Actions &actions, bool variants) {
  variantMode_ = variants;
  if (!variants) {
    vm.nav.baselineVariant.clear();
    vm.nav.candidateVariant.clear();
    return;
  }
  const sessions::Session &s = vm.session;
  if (s.compare.size() == 2) {
    pickBaseline_ = s.compare[0];
    pickCandidate_ = s.compare[1];
  } else if (s.variants.size() >= 2) {
    pickBaseline_ = s.variants[0].name;
    pickCandidate_ = s.variants[1].name;
  } else {
    pickBaseline_ = sessions::kBaseVariant;
    pickCandidate_ = s.variants.empty() ? "" : s.variants[0].name;
  }
  if (!pickCandidate_.empty())
    actions.compareVariants(pickBaseline_, pickCandidate_, vm.nav.compareThreshold);
}

bool ComparePanel::drawRunPickers(ViewModel &vm, int64_t &base, int64_t &cand) {
  const std::vector<profiler::RunSummary> empty;
  const std::vector<profiler::RunSummary> &runs = vm.runs ? vm.runs->runs : empty;
  auto picker = [&](const char *label, int64_t &id) {
    std::string current = "-";
    for (const profiler::RunSummary &r : runs)
      if (r.id == id)
        current = runLabel(r);
    bool changed = false;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 15);
    if (ImGui::BeginCombo(label, current.c_str())) {
      for (const profiler::RunSummary &r : runs)
        if (ImGui::Selectable(runLabel(r).c_str(), r.id == id)) {
          changed = id != r.id;
          id = r.id;
        }
      ImGui::EndCombo();
    }
    return changed;
  };
  bool changed = picker("baseline", base);
  ImGui::SameLine();
  changed |= picker("candidate", cand);
  ImGui::SameLine();
  if (ImGui::Button("Swap")) {
    std::swap(base, cand);
    changed = true;
  }
  return changed;
}

bool ComparePanel::drawVariantPickers(ViewModel &vm, Actions &actions) {
  std::vector<std::string> names = {sessions::kBaseVariant};
  for (const sessions::Variant &v : vm.session.variants)
    names.push_back(v.name);
  auto picker = [&](const char *label, std::string &pick) {
    bool changed = false;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9);
    if (ImGui::BeginCombo(label, pick.empty() ? "-" : pick.c_str())) {
      for (const std::string &n : names)
        if (ImGui::Selectable(n.c_str(), n == pick)) {
          changed = n != pick;
          pick = n;
        }
      ImGui::EndCombo();
    }
    if (ImGui::IsItemHovered() && !pick.empty())
      if (auto v = vm.session.variant(pick))
        ImGui::SetTooltip("%s", sessions::runConfigJson(v->pipeline, v->run).c_str());
    return changed;
  };
  bool changed = picker("baseline", pickBaseline_);
  ImGui::SameLine();
  changed |= picker("candidate", pickCandidate_);
  ImGui::SameLine();
  if (ImGui::Button("Swap")) {
    std::swap(pickBaseline_, pickCandidate_);
    changed = true;
  }
  ImGui::SameLine();
  bool valid = !pickBaseline_.empty() && !pickCandidate_.empty() && pickBaseline_ != pickCandidate_;
  ImGui::BeginDisabled(!valid || vm.running);
  if (ImGui::Button("Run both"))
    actions.runVariants(pickBaseline_, pickCandidate_);
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("Compile, run and store both variants, then compare them (what `loupe "
                      "replay` does with the session's `compare`).");
  return changed && valid;
}

void ComparePanel::drawPickers(ViewModel &vm, Actions &actions) {
  bool navVariants = vm.nav.comparesVariants();
  if (navVariants && (!variantMode_ || pickBaseline_ != vm.nav.baselineVariant ||
                      pickCandidate_ != vm.nav.candidateVariant)) {
    variantMode_ = true; // e.g. a session opened with `compare`, or Run both
    pickBaseline_ = vm.nav.baselineVariant;
    pickCandidate_ = vm.nav.candidateVariant;
  } else if (!navVariants && sawNavVariants_) {
    variantMode_ = false; // runs picked elsewhere (Profile panel, a new run)
  }
  sawNavVariants_ = navVariants;
  if (ImGui::RadioButton("runs", !variantMode_) && variantMode_)
    setVariantMode(vm, actions, false);
  ImGui::SameLine();
  if (ImGui::RadioButton("variants", variantMode_) && !variantMode_)
    setVariantMode(vm, actions, true);
  ImGui::SameLine();

  int64_t base = vm.nav.baselineRunId, cand = vm.nav.candidateRunId;
  bool changed = variantMode_ ? drawVariantPickers(vm, actions) : drawRunPickers(vm, base, cand);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5);
  thresholdPercent_ = static_cast<float>(vm.nav.compareThreshold * 100);
  if (ImGui::InputFloat("threshold %", &thresholdPercent_, 0, 0, "%.1f",
                        ImGuiInputTextFlags_EnterReturnsTrue))
    changed = true;
  thresholdPercent_ = std::clamp(thresholdPercent_, 0.1f, 100.0f);
  ImGui::SameLine();
  helpMarker("FASTER / SLOWER need both a significant Mann-Whitney U test (p < 0.05, at least 9 "
             "samples on each side) and a median change of at least the threshold. A "
             "significant but smaller change, or a large one within the noise, is AMBIGUOUS.");
  if (variantMode_) {
    if (changed && !pickBaseline_.empty() && !pickCandidate_.empty() &&
        pickBaseline_ != pickCandidate_)
      actions.compareVariants(pickBaseline_, pickCandidate_, thresholdPercent_ / 100.0);
    if (vm.session.variants.empty())
      ImGui::TextDisabled("The session has no variants: compare two runs and save the session "
                          "to make them variants, or add \"variants\" to the session file.");
    else if (vm.nav.comparesVariants() && !vm.comparison &&
             (vm.nav.baselineRunId < 0 || vm.nav.candidateRunId < 0))
      ImGui::TextDisabled("No stored run of variant '%s' yet: Run both.",
                          (vm.nav.baselineRunId < 0 ? vm.nav.baselineVariant
                                                    : vm.nav.candidateVariant).c_str());
    return;
  }
  if (changed && base >= 0 && cand >= 0)
    actions.compareRuns(base, cand, thresholdPercent_ / 100.0);
  else if (changed) {
    vm.nav.baselineRunId = base;
    vm.nav.candidateRunId = cand;
  }
}

void ComparePanel::drawTable(const CompareView &c) {
  ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY |
                          ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_Resizable |
                          ImGuiTableFlags_Sortable | ImGuiTableFlags_SizingFixedFit;
  float height = std::max(120.0f, ImGui::GetContentRegionAvail().y * 0.4f);
  if (!ImGui::BeginTable("compare", ColCount + 2, flags, ImVec2(0, height)))
    return;
  ImGui::TableSetupScrollFreeze(0, 2);
  ImGui::TableSetupColumn("id", ImGuiTableColumnFlags_DefaultSort, 0, ColId);
  ImGui::TableSetupColumn("dispatch", ImGuiTableColumnFlags_WidthStretch, 0, ColName);
  ImGui::TableSetupColumn("backend", ImGuiTableColumnFlags_NoSort, 0, ColCount + 1);
  ImGui::TableSetupColumn("baseline", ImGuiTableColumnFlags_PreferSortDescending, 0, ColBaseline);
  ImGui::TableSetupColumn("candidate", ImGuiTableColumnFlags_PreferSortDescending, 0, ColCandidate);
  ImGui::TableSetupColumn("ratio", 0, 0, ColRatio);
  ImGui::TableSetupColumn("verdict", 0, 0, ColVerdict);
  ImGui::TableSetupColumn("change", ImGuiTableColumnFlags_NoSort, 0, ColCount);
  ImGui::TableHeadersRow();
  if (ImGuiTableSortSpecs *specs = ImGui::TableGetSortSpecs())
    if (specs->SpecsDirty && specs->SpecsCount > 0) {
      setSort(static_cast<Column>(specs->Specs[0].ColumnUserID),
              specs->Specs[0].SortDirection == ImGuiSortDirection_Ascending);
      specs->SpecsDirty = false;
    }

  diffButtons_.clear();
  auto rowCells = [this](const CompareRow &r, bool total) {
    ImGui::TableNextColumn();
    if (total)
      ImGui::TextUnformatted("all");
    else if (r.id < 0)
      ImGui::TextUnformatted("group");
    else
      ImGui::Text("%lld", static_cast<long long>(r.id));
    ImGui::TableNextColumn();
    showText(r.name);
    bool renamed = r.inBaseline && r.inCandidate && r.candidateName != r.name;
    if (ImGui::IsItemHovered() && (!r.loc.empty() || renamed))
      ImGui::SetTooltip("loc: %s%s%s", r.loc.c_str(), renamed ? "\ncandidate: " : "",
                        renamed ? r.candidateName.c_str() : "");
    // Each side's backend: "onednn", or "onednn -> codegen" when the candidate's differs.
    ImGui::TableNextColumn();
    backendPair(r.baselineBackend, r.candidateBackend);
    timingCells(r.comparison, r.inBaseline, r.inCandidate, r.ratio, r.group);
    ImGui::TableNextColumn();
    showText(r.group < 0 ? formatChange(r.comparison.change) : std::string("-"));
    if (!r.attribution || r.attribution->index < 0)
      return;
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("IR of these ops first differs after %s",
                        sessions::describe(*r.attribution).c_str());
    ImGui::SameLine();
    if (ImGui::SmallButton(("IR diff #" + std::to_string(r.attribution->index)).c_str()))
      diffRequest_ = r.attribution->index;
    diffButtons_[r.name] = lastItemRect();
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Diff pass %d (%s) of the two compiles side by side", r.attribution->index,
                        r.attribution->pass.c_str());
  };
  // The whole repetition first, highlighted.
  ImGui::TableNextRow();
  ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, IM_COL32(60, 70, 90, 120));
  rowCells(c.total, true);

  const std::vector<int> &order = order_;
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(order.size()));
  while (clipper.Step())
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      ImGui::TableNextRow();
      ImGui::PushID(i);
      rowCells(c.rows[order[i]], false);
      ImGui::PopID();
    }
  ImGui::EndTable();
}

void ComparePanel::drawBars(const CompareView &c) {
  drawnBars_ = 0;
  ImGui::TextDisabled("medians per dispatch:");
  ImGui::SameLine();
  textColored(IM_COL32(120, 140, 170, 255), "baseline");
  ImGui::SameLine();
  ImGui::TextDisabled("vs");
  ImGui::SameLine();
  ImGui::TextUnformatted("candidate (coloured by verdict)");
  ImGui::BeginChild("bars", ImVec2(0, 0), true);
  double maxNs = 0;
  for (const CompareRow &r : c.rows)
    maxNs = std::max({maxNs, r.comparison.baseline.count ? r.comparison.baseline.median : 0.0,
                      r.comparison.candidate.count ? r.comparison.candidate.median : 0.0});
  float lineH = ImGui::GetTextLineHeight();
  float rowH = lineH * 2 + 6;
  float labelW = ImGui::GetFontSize() * 14;
  float width = std::max(40.0f, ImGui::GetContentRegionAvail().x - labelW - ImGui::GetFontSize() * 6);
  const std::vector<int> &order = order_;
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(order.size()), rowH);
  ImDrawList *dl = ImGui::GetWindowDrawList();
  while (clipper.Step())
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const CompareRow &r = c.rows[order[i]];
      ImVec2 p = ImGui::GetCursorScreenPos();
      std::string label = r.name;
      if (ImGui::CalcTextSize(label.c_str()).x > labelW - 6)
        label = label.substr(0, static_cast<size_t>((labelW - 6) / ImGui::CalcTextSize("x").x)) ;
      dl->AddText(ImVec2(p.x, p.y + lineH * 0.5f + 2), ImGui::GetColorU32(ImGuiCol_Text), label.c_str());
      float x0 = p.x + labelW;
      auto bar = [&](float y, const profiler::Summary &s, ImU32 color) {
        if (!s.count || maxNs <= 0)
          return;
        float w = std::max(1.0f, static_cast<float>(s.median / maxNs) * width);
        dl->AddRectFilled(ImVec2(x0, y), ImVec2(x0 + w, y + lineH), color);
        // IQR whisker.
        float q1 = x0 + static_cast<float>(s.q1 / maxNs) * width;
        float q3 = x0 + static_cast<float>(s.q3 / maxNs) * width;
        dl->AddLine(ImVec2(q1, y + lineH * 0.5f), ImVec2(q3, y + lineH * 0.5f), IM_COL32(255, 255, 255, 150));
        std::string v = formatNs(s.median);
        dl->AddText(ImVec2(x0 + w + 4, y), ImGui::GetColorU32(ImGuiCol_Text), v.c_str());
        ++drawnBars_;
      };
      bar(p.y + 2, r.comparison.baseline, IM_COL32(120, 140, 170, 255));
      bar(p.y + 4 + lineH, r.comparison.candidate, verdictColor(r.comparison.verdict));
      ImGui::Dummy(ImVec2(labelW + width, rowH));
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s\n%s  %s\n%s", r.name.c_str(), profiler::verdictName(r.comparison.verdict),
                          formatChange(r.comparison.change).c_str(), r.comparison.reason.c_str());
    }
  ImGui::EndChild();
}

void ComparePanel::openCrossDiff(ViewModel &vm, Actions &actions, int pass) {
  vm.nav.diffAcrossCompiles = true;
  vm.nav.crossDiffPass = pass;
  vm.nav.tabRequest = Tab::Diff;
  const CrossCompileView *x = vm.crossCompile.get();
  if (vm.comparison && !vm.crossCompiling &&
      (!x || x->baselineRunId != vm.comparison->baseline.id ||
       x->candidateRunId != vm.comparison->candidate.id))
    actions.compileCompared();
}

ScreenRect ComparePanel::diffButtonRect(const std::string &name) const {
  auto it = diffButtons_.find(name);
  return it == diffButtons_.end() ? ScreenRect{} : it->second;
}

void ComparePanel::draw(ViewModel &vm, Actions &actions) {
  drawPickers(vm, actions);
  if (!variantMode_ && (!vm.runs || vm.runs->runs.size() < 2)) {
    ImGui::TextDisabled("Run the model at least twice (e.g. with different settings) to compare "
                        "two runs.");
  }
  if (!vm.comparison) {
    if (vm.nav.baselineRunId >= 0 && vm.nav.candidateRunId >= 0)
      ImGui::TextDisabled("comparing...");
    return;
  }
  const CompareView &c = *vm.comparison;
  if (!c.error.empty()) {
    textColored(IM_COL32(235, 90, 80, 255), c.error);
    return;
  }
  std::array<int, 4> counts = verdictCounts(vm);
  if (vm.nav.comparesVariants())
    ImGui::Text("%s (#%lld) -> %s (#%lld):", vm.nav.baselineVariant.c_str(),
                static_cast<long long>(c.baseline.id), vm.nav.candidateVariant.c_str(),
                static_cast<long long>(c.candidate.id));
  else
    ImGui::Text("#%lld -> #%lld:", static_cast<long long>(c.baseline.id),
                static_cast<long long>(c.candidate.id));
  ImGui::SameLine();
  verdictCell(c.total.comparison);
  ImGui::SameLine();
  const profiler::Comparison &whole = c.total.comparison;
  // The trials behind the verdict: "7 paired trials", "3 vs 3 trials", "1 run each".
  std::string trials = whole.paired ? std::to_string(whole.baselineTrials) + " paired trials"
                       : whole.baselineTrials > 1 || whole.candidateTrials > 1
                           ? std::to_string(whole.baselineTrials) + " vs " +
                                 std::to_string(whole.candidateTrials) + " trials"
                           : std::string("1 run each");
  ImGui::Text("%s (median %s -> %s, %s);  dispatches: %d faster, %d slower, %d ambiguous, %d same",
              formatChange(whole.change).c_str(), formatNs(whole.baselineMedian).c_str(),
              formatNs(whole.candidateMedian).c_str(), trials.c_str(),
              counts[static_cast<int>(profiler::Verdict::Faster)],
              counts[static_cast<int>(profiler::Verdict::Slower)],
              counts[static_cast<int>(profiler::Verdict::Ambiguous)],
              counts[static_cast<int>(profiler::Verdict::Same)]);
  sortedRows(vm);
  drawTable(c);
  sortedRows(vm); // the table may have changed the sort
  if (diffRequest_)
    openCrossDiff(vm, actions, *diffRequest_);
  diffRequest_.reset();
  if (ImGui::CollapsingHeader("clusters: kernel durations summed per repetition",
                              ImGuiTreeNodeFlags_DefaultOpen))
    drawClusters(c.clusters);
  drawBars(c);
}

} // namespace loupe::visualizer
