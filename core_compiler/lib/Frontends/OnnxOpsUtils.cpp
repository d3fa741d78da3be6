//===- OnnxOpsUtils.cpp - TOSA building helpers for the ONNX importer -----===//

#include "OnnxOps.h"
#include "../Support/PermuteElements.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "llvm/ADT/STLExtras.h"
#include <cmath>
#include <limits>
#include <numeric>

using namespace mlir;

namespace loupe::frontends::onnx_import {

RankedTensorType getTensorType(ArrayRef<int64_t> shape, Type elementType) {
  return RankedTensorType::get(shape, elementType);
}
RankedTensorType getType(Value value) {
  return cast<RankedTensorType>(value.getType());
}
ArrayRef<int64_t> getShape(Value value) { return getType(value).getShape(); }
Type getElementType(Value value) { return getType(value).getElementType(); }

bool isFloat(Value value) { return isa<FloatType>(getElementType(value)); }

int64_t getNumElements(ArrayRef<int64_t> shape) {
  return std::accumulate(shape.begin(), shape.end(), int64_t(1),
                         std::multiplies<int64_t>());
}

std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

DenseElementsAttr getConstant(Value value) {
  if (auto op = value.getDefiningOp<tosa::ConstOp>())
    return dyn_cast<DenseElementsAttr>(op.getValue());
  return nullptr;
}

Value createConst(ImplicitLocOpBuilder &b, DenseElementsAttr value) {
  return b.create<tosa::ConstOp>(value.getType(), value);
}

static Attribute getScalarAttr(Builder &b, Type elementType, double value) {
  if (isa<FloatType>(elementType))
    return b.getFloatAttr(elementType, value);
  if (elementType.isInteger(1))
    return b.getBoolAttr(value != 0);
  return b.getIntegerAttr(elementType, static_cast<int64_t>(value));
}

Value createSplat(ImplicitLocOpBuilder &b, Type elementType,
                  ArrayRef<int64_t> shape, double value) {
  auto type = getTensorType(shape, elementType);
  return createConst(
      b, DenseElementsAttr::get(type, getScalarAttr(b, elementType, value)));
}

Value createScalar(ImplicitLocOpBuilder &b, Type elementType, double value,
                   int64_t rank) {
  return createSplat(b, elementType, SmallVector<int64_t>(rank, 1), value);
}

Value scalarLike(ImplicitLocOpBuilder &b, Value like, double value) {
  return createScalar(b, getElementType(like), value, getShape(like).size());
}

Value createI64Const(ImplicitLocOpBuilder &b, ArrayRef<int64_t> values,
                     ArrayRef<int64_t> shape) {
  auto type = getTensorType(shape, b.getI64Type());
  return createConst(b, DenseElementsAttr::get(type, values));
}

Value createIota(ImplicitLocOpBuilder &b, int64_t size, int64_t axis,
                 int64_t rank) {
  SmallVector<int64_t> shape(rank, 1);
  shape[axis] = size;
  SmallVector<int32_t> values;
  for (int64_t i = 0; i < size; ++i)
    values.push_back(i);
  return createConst(b, DenseElementsAttr::get(
                            getTensorType(shape, b.getI32Type()),
                            ArrayRef<int32_t>(values)));
}

Value createReshape(ImplicitLocOpBuilder &b, Value value,
                    ArrayRef<int64_t> shape) {
  if (getShape(value) == shape)
    return value;
  auto type = getTensorType(shape, getElementType(value));
  if (DenseElementsAttr attr = getConstant(value))
    return createConst(b, attr.reshape(type));
  return b.create<tosa::ReshapeOp>(type, value, b.getDenseI64ArrayAttr(shape));
}

/// Permutes a constant's elements; null for bit-packed (i1) data.
static DenseElementsAttr transposeConstant(DenseElementsAttr attr,
                                           ArrayRef<int64_t> perm) {
  ArrayRef<int64_t> shape = attr.getType().getShape();
  SmallVector<int64_t> newShape;
  for (int64_t p : perm)
    newShape.push_back(shape[p]);
  auto newType = attr.getType().clone(newShape);
  if (attr.isSplat())
    return attr.resizeSplat(newType);
  Type elementType = attr.getElementType();
  if (!elementType.isIntOrFloat() || elementType.getIntOrFloatBitWidth() % 8)
    return nullptr;
  return DenseElementsAttr::getFromRawBuffer(
      newType, permuteElements(attr.getRawData(), shape, perm,
                               elementType.getIntOrFloatBitWidth() / 8));
}

Value createTranspose(ImplicitLocOpBuilder &b, Value value,
                      ArrayRef<int64_t> perm) {
  bool identity = true;
  for (auto [i, p] : llvm::enumerate(perm))
    identity &= static_cast<int64_t>(i) == p;
  if (identity)
    return value;
  if (DenseElementsAttr attr = getConstant(value))
    if (DenseElementsAttr folded = transposeConstant(attr, perm))
      return createConst(b, folded);
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(getShape(value)[p]);
  SmallVector<int32_t> perm32(perm.begin(), perm.end());
  auto permType = getTensorType({static_cast<int64_t>(perm.size())},
                                b.getI32Type());
  Value perms = createConst(
      b, DenseElementsAttr::get(permType, ArrayRef<int32_t>(perm32)));
  return b.create<tosa::TransposeOp>(getTensorType(shape, getElementType(value)),
                                     value, perms);
}

Value createSlice(ImplicitLocOpBuilder &b, Value value, ArrayRef<int64_t> start,
                  ArrayRef<int64_t> size) {
  if (llvm::all_of(start, [](int64_t s) { return s == 0; }) &&
      size == getShape(value))
    return value;
  return b.create<tosa::SliceOp>(getTensorType(size, getElementType(value)),
                                 value, b.getDenseI64ArrayAttr(start),
                                 b.getDenseI64ArrayAttr(size));
}

Value createSliceAxis(ImplicitLocOpBuilder &b, Value value, int64_t axis,
                      int64_t start, int64_t size) {
  SmallVector<int64_t> starts(getShape(value).size(), 0);
  SmallVector<int64_t> sizes(getShape(value));
  starts[axis] = start;
  sizes[axis] = size;
  return createSlice(b, value, starts, sizes);
}

Value subsample(ImplicitLocOpBuilder &b, Value x, int64_t axis, int64_t step) {
  if (step == 1)
    return x;
  SmallVector<int64_t> shape(getShape(x));
  int64_t count = (shape[axis] + step - 1) / step;
  SmallVector<int64_t> pads(2 * shape.size(), 0);
  pads[2 * axis + 1] = count * step - shape[axis];
  x = createPad(b, x, pads, 0);
  SmallVector<int64_t> split(shape.begin(), shape.begin() + axis);
  split.append({count, step});
  split.append(shape.begin() + axis + 1, shape.end());
  x = createReshape(b, x, split);
  x = createSliceAxis(b, x, axis + 1, 0, 1);
  shape[axis] = count;
  return createReshape(b, x, shape);
}

Value createConcat(ImplicitLocOpBuilder &b, ArrayRef<Value> values,
                   int64_t axis) {
  if (values.size() == 1)
    return values.front();
  SmallVector<int64_t> shape(getShape(values.front()));
  shape[axis] = 0;
  for (Value v : values)
    shape[axis] += getShape(v)[axis];
  return b.create<tosa::ConcatOp>(
      getTensorType(shape, getElementType(values.front())), values,
      b.getI32IntegerAttr(axis));
}

Value createTile(ImplicitLocOpBuilder &b, Value value,
                 ArrayRef<int64_t> multiples) {
  if (llvm::all_of(multiples, [](int64_t m) { return m == 1; }))
    return value;
  SmallVector<int64_t> shape(getShape(value));
  for (auto [dim, m] : llvm::zip(shape, multiples))
    dim *= m;
  return b.create<tosa::TileOp>(getTensorType(shape, getElementType(value)),
                                value, b.getDenseI64ArrayAttr(multiples));
}

Value createPad(ImplicitLocOpBuilder &b, Value value, ArrayRef<int64_t> pads,
                double padValue) {
  if (llvm::all_of(pads, [](int64_t p) { return p == 0; }))
    return value;
  SmallVector<int64_t> shape(getShape(value));
  for (auto [d, dim] : llvm::enumerate(shape))
    dim += pads[2 * d] + pads[2 * d + 1];
  Type elementType = getElementType(value);
  Value padding = createI64Const(
      b, pads, {static_cast<int64_t>(shape.size()), 2});
  Value padConst = createSplat(b, elementType, {}, padValue);
  return b.create<tosa::PadOp>(getTensorType(shape, elementType), value,
                               padding, padConst);
}

/// A small constant cast the way tosa.cast computes (floats to integers round to nearest
/// even, to bool as != 0; integers sign-extend or truncate); null when it does not apply.
static DenseElementsAttr foldCast(DenseElementsAttr attr, Type to) {
  constexpr int64_t kMaxFoldedElements = 4096;
  Type from = attr.getElementType();
  if (attr.getNumElements() > kMaxFoldedElements || !from.isIntOrFloat() || !to.isIntOrFloat())
    return nullptr;
  auto type = attr.getType().clone(to);
  auto toAttr = [&](double v, const APInt *exact) -> Attribute {
    if (auto f = dyn_cast<FloatType>(to))
      return FloatAttr::get(f, v);
    unsigned width = to.getIntOrFloatBitWidth();
    if (width == 1)
      return IntegerAttr::get(to, v != 0);
    if (exact)
      return IntegerAttr::get(to, exact->sextOrTrunc(width));
    return IntegerAttr::get(to, static_cast<int64_t>(std::nearbyint(v)));
  };
  SmallVector<Attribute> values;
  if (isa<FloatType>(from)) {
    for (const APFloat &v : attr.getValues<APFloat>())
      values.push_back(toAttr(v.convertToDouble(), nullptr));
  } else {
    bool isBool = from.isInteger(1);
    for (const APInt &v : attr.getValues<APInt>()) {
      APInt wide = isBool ? v.zext(64) : v.sext(64);
      values.push_back(toAttr(static_cast<double>(wide.getSExtValue()), &wide));
    }
  }
  return DenseElementsAttr::get(type, values);
}

Value createCast(ImplicitLocOpBuilder &b, Value value, Type elementType) {
  if (getElementType(value) == elementType)
    return value;
  if (DenseElementsAttr attr = getConstant(value))
    if (DenseElementsAttr folded = foldCast(attr, elementType))
      return createConst(b, folded);
  return b.create<tosa::CastOp>(getTensorType(getShape(value), elementType),
                                value);
}

Value createClamp(ImplicitLocOpBuilder &b, Value value, double lo, double hi) {
  Type elementType = getElementType(value);
  auto toInt = [](double v) -> int64_t {
    if (std::isnan(v))
      return 0;
    if (v <= static_cast<double>(std::numeric_limits<int64_t>::min()))
      return std::numeric_limits<int64_t>::min();
    if (v >= static_cast<double>(std::numeric_limits<int64_t>::max()))
      return std::numeric_limits<int64_t>::max();
    return static_cast<int64_t>(v);
  };
  Type floatType = isa<FloatType>(elementType) ? elementType : b.getF32Type();
  return b.create<tosa::ClampOp>(
      getType(value), value, b.getI64IntegerAttr(toInt(lo)),
      b.getI64IntegerAttr(toInt(hi)), b.getFloatAttr(floatType, lo),
      b.getFloatAttr(floatType, hi));
}

FailureOr<SmallVector<int64_t>> matchRanks(ImplicitLocOpBuilder &b,
                                           MutableArrayRef<Value> values) {
  size_t rank = 0;
  for (Value v : values)
    rank = std::max(rank, getShape(v).size());
  SmallVector<int64_t> result(rank, 1);
  for (Value &v : values) {
    SmallVector<int64_t> shape(rank - getShape(v).size(), 1);
    llvm::append_range(shape, getShape(v));
    v = createReshape(b, v, shape);
    for (auto [dim, r] : llvm::zip(shape, result)) {
      if (dim != r && dim != 1 && r != 1)
        return failure();
      if (dim != 1)
        r = dim;
    }
  }
  return result;
}

FailureOr<SmallVector<int64_t>> matchRanks(ImplicitLocOpBuilder &b, Value &lhs,
                                           Value &rhs) {
  Value values[] = {lhs, rhs};
  auto shape = matchRanks(b, values);
  lhs = values[0];
  rhs = values[1];
  return shape;
}

/// `value` (already rank-matched) expanded to `shape`: splat constants are
/// rebuilt, anything else is tiled.
static Value expandTo(ImplicitLocOpBuilder &b, Value value,
                      ArrayRef<int64_t> shape) {
  if (getShape(value) == shape)
    return value;
  DenseElementsAttr attr = getConstant(value);
  if (attr && attr.isSplat())
    return createConst(
        b, attr.resizeSplat(getTensorType(shape, attr.getElementType())));
  SmallVector<int64_t> multiples;
  for (auto [in, out] : llvm::zip(getShape(value), shape))
    multiples.push_back(in == out ? 1 : out);
  return createTile(b, value, multiples);
}

Value createSelect(ImplicitLocOpBuilder &b, Value cond, Value onTrue,
                   Value onFalse) {
  Value values[] = {cond, onTrue, onFalse};
  auto shape = matchRanks(b, values);
  if (failed(shape))
    return nullptr;
  // MLIR 19 folds a select with a splat condition to the chosen operand even
  // when that operand is narrower than the result, so the value operands are
  // made full-sized, and a constant condition is resolved here.
  onTrue = expandTo(b, values[1], *shape);
  onFalse = expandTo(b, values[2], *shape);
  if (DenseElementsAttr attr = getConstant(values[0]); attr && attr.isSplat())
    return attr.getSplatValue<bool>() ? onTrue : onFalse;
  return b.create<tosa::SelectOp>(getTensorType(*shape, getElementType(onTrue)),
                                  values[0], onTrue, onFalse);
}

Value createMul(ImplicitLocOpBuilder &b, Value lhs, Value rhs) {
  auto shape = matchRanks(b, lhs, rhs);
  if (failed(shape))
    return nullptr;
  return b.create<tosa::MulOp>(getTensorType(*shape, getElementType(lhs)), lhs,
                               rhs, b.getI8IntegerAttr(0));
}

Value createDiv(ImplicitLocOpBuilder &b, Value lhs, Value rhs) {
  if (isa<FloatType>(getElementType(lhs)))
    return createMul(b, lhs, createUnary<tosa::ReciprocalOp>(b, rhs));
  return createBinary<tosa::IntDivOp>(b, lhs, rhs);
}

Value createMean(ImplicitLocOpBuilder &b, Value value, ArrayRef<int64_t> axes) {
  int64_t count = 1;
  for (int64_t axis : axes) {
    count *= getShape(value)[axis];
    value = createReduce<tosa::ReduceSumOp>(b, value, axis);
  }
  Type elementType = getElementType(value);
  return createMul(b, value,
                   createScalar(b, elementType, 1.0 / count,
                                getShape(value).size()));
}

SmallVector<int64_t> getStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

Value createI32Const(ImplicitLocOpBuilder &b, ArrayRef<int32_t> values,
                     ArrayRef<int64_t> shape) {
  return createConst(b, DenseElementsAttr::get(
                            getTensorType(shape, b.getI32Type()), values));
}

Value normalizeIndices(ImplicitLocOpBuilder &b, Value indices, Value dimSize) {
  indices = createCast(b, indices, b.getI32Type());
  Value isNeg = createBinary<tosa::GreaterOp>(b, scalarLike(b, indices, 0),
                                              indices, b.getI1Type());
  Value wrapped = createBinary<tosa::AddOp>(b, indices, dimSize);
  return createSelect(b, isNeg, wrapped, indices);
}

Value gatherAlongAxis(ImplicitLocOpBuilder &b, Value data, int64_t axis,
                      ArrayRef<int64_t> indices) {
  ArrayRef<int64_t> shape = getShape(data);
  int64_t outer = getNumElements(shape.take_front(axis));
  int64_t inner = getNumElements(shape.drop_front(axis + 1));
  int64_t w = indices.size();
  SmallVector<int32_t> idx(indices.begin(), indices.end());
  Value idxConst = createTile(b, createI32Const(b, idx, {1, w}), {outer, 1});
  Value gathered = b.create<tosa::GatherOp>(
      getTensorType({outer, w, inner}, getElementType(data)),
      createReshape(b, data, {outer, shape[axis], inner}), idxConst);
  SmallVector<int64_t> outShape(shape);
  outShape[axis] = w;
  return createReshape(b, gathered, outShape);
}

Value gatherRows(ImplicitLocOpBuilder &b, Value values, Value rowIndices,
                 ArrayRef<int64_t> resultShape) {
  int64_t w = getNumElements(getShape(rowIndices));
  int64_t c = getShape(values)[2];
  Value gathered = b.create<tosa::GatherOp>(
      getTensorType({1, w, c}, getElementType(values)), values,
      createReshape(b, rowIndices, {1, w}));
  return createReshape(b, gathered, resultShape);
}

bool fitsI32(int64_t n) { return n <= std::numeric_limits<int32_t>::max(); }

SmallVector<int64_t> channelsLastPerm(int64_t rank) {
  SmallVector<int64_t> perm{0};
  for (int64_t d = 2; d < rank; ++d)
    perm.push_back(d);
  perm.push_back(1);
  return perm;
}

SmallVector<int64_t> channelsFirstPerm(int64_t rank) {
  SmallVector<int64_t> perm{0, rank - 1};
  for (int64_t d = 1; d < rank - 1; ++d)
    perm.push_back(d);
  return perm;
}

} // namespace loupe::frontends::onnx_import
