//===- BackendFlags.cpp - --backends, --override, --fusion, --cache -------------------===//
#include "BackendFlags.h"

#include "loupe/Backends/BackendRegistry.h"

namespace loupe::app {

std::set<std::string> backendFlagNames() { return {"--backends", "--override", "--fusion", "--cache"}; }

bool applyBackendFlags(const CommandLine &cl, compiler::CompileOptions &options,
                       std::string &error) {
  const backends::BackendRegistry &registry = backends::BackendRegistry::global();
  auto known = [&](const std::string &name) {
    if (registry.find(name))
      return true;
    std::string names;
    for (const auto &b : registry.backends())
      names += (names.empty() ? "" : ", ") + b->name();
    error = "unknown backend '" + name + "' (known: " + names + ")";
    return false;
  };
  for (const std::string &name : backends::parseBackendList(cl.get("--backends")))
    if (!known(name))
      return false;
    else
      options.backends.push_back(name);
  for (const std::string &entry : backends::parseBackendList(cl.get("--override"))) {
    size_t eq = entry.rfind('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == entry.size()) {
      error = "--override expects LOC=BACKEND[,LOC=BACKEND...], got '" + entry + "'";
      return false;
    }
    if (!known(entry.substr(eq + 1)))
      return false;
    options.backendOverrides[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  std::string fusion = cl.get("--fusion", "on");
  if (fusion != "on" && fusion != "off") {
    error = "--fusion expects on or off, got '" + fusion + "'";
    return false;
  }
  options.fusion = fusion == "on";
  std::string cache = cl.get("--cache", "on");
  if (cache != "on" && cache != "off") {
    error = "--cache expects on or off, got '" + cache + "'";
    return false;
  }
  options.useCache = cache == "on";
  return true;
}

} // namespace loupe::app
