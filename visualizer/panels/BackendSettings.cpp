//===- BackendSettings.cpp - The session's backend order and fusion switch ----===//
#include "loupe/visualizer/panels/BackendSettings.h"

#include "loupe/Backends/BackendRegistry.h"
#include "loupe/visualizer/Style.h"
#include "loupe/visualizer/graph/GraphModel.h"

#include <algorithm>

namespace loupe::visualizer {

bool drawBackendSettings(sessions::PipelineSettings &pipeline) {
  bool changed = false;
  std::vector<std::string> &order = pipeline.backends;
  ImGui::PushID("backend_settings");
  ImGui::TextUnformatted("backend order");
  ImGui::SameLine();
  helpMarker("Ordered preference: each op runs on the first backend of the list that runs it "
             "(codegen runs every op). Empty: the highest plevel enabled on the device wins. "
             "Per-op overrides (Dispatches tab) come first.");
  if (order.empty())
    ImGui::TextDisabled("  by plevel");
  for (size_t i = 0; i < order.size(); ++i) {
    ImGui::PushID(static_cast<int>(i));
    textColored(backendColor(order[i]), std::to_string(i + 1) + ". " + order[i]);
    ImGui::SameLine();
    ImGui::BeginDisabled(i == 0);
    if (ImGui::SmallButton("up")) {
      std::swap(order[i], order[i - 1]);
      changed = true;
    }
    ImGui::EndDisabled();
    ImGui::SameLine();
    if (ImGui::SmallButton("remove")) {
      order.erase(order.begin() + static_cast<long>(i));
      changed = true;
      ImGui::PopID();
      break;
    }
    ImGui::PopID();
  }
  std::string device = graph::deviceOfTarget(pipeline.target);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
  if (ImGui::BeginCombo("##add", "add backend...")) {
    for (const auto &b : backends::BackendRegistry::global().backends()) {
      bool listed = std::find(order.begin(), order.end(), b->name()) != order.end();
      if (listed || !b->enabledOn(device))
        continue;
      if (ImGui::Selectable(b->name().c_str())) {
        order.push_back(b->name());
        changed = true;
      }
    }
    ImGui::EndCombo();
  }
  if (!order.empty()) {
    ImGui::SameLine();
    if (ImGui::SmallButton("clear")) {
      order.clear();
      changed = true;
    }
  }
  changed |= ImGui::Checkbox("fusion", &pipeline.fusion);
  ImGui::SameLine();
  helpMarker("Off: one kernel per op (--fusion off), to compare with the fused schedule.");
  ImGui::PopID();
  return changed;
}

} // namespace loupe::visualizer
