//===- Devices.cpp - The devices runs were made on ----------------------------===//
#include "loupe/visualizer/Devices.h"

#include <algorithm>
#include <tuple>

namespace loupe::visualizer {

namespace {
/// Picker order of a device kind: the CPU, then GPUs, then anything else.
int kindRank(const std::string &kind) { return kind == "cpu" ? 0 : kind == "cuda" ? 1 : 2; }
} // namespace

std::string Device::label() const { return name.empty() ? kind : kind + ": " + name; }

bool Device::matches(const profiler::RunSummary &r) const {
  return r.deviceKind == kind && r.deviceName == name;
}

Device deviceOf(const profiler::RunSummary &r) { return {r.deviceKind, r.deviceName}; }

std::vector<DeviceRuns> devicesOf(const std::vector<profiler::RunSummary> &runs) {
  std::vector<DeviceRuns> out;
  for (const profiler::RunSummary &r : runs) {
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const DeviceRuns &d) { return d.device.matches(r); });
    if (it == out.end())
      out.push_back({deviceOf(r), 1});
    else
      ++it->runs;
  }
  std::sort(out.begin(), out.end(), [](const DeviceRuns &a, const DeviceRuns &b) {
    return std::make_tuple(kindRank(a.device.kind), a.device.kind, a.device.name) <
           std::make_tuple(kindRank(b.device.kind), b.device.kind, b.device.name);
  });
  return out;
}

std::vector<int> runsOn(const std::vector<profiler::RunSummary> &runs, const Device *device) {
  std::vector<int> out;
  out.reserve(runs.size());
  for (size_t i = 0; i < runs.size(); ++i)
    if (!device || device->matches(runs[i]))
      out.push_back(static_cast<int>(i));
  return out;
}

} // namespace loupe::visualizer
