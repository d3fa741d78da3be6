//===- Format.h - Number and text formatting shared by the panels -*- C++ -*-===//
#ifndef LOUPE_VISUALIZER_FORMAT_H
#define LOUPE_VISUALIZER_FORMAT_H

#include <cstdint>
#include <string>

namespace loupe::visualizer {

/// A duration in ns with a readable unit: "812 ns", "12.3 us", "4.56 ms", "1.23 s"; "-" for NaN.
std::string formatNs(double ns);
/// A byte count with a binary unit: "512 B", "64 KiB", "1.5 MiB", "2 GiB"; "-" when negative.
std::string formatBytes(double bytes);
/// A rate with three significant digits and no exponent: "0.512", "11.7", "2048"; "-" for NaN.
std::string formatRate(double rate);
/// "12.3%" of a fraction (0.123); "-" for NaN.
std::string formatPercent(double fraction);
/// Signed relative change: "+4.1%", "-12.0%".
std::string formatChange(double change);
/// Wall time since the Unix epoch (ns) as local "YYYY-MM-DD HH:MM:SS".
std::string formatWallTime(int64_t epochNs);
/// Case-insensitive substring test; an empty needle matches everything.
bool containsIgnoreCase(const std::string &haystack, const std::string &needle);

} // namespace loupe::visualizer

#endif // LOUPE_VISUALIZER_FORMAT_H
