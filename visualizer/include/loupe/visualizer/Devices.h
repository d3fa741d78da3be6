//===- Devices.h - The devices runs were made on, for the device picker -*- C++ -*-===//
//
// The Profile panel's device picker lists the devices of the runs it shows (the DB's
// devices.kind and devices.name, RunSummary::deviceKind/deviceName): the CPU, then each GPU by
// name. Picking one filters the runs list. No ImGui.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_DEVICES_H
#define LOUPE_VISUALIZER_DEVICES_H

#include "loupe/profiler/Records.h"

#include <cstddef>
#include <string>
#include <vector>

namespace loupe::visualizer {

/// A device as the profile DB names it.
struct Device {
  std::string kind; ///< "cpu", "cuda".
  std::string name; ///< "AMD EPYC 7B13", "NVIDIA H100 80GB HBM3"; may be empty.

  /// "cpu: AMD EPYC 7B13", "cuda: NVIDIA H100 80GB HBM3" ("cuda" without a name).
  std::string label() const;
  /// Whether run `r` was made on this device (same kind and name).
  bool matches(const profiler::RunSummary &r) const;
  bool operator==(const Device &o) const { return kind == o.kind && name == o.name; }
  bool operator!=(const Device &o) const { return !(*this == o); }
};

/// The device of run `r`.
Device deviceOf(const profiler::RunSummary &r);

/// A device of the picker with the number of runs made on it.
struct DeviceRuns {
  Device device;
  size_t runs = 0;
};

/// The distinct devices of `runs`: CPUs first, then GPUs ("cuda"), then other kinds, each kind
/// by name.
std::vector<DeviceRuns> devicesOf(const std::vector<profiler::RunSummary> &runs);

/// Indices into `runs` of the runs made on `device` (every run when `device` is null), in order.
std::vector<int> runsOn(const std::vector<profiler::RunSummary> &runs, const Device *device);

} // namespace loupe::visualizer

#endif // LOUPE_VISUALIZER_DEVICES_H
