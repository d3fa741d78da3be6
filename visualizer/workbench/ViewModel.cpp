//===- ViewModel.cpp - Building the GUI's immutable snapshots ----------------===//
#include "loupe/visualizer/ViewModel.h"

#include "loupe/profiler/RunProvenance.h"
#include "loupe/visualizer/gpu/GpuActivity.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

namespace loupe::visualizer {

namespace {
const std::string kEmpty;

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

} // namespace

const std::string &CompileView::irAfter(int index) const {
  if (index == kSourcePass)
    return sourceText;
  if (index < 0 || index >= passCount())
    return kEmpty;
  int holder = irSource[index];
  if (holder == kSourcePass)
    return sourceText;
  return holder < 0 ? kEmpty : result.snapshots[holder].ir;
}

compiler::IrKind CompileView::irKindAfter(int index) const {
  if (index < 0 || index >= passCount())
    return compiler::IrKind::Mlir;
  int holder = irSource[index];
  return holder < 0 ? compiler::IrKind::Mlir : result.snapshots[holder].irKind;
}

std::string CompileView::passLabel(int index) const {
  if (index == kSourcePass)
    return "source";
  if (index < 0 || index >= passCount())
    return "-";
  const compiler::PassSnapshot &s = result.snapshots[index];
  return std::to_string(index) + " " + s.phase + "/" + s.pass;
}

std::shared_ptr<const CompileView> makeCompileView(std::string modelPath,
                                                   compiler::CompileOptions options,
                                                   compiler::CompileResult result,
                                                   uint64_t generation, int64_t wallNs) {
  auto view = std::make_shared<CompileView>();
  view->generation = generation;
  view->modelPath = std::move(modelPath);
  view->options = std::move(options);
  view->result = std::move(result);
  view->wallNs = wallNs;
  view->graph = graph::buildGraphModel(view->result, view->options.target);
  if (endsWith(view->modelPath, ".mlir")) {
    std::ifstream in(view->modelPath, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    view->sourceText = text.str();
  }
  int holder = view->hasSource() ? kSourcePass : kNoPass;
  view->irSource.resize(view->result.snapshots.size());
  for (size_t i = 0; i < view->result.snapshots.size(); ++i) {
    const compiler::PassSnapshot &s = view->result.snapshots[i];
    // A failed pass keeps its (generic form) IR even when the hash did not change.
    if ((s.changed || s.failed) && !s.ir.empty())
      holder = static_cast<int>(i);
    view->irSource[i] = holder;
  }
  return view;
}

std::shared_ptr<const ProfileView> makeProfileView(const profiler::RunData &data) {
  auto view = std::make_shared<ProfileView>();
  view->run = data.summary;
  view->configJson = data.configJson;
  view->deviceDetailsJson = data.deviceDetailsJson;
  if (data.measurement)
    view->kernelTiming = data.measurement->kernelTiming;
  if (!data.host.empty()) {
    std::string environment = profiler::describeEnvironment(data.environmentJson);
    view->provenance = "on " + data.host + " (pid " + std::to_string(data.pid) + ")" +
                       (environment.empty() ? "" : ": " + environment);
  }
  view->environmentJson = data.environmentJson;
  view->checks = data.checks;
  view->fallbacks = data.fallbacks;
  view->gpu = gpu::buildGpuActivity(data);
  view->whole = profiler::summarize(data.durations(profiler::kWholeRep));

  std::map<int64_t, int32_t> rowOf;
  double totalMedian = 0;
  for (const profiler::DispatchRecord &d : data.dispatches) {
    DispatchRow row;
    row.id = d.dispatchId;
    row.name = d.name;
    row.op = d.op;
    row.loc = d.loc;
    row.backend = d.backend;
    row.cluster = d.clusterId;
    std::vector<int64_t> samples = data.durations(d.dispatchId);
    profiler::Summary s = profiler::summarize(samples);
    row.calls = s.count;
    row.medianNs = s.count ? s.median : 0;
    row.iqrNs = s.count ? s.iqr() : 0;
    row.minNs = s.min;
    row.maxNs = s.max;
    if (s.count)
      totalMedian += s.median;
    rowOf[d.dispatchId] = static_cast<int32_t>(view->rows.size());
    view->rows.push_back(std::move(row));
  }
  for (DispatchRow &row : view->rows)
    row.share = totalMedian > 0 ? row.medianNs / totalMedian : 0;

  // Timeline: dispatch samples are offsets from their repetition's start.
  int64_t reps = 0;
  for (const auto &[id, samples] : data.samples)
    for (const profiler::SampleRecord &s : samples)
      reps = std::max(reps, s.rep + 1);
  view->reps.resize(static_cast<size_t>(reps));
  view->repDurationNs.assign(static_cast<size_t>(reps), 0);
  for (const auto &[id, samples] : data.samples) {
    if (id == profiler::kWholeRep) {
      for (const profiler::SampleRecord &s : samples)
        view->repDurationNs[s.rep] = s.durationNs();
      continue;
    }
    auto row = rowOf.find(id);
    if (row == rowOf.end())
      continue;
    for (const profiler::SampleRecord &s : samples)
      view->reps[s.rep].push_back({s.startNs, s.endNs, row->second});
  }
  for (size_t r = 0; r < view->reps.size(); ++r) {
    auto &slices = view->reps[r];
    std::sort(slices.begin(), slices.end(), [](const TimelineSlice &a, const TimelineSlice &b) {
      return a.startNs < b.startNs || (a.startNs == b.startNs && a.endNs < b.endNs);
    });
    if (!slices.empty())
      view->repDurationNs[r] = std::max(view->repDurationNs[r], slices.back().endNs);
  }
  return view;
}

std::shared_ptr<const CompareView> makeCompareView(const profiler::RunData &baseline,
                                                   const profiler::RunData &candidate,
                                                   double threshold) {
  return makeCompareView(baseline, candidate,
                         sessions::compareTimings(sessions::timedRun(baseline),
                                                  sessions::timedRun(candidate), threshold));
}

std::shared_ptr<const CompareView> makeCompareView(const profiler::RunData &baseline,
                                                   const profiler::RunData &candidate,
                                                   sessions::RunComparison c) {
  auto view = std::make_shared<CompareView>();
  view->baseline = baseline.summary;
  view->candidate = candidate.summary;
  view->baselineConfigJson = baseline.configJson;
  view->candidateConfigJson = candidate.configJson;
  view->threshold = c.options.threshold;
  view->total = std::move(c.total);
  view->rows = std::move(c.rows);
  // Dispatches without a counterpart are compared as their source-op groups: one row each,
  // after the dispatches (id -1), as in the replay report.
  for (size_t g = 0; g < c.groups.size(); ++g) {
    CompareRow row = std::move(c.groups[g].row);
    row.id = -1;
    row.name = "group " + std::to_string(g + 1) + ": " + row.name;
    view->rows.push_back(std::move(row));
  }
  view->clusters = clusters::compareClusters(baseline, candidate, view->threshold);
  return view;
}

void Log::add(LogLevel level, std::string source, std::string text, int pass) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
    text.pop_back();
  entries_.push_back({level, std::move(source), std::move(text), pass});
  ++generation_;
}

size_t Log::errorCount() const {
  return std::count_if(entries_.begin(), entries_.end(),
                       [](const LogEntry &e) { return e.level == LogLevel::Error; });
}

const char *tabName(Tab tab) {
  switch (tab) {
  case Tab::Ir:
    return "IR";
  case Tab::Diff:
    return "Diff";
  case Tab::Graph:
    return "Graph";
  case Tab::Dispatches:
    return "Dispatches";
  case Tab::Profile:
    return "Profile";
  case Tab::Compare:
    return "Compare";
  }
  return "?";
}

void Navigation::selectOp(const graph::GraphModel &model, int node) {
  bool valid = node >= 0 && size_t(node) < model.nodes.size();
  selectedNode = valid ? node : -1;
  const graph::NodeEntry *n = valid ? &model.nodes[node] : nullptr;
  selectedCluster = n && n->cluster >= 0 ? model.clusters[n->cluster].summary.id : -1;
  selectedDispatch = n && n->dispatch >= 0 ? model.dispatches[n->dispatch].summary.id : -1;
}

void Navigation::selectCluster(const graph::GraphModel &model, int64_t id) {
  int c = model.clusterIndex(id);
  selectedNode = -1;
  selectedCluster = c >= 0 ? id : -1;
  selectedDispatch = c >= 0 && model.clusters[c].dispatches.size() == 1
                         ? model.dispatches[model.clusters[c].dispatches[0]].summary.id
                         : -1;
}

void ViewModel::selectPass(int index) {
  if (nav.selectedPass != index) {
    nav.irGotoLine = -1;
    nav.irGotoLocation.clear();
  }
  nav.selectedPass = index;
}

void ViewModel::showIrLine(int index, int line) {
  selectPass(index);
  nav.irGotoLine = line;
  nav.irGotoLocation.clear();
  nav.tabRequest = Tab::Ir;
}

void ViewModel::showIrLocation(int index, std::string name) {
  selectPass(index);
  nav.irGotoLine = -1;
  nav.irGotoLocation = std::move(name);
  nav.tabRequest = Tab::Ir;
}

} // namespace loupe::visualizer
