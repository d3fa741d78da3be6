//===- LibraryCallPatterns.cpp - linalg ops -> RAL library kernel dispatches -----------===//
//
// The rewrites of ral-lower-to-library-call (LibraryCallPatterns.h); the kernels' ABIs are in
// ral/include/loupe/ral/Kernels.h.
//
//===----------------------------------------------------------------------===//
#include "LibraryCallPatterns.h"
#include "OpPatterns.h"

#include "loupe/common/ArtifactAbi.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
namespace abi = loupe::abi;
using namespace loupe::ralir;

/// The op right before `op` that writes `output` (a linalg op or a memref.copy into it;
/// nothing in between touches `output`), or null.
static Operation *initializerOf(Operation *op, Value output) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    auto writer = dyn_cast<linalg::LinalgOp>(prev);
    if (writer && llvm::is_contained(writer.getDpsInits(), output))
      return prev;
    if (auto copy = dyn_cast<memref::CopyOp>(prev); copy && copy.getTarget() == output)
      return prev;
    if (llvm::is_contained(prev->getOperands(), output) || prev->getNumRegions() > 0)
      return nullptr;
  }
  return nullptr;
}

/// The value a linalg.fill or a no-input linalg.map/generic `op` writes everywhere, or null.
static Value filledValue(Operation *op) {
  if (auto fill = dyn_cast_or_null<linalg::FillOp>(op))
    return fill.getInputs()[0];
  if (auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
      linalgOp && linalgOp.getNumDpsInputs() == 0 && linalgOp->getNumRegions() == 1)
    return linalgOp.getBlock()->getTerminator()->getOperand(0);
  return nullptr;
}

/// True when `op` writes 0 everywhere (filledValue).
static bool writesZeros(Operation *op) {
  Value value = filledValue(op);
  return value && (matchPattern(value, m_AnyZeroFloat()) || matchPattern(value, m_Zero()));
}

/// True when `op` writes -inf or the lowest f32 everywhere (filledValue): a maximum's neutral
/// element (TOSA pads max_pool2d's input and starts its output with the lowest f32).
static bool writesLowest(Operation *op) {
  FloatAttr value;
  Value filled = filledValue(op);
  return filled && matchPattern(filled, m_Constant(&value)) && value.getValue().isNegative() &&
         (value.getValue().isInfinity() ||
          value.getValueAsDouble() <= -double(std::numeric_limits<float>::max()));
}

/// True when `buffer` holds zeros right before `at`: its last writer is a zero fill, or a copy
/// from a buffer that holds zeros (bufferization copies one shared zero-filled buffer into
/// each matmul's output). Reads in between are fine; any other use is not.
static bool holdsZeros(Value buffer, Operation *at) {
  for (Operation *prev = at->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (!llvm::is_contained(prev->getOperands(), buffer))
      continue;
    if (auto copy = dyn_cast<memref::CopyOp>(prev)) {
      if (copy.getTarget() == buffer)
        return holdsZeros(copy.getSource(), copy);
      continue; // A read.
    }
    auto linalgOp = dyn_cast<linalg::LinalgOp>(prev);
    if (!linalgOp)
      return false;
    if (llvm::is_contained(linalgOp.getDpsInits(), buffer))
      return writesZeros(prev);
  }
  return false;
}

/// True when `init` (from initializerOf) leaves zeros in its output.
static bool initializesZeros(Operation *init) {
  if (auto copy = dyn_cast_or_null<memref::CopyOp>(init))
    return holdsZeros(copy.getSource(), copy);
  return init && writesZeros(init);
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

/// True when `v` is a static row-major memref of `rank` and `elementType` (f32 when null).
/// A static-shape memref of `rank` and `elementType` (f32 when null), row-major; with
/// `strided`, any strided layout (a subview: the kernel reads its strides).
static bool isLibraryOperand(Value v, int64_t rank, Type elementType = nullptr,
                             bool strided = false) {
  auto type = dyn_cast<MemRefType>(v.getType());
  return type && type.getRank() == rank && type.hasStaticShape() &&
         (type.getLayout().isIdentity() ||
          (strided && isa<StridedLayoutAttr>(type.getLayout()))) &&
         (elementType ? type.getElementType() == elementType : type.getElementType().isF32());
}

static DispatchOp createDispatch(OpBuilder &b, Location loc, Value ctx, ValueRange args,
                                 StringRef callee, StringRef device) {
  auto dispatch = b.create<DispatchOp>(loc, TypeRange{}, ctx, args, callee, device,
                                       /*backend_config=*/"", /*abi=*/nullptr,
                                       /*has_side_effect=*/true);
  dispatch.setAbi(dispatch.encodedName());
  return dispatch;
}

/// C = A * B on zero-filled C -> kernel(ctx, A, B, C, false, false), or for the int8
/// quantized_batch_matmul kernel(ctx, A, B, C, aZeroPoint, bZeroPoint); the fill goes away.
FailureOr<DispatchOp> loupe::lowerGemm(Operation *op, Value ctx, StringRef kernel,
                                       StringRef device, std::string &why) {
  auto linalgOp = cast<linalg::LinalgOp>(op);
  Value a = linalgOp.getDpsInputs()[0], b = linalgOp.getDpsInputs()[1],
        c = linalgOp.getDpsInits()[0];
  bool quantized = isa<linalg::QuantizedBatchMatmulOp>(op);
  int64_t rank = isa<linalg::MatmulOp>(op) ? 2 : 3;
  Builder types(op->getContext());
  Type in = quantized ? types.getI8Type() : nullptr, out = quantized ? types.getI32Type() : nullptr;
  if (!isLibraryOperand(a, rank, in) || !isLibraryOperand(b, rank, in) ||
      !isLibraryOperand(c, rank, out)) {
    why = quantized ? "operands are not static int8 (int32 result) row-major memrefs"
                    : "operands are not static f32 row-major memrefs";
    return failure();
  }
  Operation *init = initializerOf(op, c);
  if (!initializesZeros(init)) {
    why = "C is not zero-filled right before the matmul";
    return failure();
  }
  OpBuilder builder(op);
  llvm::SmallVector<Value> args = {a, b, c};
  if (quantized) {
    args.append({linalgOp.getDpsInputs()[2], linalgOp.getDpsInputs()[3]});
  } else {
    Value noTranspose = builder.create<arith::ConstantIntOp>(op->getLoc(), 0, 1);
    args.append({noTranspose, noTranspose});
  }
  DispatchOp dispatch = createDispatch(builder, op->getLoc(), ctx, args, kernel, device);
  init->erase();
  return dispatch;
}

/// The users of `v` other than `op`, deallocations and ops before `op` in its block.
static llvm::SmallVector<Operation *> readersAfter(Operation *op, Value v) {
  llvm::SmallVector<Operation *> out;
  for (Operation *user : v.getUsers())
    if (user != op && !isa<memref::DeallocOp>(user) &&
        !(user->getBlock() == op->getBlock() && user->isBeforeInBlock(op)))
      out.push_back(user);
  return out;
}

/// The buffer a view (collapse, expand, transpose, subview...) of it reads.
static Value viewedBuffer(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

/// True when `op`'s work may move to `at`, later in its block, reading `operands`: the ops in
/// between only allocate, free other buffers, take views or make constants.
static bool canMoveTo(Operation *op, Operation *at, ValueRange operands) {
  if (op->getBlock() != at->getBlock() || !op->isBeforeInBlock(at))
    return false;
  llvm::SmallPtrSet<Value, 8> buffers;
  for (Value v : operands)
    buffers.insert(viewedBuffer(v));
  for (Operation *between = op->getNextNode(); between != at; between = between->getNextNode()) {
    if (auto dealloc = dyn_cast<memref::DeallocOp>(between)) {
      if (buffers.contains(viewedBuffer(dealloc.getMemref())))
        return false;
      continue;
    }
    if (!isa<memref::CollapseShapeOp, memref::ExpandShapeOp, memref::TransposeOp,
             memref::AllocOp, arith::ConstantOp>(between))
      return false;
  }
  return true;
}

namespace {
/// The elementwise op that consumes a matmul's result C as `act(C + bias)` or
/// `act(C + residual)`.
struct BiasActivation {
  linalg::GenericOp generic;
  Value bias;         ///< [N] or [1, ..., 1, N]; null for relu(C) and a residual add.
  Value residual;     ///< A buffer of the generic's output shape read in place, or null.
  abi::Activation activation; ///< None, ReLU, the exact GELU, hardswish or SiLU.
};
} // namespace

/// True when `value` is a float constant within 1e-6 of `expected`.
static bool isConstant(Value value, double expected) {
  FloatAttr attr;
  return matchPattern(value, m_Constant(&attr)) &&
         std::abs(attr.getValueAsDouble() - expected) < 1e-6;
}

/// The five `ops` compute the exact GELU of s and yield it: t = s * 1/sqrt(2); e = erf(t);
/// a = e + 1; m = s * a; yield m * 0.5 (operands in any order).
static bool isGeluErf(llvm::ArrayRef<Operation *> ops, Value s, Value yielded) {
  if (ops.size() != 5)
    return false;
  auto binary = [](Operation *op, Value v, double constant) {
    return op->getNumOperands() == 2 &&
           ((op->getOperand(0) == v && isConstant(op->getOperand(1), constant)) ||
            (op->getOperand(1) == v && isConstant(op->getOperand(0), constant)));
  };
  auto pair = [](Operation *op, Value a, Value b) {
    return op->getNumOperands() == 2 &&
           ((op->getOperand(0) == a && op->getOperand(1) == b) ||
            (op->getOperand(0) == b && op->getOperand(1) == a));
  };
  return isa<arith::MulFOp>(ops[0]) && binary(ops[0], s, M_SQRT1_2) &&
         isa<math::ErfOp>(ops[1]) && ops[1]->getOperand(0) == ops[0]->getResult(0) &&
         isa<arith::AddFOp>(ops[2]) && binary(ops[2], ops[1]->getResult(0), 1.0) &&
         isa<arith::MulFOp>(ops[3]) && pair(ops[3], s, ops[2]->getResult(0)) &&
         isa<arith::MulFOp>(ops[4]) && binary(ops[4], ops[3]->getResult(0), 0.5) &&
         yielded == ops[4]->getResult(0);
}

/// The fuse-pattern op (BackendRegistry's `set_ops`) that stands for `activation`.
static const char *patternOp(abi::Activation activation) {
  switch (activation) {
  case abi::Activation::kRelu: return "relu";
  case abi::Activation::kGeluTanh: return "gelu_tanh";
  case abi::Activation::kGeluErf: return "gelu_erf";
  case abi::Activation::kHardSwish: return "hardswish";
  case abi::Activation::kSilu: return "silu";
  case abi::Activation::kNone: break;
  }
  return "";
}

/// `activation` as reasons name it.
static const char *activationTitle(abi::Activation activation) {
  switch (activation) {
  case abi::Activation::kRelu: return "ReLU";
  case abi::Activation::kGeluTanh: return "tanh GELU";
  case abi::Activation::kGeluErf: return "GELU";
  case abi::Activation::kHardSwish: return "hardswish";
  case abi::Activation::kSilu: return "SiLU";
  case abi::Activation::kNone: break;
  }
  return "";
}

/// What an epilogue kernel took after the op, as reasons name it: "bias, residual add and
/// ReLU", "SiLU", ...
static std::string epilogueText(bool bias, bool residual, abi::Activation activation) {
  llvm::SmallVector<std::string, 3> parts;
  if (bias)
    parts.push_back("bias");
  if (residual)
    parts.push_back("residual add");
  if (activation != abi::Activation::kNone)
    parts.push_back(activationTitle(activation));
  if (parts.size() < 2)
    return parts.empty() ? "" : parts.front();
  return llvm::join(llvm::ArrayRef(parts).drop_back(), ", ") + " and " + parts.back();
}

/// True when the epilogue kernel of `pattern` computes `activation` (none always).
static bool covers(const loupe::backends::FusePattern &pattern, abi::Activation activation) {
  return activation == abi::Activation::kNone ||
         llvm::is_contained(pattern.ops, patternOp(activation));
}

/// The ops of an elementwise body, its yield left out.
static llvm::SmallVector<Operation *> bodyOps(Block *body) {
  return llvm::to_vector(
      llvm::map_range(body->without_terminator(), [](Operation &op) { return &op; }));
}

/// The activation `ops` compute from `x` and yield: ReLU (isReluOf), the exact GELU
/// (isGeluErf), hardswish (isHardSwishOf) or SiLU (isSiluOf); nullopt for anything else.
static std::optional<abi::Activation> activationOf(llvm::ArrayRef<Operation *> ops, Value x,
                                                   Value yielded) {
  if (ops.size() <= 2 && loupe::isReluOf(yielded, x))
    return abi::Activation::kRelu;
  if (isGeluErf(ops, x, yielded))
    return abi::Activation::kGeluErf;
  if (ops.size() == 5 && loupe::isHardSwishOf(yielded, x))
    return abi::Activation::kHardSwish;
  if (ops.size() == 5 && loupe::isSiluOf(yielded, x))
    return abi::Activation::kSilu;
  return std::nullopt;
}

/// The operand of `add` other than a constant float zero, or null.
static Value otherThanZero(arith::AddFOp add) {
  for (auto [mine, other] : {std::pair{add.getLhs(), add.getRhs()}, {add.getRhs(), add.getLhs()}})
    if (matchPattern(other, m_AnyZeroFloat()))
      return mine;
  return nullptr;
}

/// Matches the only reader of C (or of its one reshape: a collapse, or the NHWC expand of a
/// 1x1 convolution's [H*W, N] result) as an elementwise generic that reads it in place and
/// computes `act(C + bias + residual)` into a buffer of its shape, whose last dim is
/// `channels`: the bias along the last dim, the residual a buffer of the output's shape read in
/// place, each optional and added in either order; act none, ReLU, the exact GELU, hardswish or
/// SiLU (`act(C)` alone too, perhaps after a zero bias folded into the body as `C + 0.0`).
static std::optional<BiasActivation> matchBiasActivation(Operation *matmul, Value c,
                                                         int64_t channels) {
  auto readers = [&](Value v) { return readersAfter(matmul, v); };
  auto users = readers(c);
  if (users.size() != 1)
    return std::nullopt;
  Value view = c;
  if (isa<memref::CollapseShapeOp, memref::ExpandShapeOp>(users[0])) {
    view = users[0]->getResult(0);
    users = readers(view);
    if (users.size() != 1)
      return std::nullopt;
  }
  auto generic = dyn_cast<linalg::GenericOp>(users[0]);
  auto viewType = cast<MemRefType>(view.getType());
  if (!generic || generic.getNumDpsInputs() < 1 || generic.getNumDpsInputs() > 3 ||
      generic.getNumDpsInits() != 1 || generic.getNumReductionLoops() != 0 ||
      generic.getNumLoops() != viewType.getRank() || generic->getBlock() != matmul->getBlock())
    return std::nullopt;
  // C's operand: any (a residual add may read it second, `shortcut + C`).
  auto inputs = generic.getDpsInputs();
  unsigned at = llvm::find(inputs, view) - inputs.begin();
  if (at == inputs.size() || llvm::count(inputs, view) != 1)
    return std::nullopt;
  // D is C's shape seen through the view: [..., N] with N C's last dim, row-major.
  Value out = generic.getDpsInits()[0];
  if (!isLibraryOperand(out, viewType.getRank()) || out.getType() != MemRefType::get(
          viewType.getShape(), viewType.getElementType()) ||
      viewType.getShape().back() != channels)
    return std::nullopt;
  auto maps = generic.getIndexingMapsArray();
  if (!loupe::readsAtOutputIndex(maps[at], viewType) || !maps.back().isIdentity())
    return std::nullopt;
  Block *body = generic.getBlock();
  llvm::SmallVector<Operation *> ops = bodyOps(body);
  Value yielded = body->getTerminator()->getOperand(0);
  if (generic.getNumDpsInputs() == 1) { // act(C), or act(C + 0.0): a zero bias folded in
    Value x = body->getArgument(0);
    llvm::ArrayRef<Operation *> rest = ops;
    if (!rest.empty() && isa<arith::AddFOp>(rest[0]) &&
        otherThanZero(cast<arith::AddFOp>(rest[0])) == x)
      x = rest[0]->getResult(0), rest = rest.drop_front();
    if (auto act = activationOf(rest, x, yielded))
      return BiasActivation{generic, Value(), Value(), *act};
    return std::nullopt;
  }
  // The other inputs: a bias along the last dim and/or a residual (the output's shape, read in
  // place, row-major; it may be D itself: the kernels then accumulate into D).
  Value bias, residual, biasArg, residualArg;
  for (auto [i, input] : llvm::enumerate(generic.getDpsInputs())) {
    if (i == at)
      continue;
    auto type = dyn_cast<MemRefType>(input.getType());
    if (!residual && input.getType() == out.getType() &&
        loupe::readsAtOutputIndex(maps[i], cast<MemRefType>(out.getType()))) {
      residual = input, residualArg = body->getArgument(i);
    } else if (!bias && type && type.getElementType().isF32() && type.hasStaticShape() &&
               type.getLayout().isIdentity() && loupe::readsLastDimBias(maps[i], type)) {
      bias = input, biasArg = body->getArgument(i);
    } else {
      return std::nullopt;
    }
  }
  // Body: %s = C, then `%s = addf(%s, bias or residual)` for each, then act(%s), yield.
  Value sum = body->getArgument(at);
  size_t adds = 0;
  for (; adds < ops.size() && isa<arith::AddFOp>(ops[adds]); ++adds) {
    Operation *add = ops[adds];
    Value other = add->getOperand(0) == sum ? add->getOperand(1) : add->getOperand(0);
    if (!llvm::is_contained(add->getOperands(), sum) ||
        (other != biasArg && other != residualArg))
      break;
    (other == biasArg ? biasArg : residualArg) = Value(); // Each is added once.
    sum = add->getResult(0);
  }
  if (biasArg || residualArg) // An input not added to C.
    return std::nullopt;
  llvm::ArrayRef<Operation *> rest = llvm::ArrayRef(ops).drop_front(adds);
  if (rest.empty() && yielded == sum)
    return BiasActivation{generic, bias, residual, abi::Activation::kNone};
  if (auto act = activationOf(rest, sum, yielded))
    return BiasActivation{generic, bias, residual, *act};
  return std::nullopt;
}

/// A rank-2 row-major view [rows, N] of a row-major [..., N] buffer.
static Value asMatrix(OpBuilder &b, Location loc, Value v) {
  int64_t rank = cast<MemRefType>(v.getType()).getRank();
  if (rank == 2)
    return v;
  ReassociationIndices rows = llvm::to_vector(llvm::seq<int64_t>(0, rank - 1));
  return b.create<memref::CollapseShapeOp>(
      loc, v, llvm::ArrayRef<ReassociationIndices>{rows, {rank - 1}});
}

/// matmul (zero-filled C) + `act(C + bias)`, `relu(C)` or `act(C + residual)` -> one
/// `kernel(ctx, A, B, bias, residual, D, false, false, act)` at the elementwise op (D is its
/// output, as a matrix; no bias or residual is an empty one); the fill, matmul and elementwise
/// op go away.
FailureOr<DispatchOp> loupe::lowerGemmEpilogue(Operation *op, Value ctx,
                                               const loupe::backends::FusePattern &pattern,
                                               StringRef device, std::string &what) {
  int64_t rank = isa<linalg::MatmulOp>(op) ? 2 : 3;
  if (!llvm::all_of(op->getOperands(), [&](Value v) { return isLibraryOperand(v, rank); }))
    return failure();
  if (rank == 3 && cast<MemRefType>(op->getOperand(0).getType()).getDimSize(0) != 1)
    return failure(); // The epilogue kernels are 2-D.
  Operation *init = initializerOf(op, op->getOperand(2));
  Value c = op->getOperand(2);
  std::optional<BiasActivation> epilogue =
      matchBiasActivation(op, c, cast<MemRefType>(c.getType()).getShape().back());
  if (!initializesZeros(init) || !epilogue || !covers(pattern, epilogue->activation))
    return failure();
  // The cluster phase decides what is fused: both ops must be in one cluster.
  if (Attribute cluster = op->getAttr("loupe.cluster"))
    if (epilogue->generic->getAttr("loupe.cluster") != cluster)
      return failure();
  // Computing at the elementwise op: A, B and the bias must not change in between.
  SmallVector<Value> read = {op->getOperand(0), op->getOperand(1),
                             epilogue->generic.getDpsInits()[0]};
  for (Value v : {epilogue->bias, epilogue->residual})
    if (v)
      read.push_back(v);
  if (!canMoveTo(op, epilogue->generic, read))
    return failure();
  OpBuilder b(epilogue->generic);
  Location loc = FusedLoc::get(op->getContext(), {op->getLoc(), epilogue->generic.getLoc()});
  Value bias = epilogue->bias;
  if (!bias)
    bias = b.create<memref::AllocaOp>(loc, MemRefType::get({0}, b.getF32Type()));
  else if (int64_t biasRank = cast<MemRefType>(bias.getType()).getRank(); biasRank > 1)
    bias = b.create<memref::CollapseShapeOp>(
        loc, bias,
        llvm::ArrayRef<ReassociationIndices>{llvm::to_vector(llvm::seq<int64_t>(0, biasRank))});
  Value noTranspose = b.create<arith::ConstantIntOp>(loc, 0, 1);
  Value activation =
      b.create<arith::ConstantIntOp>(loc, static_cast<int32_t>(epilogue->activation), 32);
  Value residual = epilogue->residual
                       ? asMatrix(b, loc, epilogue->residual)
                       : b.create<memref::AllocaOp>(loc, MemRefType::get({0, 0}, b.getF32Type()));
  Value args[] = {asMatrix(b, loc, op->getOperand(0)),
                  asMatrix(b, loc, op->getOperand(1)),
                  bias,
                  residual,
                  asMatrix(b, loc, epilogue->generic.getDpsInits()[0]),
                  noTranspose,
                  noTranspose,
                  activation};
  DispatchOp dispatch = createDispatch(b, loc, ctx, args, pattern.kernel, device);
  what = epilogueText(bool(epilogue->bias), bool(epilogue->residual), epilogue->activation);
  epilogue->generic->erase();
  init->erase();
  return dispatch;
}

/// An NCHW (or OIHW) view of an NHWC (FHWC) buffer.
static Value channelsFirst(OpBuilder &b, Location loc, Value v) {
  AffineMap perm = AffineMap::getPermutationMap(llvm::ArrayRef<unsigned>{0, 3, 1, 2},
                                                b.getContext());
  return b.create<memref::TransposeOp>(loc, v, AffineMapAttr::get(perm));
}

/// A conv or pooling input that bufferization padded (tensor.pad): a buffer filled with the
/// pad value (`writesPadValue`) into whose interior `source` was copied, read by nothing but
/// `reader`.
struct PaddedInput {
  Value source;
  int64_t top, left, bottom, right;
  llvm::SmallVector<Operation *> ops; ///< The fill, copy, subview, deallocs and allocation.

  /// Writes the padding into `params` from index `padTop` on: top, left, bottom, right (the
  /// order of both abi::ConvParam and abi::PoolParam).
  void writePadding(llvm::SmallVectorImpl<int64_t> &params, int padTop) const {
    params[padTop] = top;
    params[padTop + 1] = left;
    params[padTop + 2] = bottom;
    params[padTop + 3] = right;
  }
  /// Points `reader` (operand 0) at the source and erases the padded copy.
  void fold(Operation *reader) const {
    reader->setOperand(0, source);
    for (Operation *op : ops)
      op->erase();
  }
};

static std::optional<PaddedInput> paddedInput(Value input, Operation *reader,
                                              bool (*writesPadValue)(Operation *)) {
  auto alloc = input.getDefiningOp<memref::AllocOp>();
  if (!alloc || !alloc.getType().hasStaticShape() || alloc.getType().getRank() != 4)
    return std::nullopt;
  PaddedInput pad{};
  Operation *fill = nullptr;
  memref::SubViewOp interior;
  for (Operation *user : alloc->getUsers()) {
    if (user == reader)
      continue;
    pad.ops.push_back(user);
    if (auto view = dyn_cast<memref::SubViewOp>(user); view && !interior)
      interior = view;
    else if (writesPadValue(user) && !fill)
      fill = user;
    else if (!isa<memref::DeallocOp>(user))
      return std::nullopt;
  }
  if (!fill || !interior || !interior->hasOneUse())
    return std::nullopt;
  auto copy = dyn_cast<memref::CopyOp>(*interior->getUsers().begin());
  if (!copy || copy.getTarget() != interior.getResult() || !isLibraryOperand(copy.getSource(), 4, nullptr, true))
    return std::nullopt;
  // Zero offsets on N and C, unit strides, the whole source.
  llvm::ArrayRef<int64_t> offsets = interior.getStaticOffsets(), sizes = interior.getStaticSizes();
  llvm::ArrayRef<int64_t> padded = alloc.getType().getShape();
  if (offsets[0] != 0 || offsets[3] != 0 || ShapedType::isDynamic(offsets[1]) ||
      ShapedType::isDynamic(offsets[2]) || sizes != cast<MemRefType>(copy.getSource().getType()).getShape() ||
      sizes[0] != padded[0] || sizes[3] != padded[3] ||
      !llvm::all_of(interior.getStaticStrides(), [](int64_t s) { return s == 1; }))
    return std::nullopt;
  pad.source = copy.getSource();
  pad.top = offsets[1];
  pad.left = offsets[2];
  pad.bottom = padded[1] - offsets[1] - sizes[1];
  pad.right = padded[2] - offsets[2] - sizes[2];
  pad.ops.insert(pad.ops.begin(), copy);
  pad.ops.push_back(alloc);
  return pad;
}

/// A depthwise conv's N x OH x OW x C x M output as N x OH x OW x (C*M).
static Value channelsMerged(OpBuilder &b, Location loc, Value v) {
  return b.create<memref::CollapseShapeOp>(loc, v,
                                           llvm::ArrayRef<ReassociationIndices>{{0}, {1}, {2}, {3, 4}});
}

/// A depthwise filter KH x KW x C x M as the grouped OIHW filter (C*M) x 1 x KH x KW of C
/// groups (a view: output channel c*M+m reads filter[kh][kw][c][m]).
static Value depthwiseAsGrouped(OpBuilder &b, Location loc, Value filter) {
  auto type = cast<MemRefType>(filter.getType());
  int64_t kh = type.getDimSize(0), kw = type.getDimSize(1),
          channels = type.getDimSize(2) * type.getDimSize(3);
  Value merged = b.create<memref::CollapseShapeOp>(
      loc, filter, llvm::ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
  Value unitInput = b.create<memref::ExpandShapeOp>(
      loc, MemRefType::get({kh, kw, 1, channels}, type.getElementType()), merged,
      llvm::ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
  AffineMap perm = AffineMap::getPermutationMap(llvm::ArrayRef<unsigned>{3, 2, 0, 1},
                                                b.getContext());
  return b.create<memref::TransposeOp>(loc, unitInput, AffineMapAttr::get(perm));
}

/// A private constant i64 global holding `values` (one per distinct vector), read on the host
/// (ralir::kHostReadAttr: the library kernels read their params before any launch).
static Value constantI64Vector(OpBuilder &b, Location loc, ModuleOp module, StringRef prefix,
                               llvm::ArrayRef<int64_t> values) {
  auto type = MemRefType::get({int64_t(values.size())}, b.getI64Type());
  std::string name = prefix.str();
  for (int64_t v : values)
    name += "_" + std::to_string(v);
  if (!module.lookupSymbol(name)) {
    OpBuilder top = OpBuilder::atBlockBegin(module.getBody());
    auto tensorType = RankedTensorType::get(type.getShape(), b.getI64Type());
    top.create<memref::GlobalOp>(loc, name, top.getStringAttr("private"), type,
                                 DenseElementsAttr::get(tensorType, values),
                                 /*constant=*/true, /*alignment=*/nullptr);
  }
  auto global = b.create<memref::GetGlobalOp>(loc, type, name);
  global->setAttr(loupe::ralir::kHostReadAttr, b.getUnitAttr());
  return global;
}

namespace {
/// The elementwise op that applies an activation to a conv's output.
struct ConvActivation {
  linalg::GenericOp generic;
  abi::Activation activation; ///< ReLU, hardswish or SiLU; none for a bias alone.
  Value bias; ///< [O], added before the activation (a depthwise conv's), or null.
};
} // namespace

/// Matches the first reader of the NHWC conv output `o` as an elementwise generic in the
/// conv's block computing `relu(o)`, `hardswish(o)` or `silu(o)` (activationOf) at the same
/// index into a static f32 NHWC buffer D: in place (D = O; later readers see the activation)
/// or into another buffer (then nothing but `init`, the conv and the activation uses O, not
/// even through a view).
static std::optional<ConvActivation> matchConvActivation(Operation *conv, Operation *init,
                                                         Value o) {
  auto users = readersAfter(conv, o);
  Operation *first = nullptr;
  for (Operation *user : users) {
    Operation *top = conv->getBlock()->findAncestorOpInBlock(*user);
    if (!top)
      return std::nullopt;
    if (!first || top->isBeforeInBlock(first))
      first = top;
  }
  auto generic = dyn_cast_or_null<linalg::GenericOp>(first);
  if (!generic || generic.getNumDpsInputs() != 1 || generic.getNumDpsInits() != 1 ||
      generic.getNumLoops() != 4 || generic.getNumReductionLoops() != 0 ||
      generic.getDpsInputs()[0] != o)
    return std::nullopt;
  Value d = generic.getDpsInits()[0];
  auto oType = cast<MemRefType>(o.getType());
  auto other = [&](Operation *user) {
    return user != init && user != conv && user != generic && !isa<memref::DeallocOp>(user);
  };
  if (!isLibraryOperand(d, 4) || d.getType() != oType ||
      (d != o && llvm::any_of(o.getUsers(), other)) ||
      !generic.getIndexingMapsArray()[1].isIdentity() ||
      !loupe::readsAtOutputIndex(generic.getIndexingMapsArray()[0], oType))
    return std::nullopt;
  Block *body = generic.getBlock();
  llvm::SmallVector<Operation *> ops = bodyOps(body);
  std::optional<abi::Activation> act =
      activationOf(ops, body->getArgument(0), body->getTerminator()->getOperand(0));
  if (act != abi::Activation::kRelu && act != abi::Activation::kHardSwish &&
      act != abi::Activation::kSilu)
    return std::nullopt;
  return ConvActivation{generic, *act, Value()};
}

/// Matches the reader of a depthwise conv's output `o` [N, OH, OW, C, M] through its channel
/// view [N, OH, OW, C*M] as `act(view + bias)` into an NHWC buffer (matchBiasActivation, no
/// residual): TOSA adds a depthwise conv's bias after it, where ReLU, hardswish or SiLU join
/// it. The bias must be [C*M].
static std::optional<ConvActivation> matchDepthwiseEpilogue(Operation *conv, Value o) {
  auto type = cast<MemRefType>(o.getType());
  std::optional<BiasActivation> e =
      matchBiasActivation(conv, o, type.getDimSize(3) * type.getDimSize(4));
  if (!e || e->residual || cast<MemRefType>(e->generic.getDpsInits()[0].getType()).getRank() != 4 ||
      (e->bias && cast<MemRefType>(e->bias.getType()).getRank() != 1))
    return std::nullopt;
  return ConvActivation{e->generic, e->activation, e->bias};
}

/// Conv on an output holding zeros or a broadcast bias -> kernel(ctx, input, filter, bias,
/// output, params[, input zero point]) with NCHW/OIHW views; the initialisation goes away (the
/// kernel adds bias).
/// With an activation reader in its cluster (matchConvActivation) that `pattern` covers, the
/// pattern's kernel at the reader instead, writing the reader's output with
/// params[kConvActivation] = the activation.
FailureOr<DispatchOp> loupe::lowerConv(linalg::LinalgOp conv, Value ctx, StringRef kernel,
                                       const loupe::backends::FusePattern *pattern, StringRef device,
                                       std::string &why, std::string &fused) {
  fused.clear();
  Value input = conv.getDpsInputs()[0], filter = conv.getDpsInputs()[1],
        output = conv.getDpsInits()[0];
  auto quantized = dyn_cast<linalg::Conv2DNhwcFhwcQOp>(conv.getOperation());
  // Depthwise (filter KH x KW x C x M, output N x OH x OW x C x M): C groups of M channels.
  bool depthwise = isa<linalg::DepthwiseConv2DNhwcHwcmOp>(conv.getOperation());
  Builder types(conv.getContext());
  Type in = quantized ? types.getI8Type() : nullptr, out = quantized ? types.getI32Type() : nullptr;
  // oneDNN's kernel copies a strided input (the slice TOSA takes for a strided conv whose
  // window does not cover the input exactly: ResNet-50's downsample convs) dense itself.
  bool stridedInput = device == "cpu";
  if (!isLibraryOperand(input, 4, in, stridedInput) || !isLibraryOperand(filter, 4, in) ||
      !isLibraryOperand(output, depthwise ? 5 : 4, out)) {
    why = quantized ? "operands are not static int8 (int32 result) row-major memrefs"
                    : "operands are not static f32 row-major memrefs";
    return failure();
  }
  if (quantized && !matchPattern(quantized.getDpsInputs()[3], m_Zero())) {
    why = "the weight zero point is not 0 (oneDNN's int8 convolution takes an input zero "
          "point only)";
    return failure();
  }
  Operation *init = initializerOf(conv, output);
  Value bias = init ? broadcastBias(init) : nullptr;
  if (!init || (!bias && !initializesZeros(init))) {
    why = "the output is not initialised with zeros or a per-channel bias";
    return failure();
  }
  // Strides and dilations: the named op's attributes (default 1).
  auto ints = [&](StringRef name) {
    llvm::SmallVector<int64_t, 2> v = {1, 1};
    if (auto attr = conv->getAttrOfType<DenseIntElementsAttr>(name))
      v = llvm::to_vector<2>(attr.getValues<int64_t>());
    return v;
  };
  auto strides = ints("strides"), dilations = ints("dilations");
  // The params memref (abi::ConvParam).
  llvm::SmallVector<int64_t, abi::kConvParamsWithActivation> values(abi::kConvParams, 0);
  values[abi::kConvStrideH] = strides[0];
  values[abi::kConvStrideW] = strides[1];
  values[abi::kConvDilationH] = dilations[0];
  values[abi::kConvDilationW] = dilations[1];
  values[abi::kConvGroups] = depthwise ? cast<MemRefType>(filter.getType()).getDimSize(2) : 1;
  // Zero padding (f32): the kernel pads, so the padded copy of the input goes.
  std::optional<PaddedInput> padded =
      quantized ? std::nullopt : paddedInput(input, conv, writesZeros);
  // cuDNN's legacy API pads symmetrically only.
  if (padded && device != "cpu" && (padded->top != padded->bottom || padded->left != padded->right))
    padded.reset();
  if (padded) {
    input = padded->source;
    padded->writePadding(values, abi::kConvPadTop);
  }
  // Pattern fusion (conv_bias_act): the activation reading the output (a depthwise conv's
  // through its channel view, with the bias TOSA adds there), when the cluster phase put it in
  // the conv's cluster; the dispatch goes there, so the operands must not change.
  std::optional<ConvActivation> epilogue;
  if (pattern && !depthwise)
    epilogue = matchConvActivation(conv, init, output);
  else if (pattern && !bias)
    epilogue = matchDepthwiseEpilogue(conv, output);
  linalg::GenericOp act =
      epilogue && covers(*pattern, epilogue->activation) ? epilogue->generic : nullptr;
  if (act) {
    Attribute cluster = conv->getAttr("loupe.cluster");
    llvm::SmallVector<Value> reads = {input, filter, act.getDpsInits()[0]};
    if (Value added = epilogue->bias ? epilogue->bias : bias)
      reads.push_back(added);
    if ((cluster && act->getAttr("loupe.cluster") != cluster) || !canMoveTo(conv, act, reads))
      act = nullptr;
  }
  Operation *at = act ? act.getOperation() : conv.getOperation();
  OpBuilder b(at);
  Location loc = act ? FusedLoc::get(conv->getContext(), {conv.getLoc(), act.getLoc()})
                     : conv.getLoc();
  if (act && epilogue->bias)
    bias = epilogue->bias;
  if (!bias)
    bias = b.create<memref::AllocaOp>(
        loc, MemRefType::get({0}, quantized ? Type(b.getI32Type()) : b.getF32Type()));
  if (act)
    values.push_back(static_cast<int64_t>(epilogue->activation)); // kConvActivation
  Value params =
      constantI64Vector(b, loc, conv->getParentOfType<ModuleOp>(), "__loupe_conv_params", values);
  Value result = channelsFirst(b, loc, act         ? act.getDpsInits()[0]
                                       : depthwise ? channelsMerged(b, loc, output)
                                                   : output);
  Value weights = depthwise ? depthwiseAsGrouped(b, loc, filter) : channelsFirst(b, loc, filter);
  llvm::SmallVector<Value, 6> args = {channelsFirst(b, loc, input), weights, bias, result, params};
  if (quantized)
    args.push_back(quantized.getDpsInputs()[2]); // The input zero point.
  DispatchOp dispatch = createDispatch(b, loc, ctx, args, act ? pattern->kernel : kernel, device);
  if (act) {
    fused = epilogueText(bool(epilogue->bias), false, epilogue->activation);
    act->erase();
  }
  init->erase();
  if (padded)
    padded->fold(conv); // The caller erases the conv.
  return dispatch;
}

/// Max pooling on an output holding the lowest f32 -> kernel(ctx, input, output, params) with
/// NCHW views; the initialisation and a padded copy of the input (holding the lowest f32)
/// go away: the kernel leaves padding out of the maximum.
FailureOr<DispatchOp> loupe::lowerMaxPool(linalg::PoolingNhwcMaxOp pool, Value ctx,
                                          StringRef kernel, StringRef device, std::string &why) {
  Value input = pool.getDpsInputs()[0], window = pool.getDpsInputs()[1],
        output = pool.getDpsInits()[0];
  if (!isLibraryOperand(input, 4, nullptr, /*strided=*/true) || !isLibraryOperand(output, 4) ||
      !cast<MemRefType>(window.getType()).hasStaticShape()) {
    why = "operands are not static f32 row-major memrefs";
    return failure();
  }
  Operation *init = initializerOf(pool, output);
  if (!init || !writesLowest(init)) {
    why = "the output is not initialised with the lowest f32";
    return failure();
  }
  auto strides = llvm::to_vector<2>(pool.getStrides().getValues<int64_t>()),
       dilations = llvm::to_vector<2>(pool.getDilations().getValues<int64_t>());
  llvm::ArrayRef<int64_t> windowShape = cast<MemRefType>(window.getType()).getShape();
  llvm::SmallVector<int64_t, abi::kPoolParams> values(abi::kPoolParams, 0);
  values[abi::kPoolWindowH] = windowShape[0];
  values[abi::kPoolWindowW] = windowShape[1];
  values[abi::kPoolStrideH] = strides[0];
  values[abi::kPoolStrideW] = strides[1];
  values[abi::kPoolDilationH] = dilations[0];
  values[abi::kPoolDilationW] = dilations[1];
  std::optional<PaddedInput> padded = paddedInput(input, pool, writesLowest);
  // oneDNN pads less than a window: a window wholly in the padding keeps the padded copy.
  int64_t extentH = dilations[0] * (windowShape[0] - 1) + 1,
          extentW = dilations[1] * (windowShape[1] - 1) + 1;
  if (padded && (std::max(padded->top, padded->bottom) >= extentH ||
                 std::max(padded->left, padded->right) >= extentW))
    padded.reset();
  if (padded) {
    input = padded->source;
    padded->writePadding(values, abi::kPoolPadTop);
  }
  OpBuilder b(pool);
  Location loc = pool.getLoc();
  Value params = constantI64Vector(b, loc, pool->getParentOfType<ModuleOp>(), "__loupe_pool_params",
                                   values);
  Value args[] = {channelsFirst(b, loc, input), channelsFirst(b, loc, output), params};
  DispatchOp dispatch = createDispatch(b, loc, ctx, args, kernel, device);
  init->erase();
  if (padded)
    padded->fold(pool); // The caller erases the pool.
  return dispatch;
}
