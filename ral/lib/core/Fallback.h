//===- Fallback.h - Run-time fallback between library kernels (internal) -*- C++ -*-===//
//
// DESIGN.md (after RAF): a backend that fails at run time falls back to the next one, and says
// so. The compiler lists, per library dispatch, the other backends' kernels with the same ABI
// (manifest `fallbacks`); when the dispatch's kernel signals an error, the runtime holds the
// error back, tells the tracer (Tracer::onFallback) and calls the next kernel with the same
// arguments. Only when every kernel of the chain fails does the dispatch fail, with all their
// messages. docs/ral.md, Fallbacks.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_RAL_LIB_CORE_FALLBACK_H
#define LOUPE_RAL_LIB_CORE_FALLBACK_H

#include "loupe/ral/Context.h"
#include "loupe/ral/Registry.h"

namespace loupe::ral::detail {

/// ral_api_call of `apiName` (registered as `fn`) while `execution.guardsCalls()`. Calls `fn`,
/// or signals the failure injected for its kernel (ContextOptions::failKernels). When it
/// fails and the open dispatch lists fallbacks registered with the same ABI (the part of
/// `apiName` after the kernel prefix), calls them in order with `args` until one succeeds,
/// reporting each switch to the tracer; the results are whatever the last kernel wrote. When
/// all fail, signals one error naming the dispatch with every kernel's message (the first
/// kernel's status code); a failure with no usable fallback is signalled unchanged.
void callWithFallbacks(ExecutionContext &execution, const char *apiName, ApiFunction fn,
                       void **args);

} // namespace loupe::ral::detail

#endif // LOUPE_RAL_LIB_CORE_FALLBACK_H
