//===- Registry.cpp - The process-wide table of RAL functions ----------------===//
#include "loupe/ral/Registry.h"

#include "ApiCache.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

namespace loupe::ral {

struct Registry::Impl {
  mutable std::shared_mutex mutex;
  std::unordered_map<std::string, Entry> entries;
  std::vector<std::string> errors;
  std::atomic<uint64_t> generation{0};
};

Registry::Registry() : impl_(std::make_unique<Impl>()) {}
Registry::~Registry() = default;

Registry &Registry::global() {
  // Never destroyed: static initializers of plugins and late threads may still look up names.
  static Registry *registry = new Registry();
  return *registry;
}

Status Registry::add(Entry entry) {
  std::unique_lock<std::shared_mutex> lock(impl_->mutex);
  auto it = impl_->entries.find(entry.name);
  if (it != impl_->entries.end()) {
    std::string message = "RAL API '" + entry.name + "' registered twice: at " + entry.source +
                          " and before at " + it->second.source;
    impl_->errors.push_back(message);
    return invalidArgument(message);
  }
  if (!entry.fn) {
    std::string message = "RAL API '" + entry.name + "' registered without a function at " +
                          entry.source;
    impl_->errors.push_back(message);
    return invalidArgument(message);
  }
  std::string name = entry.name;
  impl_->entries.emplace(std::move(name), std::move(entry));
  impl_->generation.fetch_add(1, std::memory_order_release);
  return Status::ok();
}

ApiFunction Registry::find(std::string_view name) const {
  std::shared_lock<std::shared_mutex> lock(impl_->mutex);
  auto it = impl_->entries.find(std::string(name));
  return it == impl_->entries.end() ? nullptr : it->second.fn;
}

std::vector<Registry::Entry> Registry::entries() const {
  std::vector<Entry> out;
  {
    std::shared_lock<std::shared_mutex> lock(impl_->mutex);
    out.reserve(impl_->entries.size());
    for (const auto &[name, entry] : impl_->entries)
      out.push_back(entry);
  }
  std::sort(out.begin(), out.end(),
            [](const Entry &a, const Entry &b) { return a.name < b.name; });
  return out;
}

size_t Registry::size() const {
  std::shared_lock<std::shared_mutex> lock(impl_->mutex);
  return impl_->entries.size();
}

Status Registry::status() const {
  std::shared_lock<std::shared_mutex> lock(impl_->mutex);
  if (impl_->errors.empty())
    return Status::ok();
  std::string message;
  for (const std::string &e : impl_->errors)
    message += (message.empty() ? "" : "\n") + e;
  return invalidArgument(message);
}

uint64_t Registry::generation() const {
  return impl_->generation.load(std::memory_order_acquire);
}

namespace detail {
bool registerApi(const char *fullName, const char *prefix, const char *device, ApiFunction fn,
                 const char *file, int line) {
  std::string source = file;
  if (size_t slash = source.rfind("/ral/"); slash != std::string::npos)
    source = source.substr(slash + 1);
  // A failed registration is kept in Registry::status() (loupe-run --info shows it).
  (void)Registry::global().add({fullName, prefix, device, fn, source + ":" + std::to_string(line)});
  invalidateApiCaches();
  return true;
}
} // namespace detail

} // namespace loupe::ral
