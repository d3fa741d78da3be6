//===- RunProvenance.cpp - Where a run ran and what surrounded it -----------===//
#include "loupe/profiler/RunProvenance.h"

#include "LoupeVersion.h" // generated: LOUPE_VERSION (cmake/LoupeVersion.cmake)

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <sys/resource.h>
#include <fstream>
#include <sstream>
#include <unistd.h>

extern char **environ;

namespace loupe::profiler {

namespace {

std::string firstLine(const std::string &path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

/// Field 22 of /proc/PID/stat (after the command name, which may hold spaces and parentheses),
/// or -1 when the process does not exist.
int64_t startTicksOf(int64_t pid) {
  std::string stat = firstLine("/proc/" + std::to_string(pid) + "/stat");
  size_t close = stat.rfind(')');
  if (close == std::string::npos)
    return -1;
  std::istringstream rest(stat.substr(close + 1));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i)
    if (i == 22)
      return std::strtoll(field.c_str(), nullptr, 10);
  return -1;
}

/// This boot's id, read once (it cannot change while the process runs).
const std::string &bootId() {
  static const std::string id = firstLine("/proc/sys/kernel/random/boot_id");
  return id;
}

bool isMeasuringVariable(const std::string &name) {
  for (const char *prefix : {"OMP_", "GOMP_", "KMP_", "MKL_", "OPENBLAS_", "ONEDNN_", "DNNL_",
                             "LOUPE_NUM_THREADS", "LOUPE_CUDA_", "LOUPE_RAL_"})
    if (name.rfind(prefix, 0) == 0)
      return true;
  return name == "CUDA_VISIBLE_DEVICES" || name == "CUDA_LAUNCH_BLOCKING";
}

} // namespace

ProcessIdentity currentProcess() {
  ProcessIdentity p;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0)
    p.host = host;
  p.bootId = bootId();
  p.pid = getpid();
  p.startTicks = startTicksOf(p.pid);
  return p;
}

bool stillRuns(const ProcessIdentity &p) {
  if (p.bootId != bootId())
    return false; // the host rebooted since
  return startTicksOf(p.pid) == p.startTicks;
}

std::string runEnvironmentJson() {
  nlohmann::json j = nlohmann::json::object();
  j["loupe"] = LOUPE_VERSION;
  std::istringstream load(firstLine("/proc/loadavg"));
  double l1 = 0, l5 = 0, l15 = 0;
  if (load >> l1 >> l5 >> l15)
    j["load"] = {l1, l5, l15};
  j["cpus"] = sysconf(_SC_NPROCESSORS_ONLN);
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    size_t colon = line.find(':');
    if (colon == std::string::npos || colon + 2 > line.size())
      continue;
    if (line.rfind("model name", 0) == 0 && !j.contains("cpu_model"))
      j["cpu_model"] = line.substr(colon + 2);
    else if (line.rfind("cpu MHz", 0) == 0 && !j.contains("cpu_mhz")) // the first CPU's
      j["cpu_mhz"] = std::strtod(line.c_str() + colon + 2, nullptr);
    if (j.contains("cpu_model") && j.contains("cpu_mhz"))
      break;
  }
  nlohmann::json env = nlohmann::json::object();
  for (char **e = environ; e && *e; ++e) {
    std::string entry = *e;
    size_t eq = entry.find('=');
    if (eq != std::string::npos && isMeasuringVariable(entry.substr(0, eq)))
      env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  j["env"] = env;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

CpuTimes readCpuTimes() {
  CpuTimes t;
  t.wallS = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  std::istringstream cpu(firstLine("/proc/stat"));
  std::string label;
  double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  if (cpu >> label >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal &&
      label == "cpu" && tick > 0) {
    t.busyS = (user + nice + system + irq + softirq) / tick;
    t.stealS = steal / tick;
  }
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) == 0)
    t.ownS = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
             static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
  return t;
}

std::string withLoadDuring(const std::string &environmentJson, const CpuTimes &begin,
                           const CpuTimes &end) {
  nlohmann::json j = nlohmann::json::parse(environmentJson, nullptr, false);
  if (!j.is_object())
    j = nlohmann::json::object();
  j["during"] = {{"seconds", end.wallS - begin.wallS},
                 {"other_busy_cpu_s",
                  std::max(0.0, (end.busyS - begin.busyS) - (end.ownS - begin.ownS))},
                 {"steal_cpu_s", std::max(0.0, end.stealS - begin.stealS)}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

LoadDuring loadDuring(const std::vector<std::string> &environmentJsons) {
  LoadDuring load;
  double other = 0, steal = 0, cpuSeconds = 0;
  for (const std::string &text : environmentJsons) {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_object() || !j.contains("during") || !j["during"].is_object())
      continue;
    const nlohmann::json &d = j["during"];
    double seconds = d.value("seconds", 0.0);
    load.seconds += seconds;
    other += d.value("other_busy_cpu_s", 0.0);
    steal += d.value("steal_cpu_s", 0.0);
    cpuSeconds += seconds * j.value("cpus", 1.0);
  }
  if (load.seconds <= 0)
    return load;
  char buf[128];
  if (load.seconds < kMinLoadWindowS) { // /proc/stat counts in clock ticks (10 ms)
    std::snprintf(buf, sizeof buf, "load while measuring unknown (%.0f ms is too short)",
                  load.seconds * 1e3);
    load.note = buf;
    return load;
  }
  load.otherBusyCpus = std::min(other / load.seconds, cpuSeconds / load.seconds);
  load.stealFraction = cpuSeconds > 0 ? steal / cpuSeconds : 0;
  load.loaded = load.otherBusyCpus >= kLoadedOtherCpus || load.stealFraction >= kLoadedSteal;
  std::snprintf(buf, sizeof buf,
                "while measuring, other processes kept %.2f CPUs busy, %.1f%% stolen",
                load.otherBusyCpus, 100 * load.stealFraction);
  load.note = buf;
  return load;
}

std::string describeEnvironment(const std::string &environmentJson) {
  nlohmann::json j = nlohmann::json::parse(environmentJson, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object())
    return "";
  std::string text;
  auto add = [&](const std::string &part) { text += (text.empty() ? "" : ", ") + part; };
  if (j.contains("loupe") && j["loupe"].is_string())
    add("loupe " + j["loupe"].get<std::string>());
  if (j.contains("load") && j["load"].is_array() && j["load"].size() == 3) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "load %.2f %.2f %.2f", j["load"][0].get<double>(),
                  j["load"][1].get<double>(), j["load"][2].get<double>());
    add(buf);
  }
  if (j.contains("cpus") && j["cpus"].is_number())
    add(std::to_string(j["cpus"].get<int64_t>()) + " CPUs");
  if (j.contains("cpu_mhz") && j["cpu_mhz"].is_number())
    add(std::to_string(static_cast<int64_t>(j["cpu_mhz"].get<double>())) + " MHz");
  if (j.contains("env") && j["env"].is_object())
    for (const auto &[name, value] : j["env"].items())
      add(name + "=" + (value.is_string() ? value.get<std::string>() : value.dump()));
  if (LoadDuring load = loadDuring({environmentJson}); !load.note.empty())
    add(std::string(load.loaded ? "UNDER LOAD " : "") + load.note);
  return text;
}

} // namespace loupe::profiler
