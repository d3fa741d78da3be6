//===- CacheFlush.cpp - Evicting caches before a cold sample ---------------===//

#include "loupe/profiler/CacheFlush.h"

#include "loupe/ral/CudaDriver.h"

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace loupe::profiler {

size_t parseCacheSize(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  size_t value = 0, digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) {
    value = value * 10 + static_cast<size_t>(text[digits] - '0');
    ++digits;
  }
  if (digits == 0 || digits > 15)
    return 0;
  std::string_view unit = text.substr(digits);
  if (unit.empty())
    return value;
  if (unit == "K")
    return value << 10;
  if (unit == "M")
    return value << 20;
  if (unit == "G")
    return value << 30;
  return 0;
}

static std::string readFirstLine(const std::filesystem::path &path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

size_t lastLevelCacheBytes(const std::string &cacheDir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  int bestLevel = 0;
  size_t best = 0;
  for (const fs::directory_entry &e : fs::directory_iterator(cacheDir, ec)) {
    if (e.path().filename().string().rfind("index", 0) != 0)
      continue;
    std::string type = readFirstLine(e.path() / "type");
    if (type != "Data" && type != "Unified")
      continue; // instruction caches hold no data
    int level = std::atoi(readFirstLine(e.path() / "level").c_str());
    size_t size = parseCacheSize(readFirstLine(e.path() / "size"));
    if (size > 0 && (level > bestLevel || (level == bestLevel && size > best))) {
      bestLevel = level;
      best = size;
    }
  }
  return best;
}

size_t cpuFlushBytes(size_t llcBytes) { return llcBytes ? 2 * llcBytes : kDefaultCpuFlushBytes; }

static std::string mib(size_t bytes) {
  std::ostringstream s;
  s << static_cast<double>(bytes) / (1 << 20) << " MiB";
  return s.str();
}

namespace {

class CpuFlusher : public CacheFlusher {
public:
  CpuFlusher(size_t bytes, std::string why) : buffer_(bytes), why_(std::move(why)) {}
  ral::Status flush() override {
    // A new value each time, so no write can be skipped as a no-op; the volatile read keeps
    // the stores from being optimised away.
    std::memset(buffer_.data(), static_cast<int>(++round_), buffer_.size());
    volatile unsigned char sink = buffer_[buffer_.size() / 2];
    (void)sink;
    return ral::Status::ok();
  }
  size_t bytes() const override { return buffer_.size(); }
  std::string describe() const override { return "cpu: " + mib(bytes()) + " (" + why_ + ")"; }

private:
  std::vector<unsigned char> buffer_;
  std::string why_;
  unsigned round_ = 0;
};

class CudaFlusher : public CacheFlusher {
public:
  CudaFlusher(const ral::CudaDriver &driver, uint64_t buffer, void *stream, size_t bytes)
      : driver_(driver), buffer_(buffer), stream_(stream), bytes_(bytes) {}
  ~CudaFlusher() override { // Cleanup: nothing to report to.
    (void)driver_.free(buffer_);
    (void)driver_.destroyStream(stream_);
  }
  ral::Status flush() override {
    if (ral::Status s = driver_.memsetAsync(buffer_, static_cast<uint8_t>(++round_), bytes_,
                                            stream_);
        !s)
      return s;
    return driver_.synchronize(stream_);
  }
  size_t bytes() const override { return bytes_; }
  std::string describe() const override {
    return "cuda: " + mib(bytes_) +
           (driver_.l2CacheBytes() ? " (2 x " + mib(driver_.l2CacheBytes()) + " L2)"
                                   : " (L2 size unknown)");
  }

private:
  const ral::CudaDriver &driver_;
  uint64_t buffer_;
  void *stream_;
  size_t bytes_;
  uint8_t round_ = 0;
};

} // namespace

std::unique_ptr<CacheFlusher> makeCpuFlusher(size_t bytes) {
  std::string why = "as asked";
  if (bytes == 0) {
    size_t llc = lastLevelCacheBytes();
    bytes = cpuFlushBytes(llc);
    why = llc ? "2 x " + mib(llc) + " last-level cache" : "last-level cache size unknown";
  }
  return std::make_unique<CpuFlusher>(bytes, why);
}

ral::StatusOr<std::unique_ptr<CacheFlusher>> makeCudaFlusher(const ral::CudaDriver &driver) {
  size_t bytes = driver.l2CacheBytes() ? 2 * driver.l2CacheBytes() : kDefaultGpuFlushBytes;
  auto stream = driver.createStream();
  if (!stream)
    return stream.status();
  auto buffer = driver.alloc(bytes);
  if (!buffer) {
    (void)driver.destroyStream(*stream); // The allocation's error is the one to report.
    return buffer.status();
  }
  return std::unique_ptr<CacheFlusher>(new CudaFlusher(driver, *buffer, *stream, bytes));
}

} // namespace loupe::profiler
