//===- RalApi.cpp - ral_api_call and the per-thread lookup cache --------------===//
//
// The one entry point compiled artifacts call (ral_api_call, ral_api.h). The lookup is cached
// per thread in a small direct-mapped table keyed by the name's address: the compiler passes
// string literals, so a cached call costs a hash of the pointer, two compares and an indirect
// call (bench/ral: RalDispatchBench). An epoch counter invalidates every thread's table when an
// artifact is unloaded (its literals' addresses may then name something else). Inside a
// dispatch whose kernel has fallbacks (or under fault injection) calls go through
// detail::callWithFallbacks instead (Fallback.h); elsewhere that costs one flag test.
//
//===----------------------------------------------------------------------===//
#include "ApiCache.h"
#include "Fallback.h"

#include "loupe/ral/Context.h"
#include "loupe/ral/ral_api.h"

#include <atomic>
#include <cstdint>
#include <cstring>

namespace loupe::ral::detail {

namespace {
std::atomic<uint64_t> gEpoch{1};

struct CacheSlot {
  const char *key = nullptr;
  ApiFunction fn = nullptr;
  uint64_t epoch = 0;
};
constexpr size_t kCacheSlots = 128; // power of two
struct ThreadCache {
  CacheSlot slots[kCacheSlots];
};
thread_local ThreadCache tCache;

inline size_t slotOf(const char *name) {
  auto bits = reinterpret_cast<uintptr_t>(name);
  return static_cast<size_t>((bits ^ (bits >> 7) ^ (bits >> 15)) & (kCacheSlots - 1));
}
} // namespace

void invalidateApiCaches() { gEpoch.fetch_add(1, std::memory_order_release); }

ApiFunction lookupApiCached(const char *name) {
  uint64_t epoch = gEpoch.load(std::memory_order_acquire);
  CacheSlot &slot = tCache.slots[slotOf(name)];
  if (__builtin_expect(slot.key == name && slot.epoch == epoch, 1))
    return slot.fn;
  ApiFunction fn = Registry::global().find(name);
  if (fn) // Misses are not cached: a plugin may register the name later.
    slot = {name, fn, epoch};
  return fn;
}

} // namespace loupe::ral::detail

namespace {
/// Calls `fn`, registered as `apiName`, for the execution `ctx` (may be null).
inline void invoke(loupe::ral::ExecutionContext *execution, const char *apiName,
                   loupe::ral::ApiFunction fn, void **args) {
  if (__builtin_expect(execution != nullptr && execution->guardsCalls(), 0))
    return loupe::ral::detail::callWithFallbacks(*execution, apiName, fn, args);
  fn(args);
}
} // namespace

extern "C" __attribute__((visibility("default"))) void ral_api_call(void *ctx, const char *apiName,
                                                                    void **args) {
  using namespace loupe::ral;
  auto *execution = static_cast<ExecutionContext *>(ctx);
  ApiFunction fn = apiName ? detail::lookupApiCached(apiName) : nullptr;
  if (__builtin_expect(fn != nullptr, 1))
    return invoke(execution, apiName, fn, args);
  // A miss may be a kernel of a plugin not loaded yet: load the plugins (once) and look again.
  if (apiName) {
    loadPlugins();
    if ((fn = detail::lookupApiCached(apiName)))
      return invoke(execution, apiName, fn, args);
  }
  std::string name = apiName ? apiName : "(null)";
  std::string hint;
  for (const PluginStatus &plugin : loadPlugins())
    if (!plugin.status.isOk())
      hint += "; plugin " + plugin.name + " did not load: " + plugin.status.message();
  Status status = notFound("unknown RAL API '" + name + "' (not registered; `loupe ral list` " +
                           "prints the registered names" + hint + ")");
  if (execution)
    execution->signalError(status);
}
