//===- Fnv1a.h - FNV-1a 64, the one non-cryptographic hash ------------*- C++ -*-===//
//
// Stable across processes and builds (IR hashes in snapshots and the profile DB, compile-cache
// keys, symbol names, layout cache keys). Fowler, Noll, Vo: the FNV-1a variant, 64 bits.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_COMMON_FNV1A_H
#define LOUPE_COMMON_FNV1A_H

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace loupe {

inline constexpr uint64_t kFnv1aOffset = 0xcbf29ce484222325ull;

/// FNV-1a 64 of `size` bytes at `data`, continuing from `hash`.
inline uint64_t fnv1a(const void *data, size_t size, uint64_t hash = kFnv1aOffset) {
  const auto *bytes = static_cast<const unsigned char *>(data);
  for (size_t i = 0; i < size; ++i)
    hash = (hash ^ bytes[i]) * 0x100000001b3ull;
  return hash;
}
inline uint64_t fnv1a(std::string_view text, uint64_t hash = kFnv1aOffset) {
  return fnv1a(text.data(), text.size(), hash);
}

} // namespace loupe

#endif // LOUPE_COMMON_FNV1A_H
