//===- RunProvenance.h - Where a run ran and what surrounded it -*- C++ -*-===//
//
// What the profile DB records with each run it begins (schema version 6, docs/db-schema.md):
// the process that stores it, so that a run it left 'running' (killed, crashed) can be told
// from one still in progress and marked failed, and what can disturb a measurement (load,
// CPUs, the thread and device environment). Linux: /proc and gethostname.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_PROFILER_RUNPROVENANCE_H
#define LOUPE_PROFILER_RUNPROVENANCE_H

#include <cstdint>
#include <string>
#include <vector>

namespace loupe::profiler {

/// One process on one boot of one host.
struct ProcessIdentity {
  std::string host;       ///< gethostname().
  std::string bootId;     ///< /proc/sys/kernel/random/boot_id: new at every boot.
  int64_t pid = 0;
  int64_t startTicks = 0; ///< /proc/PID/stat field 22: start time after boot, clock ticks.
};

/// This process.
ProcessIdentity currentProcess();

/// Whether the process `p` of this host still runs: this boot, and its PID alive with the same
/// start time (a reused PID is another process).
bool stillRuns(const ProcessIdentity &p);

/// JSON object of what can disturb a measurement, read now: "loupe" (this build's version,
/// `git describe` at build time), "load" (1, 5, 15-minute load
/// averages), "cpus" (online CPUs), "cpu_model", "cpu_mhz" (the first CPU's clock as
/// /proc/cpuinfo reads it now, where the VM shows one), and "env", the set variables among the
/// thread and device settings (OMP_*, GOMP_*, KMP_*, MKL_*, OPENBLAS_*, ONEDNN_*, DNNL_*,
/// CUDA_VISIBLE_DEVICES, CUDA_LAUNCH_BLOCKING, LOUPE_NUM_THREADS, LOUPE_CUDA_*, LOUPE_RAL_*).
std::string runEnvironmentJson();

/// CPU time spent on the whole machine and by this process until now, s (/proc/stat in clock
/// ticks, getrusage).
struct CpuTimes {
  double wallS = 0;  ///< Steady clock.
  double busyS = 0;  ///< All CPUs: user, nice, system, irq, softirq (guest is in user).
  double stealS = 0; ///< Time the hypervisor gave this VM's CPUs to others.
  double ownS = 0;   ///< This process, all threads: user + system.
};
CpuTimes readCpuTimes();

/// environmentJson with "during": what else used the machine between `begin` and `end`:
/// {"seconds", "other_busy_cpu_s" (busy time not ours), "steal_cpu_s"}. Sums over several runs
/// give the load of a batch of trials (loadDuring).
std::string withLoadDuring(const std::string &environmentJson, const CpuTimes &begin,
                           const CpuTimes &end);

/// Load of the measurements behind some runs (their environments' "during", summed): other
/// processes' CPUs busy on average, and the stolen share of the CPU time.
struct LoadDuring {
  double seconds = 0;
  double otherBusyCpus = 0;
  double stealFraction = 0;
  /// A verdict or a noise figure from these runs cannot be trusted: other processes kept at
  /// least kLoadedOtherCpus busy, or at least kLoadedSteal of the CPU time was stolen.
  bool loaded = false;
  /// "while measuring, other processes kept 1.30 CPUs busy, 2.0% stolen", or why it is
  /// unknown; "" without any record.
  std::string note;
};
inline constexpr double kLoadedOtherCpus = 0.5;
/// Measurements shorter than this (together) say nothing about load: /proc/stat counts whole
/// clock ticks (10 ms), so a few ms of measuring could read as several CPUs busy.
inline constexpr double kMinLoadWindowS = 0.25;
inline constexpr double kLoadedSteal = 0.05;
LoadDuring loadDuring(const std::vector<std::string> &environmentJsons);

/// One line of runEnvironmentJson for people: "loupe f7594e9, load 1.20 0.95 0.80, 2 CPUs,
/// OMP_NUM_THREADS=2"; empty for "{}" or text that is not such an object.
std::string describeEnvironment(const std::string &environmentJson);

} // namespace loupe::profiler

#endif // LOUPE_PROFILER_RUNPROVENANCE_H
