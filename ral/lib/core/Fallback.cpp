//===- Fallback.cpp - Run-time fallback between library kernels --------------===//
#include "Fallback.h"

#include <algorithm>
#include <string_view>

namespace loupe::ral::detail {

namespace {

/// `status`'s message, prefixed with `kernel` unless it already starts with it.
std::string namedMessage(const std::string &kernel, const Status &status) {
  const std::string &m = status.message();
  return m.compare(0, kernel.size(), kernel) == 0 ? m : kernel + ": " + m;
}

/// The failure ContextOptions::failKernels injects for `kernel`, or Ok when it injects none.
Status injectedFailure(const ExecutionContext &execution, const std::string &kernel) {
  const std::vector<std::string> &inject = execution.context().options().failKernels;
  if (std::find(inject.begin(), inject.end(), kernel) == inject.end())
    return Status::ok();
  return internalError(kernel + ": failure injected (LOUPE_RAL_FAIL_KERNEL)");
}

/// One attempt of `kernel` (registered as `fn`): the error it signals, or the injected one.
Status attempt(ExecutionContext &execution, const std::string &kernel, ApiFunction fn,
               void **args) {
  if (Status injected = injectedFailure(execution, kernel); !injected)
    return injected;
  return execution.callCapturingErrors(fn, args);
}

/// The function registered as `name`, loading the kernel plugins when it is not (yet).
ApiFunction findLoadingPlugins(const std::string &name) {
  if (ApiFunction fn = Registry::global().find(name))
    return fn;
  loadPlugins();
  return Registry::global().find(name);
}

} // namespace

void callWithFallbacks(ExecutionContext &execution, const char *apiName, ApiFunction fn,
                       void **args) {
  std::string_view name(apiName);
  size_t split = name.find("___");
  if (execution.failed() || split == std::string_view::npos)
    return fn(args); // After an error every call returns at once: nothing to fall back from.
  std::string kernel(name.substr(0, split));
  const DispatchNames *dispatch = execution.activeDispatch();
  if (!dispatch || !dispatch->fallbacks || dispatch->fallbacks->empty()) {
    // Fault injection only (e.g. a conv kernel, which has no fallback).
    if (Status injected = injectedFailure(execution, kernel); !injected)
      return execution.signalError(std::move(injected));
    return fn(args);
  }
  Status status = attempt(execution, kernel, fn, args);
  if (status.isOk())
    return;

  // The chain: the dispatch's fallbacks registered with this call's ABI. None (another kind of
  // call failed, or no fallback is registered): the error stands as it is.
  std::vector<std::pair<std::string, ApiFunction>> chain;
  for (const std::string &next : *dispatch->fallbacks)
    if (ApiFunction nextFn = findLoadingPlugins(next + std::string(name.substr(split))))
      chain.emplace_back(next, nextFn);
  if (chain.empty())
    return execution.signalError(std::move(status));

  StatusCode code = status.code();
  std::string messages;
  for (const auto &[next, nextFn] : chain) {
    std::string message = namedMessage(kernel, status);
    messages += (messages.empty() ? "" : "; ") + message;
    if (Tracer *tracer = execution.tracer())
      tracer->onFallback({execution.activeDispatchId(), execution.id(), kernel, message, next});
    kernel = next;
    status = attempt(execution, kernel, nextFn, args);
    if (status.isOk())
      return;
  }
  messages += "; " + namedMessage(kernel, status);
  std::string dispatchName =
      dispatch->name && *dispatch->name ? std::string(" (") + dispatch->name + ")" : "";
  execution.signalError(Status(code, "dispatch " + std::to_string(execution.activeDispatchId()) +
                                         dispatchName + ": every kernel failed: " + messages));
}

} // namespace loupe::ral::detail
