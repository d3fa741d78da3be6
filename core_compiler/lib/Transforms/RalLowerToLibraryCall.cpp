//===- RalLowerToLibraryCall.cpp - backend choice; library ops -> ral.dispatch ---------===//
//
// See Passes.td. Backends and plevels come from loupe/Backends/BackendRegistry.h; the kernels'
// ABIs from ral/include/loupe/ral/Kernels.h.
//
//===----------------------------------------------------------------------===//
#include "loupe/Backends/BackendRegistry.h"
#include "loupe/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"

namespace loupe {
#define GEN_PASS_DEF_RALLOWERTOLIBRARYCALL
#include "loupe/Transforms/Passes.h.inc"
} // namespace loupe

using namespace mlir;
using namespace loupe::ralir;
namespace backends = loupe::backends;

/// The op right before `op` that writes `output` (nothing in between touches it), or null.
static Operation *initializerOf(Operation *op, Value output) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    auto writer = dyn_cast<linalg::LinalgOp>(prev);
    if (writer && llvm::is_contained(writer.getDpsInits(), output))
      return prev;
    if (llvm::is_contained(prev->getOperands(), output) || prev->getNumRegions() > 0)
      return nullptr;
  }
  return nullptr;
}

/// True when `op` (a linalg.fill or a no-input linalg.map/generic) writes 0.0 everywhere.
static bool writesZeros(Operation *op) {
  Value value;
  if (auto fill = dyn_cast<linalg::FillOp>(op))
    value = fill.getInputs()[0];
  else if (auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
           linalgOp && linalgOp.getNumDpsInputs() == 0 && linalgOp->getNumRegions() == 1)
    value = linalgOp.getBlock()->getTerminator()->getOperand(0);
  FloatAttr constant;
  return value && matchPattern(value, m_Constant(&constant)) && constant.getValue().isZero();
}

/// The 1-D bias that `op` broadcasts along the last dimension of its output, or null.
static Value broadcastBias(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 1 || generic.getNumReductionLoops() != 0)
    return nullptr;
  Value bias = generic.getDpsInputs()[0];
  auto type = dyn_cast<MemRefType>(bias.getType());
  MLIRContext *ctx = op->getContext();
  unsigned rank = generic.getNumLoops();
  AffineMap lastDim = AffineMap::get(rank, 0, getAffineDimExpr(rank - 1, ctx));
  auto yield = cast<linalg::YieldOp>(generic.getBlock()->getTerminator());
  if (!type || type.getRank() != 1 || generic.getIndexingMapsArray()[0] != lastDim ||
      !generic.getIndexingMapsArray()[1].isIdentity() ||
      yield.getOperand(0) != generic.getBlock()->getArgument(0))
    return nullptr;
  return bias;
}

static bool isLibraryOperand(Value v, int64_t rank) {
  auto type = dyn_cast<MemRefType>(v.getType());
  return type && type.getRank() == rank && type.getElementType().isF32() &&
         type.hasStaticShape() && type.getLayout().isIdentity();
}

/// The registry's op kind of a library-capable linalg op, or "".
static std::string opKind(Operation *op) {
  if (isa<linalg::MatmulOp>(op))
    return "matmul";
  if (isa<linalg::BatchMatmulOp>(op))
    return "batch_matmul";
  if (isa<linalg::Conv2DNhwcFhwcOp>(op))
    return "conv2d";
  return "";
}

static DispatchOp createDispatch(OpBuilder &b, Location loc, Value ctx, ValueRange args,
                                 StringRef callee, StringRef device) {
  auto dispatch = b.create<DispatchOp>(loc, TypeRange{}, ctx, args, callee, device,
                                       /*backend_config=*/"", /*abi=*/nullptr,
                                       /*has_side_effect=*/true);
  dispatch.setAbi(dispatch.encodedName());
  return dispatch;
}

/// C = A * B on zero-filled C -> kernel(ctx, A, B, C, false, false); the fill goes away.
static FailureOr<DispatchOp> lowerGemm(Operation *op, Value ctx, const backends::Selection &sel,
                                       StringRef device, std::string &why) {
  int64_t rank = isa<linalg::MatmulOp>(op) ? 2 : 3;
  if (!llvm::all_of(op->getOperands(), [&](Value v) { return isLibraryOperand(v, rank); })) {
    why = "operands are not static f32 row-major memrefs";
    return failure();
  }
  Operation *init = initializerOf(op, op->getOperand(2));
  if (!init || !writesZeros(init)) {
    why = "C is not zero-filled right before the matmul";
    return failure();
  }
  OpBuilder b(op);
  Value noTranspose = b.create<arith::ConstantIntOp>(op->getLoc(), 0, 1);
  llvm::SmallVector<Value> args(op->getOperands());
  args.append({noTranspose, noTranspose});
  DispatchOp dispatch = createDispatch(b, op->getLoc(), ctx, args, sel.kernel, device);
  init->erase();
  return dispatch;
}

/// An NCHW (or OIHW) view of an NHWC (FHWC) buffer.
static Value channelsFirst(OpBuilder &b, Location loc, Value v) {
  AffineMap perm = AffineMap::getPermutationMap(llvm::ArrayRef<unsigned>{0, 3, 1, 2},
                                                b.getContext());
  return b.create<memref::TransposeOp>(loc, v, AffineMapAttr::get(perm));
}

/// A private constant i64 global holding `values` (one per distinct vector).
static Value constantI64Vector(OpBuilder &b, Location loc, ModuleOp module,
                               llvm::ArrayRef<int64_t> values) {
  auto type = MemRefType::get({int64_t(values.size())}, b.getI64Type());
  std::string name = "__loupe_conv_params";
  for (int64_t v : values)
    name += "_" + std::to_string(v);
  if (!module.lookupSymbol(name)) {
    OpBuilder top = OpBuilder::atBlockBegin(module.getBody());
    auto tensorType = RankedTensorType::get(type.getShape(), b.getI64Type());
    top.create<memref::GlobalOp>(loc, name, top.getStringAttr("private"), type,
                                 DenseElementsAttr::get(tensorType, values),
                                 /*constant=*/true, /*alignment=*/nullptr);
  }
  return b.create<memref::GetGlobalOp>(loc, type, name);
}

/// Conv on an output holding zeros or a broadcast bias -> kernel(ctx, input, filter, bias,
/// output, params) with NCHW/OIHW views; the initialisation goes away (the kernel adds bias).
static FailureOr<DispatchOp> lowerConv(linalg::Conv2DNhwcFhwcOp conv, Value ctx,
                                       const backends::Selection &sel, StringRef device,
                                       std::string &why) {
  Value input = conv.getDpsInputs()[0], filter = conv.getDpsInputs()[1],
        output = conv.getDpsInits()[0];
  if (!isLibraryOperand(input, 4) || !isLibraryOperand(filter, 4) || !isLibraryOperand(output, 4)) {
    why = "operands are not static f32 row-major memrefs";
    return failure();
  }
  Operation *init = initializerOf(conv, output);
  Value bias = init ? broadcastBias(init) : nullptr;
  if (!init || (!bias && !writesZeros(init))) {
    why = "the output is not initialised with zeros or a per-channel bias";
    return failure();
  }
  auto strides = llvm::to_vector(conv.getStrides().getValues<int64_t>());
  auto dilations = llvm::to_vector(conv.getDilations().getValues<int64_t>());
  OpBuilder b(conv);
  Location loc = conv.getLoc();
  if (!bias)
    bias = b.create<memref::AllocaOp>(loc, MemRefType::get({0}, b.getF32Type()));
  // Kernels.h: stride h/w, pad top/left/bottom/right, dilation h/w, groups.
  Value params = constantI64Vector(b, loc, conv->getParentOfType<ModuleOp>(),
                                   {strides[0], strides[1], 0, 0, 0, 0, dilations[0],
                                    dilations[1], 1});
  Value args[] = {channelsFirst(b, loc, input), channelsFirst(b, loc, filter), bias,
                  channelsFirst(b, loc, output), params};
  DispatchOp dispatch = createDispatch(b, loc, ctx, args, sel.kernel, device);
  init->erase();
  return dispatch;
}

namespace {
struct RalLowerToLibraryCallPass
    : loupe::impl::RalLowerToLibraryCallBase<RalLowerToLibraryCallPass> {
  using RalLowerToLibraryCallBase::RalLowerToLibraryCallBase;

  void runOnOperation() override {
    backends::Preferences prefs;
    prefs.device = device;
    prefs.order.assign(backendOrder.begin(), backendOrder.end());
    for (const std::string &entry : backendOverrides) {
      size_t eq = entry.rfind('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == entry.size()) {
        getOperation().emitError("ral-lower-to-library-call: override '")
            << entry << "' is not loc=backend";
        return signalPassFailure();
      }
      prefs.overrides[entry.substr(0, eq)] = entry.substr(eq + 1);
    }
    const backends::BackendRegistry &registry = backends::BackendRegistry::global();
    for (const std::string &name : prefs.order)
      if (!registry.find(name)) {
        getOperation().emitError("unknown backend '") << name << "' in --backends";
        return signalPassFailure();
      }

    getOperation().walk([&](func::FuncOp func) {
      if (func.isExternal() || func.getNumArguments() == 0 ||
          !isa<ContextType>(func.getArgument(0).getType()))
        return;
      Value ctx = func.getArgument(0);
      llvm::SmallVector<Operation *> candidates;
      func.walk([&](Operation *op) {
        if (!opKind(op).empty())
          candidates.push_back(op);
      });
      Builder attrs(&getContext());
      for (Operation *op : candidates) {
        std::string kind = opKind(op);
        backends::Selection sel = registry.select(kind, loupe::describeLoc(op->getLoc()), prefs);
        Operation *annotated = op;
        std::string why;
        if (!sel.kernel.empty()) {
          FailureOr<DispatchOp> dispatch =
              kind == "conv2d" ? lowerConv(cast<linalg::Conv2DNhwcFhwcOp>(op), ctx, sel, device, why)
                               : lowerGemm(op, ctx, sel, device, why);
          if (succeeded(dispatch)) {
            op->erase();
            annotated = *dispatch;
          } else {
            sel = {backends::kCodegen, "", 10,
                   sel.backend + " not used: " + why + " (" + sel.reason + ")"};
          }
        }
        annotated->setAttr("loupe.backend", attrs.getStringAttr(sel.backend));
        annotated->setAttr("loupe.plevel", attrs.getI64IntegerAttr(sel.plevel));
        annotated->setAttr("loupe.backend_reason", attrs.getStringAttr(sel.reason));
      }
    });
  }
};
} // namespace
