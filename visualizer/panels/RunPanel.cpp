//===- RunPanel.cpp - Run settings, progress and the last result --------------===//
#include "loupe/visualizer/panels/RunPanel.h"

#include "loupe/visualizer/Format.h"
#include "loupe/visualizer/Style.h"
#include "loupe/visualizer/panels/BackendSettings.h"
#include "loupe/profiler/Run.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace loupe::visualizer {

namespace {
/// A folder field with a Browse button; returns true when the value changed.
bool folderField(const char *id, const char *hint, std::string &value,
                 const RunPanel::BrowseFn &browse) {
  ImGui::PushID(id);
  bool changed = false;
  float button = ImGui::CalcTextSize("...").x + ImGui::GetStyle().FramePadding.x * 2;
  ImGui::SetNextItemWidth(-(button + ImGui::GetStyle().ItemSpacing.x));
  changed |= inputTextWithHint("##path", hint, value);
  if (ImGui::IsItemHovered() && !value.empty())
    ImGui::SetTooltip("%s", value.c_str());
  ImGui::SameLine();
  if (ImGui::Button("...") && browse)
    browse(hint, &value); // the dialog writes `value` later and marks the session dirty
  ImGui::PopID();
  return changed;
}
} // namespace

/// The model's graph inputs with symbolic dims (or a shape the session gives): one field each
/// for `--input-shape` (pipeline.input_shapes), hinted with the declared dims. Empty: the dims
/// come from the input tensors, else the compile says which are free.
bool RunPanel::drawInputShapes(ViewModel &vm) {
  if (!vm.compile)
    return false;
  std::map<std::string, std::vector<int64_t>> &shapes = vm.session.pipeline.inputShapes;
  if (shapeModel_ != vm.session.model) {
    shapeText_.clear();
    shapeModel_ = vm.session.model;
  }
  bool changed = false, header = false;
  for (const compiler::ModelInput &input : vm.compile->result.modelInputs) {
    if (!input.symbolic() && !shapes.count(input.name))
      continue;
    if (!header) {
      ImGui::TextUnformatted("input shapes");
      ImGui::SameLine();
      helpMarker("Symbolic dims of the model's inputs (--input-shape NAME=D0,D1,...). Empty: "
                 "from the input tensors. Recompile applies them.");
      header = true;
    }
    std::string declared;
    for (const std::string &d : input.dims)
      declared += (declared.empty() ? "" : ",") + d;
    auto [edit, fresh] = shapeText_.try_emplace(input.name);
    std::string &text = edit->second;
    if (fresh)
      if (auto it = shapes.find(input.name); it != shapes.end())
        for (int64_t d : it->second)
          text += (text.empty() ? "" : ",") + std::to_string(d);
    ImGui::PushID(input.name.c_str());
    if (inputTextWithHint("##shape", declared.c_str(), text)) {
      std::vector<int64_t> dims;
      std::string why;
      bool valid = !text.empty() && sessions::parseShape(text, dims, why);
      if (valid)
        shapes[input.name] = dims;
      else if (text.empty())
        shapes.erase(input.name);
      changed = valid || text.empty();
    }
    ImGui::SameLine();
    ImGui::TextUnformatted(input.name.c_str());
    ImGui::PopID();
  }
  return changed;
}

void RunPanel::draw(ViewModel &vm, Actions &actions) {
  sessions::RunSettings &run = vm.session.run;
  bool editable = !vm.running;
  bool changed = false;

  ImGui::BeginDisabled(!editable);
  ImGui::PushItemWidth(-ImGui::GetFontSize() * 6);
  // The device runs what the compiler targets: cpu, or cuda (PTX for the chosen architecture).
  sessions::PipelineSettings &pipeline = vm.session.pipeline;
  if (ImGui::BeginCombo("device", pipeline.target.c_str())) {
    for (const char *target : {"cpu", "cuda"})
      if (ImGui::Selectable(target, pipeline.target == target) && pipeline.target != target) {
        pipeline.target = target;
        changed = true;
      }
    ImGui::EndCombo();
  }
  if (pipeline.target == "cuda" && ImGui::BeginCombo("gpu arch", pipeline.gpuArch.c_str())) {
    for (const char *arch : {"sm_80", "sm_90"})
      if (ImGui::Selectable(arch, pipeline.gpuArch == arch) && pipeline.gpuArch != arch) {
        pipeline.gpuArch = arch;
        changed = true;
      }
    ImGui::EndCombo();
  }
  changed |= drawBackendSettings(vm.session.pipeline);
  changed |= ImGui::InputInt("warmup", &run.measure.warmupReps);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("untimed repetitions; -1: for warmup_ms (%.0f ms)", run.measure.warmupMs);
  changed |= ImGui::InputInt("reps", &run.measure.reps);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("measured repetitions; 0: until the median's noise is <= %.1f%%",
                      100 * run.measure.noise);
  run.measure.warmupReps = std::max(-1, run.measure.warmupReps);
  run.measure.reps = std::max(0, run.measure.reps);

  ImGui::TextUnformatted("inputs");
  int source = run.inputsDir.empty() ? 0 : 1;
  bool picked = false;
  if (ImGui::RadioButton("random", source == 0) && source != 0) {
    run.inputsDir.clear();
    changed = true;
  }
  ImGui::SameLine();
  if (ImGui::RadioButton("test-data folder", source == 1) && source != 1) {
    picked = true;
    source = 1;
  }
  if (source == 0) {
    int seed = static_cast<int>(run.seed);
    if (ImGui::InputInt("seed", &seed)) {
      run.seed = static_cast<uint64_t>(std::max(0, seed));
      changed = true;
    }
  } else {
    if (picked && browse_)
      browse_("inputs folder", &run.inputsDir);
    changed |= folderField("inputs", "inputs folder", run.inputsDir, browse_);
  }
  changed |= drawInputShapes(vm);
  ImGui::TextUnformatted("check against (optional)");
  changed |= folderField("check", "expected outputs folder", run.checkDir, browse_);
  if (!run.checkDir.empty()) {
    float rtol = static_cast<float>(run.rtol), atol = static_cast<float>(run.atol);
    if (ImGui::InputFloat("rtol", &rtol, 0, 0, "%.1e")) {
      run.rtol = std::max(0.f, rtol);
      changed = true;
    }
    if (ImGui::InputFloat("atol", &atol, 0, 0, "%.1e")) {
      run.atol = std::max(0.f, atol);
      changed = true;
    }
  }
  ImGui::PopItemWidth();
  ImGui::EndDisabled();
  if (changed)
    vm.sessionDirty = true;

  ImGui::Separator();
  if (!vm.running) {
    ImGui::BeginDisabled(!vm.hasModel());
    if (ImGui::Button("Run", ImVec2(ImGui::GetFontSize() * 6, 0)))
      actions.run();
    ImGui::EndDisabled();
  } else {
    const JobProgress &p = vm.progress;
    bool thisJob = p.running && p.label.rfind("run", 0) == 0;
    std::string stage = thisJob ? (p.stage.empty() ? "starting" : p.stage) : "queued";
    // Stages weigh differently; show the stage's own fraction with its name.
    float fraction = thisJob ? static_cast<float>(p.fraction) : 0.f;
    char overlay[64];
    std::snprintf(overlay, sizeof overlay, "%s %.0f%%", stage.c_str(), 100 * fraction);
    ImGui::ProgressBar(fraction, ImVec2(-ImGui::GetFontSize() * 6, 0), overlay);
    ImGui::SameLine();
    if (ImGui::Button("Cancel", ImVec2(-1, 0)))
      actions.cancelRun();
  }

  // The last result.
  if (!vm.lastRun)
    return;
  const sessions::RunOutcome &o = vm.lastRun->outcome;
  ImGui::Separator();
  if (!o.error.empty()) {
    textColored(IM_COL32(235, 90, 80, 255), "run failed (exit " + std::to_string(o.exitCode) + ")");
    ImGui::PushTextWrapPos(0);
    showText(o.error);
    ImGui::PopTextWrapPos();
    return;
  }
  if (o.runId >= 0)
    ImGui::Text("run #%lld", static_cast<long long>(o.runId));
  else
    ImGui::TextUnformatted("run (not stored)");
  ImGui::SameLine();
  ImGui::TextDisabled("%lld warmup, %lld reps (%s), %s",
                      static_cast<long long>(o.modes.empty() ? 0 : o.modes[0].measurement.warmupReps),
                      static_cast<long long>(o.repNs.size()), vm.lastRun->request.run.mode.c_str(),
                      vm.lastRun->request.run.inputsDir.empty() ? "random inputs"
                                                                : "test-data inputs");
  if (ImGui::BeginTable("run_summary", 2, ImGuiTableFlags_SizingFixedFit)) {
    auto row = [](const char *name, const std::string &value) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextDisabled("%s", name);
      ImGui::TableNextColumn();
      showText(value);
    };
    row("median", formatNs(o.runSummary.median));
    row("IQR", formatNs(o.runSummary.iqr()));
    row("min / max", formatNs(static_cast<double>(o.runSummary.min)) + " / " +
                         formatNs(static_cast<double>(o.runSummary.max)));
    row("dispatches", std::to_string(o.dispatches.size()));
    if (!o.modes.empty()) {
      const profiler::MeasurementRecord &m = o.modes[0].measurement;
      if (std::string memory = profiler::describeMemory(profiler::memoryJson(m)); !memory.empty())
        row("memory", memory);
      if (std::string stalls = profiler::describeThreadStalls(m.threadStalls); !stalls.empty())
        row("thread stalls", stalls);
    }
    row("wall", formatNs(static_cast<double>(vm.lastRun->wallNs)));
    ImGui::EndTable();
  }
  if (!o.checked) {
    ImGui::TextDisabled("outputs not checked");
  } else {
    bool passed = o.exitCode == sessions::kExitOk;
    textColored(passed ? IM_COL32(90, 200, 110, 255) : IM_COL32(235, 90, 80, 255),
                passed ? "check passed" : "check FAILED");
    for (const sessions::OutputCheck &c : o.checks) {
      ImGui::TextDisabled("output %lld: max abs err %.3g, max rel err %.3g",
                          static_cast<long long>(c.record.outputIdx), c.record.maxAbsErr,
                          c.record.maxRelErr);
      if (!c.message.empty()) {
        ImGui::PushTextWrapPos(0);
        textColored(IM_COL32(235, 90, 80, 255), c.message);
        ImGui::PopTextWrapPos();
      }
    }
  }
}

} // namespace loupe::visualizer
