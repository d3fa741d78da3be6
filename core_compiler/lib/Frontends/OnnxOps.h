//===- OnnxOps.h - ONNX node converters (private) ----------------*- C++ -*-===//
//
// Private to loupe_frontends. The converters see an ONNX node only through
// NodeContext, so the OnnxOps*.cpp files do not include ONNX/protobuf headers
// (and need no RTTI); only OnnxImporter.cpp does.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_LIB_FRONTENDS_ONNXOPS_H
#define LOUPE_LIB_FRONTENDS_ONNXOPS_H

#include "loupe/common/TensorLimits.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/Twine.h"
#include <optional>
#include <string>

namespace onnx {
class NodeProto;
} // namespace onnx

namespace loupe::frontends::onnx_import {

class GraphImporter;

/// A converter's view of one ONNX node: its inputs (already imported values),
/// attributes, the static types ONNX shape inference gave its outputs, and a
/// builder whose location is the node's `NameLoc`.
class NodeContext {
public:
  NodeContext(GraphImporter &importer, const onnx::NodeProto &node,
              llvm::StringRef name, mlir::ImplicitLocOpBuilder &builder);

  mlir::ImplicitLocOpBuilder &b;

  llvm::StringRef opType() const;
  /// The node name, or "<OpType>_<index>" when the model left it empty.
  llvm::StringRef name() const { return nodeName; }
  /// Version of the default ("ai.onnx") opset the model imports.
  int64_t opset() const;

  /// Number of input slots, including empty (omitted optional) ones.
  unsigned numInputs() const;
  /// True when slot `i` exists and is not an omitted optional input.
  bool hasInput(unsigned i) const;
  /// The imported value of input `i`, or null when it is absent.
  mlir::Value input(unsigned i) const;
  llvm::StringRef inputName(unsigned i) const;
  /// Ranked type of input `i` (all imported values are static).
  mlir::RankedTensorType inputType(unsigned i) const;
  /// The constant value of input `i` when it is produced by `tosa.const`.
  mlir::DenseElementsAttr constantInput(unsigned i) const;
  /// Input `i` as a list of integers; fails (reporting it) unless constant.
  mlir::FailureOr<llvm::SmallVector<int64_t>> constantIntsInput(unsigned i);
  /// Input `i` as a scalar float; fails unless it is a one-element constant.
  mlir::FailureOr<double> constantScalarInput(unsigned i);

  /// True when ONNX types tensor `name` (an input or output) as unsigned: it computes
  /// zero-extended in the next wider signless type (uint8 in i16, ...; uint64 in i64).
  bool isUnsigned(llvm::StringRef name) const;

  unsigned numOutputs() const;
  /// True when output `i` exists and is not an omitted optional output.
  bool hasOutput(unsigned i) const;
  llvm::StringRef outputName(unsigned i) const;
  /// Static type ONNX shape inference gave output `i`; fails (reporting it)
  /// when the shape is unknown or dynamic.
  mlir::FailureOr<mlir::RankedTensorType> outputType(unsigned i);
  /// The same static type, or null when ONNX knows none; reports nothing.
  mlir::RankedTensorType knownOutputType(unsigned i) const;
  void setOutput(unsigned i, mlir::Value value);

  /// ONNX sequences are lists of tensors known at import (their length is static): a
  /// sequence input has no `input(i)` value but its list. True when input `i` is one.
  bool isSequenceInput(unsigned i) const;
  /// The tensors of sequence input `i`, in order; fails (reporting) unless it is a sequence.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>> sequenceInput(unsigned i);
  /// Makes output `i` the sequence of `values` (possibly none).
  void setSequenceOutput(unsigned i, llvm::ArrayRef<mlir::Value> values);

  bool hasAttr(llvm::StringRef attr) const;
  int64_t getInt(llvm::StringRef attr, int64_t defaultValue) const;
  float getFloat(llvm::StringRef attr, float defaultValue) const;
  std::string getString(llvm::StringRef attr, llvm::StringRef defaultValue) const;
  /// Integer list attribute; empty when absent.
  llvm::SmallVector<int64_t> getInts(llvm::StringRef attr) const;
  llvm::SmallVector<float> getFloats(llvm::StringRef attr) const;
  /// String list attribute (e.g. RNN's `activations`); empty when absent.
  llvm::SmallVector<std::string> getStrings(llvm::StringRef attr) const;
  /// Element type named by an integer attribute holding an ONNX data type
  /// (Cast's `to`); fails (reporting) when absent or unsupported.
  mlir::FailureOr<mlir::Type> getElementTypeAttr(llvm::StringRef attr);
  /// Tensor attribute (e.g. Constant's `value`); fails (reporting) if absent.
  mlir::FailureOr<mlir::DenseElementsAttr> getTensor(llvm::StringRef attr);
  /// Imports the subgraph of GRAPH attribute `attr` (If's branches, Loop's and Scan's body)
  /// at the builder's insertion point with the same converters, nested subgraphs included:
  /// its inputs bound to `inputs` (as many, agreeing with their declared types), the outer
  /// scope's tensors visible by name, each op located "<node>/<scope>/<inner node>" (e.g.
  /// "Loop_0/iter3/Add_1"); it is specialized to those inputs and shape-folded first, as the
  /// main graph is. Returns the values of its outputs; fails (reporting) when a node fails
  /// or the model would import more than 100,000 subgraph nodes in all.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  inlineGraphAttr(llvm::StringRef attr, llvm::ArrayRef<mlir::Value> inputs,
                  const llvm::Twine &scope);

  /// Reports "<file>: node '<name>' (<OpType>, opset <N>): <message>".
  mlir::LogicalResult fail(const llvm::Twine &message);
  /// Reports an unsupported value of attribute `attr`.
  mlir::LogicalResult unsupportedAttr(llvm::StringRef attr,
                                      const llvm::Twine &value);

private:
  GraphImporter &importer;
  const onnx::NodeProto &node;
  std::string nodeName;
};

/// Converts one node; on failure it has reported through NodeContext::fail.
using OpConverter = mlir::LogicalResult (*)(NodeContext &);
using ConverterMap = llvm::StringMap<OpConverter>;

void registerElementwiseOps(ConverterMap &map);
void registerNNOps(ConverterMap &map);
void registerNormalizationOps(ConverterMap &map);
void registerTensorOps(ConverterMap &map);
void registerIndexingOps(ConverterMap &map);
void registerRecurrentOps(ConverterMap &map);
void registerEinsumOps(ConverterMap &map);
void registerMathOps(ConverterMap &map);
void registerQuantizationOps(ConverterMap &map);
void registerSamplingOps(ConverterMap &map);
void registerSignalOps(ConverterMap &map);
void registerTrainingOps(ConverterMap &map);
void registerUniqueOps(ConverterMap &map);
void registerDetectionOps(ConverterMap &map);
/// Every converter of the default domain (OnnxOpRegistry.cpp).
const ConverterMap &converters();
void registerScatterOps(ConverterMap &map);
void registerControlFlowOps(ConverterMap &map);
/// Sequence ops (OnnxOpsSequence.cpp); after registerTensorOps, whose Identity it extends to
/// sequences.
void registerSequenceOps(ConverterMap &map);

//===----------------------------------------------------------------------===//
// TOSA building helpers (OnnxOpsUtils.cpp). All take static ranked tensors.
//===----------------------------------------------------------------------===//

mlir::RankedTensorType getTensorType(llvm::ArrayRef<int64_t> shape,
                                     mlir::Type elementType);
mlir::RankedTensorType getType(mlir::Value value);
llvm::ArrayRef<int64_t> getShape(mlir::Value value);
mlir::Type getElementType(mlir::Value value);
bool isFloat(mlir::Value value);
int64_t getNumElements(llvm::ArrayRef<int64_t> shape);
/// Normalizes a possibly negative axis; nullopt when out of [-rank, rank).
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank);

using loupe::exceedsElementLimit; // loupe/common/TensorLimits.h

/// The constant behind `value` when it is defined by `tosa.const`.
mlir::DenseElementsAttr getConstant(mlir::Value value);
mlir::Value createConst(mlir::ImplicitLocOpBuilder &b,
                        mlir::DenseElementsAttr value);
/// A constant of `shape` filled with `value` (converted to `elementType`).
mlir::Value createSplat(mlir::ImplicitLocOpBuilder &b, mlir::Type elementType,
                        llvm::ArrayRef<int64_t> shape, double value);
/// A splat of shape [1, ..., 1] with `rank` dims, ready to broadcast.
mlir::Value createScalar(mlir::ImplicitLocOpBuilder &b, mlir::Type elementType,
                         double value, int64_t rank);
/// A scalar broadcastable to `like` (same element type and rank).
mlir::Value scalarLike(mlir::ImplicitLocOpBuilder &b, mlir::Value like,
                       double value);
/// i32 constant of `rank` dims, all 1 except dim `axis`, holding 0..size-1.
mlir::Value createIota(mlir::ImplicitLocOpBuilder &b, int64_t size,
                       int64_t axis, int64_t rank);
/// Row-major strides of `shape`.
llvm::SmallVector<int64_t> getStrides(llvm::ArrayRef<int64_t> shape);
mlir::Value createI32Const(mlir::ImplicitLocOpBuilder &b,
                           llvm::ArrayRef<int32_t> values,
                           llvm::ArrayRef<int64_t> shape);
/// Integer indices as i32 with negative ones wrapped by `dimSize` (a value
/// broadcastable to `indices`).
mlir::Value normalizeIndices(mlir::ImplicitLocOpBuilder &b, mlir::Value indices,
                             mlir::Value dimSize);
/// Elements `indices` (constant, in range) along `axis` of `data`; the result
/// has data's shape with dim `axis` resized to indices.size().
mlir::Value gatherAlongAxis(mlir::ImplicitLocOpBuilder &b, mlir::Value data,
                            int64_t axis, llvm::ArrayRef<int64_t> indices);
/// Rows of `values` [1, rows, C] at i32 `rowIndices` (any shape, W elements);
/// returns [W, C] reshaped to `resultShape`.
mlir::Value gatherRows(mlir::ImplicitLocOpBuilder &b, mlir::Value values,
                       mlir::Value rowIndices, llvm::ArrayRef<int64_t> resultShape);
/// True when `n` fits i32 offsets (tosa.gather indices).
bool fitsI32(int64_t n);
mlir::Value createI64Const(mlir::ImplicitLocOpBuilder &b,
                           llvm::ArrayRef<int64_t> values,
                           llvm::ArrayRef<int64_t> shape);

/// `tosa.reshape`, folded when `value` is constant; no-op for equal shapes.
mlir::Value createReshape(mlir::ImplicitLocOpBuilder &b, mlir::Value value,
                          llvm::ArrayRef<int64_t> shape);
/// `tosa.transpose`, folded when `value` is constant; no-op for identity.
mlir::Value createTranspose(mlir::ImplicitLocOpBuilder &b, mlir::Value value,
                            llvm::ArrayRef<int64_t> perm);
mlir::Value createSlice(mlir::ImplicitLocOpBuilder &b, mlir::Value value,
                        llvm::ArrayRef<int64_t> start,
                        llvm::ArrayRef<int64_t> size);
/// Slice of `size` elements from `start` along one axis.
mlir::Value createSliceAxis(mlir::ImplicitLocOpBuilder &b, mlir::Value value,
                            int64_t axis, int64_t start, int64_t size);
/// Every `step`-th element along `axis`, starting with the first.
mlir::Value subsample(mlir::ImplicitLocOpBuilder &b, mlir::Value value,
                      int64_t axis, int64_t step);
mlir::Value createConcat(mlir::ImplicitLocOpBuilder &b,
                         llvm::ArrayRef<mlir::Value> values, int64_t axis);
mlir::Value createTile(mlir::ImplicitLocOpBuilder &b, mlir::Value value,
                       llvm::ArrayRef<int64_t> multiples);
/// Pads with a constant; `pads` holds [lo0, hi0, lo1, hi1, ...].
mlir::Value createPad(mlir::ImplicitLocOpBuilder &b, mlir::Value value,
                      llvm::ArrayRef<int64_t> pads, double padValue);
mlir::Value createCast(mlir::ImplicitLocOpBuilder &b, mlir::Value value,
                       mlir::Type elementType);
/// `tosa.clamp` to [lo, hi] (given as doubles, converted for int types).
mlir::Value createClamp(mlir::ImplicitLocOpBuilder &b, mlir::Value value,
                        double lo, double hi);

/// Reshapes the lower-rank operand (adding leading 1s) so both have equal
/// rank; returns the numpy-broadcast result shape, or failure if the shapes
/// do not broadcast.
mlir::FailureOr<llvm::SmallVector<int64_t>>
matchRanks(mlir::ImplicitLocOpBuilder &b, mlir::Value &lhs, mlir::Value &rhs);
/// Same for any number of operands.
mlir::FailureOr<llvm::SmallVector<int64_t>>
matchRanks(mlir::ImplicitLocOpBuilder &b,
           llvm::MutableArrayRef<mlir::Value> values);

/// Elementwise binary TOSA op with numpy broadcasting; the result element type
/// is `resultElementType` or, when null, the lhs element type. Returns null
/// when the shapes do not broadcast.
template <typename OpTy>
mlir::Value createBinary(mlir::ImplicitLocOpBuilder &b, mlir::Value lhs,
                         mlir::Value rhs,
                         mlir::Type resultElementType = nullptr) {
  auto shape = matchRanks(b, lhs, rhs);
  if (mlir::failed(shape))
    return nullptr;
  mlir::Type elementType =
      resultElementType ? resultElementType : getElementType(lhs);
  return b.create<OpTy>(getTensorType(*shape, elementType), lhs, rhs);
}
mlir::Value createMul(mlir::ImplicitLocOpBuilder &b, mlir::Value lhs,
                      mlir::Value rhs);
/// `tosa.select` with numpy broadcasting of all three operands.
mlir::Value createSelect(mlir::ImplicitLocOpBuilder &b, mlir::Value cond,
                         mlir::Value onTrue, mlir::Value onFalse);
/// lhs / rhs: reciprocal + mul for floats, int_div for integers.
mlir::Value createDiv(mlir::ImplicitLocOpBuilder &b, mlir::Value lhs,
                      mlir::Value rhs);

template <typename OpTy>
mlir::Value createUnary(mlir::ImplicitLocOpBuilder &b, mlir::Value value) {
  return b.create<OpTy>(getType(value), value);
}

/// Reduction along `axis` keeping it as a size-1 dim.
template <typename OpTy>
mlir::Value createReduce(mlir::ImplicitLocOpBuilder &b, mlir::Value value,
                         int64_t axis) {
  llvm::SmallVector<int64_t> shape(getShape(value));
  shape[axis] = 1;
  return b.create<OpTy>(getTensorType(shape, getElementType(value)), value,
                        b.getI32IntegerAttr(axis));
}
/// Mean over `axes` (each kept as a size-1 dim).
mlir::Value createMean(mlir::ImplicitLocOpBuilder &b, mlir::Value value,
                       llvm::ArrayRef<int64_t> axes);

/// Builds the [P, M, N] product of [P, M, K] and [P, K, N] tensors.
using BatchMatMulBuilder =
    llvm::function_ref<mlir::Value(mlir::ImplicitLocOpBuilder &, mlir::Value, mlir::Value)>;
/// numpy matmul of any ranks (1-D operands get a unit dim) whose batched
/// product `build` makes (tosa.matmul, lhs's element type, when null)
/// (OnnxOpsNN.cpp).
mlir::FailureOr<mlir::Value> createMatMul(NodeContext &ctx, mlir::Value lhs, mlir::Value rhs,
                                          BatchMatMulBuilder build = {});
/// The zero points of an int8 convolution (TOSA's quantization_info).
struct ConvZeroPoints {
  int64_t input = 0, weight = 0;
};
/// ONNX Conv (its attributes read from `ctx`) of NC... `x` and [M, C/group,
/// k...] `weight`, with an optional [M] `bias`, in x's element type; with
/// `zeroPoints`, of int8 x and weight into int32 (an int32 bias), padding
/// with the input's zero point.
mlir::FailureOr<mlir::Value> createConv(NodeContext &ctx, mlir::Value x, mlir::Value weight,
                                        mlir::Value bias,
                                        std::optional<ConvZeroPoints> zeroPoints = {});

/// A run-time check: `condition` (a one-element i1 tensor) must hold when the artifact runs,
/// else the run fails with exit 2 and `message` (the node's location is added). Ops whose
/// output size depends on input values compute into the size the model declares and check
/// the data produce exactly that many (OnnxOpsMath.cpp: `cf.assert`, which the ral phase turns
/// into the RAL's ral_check).
void createRuntimeCheck(mlir::ImplicitLocOpBuilder &b, mlir::Value condition,
                        llvm::StringRef message);

/// Elementwise op TOSA lacks, as one `linalg.generic` (OnnxOpsMath.cpp): operands broadcast
/// numpy-style; `body` maps the operands' scalars to the result's. Null when the shapes do
/// not broadcast.
mlir::Value
createElementwise(mlir::ImplicitLocOpBuilder &b, llvm::ArrayRef<mlir::Value> operands,
                  mlir::Type resultElementType,
                  llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                                 mlir::ValueRange)> body);
/// Integer remainder of any width: truncated (C's %) or floored (the divisor's sign).
mlir::Value createIntegerMod(mlir::ImplicitLocOpBuilder &b, mlir::Value lhs, mlir::Value rhs,
                             bool floored);
/// Integer base ** exponent: by squaring for an integer exponent (0 when it is negative), in
/// double truncated back for a float one (numpy's int ** float, then the cast).
mlir::Value createIntegerPow(mlir::ImplicitLocOpBuilder &b, mlir::Value base,
                             mlir::Value exponent);

/// Rank-changing helpers for channel-first data: NCHW <-> NHWC style perms.
llvm::SmallVector<int64_t> channelsLastPerm(int64_t rank);
llvm::SmallVector<int64_t> channelsFirstPerm(int64_t rank);

} // namespace loupe::frontends::onnx_import

#endif // LOUPE_LIB_FRONTENDS_ONNXOPS_H
