//===- LineHash.h - A fast 64-bit hash of a byte string --------------*- C++ -*-===//
//
// Internal. Eight bytes per step, multiply-xorshift mixing (the structure of wyhash/xxh3, not
// their constants' exact output). For equality screening only: callers verify equal hashes.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_TEXT_LINEHASH_H
#define LOUPE_VISUALIZER_TEXT_LINEHASH_H

#include <cstdint>
#include <cstring>
#include <string_view>

namespace loupe::visualizer::text {

inline uint64_t hashLine(std::string_view s) {
  constexpr uint64_t k1 = 0x9E3779B97F4A7C15ull, k2 = 0xC2B2AE3D27D4EB4Full;
  const char *p = s.data();
  size_t n = s.size();
  uint64_t h = k2 ^ (n * k1);
  while (n >= 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    h = (h ^ (v * k1)) * k2;
    h ^= h >> 29;
    p += 8;
    n -= 8;
  }
  uint64_t v = 0;
  std::memcpy(&v, p, n);
  h = (h ^ (v * k1) ^ n) * k2;
  h ^= h >> 32;
  h *= k1;
  h ^= h >> 29;
  return h;
}

/// hashLine folded to 32 bits: the key LineDiff runs Myers on.
inline uint32_t lineKey32(std::string_view s) {
  uint64_t h = hashLine(s);
  return static_cast<uint32_t>(h ^ (h >> 32));
}

} // namespace loupe::visualizer::text

#endif // LOUPE_VISUALIZER_TEXT_LINEHASH_H
