//===- Format.cpp - Number and text formatting shared by the panels -----------===//
#include "loupe/visualizer/Format.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>

namespace loupe::visualizer {

std::string formatNs(double ns) {
  if (std::isnan(ns))
    return "-";
  char buf[32];
  double a = std::fabs(ns);
  if (a < 1e3)
    std::snprintf(buf, sizeof buf, "%.0f ns", ns);
  else if (a < 1e6)
    std::snprintf(buf, sizeof buf, "%.3g us", ns / 1e3);
  else if (a < 1e9)
    std::snprintf(buf, sizeof buf, "%.3g ms", ns / 1e6);
  else
    std::snprintf(buf, sizeof buf, "%.3g s", ns / 1e9);
  return buf;
}

std::string formatBytes(double bytes) {
  if (!(bytes >= 0))
    return "-";
  static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 || bytes >= 100 ? "%.0f %s" : "%.3g %s", bytes, units[u]);
  return buf;
}

std::string formatRate(double rate) {
  if (std::isnan(rate))
    return "-";
  char buf[32];
  double a = std::fabs(rate);
  std::snprintf(buf, sizeof buf, a >= 100 ? "%.0f" : a >= 10 ? "%.1f" : a >= 1 ? "%.2f" : "%.3g",
                rate);
  return buf;
}

std::string formatPercent(double fraction) {
  if (std::isnan(fraction))
    return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * fraction);
  return buf;
}

std::string formatChange(double change) {
  if (std::isnan(change))
    return "-";
  if (std::isinf(change))
    return change > 0 ? "+inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", 100 * change);
  return buf;
}

std::string formatWallTime(int64_t epochNs) {
  std::time_t t = static_cast<std::time_t>(epochNs / 1000000000);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

bool containsIgnoreCase(const std::string &haystack, const std::string &needle) {
  if (needle.empty())
    return true;
  auto it = std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(),
                        [](char a, char b) {
                          return std::tolower(static_cast<unsigned char>(a)) ==
                                 std::tolower(static_cast<unsigned char>(b));
                        });
  return it != haystack.end();
}

} // namespace loupe::visualizer
