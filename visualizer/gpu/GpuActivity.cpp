//===- GpuActivity.cpp - A run's GPU kernels, copies and sets by stream --------===//
#include "loupe/visualizer/gpu/GpuActivity.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

namespace loupe::visualizer::gpu {

namespace {
/// What makes executions one row: kernels by name, launch configuration and dispatch; copies
/// and sets by kind, memory kinds, size and dispatch.
using RowKey = std::tuple<int, std::string, int64_t, int32_t, int32_t, int32_t, int32_t, int32_t,
                          int32_t, int32_t, int64_t, int64_t, int64_t>;
using TrackKey = std::tuple<int64_t, int64_t, int>; // device, stream, kind

/// Why a kernel's bytes or FLOPs are unknown; "" when both are known.
std::string kernelRateWhy(int64_t dispatchId, int64_t clusterId, int64_t bytes, int64_t flops) {
  if (dispatchId < 0)
    return "no Loupe dispatch launched this kernel (an Nsight Systems import, or work outside "
           "every dispatch), so no cluster counts its bytes or FLOPs";
  if (bytes > 0 && flops > 0)
    return "";
  std::string missing = bytes > 0 ? "FLOPs" : flops > 0 ? "bytes" : "bytes or FLOPs";
  return "dispatch " + std::to_string(dispatchId) +
         (clusterId >= 0 ? " (cluster " + std::to_string(clusterId) + ")" : "") +
         ": the compiler records no " + missing +
         " for that dispatch (copies and fills compute nothing; dynamic shapes, ops it cannot "
         "count and artifacts from before the counts have none), and the DB keeps no kernel "
         "argument sizes";
}

std::string trackLabel(const TrackKey &key, bool severalDevices) {
  auto [device, stream, kind] = key;
  std::string label = severalDevices ? "GPU " + std::to_string(device) + " " : "";
  label += "stream " + std::to_string(stream);
  if (kind == static_cast<int>(ActivityKind::Memcpy))
    label += " memcpy";
  else if (kind == static_cast<int>(ActivityKind::Memset))
    label += " memset";
  return label;
}
} // namespace

std::string copyKindName(int32_t copyKind) {
  switch (copyKind) {
  case 1: return "HtoD";
  case 2: return "DtoH";
  case 3: return "HtoA";
  case 4: return "AtoH";
  case 5: return "AtoA";
  case 6: return "AtoD";
  case 7: return "DtoA";
  case 8: return "DtoD";
  case 9: return "HtoH";
  case 10: return "PtoP";
  default: return "kind " + std::to_string(copyKind);
  }
}

std::string memoryKindName(int32_t memoryKind) {
  switch (memoryKind) {
  case 1: return "pageable";
  case 2: return "pinned";
  case 3: return "device";
  case 4: return "array";
  case 5: return "managed";
  case 6: return "device static";
  case 7: return "managed static";
  default: return "unknown";
  }
}

std::string shortKernelName(const std::string &name) {
  // The name ends before its template arguments or parameters.
  std::string head = name.substr(0, std::min(name.find('<'), name.find('(')));
  size_t space = head.find_last_of(' ');
  if (space != std::string::npos)
    head = head.substr(space + 1); // the return type
  size_t scope = head.rfind("::");
  if (scope != std::string::npos)
    head = head.substr(scope + 2);
  return head.empty() ? name : head;
}

double ratePerNs(double amount, double durationNs) {
  if (amount < 0 || !(durationNs > 0))
    return std::numeric_limits<double>::quiet_NaN();
  return amount / durationNs;
}

std::shared_ptr<const GpuActivity> buildGpuActivity(const profiler::RunData &data) {
  if (data.kernels.empty() && data.memcpys.empty())
    return nullptr;
  auto out = std::make_shared<GpuActivity>();
  std::map<int64_t, const profiler::DispatchRecord *> dispatchOf;
  for (const profiler::DispatchRecord &d : data.dispatches)
    dispatchOf[d.dispatchId] = &d;
  auto clusterOf = [&](int64_t dispatchId) {
    auto d = dispatchOf.find(dispatchId);
    return d == dispatchOf.end() ? int64_t(-1) : d->second->clusterId;
  };
  // Per dispatch and repetition: its kernels' count and summed duration.
  std::map<std::pair<int64_t, int64_t>, std::pair<size_t, int64_t>> dispatchRep;
  for (const profiler::KernelRecord &k : data.kernels)
    if (k.dispatchId >= 0) {
      auto &[count, ns] = dispatchRep[{k.dispatchId, k.rep}];
      ++count;
      ns += k.end - k.start;
    }
  std::map<int64_t, std::pair<size_t, std::vector<int64_t>>> dispatchTime; // max count, sums
  for (const auto &[key, value] : dispatchRep) {
    auto &[count, sums] = dispatchTime[key.first];
    count = std::max(count, value.first);
    sums.push_back(value.second);
  }

  // One operation of either table, with its row and track keys.
  struct Op {
    int64_t rep, start, end, device, stream;
    int row;
    TrackKey track;
  };
  std::vector<Op> ops;
  ops.reserve(data.kernels.size() + data.memcpys.size());
  std::map<RowKey, int> rowOf;
  std::vector<std::vector<int64_t>> durations;
  std::vector<std::set<int64_t>> streamsOf;
  std::vector<int64_t> firstStart;
  auto rowFor = [&](const RowKey &key, auto &&make) {
    auto [it, added] = rowOf.emplace(key, static_cast<int>(out->rows.size()));
    if (added) {
      out->rows.push_back(make());
      durations.emplace_back();
      streamsOf.emplace_back();
      firstStart.push_back(std::numeric_limits<int64_t>::max());
    }
    return it->second;
  };
  auto add = [&](int row, ActivityKind kind, int64_t rep, int64_t start, int64_t end,
                 int64_t device, int64_t stream) {
    durations[row].push_back(end - start);
    streamsOf[row].insert(stream);
    firstStart[row] = std::min(firstStart[row], start);
    ops.push_back({rep, start, end, device, stream, row,
                   TrackKey{device, stream, static_cast<int>(kind)}});
  };

  for (const profiler::KernelRecord &k : data.kernels) {
    RowKey key{0, k.name, k.dispatchId, k.gridX, k.gridY, k.gridZ, k.blockX, k.blockY, k.blockZ,
               k.registersPerThread, k.staticSharedMemory, k.dynamicSharedMemory, 0};
    int row = rowFor(key, [&] {
      KernelRow r;
      r.name = k.name;
      r.shortName = shortKernelName(k.name);
      r.dispatchId = k.dispatchId;
      r.clusterId = clusterOf(k.dispatchId);
      auto d = dispatchOf.find(k.dispatchId);
      if (k.dispatchId >= 0 && d != dispatchOf.end()) {
        r.bytes = d->second->bytes > 0 ? d->second->bytes : -1;
        r.flops = d->second->flops > 0 ? d->second->flops : -1;
      }
      if (auto t = dispatchTime.find(k.dispatchId); t != dispatchTime.end() && t->second.first > 1) {
        r.dispatchKernels = t->second.first;
        r.dispatchNs = profiler::summarize(t->second.second).median;
      }
      r.grid[0] = k.gridX, r.grid[1] = k.gridY, r.grid[2] = k.gridZ;
      r.block[0] = k.blockX, r.block[1] = k.blockY, r.block[2] = k.blockZ;
      r.registersPerThread = k.registersPerThread;
      r.staticSharedMemory = k.staticSharedMemory;
      r.dynamicSharedMemory = k.dynamicSharedMemory;
      r.rateWhy = kernelRateWhy(r.dispatchId, r.clusterId, r.bytes, r.flops);
      return r;
    });
    add(row, ActivityKind::Kernel, k.rep, k.start, k.end, k.deviceId, k.streamId);
    ++out->kernels;
    out->kernelNs += static_cast<double>(k.end - k.start);
  }
  for (const profiler::MemcpyRecord &m : data.memcpys) {
    bool set = m.copyKind < 0;
    ActivityKind kind = set ? ActivityKind::Memset : ActivityKind::Memcpy;
    RowKey key{set ? 2 : 1, "", m.dispatchId, m.copyKind, m.srcKind, m.dstKind, 0, 0, 0, 0, 0, 0,
               m.bytes};
    int row = rowFor(key, [&] {
      KernelRow r;
      r.kind = kind;
      r.name = set ? "memset" : "memcpy " + copyKindName(m.copyKind);
      r.shortName = r.name;
      r.dispatchId = m.dispatchId;
      r.clusterId = clusterOf(m.dispatchId);
      r.copyKind = m.copyKind;
      r.srcKind = m.srcKind;
      r.dstKind = m.dstKind;
      r.bytes = m.bytes;
      return r;
    });
    add(row, kind, m.rep, m.start, m.end, m.deviceId, m.streamId);
    ++(set ? out->sets : out->copies);
  }

  // Rows by first start; statistics.
  std::vector<int> order(out->rows.size()), newIndex(out->rows.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return firstStart[a] < firstStart[b]; });
  std::vector<KernelRow> rows;
  rows.reserve(order.size());
  double total = 0;
  for (int old : order) {
    newIndex[old] = static_cast<int>(rows.size());
    KernelRow r = std::move(out->rows[old]);
    r.streams.assign(streamsOf[old].begin(), streamsOf[old].end());
    profiler::Summary s = profiler::summarize(durations[old]);
    r.calls = s.count;
    r.medianNs = s.median;
    r.minNs = s.min;
    r.maxNs = s.max;
    r.totalNs = std::accumulate(durations[old].begin(), durations[old].end(), 0.0);
    total += r.totalNs;
    rows.push_back(std::move(r));
  }
  for (KernelRow &r : rows)
    r.share = total > 0 ? r.totalNs / total : 0;
  out->rows = std::move(rows);

  // Tracks by device, stream, kind.
  std::map<TrackKey, int> trackOf;
  std::set<int64_t> devices;
  for (const Op &op : ops) {
    trackOf.emplace(op.track, 0);
    devices.insert(op.device);
  }
  out->devices = devices.size();
  std::set<std::pair<int64_t, int64_t>> streams;
  for (auto &[key, index] : trackOf) {
    index = static_cast<int>(out->tracks.size());
    auto [device, stream, kind] = key;
    streams.insert({device, stream});
    out->tracks.push_back({device, stream, static_cast<ActivityKind>(kind),
                           trackLabel(key, devices.size() > 1)});
  }
  out->streams = streams.size();

  // Repetitions: offsets from each one's first operation.
  std::map<int64_t, RepActivity> reps;
  for (const Op &op : ops) {
    auto [it, added] = reps.try_emplace(op.rep);
    RepActivity &r = it->second;
    if (added) {
      r.rep = op.rep;
      r.originNs = op.start;
      r.durationNs = op.end; // an absolute end until every op is seen
      r.tracks.resize(out->tracks.size());
    }
    r.originNs = std::min(r.originNs, op.start);
    r.durationNs = std::max(r.durationNs, op.end);
    r.tracks[trackOf[op.track]].push_back({op.start, op.end, newIndex[op.row]});
  }
  for (auto &[rep, r] : reps) {
    r.durationNs -= r.originNs;
    for (std::vector<TimelineSlice> &slices : r.tracks) {
      for (TimelineSlice &s : slices) {
        s.startNs -= r.originNs;
        s.endNs -= r.originNs;
      }
      std::sort(slices.begin(), slices.end(), [](const TimelineSlice &a, const TimelineSlice &b) {
        return a.startNs < b.startNs || (a.startNs == b.startNs && a.endNs < b.endNs);
      });
    }
    out->reps.push_back(std::move(r));
  }
  return out;
}

} // namespace loupe::visualizer::gpu
