//===- OpPatterns.cpp - How ops fuse and which backend runs them ----------------===//
#include "OpPatterns.h"

#include "loupe/common/ArtifactAbi.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/RegionUtils.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

#include <limits>
#include <set>

using namespace mlir;
namespace abi = loupe::abi;

const char *loupe::opPatternName(OpPattern pattern) {
  switch (pattern) {
  case OpPattern::kElemWise: return "elemwise";
  case OpPattern::kBroadcast: return "broadcast";
  case OpPattern::kInjective: return "injective";
  case OpPattern::kReduce: return "reduce";
  case OpPattern::kOutElemwiseFusable: return "out_elemwise_fusable";
  case OpPattern::kOpaque: return "opaque";
  }
  return "opaque";
}

std::string loupe::libraryOpKind(Operation *op) {
  if (isa<linalg::MatmulOp>(op))
    return "matmul";
  if (isa<linalg::BatchMatmulOp>(op))
    return "batch_matmul";
  if (isa<linalg::Conv2DNhwcFhwcOp>(op))
    return "conv2d";
  if (isa<linalg::DepthwiseConv2DNhwcHwcmOp>(op))
    return "depthwise_conv2d";
  if (isa<linalg::QuantizedBatchMatmulOp>(op))
    return "quantized_batch_matmul";
  if (isa<linalg::Conv2DNhwcFhwcQOp>(op))
    return "quantized_conv2d";
  if (isa<linalg::PoolingNhwcMaxOp>(op))
    return "max_pool2d";
  return "";
}

std::string loupe::fusePatternName(StringRef kind) {
  if (kind == "matmul" || kind == "batch_matmul")
    return "matmul_bias_act";
  if (kind == "conv2d" || kind == "depthwise_conv2d")
    return "conv_bias_act";
  return "";
}

/// True when `v` is a float constant satisfying `pred`.
static bool isFloatConstant(Value v, llvm::function_ref<bool(const APFloat &)> pred) {
  FloatAttr attr;
  return matchPattern(v, m_Constant(&attr)) && pred(attr.getValue());
}

/// The operand of binary `op` other than the constant one satisfying `pred`, or null (also
/// for a null `result`).
template <typename OpTy>
static Value otherThanConstant(Value result, llvm::function_ref<bool(const APFloat &)> pred) {
  auto op = result ? result.getDefiningOp<OpTy>() : OpTy();
  if (!op)
    return nullptr;
  if (isFloatConstant(op.getRhs(), pred))
    return op.getLhs();
  if (isFloatConstant(op.getLhs(), pred))
    return op.getRhs();
  return nullptr;
}

bool loupe::isReluOf(Value result, Value x) {
  auto zero = [](const APFloat &v) { return v.isZero(); };
  auto unbounded = [](const APFloat &v) {
    return !v.isNegative() &&
           (v.isInfinity() || v.convertToDouble() >= std::numeric_limits<float>::max());
  };
  // max(x, 0) or max(min(x, hi), 0).
  if (Value in = otherThanConstant<arith::MaximumFOp>(result, zero))
    return in == x || otherThanConstant<arith::MinimumFOp>(in, unbounded) == x;
  // min(max(x, 0), hi).
  Value in = otherThanConstant<arith::MinimumFOp>(result, unbounded);
  return in && otherThanConstant<arith::MaximumFOp>(in, zero) == x;
}

bool loupe::isHardSwishOf(Value result, Value x) {
  auto near = [](double want) {
    return [want](const APFloat &v) { return std::abs(v.convertToDouble() - want) < 1e-6; };
  };
  // x * gate, the gate clamp(x * 1/6 + 1/2, 0, 1) as min then max or max then min.
  auto times = result.getDefiningOp<arith::MulFOp>();
  if (!times || !llvm::is_contained(times->getOperands(), x))
    return false;
  Value gate = times.getLhs() == x ? times.getRhs() : times.getLhs();
  Value in = otherThanConstant<arith::MaximumFOp>(gate, near(0));
  in = in ? otherThanConstant<arith::MinimumFOp>(in, near(1))
          : otherThanConstant<arith::MaximumFOp>(
                otherThanConstant<arith::MinimumFOp>(gate, near(1)), near(0));
  Value scaled = otherThanConstant<arith::AddFOp>(in, near(0.5));
  return scaled && otherThanConstant<arith::MulFOp>(scaled, near(1.0 / 6)) == x;
}

bool loupe::isSigmoidOf(Value result, Value x) {
  auto one = [](const APFloat &v) { return v.isExactlyValue(1.0); };
  auto gate = result.getDefiningOp<arith::DivFOp>();
  if (!gate || !isFloatConstant(gate.getLhs(), one))
    return false;
  Value sum = otherThanConstant<arith::AddFOp>(gate.getRhs(), one);
  auto exp = sum ? sum.getDefiningOp<math::ExpOp>() : nullptr;
  auto neg = exp ? exp.getOperand().getDefiningOp<arith::NegFOp>() : nullptr;
  return neg && neg.getOperand() == x;
}

bool loupe::isSiluOf(Value result, Value x) {
  auto times = result.getDefiningOp<arith::MulFOp>();
  return times && llvm::is_contained(times->getOperands(), x) &&
         isSigmoidOf(times.getLhs() == x ? times.getRhs() : times.getLhs(), x);
}

/// Matmuls and convolutions (not pooling, which reads a window of one input).
static bool isContraction(linalg::LinalgOp op) {
  if (isa<linalg::ContractionOpInterface, linalg::QuantizedBatchMatmulOp>(op.getOperation()))
    return true;
  return isa<linalg::ConvolutionOpInterface>(op.getOperation()) &&
         !op->getName().getStringRef().starts_with("linalg.pooling");
}

loupe::OpPattern loupe::classifyOp(Operation *op) {
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::PadOp>(op))
    return OpPattern::kInjective;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureTensorSemantics())
    return OpPattern::kOpaque;
  if (linalgOp.getNumReductionLoops())
    return isContraction(linalgOp) ? OpPattern::kOutElemwiseFusable : OpPattern::kReduce;
  if (linalgOp.hasIndexSemantics())
    return OpPattern::kInjective;
  bool allIdentity = true, broadcastOnly = true;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = linalgOp.getMatchingIndexingMap(&operand);
    if (map.isIdentity())
      continue;
    allIdentity = false;
    // A broadcast reads dims in order, dropping some (or pinning them to 0).
    if (linalgOp.isDpsInit(&operand) || !map.isProjectedPermutation(/*allowZeroInResults=*/true))
      broadcastOnly = false;
    int64_t last = -1;
    for (AffineExpr expr : map.getResults())
      if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
        if (int64_t(dim.getPosition()) < last)
          broadcastOnly = false;
        last = dim.getPosition();
      }
  }
  if (allIdentity)
    return OpPattern::kElemWise;
  return broadcastOnly ? OpPattern::kBroadcast : OpPattern::kInjective;
}

const char *loupe::reductionKind(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp.getNumReductionLoops() == 0 || linalgOp.getNumDpsInputs() == 0)
    return nullptr;
  AffineMap input = linalgOp.getMatchingIndexingMap(linalgOp.getDpsInputOperand(0));
  if (!input.isProjectedPermutation())
    return "kInput"; // A window (pooling, convolution).
  auto last = input.getNumResults() ? dyn_cast<AffineDimExpr>(input.getResults().back())
                                    : nullptr;
  bool contiguous = last && linalgOp.getIteratorTypesArray()[last.getPosition()] ==
                                utils::IteratorType::reduction;
  return contiguous ? "kRowReduction" : "kColReduction";
}

bool loupe::isCheapProducer(Operation *op) {
  if (isa<tensor::EmptyOp>(op))
    return true;
  if (auto fill = dyn_cast<linalg::FillOp>(op))
    return matchPattern(fill.getInputs()[0], m_Constant()) &&
           fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>();
  // A broadcast of constants: all-parallel, inputs constant, outputs only written.
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureTensorSemantics() || linalgOp.getNumReductionLoops() ||
      linalgOp.getNumDpsInputs() == 0 || linalgOp.hasIndexSemantics())
    return false;
  for (OpOperand &init : linalgOp.getDpsInitsMutable())
    if (linalgOp.payloadUsesValueFromOperand(&init) || !init.get().getDefiningOp<tensor::EmptyOp>())
      return false;
  if (!llvm::all_of(linalgOp.getDpsInputs(), [](Value v) { return matchPattern(v, m_Constant()); }))
    return false;
  Block *body = linalgOp.getBlock();
  return body && body->getOperations().size() == 1; // Just the yield of block arguments.
}

bool loupe::isApproximatedMath(Operation *op) {
  return isa<math::ExpOp, math::ExpM1Op, math::LogOp, math::Log2Op, math::Log1pOp,
             math::TanhOp, math::ErfOp>(op) &&
         getElementTypeOrSelf(op->getResult(0).getType()).isF32();
}

std::string loupe::describeKernelMath(Operation *kernel, bool exactMath) {
  std::set<std::string> polynomial, libm;
  kernel->walk([&](Operation *op) {
    if (!isa<math::ExpOp, math::ExpM1Op, math::Exp2Op, math::LogOp, math::Log2Op,
             math::Log10Op, math::Log1pOp, math::TanhOp, math::ErfOp, math::SinOp, math::CosOp,
             math::TanOp, math::AtanOp, math::Atan2Op, math::AsinOp, math::AcosOp, math::CbrtOp,
             math::PowFOp, math::SinhOp, math::CoshOp>(op))
      return;
    std::string name = op->getName().stripDialect().str();
    (isApproximatedMath(op) && !exactMath ? polynomial : libm).insert(name);
  });
  auto join = [](const std::set<std::string> &names, const char *how) {
    std::string out;
    for (const std::string &n : names)
      out += (out.empty() ? "" : ", ") + n;
    return out.empty() ? out : out + ": " + how;
  };
  std::string a = join(polynomial, "polynomial"), b = join(libm, "libm");
  return a + (!a.empty() && !b.empty() ? "; " : "") + b;
}

std::string loupe::opSignature(Operation *op, StringRef kind) {
  std::string text = kind.str();
  llvm::raw_string_ostream os(text);
  for (Value v : op->getOperands()) {
    auto type = dyn_cast<ShapedType>(v.getType());
    if (!type || !type.hasRank())
      continue;
    os << ":";
    for (int64_t d : type.getShape())
      os << (ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d)) << "x";
    type.getElementType().print(os);
  }
  for (StringRef name : {"strides", "dilations"})
    if (auto attr = op->getAttrOfType<DenseIntElementsAttr>(name)) {
      os << ":" << name.front();
      for (auto [i, v] : llvm::enumerate(attr.getValues<int64_t>()))
        os << (i ? "x" : "") << v;
    }
  return text;
}

FailureOr<loupe::backends::Preferences>
loupe::parsePreferences(Operation *anchor, StringRef device, llvm::ArrayRef<std::string> order,
                        llvm::ArrayRef<std::string> overrides, llvm::ArrayRef<std::string> tuned) {
  backends::Preferences prefs;
  prefs.device = device.str();
  const backends::BackendRegistry &registry = backends::BackendRegistry::global();
  for (const std::string &name : order)
    if (name == backends::kAuto)
      continue;
    else if (!registry.find(name))
      return anchor->emitError("unknown backend '") << name << "' in --backends";
    else
      prefs.order.push_back(name);
  auto split = [&](const std::string &entry, const char *what, const char *form,
                   std::map<std::string, std::string> &into) {
    size_t eq = entry.rfind('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == entry.size())
      return anchor->emitError("backend ") << what << " '" << entry << "' is not " << form,
             false;
    into[entry.substr(0, eq)] = entry.substr(eq + 1);
    return true;
  };
  for (const std::string &entry : overrides)
    if (!split(entry, "override", "loc=backend", prefs.overrides))
      return failure();
  for (const std::string &entry : tuned)
    if (!split(entry, "tuning", "signature=backend", prefs.tuned))
      return failure();
  return prefs;
}

bool loupe::readsAtOutputIndex(AffineMap map, ShapedType type) {
  if (map.getNumResults() != map.getNumDims())
    return false;
  for (auto [i, expr] : llvm::enumerate(map.getResults())) {
    auto dim = dyn_cast<AffineDimExpr>(expr);
    auto constant = dyn_cast<AffineConstantExpr>(expr);
    if (!(dim && dim.getPosition() == i) &&
        !(constant && constant.getValue() == 0 && type.getDimSize(i) == 1))
      return false;
  }
  return true;
}

bool loupe::readsLastDimBias(AffineMap map, ShapedType type) {
  unsigned last = map.getNumDims() - 1;
  if (map.getNumDims() == 0 || map.getNumResults() != type.getRank() ||
      map.getResults().back() != getAffineDimExpr(last, map.getContext()))
    return false;
  for (auto [i, expr] : llvm::enumerate(map.getResults().drop_back())) {
    auto constant = dyn_cast<AffineConstantExpr>(expr);
    if (!constant || constant.getValue() != 0 || type.getDimSize(i) != 1)
      return false;
  }
  return true;
}

/// The byte size of `v` when it is a statically shaped memref, else -1 (0 for a non-memref).
static int64_t memrefBytes(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  if (!type)
    return 0;
  if (!type.hasStaticShape() || !type.getElementType().isIntOrIndexOrFloat())
    return -1;
  unsigned bits = type.getElementType().isIndex() ? 64 : type.getElementTypeBitWidth();
  return type.getNumElements() * int64_t((bits + 7) / 8);
}

int64_t loupe::dispatchBytes(Operation *op) {
  llvm::SmallVector<Value> operands;
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    llvm::append_range(operands, linalgOp.getDpsInputs());
    llvm::append_range(operands, linalgOp.getDpsInits());
  } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
    operands = {copy.getSource(), copy.getTarget()};
  } else if (auto dispatch = dyn_cast<loupe::ralir::DispatchOp>(op)) {
    llvm::append_range(operands, dispatch.getArgs());
  } else if (auto loop = dyn_cast<scf::ForallOp>(op)) {
    llvm::SetVector<Value> captured;
    getUsedValuesDefinedAbove(loop.getRegion(), captured);
    for (Value v : captured)
      if (isa<MemRefType>(v.getType()))
        operands.push_back(v);
  } else {
    return 0;
  }
  llvm::SmallPtrSet<Value, 8> seen;
  int64_t bytes = 0;
  for (Value v : operands) {
    if (!seen.insert(v).second)
      continue;
    int64_t size = memrefBytes(v);
    if (size < 0)
      return 0;
    bytes += size;
  }
  return bytes;
}

/// The static shape of memref `v`, or an empty one.
static llvm::ArrayRef<int64_t> staticShape(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  return type && type.hasStaticShape() ? type.getShape() : llvm::ArrayRef<int64_t>();
}

static int64_t product(llvm::ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

/// Float ops per element of a fused activation (ral Activation code, Kernels.h), counted as
/// the code-generated payload would: ReLU 1 (max); exact GELU 5 (x/sqrt(2), erf, 1 +, * x,
/// * 0.5); tanh GELU 8 (x^3 as 2, * 0.044715, + x, * sqrt(2/pi), tanh, 1 +, * 0.5x);
/// hardswish 5 (* 1/6, + 1/2, min, max, * x); SiLU 5 (neg, exp, 1 +, 1 /, * x).
static int64_t activationFlops(int64_t activation) {
  switch (static_cast<abi::Activation>(activation)) {
  case abi::Activation::kRelu: return 1;
  case abi::Activation::kHardSwish: return 5;
  case abi::Activation::kSilu: return 5;
  case abi::Activation::kGeluTanh: return 8;
  case abi::Activation::kGeluErf: return 5;
  case abi::Activation::kNone: return 0;
  }
  return 0;
}

/// The integer value of `v` if it is a constant scalar, else the entry `index` of the constant
/// global `v` reads (a conv's params); nullopt otherwise.
static std::optional<int64_t> constantEntry(Value v, int64_t index) {
  APInt value;
  if (matchPattern(v, m_ConstantInt(&value)))
    return value.getSExtValue();
  auto get = v.getDefiningOp<memref::GetGlobalOp>();
  auto global = get ? SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
                          get, get.getNameAttr())
                    : nullptr;
  auto init = global ? dyn_cast_or_null<DenseIntElementsAttr>(global.getConstantInitValue())
                     : nullptr;
  if (!init || index >= init.getNumElements())
    return std::nullopt;
  return init.getValues<APInt>()[index].getSExtValue();
}

/// FLOPs of a library kernel from its name and operands (Kernels.h; an int8 GEMM's
/// multiply-adds count as float ones do): gemm kernels take (A, B,
/// ..., C) with A [B..., M, K] (ral-lower-to-library-call never transposes) and C the last
/// matrix, 2*M*N*K; an epilogue GEMM (A, B, bias, C, transA, transB, activation) adds one per
/// output element for a non-empty bias and the activation's; conv kernels (input, filter OIHW,
/// bias, output NCHW, params) 2*out*C/groups*KH*KW, plus the bias and the activation in
/// params[9] when the params are a constant global with that entry.
static int64_t libraryFlops(loupe::ralir::DispatchOp dispatch) {
  StringRef callee = dispatch.getCallee();
  auto args = dispatch.getArgs();
  llvm::SmallVector<Value> matrices;
  for (Value v : args)
    if (staticShape(v).size() >= 2)
      matrices.push_back(v);
  if (matrices.size() < 2)
    return 0;
  int64_t outputs = product(staticShape(matrices.back()));
  // A non-empty bias (args[2] of the epilogue GEMM and the conv) and an activation code.
  auto epilogue = [&](std::optional<int64_t> activation) {
    int64_t perElement = activationFlops(activation.value_or(0));
    if (args.size() > 2 && product(staticShape(args[2])) > 0 &&
        staticShape(args[2]).size() == 1)
      ++perElement;
    return perElement * outputs;
  };
  if (callee.starts_with("ral_gemm_epilogue") && args.size() == 8) // args[3]: the residual.
    return 2 * outputs * staticShape(matrices.front()).back() +
           epilogue(constantEntry(args[7], 0)) + (product(staticShape(args[3])) > 0 ? outputs : 0);
  if (callee.starts_with("ral_gemm") || callee.starts_with("ral_batch_gemm") ||
      callee.starts_with("ral_qgemm"))
    return 2 * outputs * staticShape(matrices.front()).back();
  if ((callee.starts_with("ral_conv") || callee.starts_with("ral_qconv")) &&
      staticShape(matrices.back()).size() == 4 && args.size() >= 5) {
    auto filter = staticShape(matrices[1]);
    if (filter.size() != 4)
      return 0;
    return 2 * outputs * filter[1] * filter[2] * filter[3] +
           epilogue(constantEntry(args[4], abi::kConvActivation));
  }
  return 0;
}

int64_t loupe::dispatchFlops(Operation *op) {
  if (auto dispatch = dyn_cast<loupe::ralir::DispatchOp>(op))
    return libraryFlops(dispatch);
  if (auto loop = dyn_cast<scf::ForallOp>(op)) {
    int64_t trips = 1;
    for (auto [lb, ub, step] : llvm::zip(loop.getStaticLowerBound(), loop.getStaticUpperBound(),
                                         loop.getStaticStep())) {
      if (ShapedType::isDynamic(lb) || ShapedType::isDynamic(ub) || ShapedType::isDynamic(step) ||
          step <= 0)
        return 0;
      trips *= std::max<int64_t>(0, llvm::divideCeilSigned(ub - lb, step));
    }
    int64_t perIteration = 0;
    loop.getBody()->walk([&](linalg::LinalgOp nested) { perIteration += dispatchFlops(nested); });
    return perIteration * trips;
  }
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp->getNumRegions() != 1)
    return 0;
  auto ranges = linalgOp.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return 0;
  int64_t points = product(ranges);
  if (!libraryOpKind(op).empty())
    return 2 * points;
  int64_t perPoint = 0;
  linalgOp.getBlock()->walk([&](Operation *nested) {
    if (!matchPattern(nested, m_Constant()) &&
        llvm::any_of(nested->getResultTypes(), [](Type t) { return isa<FloatType>(t); }))
      ++perPoint;
  });
  return perPoint * points;
}
