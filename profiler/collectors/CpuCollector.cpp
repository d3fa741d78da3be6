//===- CpuCollector.cpp - Steady-clock timings of runs and dispatches ------===//

#include "loupe/profiler/CpuCollector.h"
#include "loupe/ral/CpuDriver.h"

#include <thread>

#include <fstream>

#include <algorithm>
#include <chrono>

namespace loupe::profiler {

int64_t CpuCollector::nowNs() { return ral::steadyNowNs(); }

CpuCollector::CpuCollector(size_t reps, size_t dispatchesPerRep) {
  reserve(reps, dispatchesPerRep);
}

void CpuCollector::reserve(size_t reps, size_t dispatchesPerRep) {
  reps_.reserve(reps);
  dispatches_.reserve(reps * dispatchesPerRep);
  open_.reserve(16);
}

void CpuCollector::prepareRep() {
  // Records constructed and dropped again, within the reserved capacity: their pages stay.
  size_t used = dispatches_.size();
  dispatches_.resize(std::min(used + lastRepDispatches_, dispatches_.capacity()));
  dispatches_.resize(used);
  if (reps_.size() < reps_.capacity()) {
    reps_.emplace_back();
    reps_.pop_back();
  }
}

void CpuCollector::beginRep() {
  if (inRep_)
    endRep();
  int64_t now = nowNs();
  if (reps_.empty())
    originNs_ = now;
  repStartNs_ = now;
  repFirstDispatch_ = dispatches_.size();
  inRep_ = true;
}

void CpuCollector::endRep() {
  int64_t now = nowNs();
  if (!inRep_) {
    ++unmatched_;
    return;
  }
  if (!open_.empty()) {
    // Drop dispatches that never ended: they carry no duration.
    unmatched_ += open_.size();
    open_.clear();
    dispatches_.erase(std::remove_if(dispatches_.begin(), dispatches_.end(),
                                     [](const DispatchTiming &d) { return d.endNs < 0; }),
                      dispatches_.end());
  }
  lastRepDispatches_ = dispatches_.size() - repFirstDispatch_;
  reps_.push_back({repStartNs_ - originNs_, now - originNs_});
  inRep_ = false;
}

void CpuCollector::beginDispatch(int64_t dispatchId) {
  int64_t now = nowNs();
  if (!inRep_) {
    ++unmatched_;
    return;
  }
  open_.push_back(dispatches_.size());
  dispatches_.push_back({static_cast<int64_t>(reps_.size()), dispatchId, now - repStartNs_, -1});
}

void CpuCollector::endDispatch(int64_t dispatchId) {
  int64_t now = nowNs();
  auto it = std::find_if(open_.rbegin(), open_.rend(),
                         [&](size_t i) { return dispatches_[i].dispatchId == dispatchId; });
  if (!inRep_ || it == open_.rend()) {
    ++unmatched_;
    return;
  }
  dispatches_[*it].endNs = now - repStartNs_;
  // Open dispatches nested inside this one stay open; they are dropped at endRep.
  open_.erase(std::next(it).base());
}

std::vector<int64_t> CpuCollector::repDurations() const {
  std::vector<int64_t> out;
  out.reserve(reps_.size());
  for (const RepTiming &r : reps_)
    out.push_back(r.durationNs());
  return out;
}

std::vector<int64_t> CpuCollector::dispatchDurations(int64_t dispatchId) const {
  std::vector<int64_t> out;
  for (const DispatchTiming &d : dispatches_)
    if (d.dispatchId == dispatchId && d.endNs >= 0)
      out.push_back(d.durationNs());
  return out;
}

std::vector<int64_t> CpuCollector::dispatchIds() const {
  std::vector<int64_t> ids;
  for (const DispatchTiming &d : dispatches_)
    ids.push_back(d.dispatchId);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

std::vector<SampleRecord> CpuCollector::samples() const {
  std::vector<SampleRecord> out;
  out.reserve(reps_.size() + dispatches_.size());
  for (size_t i = 0; i < reps_.size(); ++i)
    out.push_back({static_cast<int64_t>(i), kWholeRep, reps_[i].startNs, reps_[i].endNs, {}});
  for (const DispatchTiming &d : dispatches_)
    if (d.endNs >= 0)
      out.push_back({d.rep, d.dispatchId, d.startNs, d.endNs, {}});
  return out;
}

void CpuCollector::clear() {
  reps_.clear();
  dispatches_.clear();
  open_.clear();
  originNs_ = repStartNs_ = 0;
  unmatched_ = 0;
  inRep_ = false;
  lastRepDispatches_ = repFirstDispatch_ = 0;
}

std::string cpuDeviceName() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, name = "unknown CPU";
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      name = line.substr(line.find(':') + 2);
      break;
    }
  return name + " (" + std::to_string(std::thread::hardware_concurrency()) + " threads)";
}

} // namespace loupe::profiler
