//===- BackendFlags.cpp - --backends, --override, --fusion, --cache, --input-shape ----===//
#include "BackendFlags.h"

#include "loupe/Backends/BackendRegistry.h"
#include "loupe/sessions/Session.h"

namespace loupe::app {

std::set<std::string> backendFlagNames() {
  return {"--backends", "--override", "--fusion", "--cache", "--input-shape", "--math"};
}

bool parseInputShape(const std::string &text, std::string &name, std::vector<int64_t> &dims,
                     std::string &error) {
  size_t eq = text.rfind('=');
  auto fail = [&](const std::string &why) {
    error = "--input-shape expects NAME=D0,D1,... (dims >= 0; a scalar: NAME=), got '" + text +
            "': " + why;
    return false;
  };
  if (eq == std::string::npos || eq == 0)
    return fail("no NAME=");
  name = text.substr(0, eq);
  std::string why;
  return sessions::parseShape(text.substr(eq + 1), dims, why) || fail(why);
}

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
    if (name != backends::kAuto && !known(name))
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
  std::string math = cl.get("--math", "polynomial");
  if (math != "polynomial" && math != "libm") {
    error = "--math expects polynomial or libm, got '" + math + "'";
    return false;
  }
  options.exactMath = math == "libm";
  std::string cache = cl.get("--cache", "on");
  if (cache != "on" && cache != "off") {
    error = "--cache expects on or off, got '" + cache + "'";
    return false;
  }
  options.useCache = cache == "on";
  for (const std::string &entry : cl.getAll("--input-shape")) {
    std::string name;
    std::vector<int64_t> dims;
    if (!parseInputShape(entry, name, dims, error))
      return false;
    if (options.inputShapes.count(name)) {
      error = "--input-shape gives input '" + name + "' twice";
      return false;
    }
    options.inputShapes[name] = dims;
  }
  return true;
}

} // namespace loupe::app
