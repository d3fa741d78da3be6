//===- RalLowerToLibraryCall.cpp - backend choice; library ops -> ral.dispatch ---------===//
//
// See Passes.td. Backends and plevels come from loupe/Backends/BackendRegistry.h; the kernels'
// ABIs from ral/include/loupe/ral/Kernels.h.
//
//===----------------------------------------------------------------------===//
#include "LibraryCallPatterns.h"
#include "OpPatterns.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace loupe {
#define GEN_PASS_DEF_RALLOWERTOLIBRARYCALL
#include "loupe/Transforms/Passes.h.inc"
} // namespace loupe

using namespace mlir;
using namespace loupe::ralir;
namespace backends = loupe::backends;

/// The kernels the runtime calls, in order, when `sel`'s kernel fails at run time: the
/// fallback backends' kernels for `kind`, or for `pattern` when the dispatch is that fused
/// pattern (the same ABI either way; BackendRegistry::fallbacks).
static std::vector<std::string> fallbackKernels(const backends::BackendRegistry &registry,
                                                const std::string &kind,
                                                const backends::Selection &sel,
                                                const backends::Preferences &prefs,
                                                const backends::FusePattern *pattern) {
  std::vector<std::string> kernels;
  for (const backends::Selection &s : registry.fallbacks(kind, sel, prefs)) {
    if (!pattern) {
      kernels.push_back(s.kernel);
      continue;
    }
    const backends::FusePattern *alternative = registry.findFusePattern(s.backend, pattern->name);
    if (alternative && !alternative->kernel.empty())
      kernels.push_back(alternative->kernel);
  }
  return kernels;
}

namespace {
struct RalLowerToLibraryCallPass
    : loupe::impl::RalLowerToLibraryCallBase<RalLowerToLibraryCallPass> {
  using RalLowerToLibraryCallBase::RalLowerToLibraryCallBase;

  void runOnOperation() override {
    FailureOr<backends::Preferences> parsed =
        loupe::parsePreferences(getOperation(), device, backendOrder, backendOverrides,
                                tunedBackends);
    if (failed(parsed))
      return signalPassFailure();
    const backends::Preferences &prefs = *parsed;
    const backends::BackendRegistry &registry = backends::BackendRegistry::global();
    getOperation().walk([&](func::FuncOp func) {
      if (func.isExternal() || func.getNumArguments() == 0 ||
          !isa<ContextType>(func.getArgument(0).getType()))
        return;
      Value ctx = func.getArgument(0);
      llvm::SmallVector<Operation *> candidates;
      func.walk([&](Operation *op) {
        if (!loupe::libraryOpKind(op).empty())
          candidates.push_back(op);
      });
      Builder attrs(&getContext());
      for (Operation *op : candidates) {
        std::string kind = loupe::libraryOpKind(op);
        std::string signature = loupe::opSignature(op, kind);
        std::string source = loupe::describeLoc(op->getLoc());
        backends::Selection sel = registry.select(kind, source, prefs, signature);
        std::vector<backends::Selection> runners = registry.candidates(kind, prefs.device);
        Operation *annotated = op;
        std::string why;
        if (!sel.kernel.empty()) {
          // Pattern fusion first (a backend's registered epilogue kernel), then the plain op.
          const backends::FusePattern *pattern =
              registry.findFusePattern(sel.backend, loupe::fusePatternName(kind));
          FailureOr<DispatchOp> dispatch = failure();
          bool fused = false;
          std::string fusedOps; // What the pattern's kernel takes after the op.
          if (kind == "conv2d" || kind == "depthwise_conv2d" || kind == "quantized_conv2d") {
            dispatch = loupe::lowerConv(cast<linalg::LinalgOp>(op), ctx, sel.kernel, pattern,
                                        device, why, fusedOps);
            fused = !fusedOps.empty();
          } else if (kind == "max_pool2d") {
            dispatch = loupe::lowerMaxPool(cast<linalg::PoolingNhwcMaxOp>(op), ctx, sel.kernel,
                                           device, why);
          } else {
            fused = pattern && succeeded(dispatch = loupe::lowerGemmEpilogue(
                                             op, ctx, *pattern, device, fusedOps));
            if (!fused)
              dispatch = loupe::lowerGemm(op, ctx, sel.kernel, device, why);
          }
          if (fused)
            sel.reason += "; fused with the " + fusedOps + " after it (" + pattern->name + ")";
          if (succeeded(dispatch)) {
            if (Attribute cluster = op->getAttr("loupe.cluster"))
              (*dispatch)->setAttr("loupe.cluster", cluster);
            op->erase();
            annotated = *dispatch;
            std::vector<std::string> fallbacks =
                fallbackKernels(registry, kind, sel, prefs, fused ? pattern : nullptr);
            if (!fallbacks.empty())
              annotated->setAttr("loupe.fallbacks",
                                 attrs.getStrArrayAttr(llvm::SmallVector<StringRef>(
                                     fallbacks.begin(), fallbacks.end())));
          } else {
            sel = {backends::kCodegen, "", 10,
                   sel.backend + " not used: " + why + " (" + sel.reason + ")"};
          }
        }
        annotated->setAttr("loupe.backend", attrs.getStringAttr(sel.backend));
        annotated->setAttr("loupe.plevel", attrs.getI64IntegerAttr(sel.plevel));
        annotated->setAttr("loupe.backend_reason", attrs.getStringAttr(sel.reason));
        annotated->setAttr("loupe.signature", attrs.getStringAttr(signature));
        annotated->setAttr("loupe.selected_loc", attrs.getStringAttr(source));
        llvm::SmallVector<StringRef> names;
        for (const backends::Selection &c : runners)
          names.push_back(c.backend);
        annotated->setAttr("loupe.candidates", attrs.getStrArrayAttr(names));
      }
    });
  }
};
} // namespace
