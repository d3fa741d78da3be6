//===- ProfileDevices.cpp - The Profile panel's device picker -----------------===//
#include "loupe/visualizer/Style.h"
#include "loupe/visualizer/panels/ProfilePanel.h"

namespace loupe::visualizer {

const std::vector<DeviceRuns> &ProfilePanel::devices(const ViewModel &vm) {
  if (devicesFor_ != vm.runs.get()) {
    devicesFor_ = vm.runs.get();
    devices_ = vm.runs ? devicesOf(vm.runs->runs) : std::vector<DeviceRuns>{};
  }
  return devices_;
}

const std::vector<int> &ProfilePanel::listedRuns(const ViewModel &vm) {
  if (listedFor_ != vm.runs.get() || listedDevice_ != vm.nav.device) {
    listedFor_ = vm.runs.get();
    listedDevice_ = vm.nav.device;
    listed_ = vm.runs ? runsOn(vm.runs->runs, vm.nav.device ? &*vm.nav.device : nullptr)
                      : std::vector<int>{};
  }
  return listed_;
}

void ProfilePanel::pickDevice(ViewModel &vm, Actions &actions, const Device *device) {
  if (device)
    vm.nav.device = *device;
  else
    vm.nav.device.reset();
  if (!device || !vm.runs)
    return;
  // Keep the run shown when it was made on the device, else show its newest run there
  // (complete first).
  const std::vector<profiler::RunSummary> &runs = vm.runs->runs;
  int64_t newest = -1, newestComplete = -1;
  for (const profiler::RunSummary &r : runs) {
    if (!device->matches(r))
      continue;
    if (r.id == vm.nav.profileRunId)
      return;
    if (newest < 0)
      newest = r.id;
    if (newestComplete < 0 && r.status == profiler::RunStatus::Complete)
      newestComplete = r.id;
  }
  int64_t show = newestComplete >= 0 ? newestComplete : newest;
  if (show >= 0)
    actions.loadProfile(show);
}

void ProfilePanel::drawDevicePicker(ViewModel &vm, Actions &actions) {
  const std::vector<DeviceRuns> &list = devices(vm);
  size_t all = vm.runs ? vm.runs->runs.size() : 0;
  auto entry = [](const std::string &label, size_t runs) {
    return label + " (" + std::to_string(runs) + (runs == 1 ? " run)" : " runs)");
  };
  std::string current = entry("all devices", all);
  for (const DeviceRuns &d : list)
    if (vm.nav.device && d.device == *vm.nav.device)
      current = entry(d.device.label(), d.runs);
  ImGui::SetNextItemWidth(-1);
  if (ImGui::BeginCombo("##device", current.c_str())) {
    if (ImGui::Selectable(entry("all devices", all).c_str(), !vm.nav.device))
      pickDevice(vm, actions, nullptr);
    for (const DeviceRuns &d : list) {
      bool picked = vm.nav.device && d.device == *vm.nav.device;
      ImGui::PushStyleColor(ImGuiCol_Text, d.device.kind == "cpu" ? ImGui::GetColorU32(ImGuiCol_Text)
                                                                  : IM_COL32(118, 185, 0, 255));
      if (ImGui::Selectable(entry(d.device.label(), d.runs).c_str(), picked))
        pickDevice(vm, actions, &d.device);
      ImGui::PopStyleColor();
    }
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("device: the CPU and each GPU these runs were made on");
}

} // namespace loupe::visualizer
