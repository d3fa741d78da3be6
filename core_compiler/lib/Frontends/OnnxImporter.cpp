//===- OnnxImporter.cpp - ONNX model -> func + tosa -----------------------===//
//
// Parses a ModelProto, runs the ONNX checker and shape inference, then walks
// the (topologically sorted) graph and hands each node to its converter
// (OnnxOps*.cpp). This is the only TU that includes ONNX headers.
//
// Subgraphs (If branches, Loop and Scan bodies) are imported inline, once per use
// (NodeContext::inlineGraphAttr): each is first specialized to the values it is given
// (their static types; small integer constants, such as an unrolled Loop's iteration
// number, as initializers) and shape-folded like the main graph.
//
// ONNX sequences inside a graph are lists of imported tensors whose length is known at import
// (NodeContext::sequenceInput); graph inputs and outputs must be tensors. An empty tensor (a
// zero dim) has no elements, so its value is known: every one, graph inputs included, becomes
// an empty `tosa.const` its consumers fold, and a node whose outputs ONNX infers all empty is
// not converted at all.
//
//===----------------------------------------------------------------------===//

#include "loupe/Frontends/OnnxImporter.h"
#include "OnnxOps.h"
#include "OnnxGraphRewrites.h"
#include "../Support/ConstantBytes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/AsmState.h"
#include <cstring>
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

#include "onnx/checker.h"
#include "onnx/onnx_pb.h"
#include "onnx/shape_inference/implementation.h"

#include <fstream>
#include <sstream>

using namespace mlir;

namespace loupe::frontends::onnx_import {

//===----------------------------------------------------------------------===//
// Types and tensors
//===----------------------------------------------------------------------===//

static const char *getElementTypeName(int32_t type) {
  return onnx::TensorProto_DataType_IsValid(type)
             ? onnx::TensorProto_DataType_Name(type).c_str()
             : "invalid";
}

/// Maps an ONNX element type to MLIR. Unsigned types are rejected: TOSA's
/// lowering to arith only handles signless integers.
static Type convertElementType(int32_t type, MLIRContext *ctx) {
  Builder b(ctx);
  switch (type) {
  case onnx::TensorProto::FLOAT:
    return b.getF32Type();
  case onnx::TensorProto::DOUBLE:
    return b.getF64Type();
  case onnx::TensorProto::FLOAT16:
    return b.getF16Type();
  case onnx::TensorProto::BFLOAT16:
    return b.getBF16Type();
  case onnx::TensorProto::INT64:
    return b.getI64Type();
  case onnx::TensorProto::INT32:
    return b.getI32Type();
  case onnx::TensorProto::INT16:
    return b.getI16Type();
  case onnx::TensorProto::INT8:
    return b.getI8Type();
  case onnx::TensorProto::BOOL:
    return b.getI1Type();
  // Unsigned types compute in the next wider signless type (uint64 in i64), every value kept
  // in [0, 2^N) by a mask after each op that makes one (wrapUnsigned): the entry takes and
  // returns the N-bit storage (unsignedStorageType).
  case onnx::TensorProto::UINT8:
    return b.getI16Type();
  case onnx::TensorProto::UINT16:
    return b.getI32Type();
  case onnx::TensorProto::UINT32:
  case onnx::TensorProto::UINT64:
    return b.getI64Type();
  default:
    return nullptr;
  }
}

/// Bits of an ONNX unsigned type, 0 for the others.
static unsigned unsignedBits(int32_t type) {
  switch (type) {
  case onnx::TensorProto::UINT8: return 8;
  case onnx::TensorProto::UINT16: return 16;
  case onnx::TensorProto::UINT32: return 32;
  case onnx::TensorProto::UINT64: return 64;
  default: return 0;
  }
}

/// The signless type an entry argument or result of an unsigned ONNX type has: its storage
/// (the manifest calls it ui8, ...). Null for the other types.
static Type unsignedStorageType(int32_t type, MLIRContext *ctx) {
  unsigned bits = unsignedBits(type);
  return bits ? IntegerType::get(ctx, bits) : Type();
}

/// Builds the attribute of an initializer or Constant tensor.
static FailureOr<DenseElementsAttr>
convertTensor(const onnx::TensorProto &tensor, MLIRContext *ctx,
              std::string &error) {
  auto fail = [&](const Twine &message) {
    error = ("tensor '" + tensor.name() + "': " + message).str();
    return failure();
  };
  Type elementType = convertElementType(tensor.data_type(), ctx);
  if (!elementType)
    return fail(Twine("unsupported element type ") +
                getElementTypeName(tensor.data_type()));
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL)
    return fail("external data is not supported");
  SmallVector<int64_t> shape(tensor.dims().begin(), tensor.dims().end());
  if (llvm::any_of(shape, [](int64_t d) { return d < 0; }))
    return fail("negative dimension");
  auto type = RankedTensorType::get(shape, elementType);
  int64_t count = type.getNumElements();
  auto checkCount = [&](int64_t got) -> LogicalResult {
    if (got == count)
      return success();
    return fail("holds " + Twine(got) + " values, expected " + Twine(count));
  };

  if (unsigned bits = unsignedBits(tensor.data_type())) {
    // Zero-extended into the wider computing type.
    SmallVector<uint64_t> values;
    if (tensor.has_raw_data()) {
      const std::string &raw = tensor.raw_data();
      if (raw.size() % (bits / 8) || failed(checkCount(raw.size() / (bits / 8))))
        return failure();
      for (size_t i = 0; i < raw.size(); i += bits / 8) {
        uint64_t v = 0;
        std::memcpy(&v, raw.data() + i, bits / 8); // little-endian, as every host Loupe runs on
        values.push_back(v);
      }
    } else if (bits <= 16) {
      if (failed(checkCount(tensor.int32_data_size())))
        return failure();
      for (int32_t v : tensor.int32_data())
        values.push_back(static_cast<uint32_t>(v) & ((1u << bits) - 1));
    } else {
      if (failed(checkCount(tensor.uint64_data_size())))
        return failure();
      values.assign(tensor.uint64_data().begin(), tensor.uint64_data().end());
    }
    SmallVector<APInt> wide;
    for (uint64_t v : values)
      wide.push_back(APInt(elementType.getIntOrFloatBitWidth(), v));
    return DenseElementsAttr::get(type, wide);
  }

  if (tensor.has_raw_data()) {
    const std::string &raw = tensor.raw_data();
    if (elementType.isInteger(1)) {
      if (failed(checkCount(raw.size())))
        return failure();
      SmallVector<bool> values(raw.begin(), raw.end());
      return DenseElementsAttr::get(type, ArrayRef<bool>(values));
    }
    int64_t width = elementType.getIntOrFloatBitWidth() / 8;
    if (raw.size() % width || failed(checkCount(raw.size() / width)))
      return failure();
    if (count == 0)
      return DenseElementsAttr::get(type, ArrayRef<Attribute>{});
    ArrayRef<char> buffer(raw.data(), raw.size());
    // ONNX raw data is little-endian, as is every host Loupe runs on.
    return DenseElementsAttr::getFromRawBuffer(type, buffer);
  }

  switch (tensor.data_type()) {
  case onnx::TensorProto::FLOAT:
    if (failed(checkCount(tensor.float_data_size())))
      return failure();
    return DenseElementsAttr::get(
        type, ArrayRef<float>(tensor.float_data().data(),
                              tensor.float_data_size()));
  case onnx::TensorProto::DOUBLE:
    if (failed(checkCount(tensor.double_data_size())))
      return failure();
    return DenseElementsAttr::get(
        type, ArrayRef<double>(tensor.double_data().data(),
                               tensor.double_data_size()));
  case onnx::TensorProto::INT64:
    if (failed(checkCount(tensor.int64_data_size())))
      return failure();
    return DenseElementsAttr::get(
        type, ArrayRef<int64_t>(tensor.int64_data().data(),
                                tensor.int64_data_size()));
  default:
    break;
  }
  // The remaining types (int8/16/32, bool, f16, bf16) live in int32_data;
  // 16-bit floats as their bit patterns.
  if (failed(checkCount(tensor.int32_data_size())))
    return failure();
  unsigned width = elementType.getIntOrFloatBitWidth();
  SmallVector<APInt> bits;
  for (int32_t v : tensor.int32_data())
    bits.push_back(APInt(64, static_cast<uint64_t>(static_cast<int64_t>(v)),
                         /*isSigned=*/true)
                       .trunc(width));
  if (auto floatType = dyn_cast<FloatType>(elementType)) {
    SmallVector<APFloat> values;
    for (const APInt &v : bits)
      values.push_back(APFloat(floatType.getFloatSemantics(), v));
    return DenseElementsAttr::get(type, values);
  }
  if (width == 1) {
    SmallVector<bool> values;
    for (int32_t v : tensor.int32_data())
      values.push_back(v != 0);
    return DenseElementsAttr::get(type, ArrayRef<bool>(values));
  }
  return DenseElementsAttr::get(type, bits);
}

/// Rejects attribute values that crash (rather than fail) ONNX 1.12's own
/// shape inference: negative dimensions, non-positive strides/kernels/
/// dilations (division by zero in convPoolShapeInference), a negative
/// batch_dims (GatherND), a LayerNormalization axis outside the declared
/// input rank and a convolution whose input and weight ranks differ (ONNX reads
/// past the shorter of the two: onnx/onnx#8036). A weight's rank is known when it
/// is declared or an initializer, or computed from those by elementwise ops
/// (a quantization export's QuantizeLinear -> DequantizeLinear of it).
static LogicalResult checkAttributesForInference(const onnx::GraphProto &graph,
                                                 std::string &error) {
  llvm::StringMap<int> ranks;
  bool negativeDim = false;
  auto addRank = [&](const onnx::ValueInfoProto &info) {
    if (!info.type().has_tensor_type() || !info.type().tensor_type().has_shape())
      return;
    const auto &shape = info.type().tensor_type().shape();
    ranks[info.name()] = shape.dim_size();
    for (const auto &dim : shape.dim())
      negativeDim |= dim.has_dim_value() && dim.dim_value() < 0;
  };
  for (const auto &info : graph.input())
    addRank(info);
  for (const auto &info : graph.value_info())
    addRank(info);
  for (const auto &info : graph.output())
    addRank(info);
  for (const auto &init : graph.initializer()) {
    ranks[init.name()] = init.dims_size();
    negativeDim |= llvm::any_of(init.dims(), [](int64_t d) { return d < 0; });
  }
  if (negativeDim) {
    error = "a tensor has a negative dimension";
    return failure();
  }
  // Elementwise ops: their output has the highest rank of their inputs.
  static const llvm::StringSet<> elementwise = {
      "Abs", "Neg", "Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Reciprocal",
      "Identity", "Cast", "Clip", "QuantizeLinear", "DequantizeLinear", "Add", "Sub",
      "Mul", "Div", "Pow", "Max", "Min", "Where"};
  for (const auto &node : graph.node()) {
    StringRef op = node.op_type();
    if (elementwise.contains(op) && node.output_size() == 1 && node.input_size() > 0 &&
        !ranks.count(node.output(0))) {
      // QuantizeLinear and DequantizeLinear: x's (their parameters are per tensor or axis).
      int read = op == "QuantizeLinear" || op == "DequantizeLinear" ? 1 : node.input_size();
      int rank = 0;
      bool known = true;
      for (int k = 0; k < read; ++k) {
        if (node.input(k).empty())
          continue;
        known &= ranks.count(node.input(k)) > 0;
        rank = std::max(rank, ranks.lookup(node.input(k)));
      }
      if (known)
        ranks[node.output(0)] = rank;
    }
    int weight = op == "QLinearConv" ? 3 : op == "Conv" || op == "ConvTranspose" ||
                                               op == "ConvInteger" ? 1 : -1;
    if (weight > 0 && node.input_size() > weight && ranks.count(node.input(0)) &&
        ranks.count(node.input(weight)) &&
        ranks.lookup(node.input(0)) != ranks.lookup(node.input(weight))) {
      error = "node '" + node.name() + "' (" + node.op_type() + "): input rank " +
              std::to_string(ranks.lookup(node.input(0))) + " and weight rank " +
              std::to_string(ranks.lookup(node.input(weight))) + " differ";
      return failure();
    }
    for (const auto &attr : node.attribute()) {
      StringRef name = attr.name();
      bool positive = name == "strides" || name == "kernel_shape" ||
                      name == "dilations";
      if ((positive && llvm::any_of(attr.ints(), [](int64_t v) { return v <= 0; })) ||
          (name == "batch_dims" && attr.i() < 0) ||
          (name == "pads" && node.op_type() != "Pad" &&
           llvm::any_of(attr.ints(), [](int64_t v) { return v < 0; }))) {
        error = "node '" + node.name() + "' (" + node.op_type() +
                "): attribute '" + attr.name() + "' has an invalid value";
        return failure();
      }
      if (node.op_type() == "LayerNormalization" && name == "axis" &&
          node.input_size() > 0 && ranks.count(node.input(0))) {
        int rank = ranks.lookup(node.input(0));
        if (attr.i() < -rank || attr.i() >= rank) {
          error = "node '" + node.name() +
                  "' (LayerNormalization): axis is out of range";
          return failure();
        }
      }
    }
  }
  return success();
}

/// Constants of at least this many bytes become resource blobs.
constexpr size_t kResourceMinBytes = 1024;

/// Moves every large constant of `func` out of the IR text into a `dense_resource` blob named
/// after its tensor, as torch-mlir and IREE import weights: passes, snapshots and hashes then
/// handle a handle, not the bytes, and ral-externalize-constants puts the bytes in the
/// artifact's weight blob. The blob shares the attribute's storage when it is aligned to the
/// element size (the context owns both), else it holds a copy. Equal constants (attributes are
/// uniqued) share one blob: a converter that reshapes a weight once per unrolled step (LSTM's R,
/// 50 steps) would otherwise put 50 copies of it into the artifact.
static void moveWeightsToResources(func::FuncOp func) {
  llvm::DenseMap<Attribute, Attribute> resources;
  func.walk([&](tosa::ConstOp op) {
    auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
    std::optional<ArrayRef<char>> bytes = loupe::elementBytes(dense);
    if (!bytes || bytes->size() < kResourceMinBytes)
      return;
    if (Attribute shared = resources.lookup(dense))
      return op.setValueAttr(cast<ElementsAttr>(shared));
    ArrayRef<char> raw = *bytes;
    size_t align = dense.getElementType().getIntOrFloatBitWidth() / 8;
    AsmResourceBlob blob =
        llvm::isAddrAligned(llvm::Align(align), raw.data())
            ? UnmanagedAsmResourceBlob::allocateWithAlign(raw, align)
            : HeapAsmResourceBlob::allocateAndCopyWithAlign(raw, align);
    std::string key = "weight";
    if (auto name = dyn_cast<NameLoc>(op.getLoc())) {
      key = name.getName().str();
      for (char &c : key)
        if (!llvm::isAlnum(c) && c != '_' && c != '.')
          c = '_';
    }
    auto resource = DenseResourceElementsAttr::get(dense.getType(), key, std::move(blob));
    resources[dense] = resource;
    op.setValueAttr(resource);
  });
}

/// Fails, naming the first, when a graph input or output is not a tensor (a sequence, an
/// optional, ...): the artifact ABI passes tensors only. Sequences inside the graph are lists
/// of tensors known at import (OnnxOpsSequence.cpp).
static LogicalResult checkTensorSignature(const onnx::GraphProto &graph, std::string &error) {
  auto check = [&](const onnx::ValueInfoProto &info, const char *what) {
    const onnx::TypeProto &type = info.type();
    const char *kind = type.has_sequence_type()        ? "a sequence"
                       : type.has_optional_type()      ? "an optional"
                       : type.has_map_type()           ? "a map"
                       : type.has_sparse_tensor_type() ? "a sparse tensor"
                                                       : nullptr;
    if (kind)
      error = std::string(what) + " '" + info.name() + "' is " + kind +
              ": the artifact ABI passes tensors only";
    return kind == nullptr;
  };
  for (const auto &input : graph.input())
    if (!check(input, "graph input"))
      return failure();
  for (const auto &output : graph.output())
    if (!check(output, "graph output"))
      return failure();
  return success();
}

/// A dim as the model declares it: its value, its dim_param, or "?".
static std::string dimText(const onnx::TensorShapeProto_Dimension &dim) {
  return dim.has_dim_value() ? std::to_string(dim.dim_value())
                             : dim.has_dim_param() ? dim.dim_param() : std::string("?");
}

/// Binds the symbolic dims of the graph inputs (seed 003: one compile per shape): an input's
/// shape comes from `shapes.byName`, else, when it has a symbolic dim, from
/// `shapes.byPosition`. A dim_param bound by one input binds the same param in every other
/// input. Every input dim must end up static, else the error names the input, the dim and its
/// param. Tensors elsewhere (value_info, outputs) get the bound params too, and lose the
/// unbound ones, so shape inference recomputes them.
static LogicalResult bindInputShapes(onnx::GraphProto &graph, const InputBindings &shapes,
                                     std::string &error) {
  llvm::StringSet<> initializers;
  for (const auto &init : graph.initializer())
    initializers.insert(init.name());
  auto isSymbolic = [](const onnx::ValueInfoProto &input) {
    const auto &type = input.type().tensor_type();
    return !type.has_shape() ||
           llvm::any_of(type.shape().dim(), [](const auto &d) { return !d.has_dim_value(); });
  };
  llvm::StringMap<int64_t> params;
  llvm::StringSet<> inputs;
  size_t position = 0;
  for (auto &input : *graph.mutable_input()) {
    if (initializers.contains(input.name()))
      continue;
    inputs.insert(input.name());
    size_t at = position++;
    const std::vector<int64_t> *given = nullptr;
    std::string source = "--input-shape";
    if (auto it = shapes.byName.find(input.name()); it != shapes.byName.end())
      given = &it->second;
    else if (at < shapes.byPosition.size() && input.type().has_tensor_type() &&
             isSymbolic(input)) {
      given = &shapes.byPosition[at];
      source = "input tensor " + std::to_string(at);
    }
    if (!given)
      continue;
    if (!input.type().has_tensor_type()) {
      error = "graph input '" + input.name() + "' is not a tensor; " + source +
              " does not apply";
      return failure();
    }
    auto *shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
    const std::vector<int64_t> &dims = *given;
    bool hadShape = input.type().tensor_type().has_shape();
    auto fail = [&](const Twine &message) {
      error = ("graph input '" + input.name() + "': " + message).str();
      return failure();
    };
    if (hadShape && shape->dim_size() != static_cast<int>(dims.size()))
      return fail("rank " + Twine(shape->dim_size()) + " in the model, " + source + " has " +
                  Twine(dims.size()) + " dims");
    for (size_t d = 0; d < dims.size(); ++d) {
      if (!hadShape)
        shape->add_dim();
      auto *dim = shape->mutable_dim(d);
      if (dims[d] < 0)
        return fail("dim " + Twine(d) + " must be >= 0, " + source + " gives " +
                    Twine(dims[d]));
      if (dim->has_dim_value() && dim->dim_value() != dims[d])
        return fail("dim " + Twine(d) + " is " + Twine(dim->dim_value()) + " in the model, " +
                    source + " gives " + Twine(dims[d]));
      if (dim->has_dim_param()) {
        auto [bound, inserted] = params.try_emplace(dim->dim_param(), dims[d]);
        if (!inserted && bound->second != dims[d])
          return fail("dim " + Twine(d) + " ('" + dim->dim_param() + "') is " +
                      Twine(dims[d]) + " in " + source + ", but another input binds '" +
                      dim->dim_param() + "' to " + Twine(bound->second));
      }
      dim->set_dim_value(dims[d]);
    }
  }
  for (const auto &[name, dims] : shapes.byName)
    if (!inputs.contains(name)) {
      std::string known;
      for (const auto &input : graph.input())
        if (!initializers.contains(input.name()))
          known += (known.empty() ? "" : ", ") + input.name();
      error = "--input-shape names '" + name + "', which is not a graph input (inputs: " +
              known + ")";
      return failure();
    }

  // Params bound above, everywhere; unbound params of inputs are errors.
  auto bindShape = [&](onnx::TypeProto *type) {
    if (!type->has_tensor_type() || !type->tensor_type().has_shape())
      return;
    for (auto &dim : *type->mutable_tensor_type()->mutable_shape()->mutable_dim())
      if (dim.has_dim_param()) {
        auto it = params.find(dim.dim_param());
        if (it != params.end())
          dim.set_dim_value(it->second);
      }
  };
  for (auto &input : *graph.mutable_input()) {
    bindShape(input.mutable_type());
    if (initializers.contains(input.name()) || !input.type().has_tensor_type() ||
        !input.type().tensor_type().has_shape())
      continue;
    const auto &shape = input.type().tensor_type().shape();
    for (int d = 0; d < shape.dim_size(); ++d)
      if (!shape.dim(d).has_dim_value()) {
        std::string dims;
        for (const auto &dim : shape.dim())
          dims += (dims.empty() ? "" : ",") + dimText(dim);
        error = "graph input '" + input.name() + "' [" + dims + "] has a symbolic dim " +
                std::to_string(d) +
                (shape.dim(d).has_dim_param() ? " ('" + shape.dim(d).dim_param() + "')"
                                              : std::string()) +
                ": give its shape with --input-shape " + input.name() +
                "=D0,D1,... (or input tensors with --inputs)";
        return failure();
      }
  }
  auto clearSymbolic = [&](onnx::ValueInfoProto &info) {
    bindShape(info.mutable_type());
    if (!info.type().has_tensor_type() || !info.type().tensor_type().has_shape())
      return;
    for (auto &dim : *info.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim())
      if (dim.has_dim_param())
        dim.clear_dim_param();
  };
  for (auto &info : *graph.mutable_value_info())
    clearSymbolic(info);
  for (auto &info : *graph.mutable_output())
    clearSymbolic(info);
  return success();
}

//===----------------------------------------------------------------------===//
// GraphImporter
//===----------------------------------------------------------------------===//

/// Builds `func.func @main` from one ONNX graph.
class GraphImporter {
public:
  /// `shapeData` holds the values ONNX data propagation computed for small
  /// integer tensors (Shape -> Gather -> Concat chains, ...).
  /// `specialized` names the graph inputs that also have an initializer holding the value
  /// the run gives (specializeShapeTensorInputs): they stay entry arguments.
  GraphImporter(MLIRContext &ctx, std::string fileName,
                const ShapeDataMap &shapeData,
                const std::vector<std::string> &specialized)
      : ctx(ctx), fileName(std::move(fileName)), shapeData(&shapeData) {
    for (const std::string &name : specialized)
      this->specialized.insert(name);
  }


  OwningOpRef<ModuleOp> import(const onnx::ModelProto &model);
  std::string takeError() { return std::move(error); }

  LogicalResult report(const Twine &message) {
    if (error.empty())
      error = (fileName + ": " + message).str();
    return failure();
  }

private:
  friend class NodeContext;
  class SubgraphScope;
  struct Binding;

  void collectTypes(const onnx::GraphProto &graph);
  RankedTensorType findStaticType(const std::string &name, std::string &why) const;
  FailureOr<RankedTensorType> getStaticType(const std::string &name,
                                            const Twine &what);
  bool agreesWithInference(const std::string &name, RankedTensorType type) const;
  FailureOr<SmallVector<Value>> inlineGraph(const onnx::GraphProto &graph,
                                            ArrayRef<Value> inputs, std::string prefix,
                                            OpBuilder &builder);
  std::unique_ptr<onnx::ModelProto> specializeSubgraph(const onnx::GraphProto &graph,
                                                       ArrayRef<Binding> bindings,
                                                       ShapeDataMap &data) const;
  LogicalResult importNode(const onnx::NodeProto &node, int64_t index,
                           OpBuilder &builder);
  LogicalResult checkOutput(const std::string &output, NodeContext &nodeCtx);
  bool isDefined(const std::string &name) const {
    return values.count(name) || sequences.count(name);
  }
  bool allOutputsKnownEmpty(const onnx::NodeProto &node) const;
  void foldEmptyOutputs(const onnx::NodeProto &node, ImplicitLocOpBuilder &b);
  void eraseDeadProducers(ArrayRef<Value> dead);

  LogicalResult checkSupported(const onnx::GraphProto &graph);
  int32_t onnxElementType(const std::string &name) const;
  void wrapUnsigned(const std::string &name, ImplicitLocOpBuilder &b);
  static std::string getNodeName(const onnx::NodeProto &node, int64_t index);
  static std::string getOpName(const onnx::NodeProto &node);
  static OpConverter getConverter(const onnx::NodeProto &node);

  MLIRContext &ctx;
  std::string fileName;
  /// The main graph's, or while a subgraph is imported, the one its specialization computed.
  const ShapeDataMap *shapeData;
  llvm::StringSet<> specialized;
  std::string error;
  int64_t opset = 0;
  const onnx::ModelProto *model = nullptr;
  llvm::StringMap<Value> values;
  /// ONNX sequences, as the lists of tensors they hold (their length is known at import).
  llvm::StringMap<SmallVector<Value>> sequences;
  llvm::StringMap<const onnx::TypeProto *> types;
  /// The ONNX element types of initializers (which carry no TypeProto).
  llvm::StringMap<int32_t> initializerTypes;
  /// Prepended to node names inside inlined subgraphs: "Loop_0/iter3/".
  std::string scopePrefix;
  /// Nodes imported from subgraphs so far, every unrolled iteration counted.
  int64_t inlinedNodes = 0;
};

/// Most subgraph nodes one model may import, all If branches and unrolled Loop and Scan
/// iterations together.
constexpr int64_t kMaxInlinedNodes = 100000;

std::string GraphImporter::getNodeName(const onnx::NodeProto &node,
                                       int64_t index) {
  return node.name().empty() ? node.op_type() + "_" + std::to_string(index)
                             : node.name();
}

/// "OpType", or "domain.OpType" outside the default domain.
std::string GraphImporter::getOpName(const onnx::NodeProto &node) {
  bool defaultDomain = node.domain().empty() || node.domain() == "ai.onnx";
  return defaultDomain ? node.op_type() : node.domain() + "." + node.op_type();
}

/// Converters of the default domain are registered by op type, the others as
/// "domain.OpType" (getOpName).
OpConverter GraphImporter::getConverter(const onnx::NodeProto &node) {
  return converters().lookup(getOpName(node));
}

/// Reports the first unsupported node, listing the other unsupported op types.
LogicalResult GraphImporter::checkSupported(const onnx::GraphProto &graph) {
  int64_t first = -1;
  SmallVector<std::string> others;
  for (int i = 0, e = graph.node_size(); i < e; ++i) {
    if (getConverter(graph.node(i)))
      continue;
    if (first < 0)
      first = i;
    else if (std::string op = getOpName(graph.node(i));
             op != getOpName(graph.node(first)) && !llvm::is_contained(others, op))
      others.push_back(op);
  }
  if (first < 0)
    return success();
  const onnx::NodeProto &node = graph.node(first);
  std::string message = "unsupported ONNX op '" + getOpName(node) +
                        "' (node '" + getNodeName(node, first) + "', opset " +
                        std::to_string(opset) + ")";
  if (std::string why = onnxOpSupport(getOpName(node)).why; !why.empty())
    message += ": " + why;
  if (!others.empty())
    message += "; also unsupported: " + llvm::join(others, ", ");
  return report(message);
}

/// Indexes the declared and inferred types of the graph's tensors.
void GraphImporter::collectTypes(const onnx::GraphProto &graph) {
  for (const auto &info : graph.input())
    types[info.name()] = &info.type();
  for (const auto &info : graph.value_info())
    types[info.name()] = &info.type();
  for (const auto &info : graph.output())
    types[info.name()] = &info.type();
  for (const auto &init : graph.initializer())
    initializerTypes[init.name()] = init.data_type();
}

/// The static type ONNX knows for tensor `name`; null, with `why` saying why not, when it
/// knows none.
RankedTensorType GraphImporter::findStaticType(const std::string &name,
                                               std::string &why) const {
  auto it = types.find(name);
  if (it == types.end() || !it->second->has_tensor_type()) {
    why = "has no known tensor type";
    return nullptr;
  }
  const auto &tensorType = it->second->tensor_type();
  Type elementType = convertElementType(tensorType.elem_type(), &ctx);
  if (!elementType) {
    why = std::string("has unsupported element type ") +
          getElementTypeName(tensorType.elem_type());
    return nullptr;
  }
  if (!tensorType.has_shape()) {
    why = "has an unknown shape";
    return nullptr;
  }
  SmallVector<int64_t> shape;
  for (const auto &dim : tensorType.shape().dim()) {
    if (!dim.has_dim_value()) {
      why = "has a dynamic dimension" +
            (dim.has_dim_param() ? " '" + dim.dim_param() + "'" : std::string()) +
            "; only static shapes are supported";
      return nullptr;
    }
    if (dim.dim_value() < 0) {
      why = "has a negative dimension";
      return nullptr;
    }
    shape.push_back(dim.dim_value());
  }
  return RankedTensorType::get(shape, elementType);
}

/// The static type ONNX knows for tensor `name`, or a failure naming it.
FailureOr<RankedTensorType>
GraphImporter::getStaticType(const std::string &name, const Twine &what) {
  std::string why;
  RankedTensorType type = findStaticType(name, why);
  if (!type)
    return report(what + " '" + name + "' " + why);
  return type;
}

LogicalResult GraphImporter::importNode(const onnx::NodeProto &node,
                                        int64_t index, OpBuilder &builder) {
  std::string name = scopePrefix + getNodeName(node, index);
  OpConverter converter = getConverter(node);
  if (!converter)
    return report("unsupported ONNX op '" + getOpName(node) + "' (node '" +
                  name + "', opset " + Twine(opset) + ")");
  for (const std::string &input : node.input())
    if (!input.empty() && !isDefined(input))
      return report("node '" + name + "' uses undefined tensor '" + input +
                    "'");

  ImplicitLocOpBuilder b(NameLoc::get(StringAttr::get(&ctx, name)), builder);
  NodeContext nodeCtx(*this, node, name, b);
  if (!allOutputsKnownEmpty(node) && failed(converter(nodeCtx)))
    return report("node '" + name + "' (" + node.op_type() + ", opset " +
                  Twine(opset) + "): conversion failed");
  foldEmptyOutputs(node, b);
  for (int i = 0, e = node.output_size(); i < e; ++i)
    if (!node.output(i).empty() &&
        failed(checkOutput(node.output(i), nodeCtx)))
      return failure();
  for (const std::string &output : node.output())
    if (!output.empty())
      wrapUnsigned(output, b);
  return success();
}

/// The ONNX element type known for tensor `name`; 0 (UNDEFINED) when unknown.
int32_t GraphImporter::onnxElementType(const std::string &name) const {
  auto it = types.find(name);
  if (it != types.end() && it->second->has_tensor_type())
    return it->second->tensor_type().elem_type();
  return initializerTypes.lookup(name);
}

/// Keeps an unsigned tensor (computed in a wider signless type) in [0, 2^N): ONNX's unsigned
/// arithmetic wraps modulo 2^N. uint64 computes in i64 as is (values >= 2^63 compare, divide
/// and convert as negative ones).
void GraphImporter::wrapUnsigned(const std::string &name, ImplicitLocOpBuilder &b) {
  unsigned bits = unsignedBits(onnxElementType(name));
  auto it = values.find(name);
  if (bits == 0 || bits == 64 || it == values.end() || getConstant(it->second))
    return;
  Value value = it->second;
  Value mask = createScalar(b, getElementType(value), static_cast<double>((1ull << bits) - 1),
                            getShape(value).size());
  it->second = createBinary<tosa::BitwiseAndOp>(b, value, mask);
}

//===----------------------------------------------------------------------===//
// Zero-size tensors
//===----------------------------------------------------------------------===//

/// An empty tensor has no elements, so its value is known: `tosa.const` of its type.
static Value createEmptyConst(OpBuilder &builder, Location loc, RankedTensorType type) {
  return builder.create<tosa::ConstOp>(loc, type,
                                       DenseElementsAttr::get(type, ArrayRef<Attribute>{}));
}

/// Whether ONNX shape inference gives every output of `node` a static type with no elements:
/// then their values are known and the converter need not run (nor handle empty shapes).
bool GraphImporter::allOutputsKnownEmpty(const onnx::NodeProto &node) const {
  bool any = false;
  for (const std::string &output : node.output()) {
    if (output.empty())
      continue;
    std::string why;
    RankedTensorType type = findStaticType(output, why);
    if (!type || type.getNumElements() != 0)
      return false;
    any = true;
  }
  return any;
}

/// Replaces every empty output of `node` (all of them when allOutputsKnownEmpty) by an empty
/// constant, so that its consumers fold, and erases the ops that computed it, which TOSA's
/// lowering need not see.
void GraphImporter::foldEmptyOutputs(const onnx::NodeProto &node, ImplicitLocOpBuilder &b) {
  bool known = allOutputsKnownEmpty(node);
  SmallVector<Value> replaced;
  auto fold = [&](Value &value) {
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getNumElements() != 0 || getConstant(value))
      return;
    replaced.push_back(value);
    value = createEmptyConst(b, b.getLoc(), type);
  };
  for (const std::string &output : node.output()) {
    std::string why;
    if (output.empty())
      continue;
    if (known) // the converter did not run
      values[output] = createEmptyConst(b, b.getLoc(), findStaticType(output, why));
    else if (auto it = sequences.find(output); it != sequences.end())
      llvm::for_each(it->second, fold);
    else if (auto it = values.find(output); it != values.end() && it->second)
      fold(it->second);
  }
  eraseDeadProducers(replaced);
}

/// Erases the ops that computed `dead` (values no longer used) and, transitively, their
/// operands' producers that become unused, stopping at any value the graph still names.
void GraphImporter::eraseDeadProducers(ArrayRef<Value> dead) {
  if (dead.empty())
    return;
  llvm::DenseSet<Value> named;
  for (const auto &entry : values)
    named.insert(entry.second);
  for (const auto &entry : sequences)
    named.insert(entry.second.begin(), entry.second.end());
  llvm::SetVector<Operation *> worklist;
  for (Value value : dead)
    if (Operation *op = value.getDefiningOp())
      worklist.insert(op);
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!isOpTriviallyDead(op) ||
        llvm::any_of(op->getResults(), [&](Value r) { return named.contains(r); }))
      continue;
    for (Value operand : op->getOperands())
      if (Operation *producer = operand.getDefiningOp())
        worklist.insert(producer);
    op->erase();
  }
}

/// Every output must be produced and agree with the type ONNX shape inference gave it
/// (where it knows one); a sequence, with its list of tensors.
LogicalResult GraphImporter::checkOutput(const std::string &output,
                                         NodeContext &nodeCtx) {
  if (sequences.count(output))
    return success();
  auto valueIt = values.find(output);
  if (valueIt == values.end() || !valueIt->second)
    return nodeCtx.fail("output '" + output + "' is not supported");
  auto imported = cast<RankedTensorType>(valueIt->second.getType());
  if (agreesWithInference(output, imported))
    return success();
  std::string got;
  llvm::raw_string_ostream os(got);
  os << imported;
  return nodeCtx.fail("imported type " + got + " of output '" + output +
                      "' disagrees with ONNX shape inference");
}

/// Whether `type` agrees with the ONNX type `onnxType`: its element type, and its rank and
/// dims where the shape is known (an unknown dim agrees with any).
static bool agrees(const onnx::TypeProto &onnxType, RankedTensorType type) {
  if (!onnxType.has_tensor_type())
    return true;
  const auto &tensorType = onnxType.tensor_type();
  Type elementType = convertElementType(tensorType.elem_type(), type.getContext());
  if (elementType && elementType != type.getElementType())
    return false;
  if (!tensorType.has_shape())
    return true;
  if (tensorType.shape().dim_size() != type.getRank())
    return false;
  for (int d = 0; d < type.getRank(); ++d) {
    const auto &dim = tensorType.shape().dim(d);
    if (dim.has_dim_value() && dim.dim_value() != type.getDimSize(d))
      return false;
  }
  return true;
}

/// Whether `type` agrees with what ONNX knows of tensor `name` (see `agrees`).
bool GraphImporter::agreesWithInference(const std::string &name,
                                        RankedTensorType type) const {
  auto it = types.find(name);
  return it == types.end() || agrees(*it->second, type);
}

//===----------------------------------------------------------------------===//
// Subgraphs (If branches, Loop and Scan bodies)
//===----------------------------------------------------------------------===//

/// While a subgraph is imported, the tensors it defines shadow the outer scope's of the same
/// name (ONNX's lexical scoping) and its nodes are named under `prefix`; destruction restores
/// the outer scope, so that the next iteration of an unrolled body starts afresh.
class GraphImporter::SubgraphScope {
public:
  SubgraphScope(GraphImporter &importer, const onnx::GraphProto &graph, std::string prefix,
                const ShapeDataMap *shapeData)
      : importer(importer), outerPrefix(std::move(importer.scopePrefix)),
        outerShapeData(importer.shapeData) {
    importer.scopePrefix = std::move(prefix);
    importer.shapeData = shapeData;
    for (const auto &info : graph.input())
      save(info.name());
    for (const auto &init : graph.initializer())
      save(init.name());
    for (const auto &node : graph.node())
      for (const std::string &output : node.output())
        save(output);
    for (const auto &info : graph.value_info())
      save(info.name());
    for (const auto &info : graph.output())
      save(info.name());
  }
  ~SubgraphScope() {
    // Reverse order, so that the first save of a name (the outer entry) wins.
    for (auto &[name, value, sequence, type] : llvm::reverse(saved)) {
      if (value)
        importer.values[name] = value;
      else
        importer.values.erase(name);
      if (sequence)
        importer.sequences[name] = *sequence;
      else
        importer.sequences.erase(name);
      if (type)
        importer.types[name] = type;
      else
        importer.types.erase(name);
    }
    importer.scopePrefix = std::move(outerPrefix);
    importer.shapeData = outerShapeData;
  }

private:
  void save(const std::string &name) {
    if (name.empty())
      return;
    std::optional<SmallVector<Value>> sequence;
    if (auto it = importer.sequences.find(name); it != importer.sequences.end())
      sequence = it->second;
    saved.emplace_back(name, importer.values.lookup(name), std::move(sequence),
                       importer.types.lookup(name));
  }

  GraphImporter &importer;
  std::string outerPrefix;
  const ShapeDataMap *outerShapeData;
  SmallVector<std::tuple<std::string, Value, std::optional<SmallVector<Value>>,
                         const onnx::TypeProto *>>
      saved;
};

/// A value a subgraph sees under `name`: one of its inputs, or an outer tensor it reads.
struct GraphImporter::Binding {
  std::string name;
  Value value;
  int32_t onnxType; // the ONNX element type (uint8 for an i16 holding one, ...)
};

/// The ONNX element type of an MLIR element type; 0 (UNDEFINED) for others.
static int32_t onnxElementTypeOf(Type type) {
  if (type.isF32()) return onnx::TensorProto::FLOAT;
  if (type.isF64()) return onnx::TensorProto::DOUBLE;
  if (type.isF16()) return onnx::TensorProto::FLOAT16;
  if (type.isBF16()) return onnx::TensorProto::BFLOAT16;
  if (type.isInteger(1)) return onnx::TensorProto::BOOL;
  if (type.isInteger(8)) return onnx::TensorProto::INT8;
  if (type.isInteger(16)) return onnx::TensorProto::INT16;
  if (type.isInteger(32)) return onnx::TensorProto::INT32;
  if (type.isInteger(64)) return onnx::TensorProto::INT64;
  return 0;
}

/// Adds to `reads` (once each, `seen` holding them) the tensors that `graph` (nested
/// subgraphs included) reads but does not define; `defined` holds what the enclosing
/// subgraphs of the same import define.
static void collectOuterReads(const onnx::GraphProto &graph, llvm::StringSet<> defined,
                              llvm::StringSet<> &seen, SmallVectorImpl<std::string> &reads) {
  for (const auto &info : graph.input())
    defined.insert(info.name());
  for (const auto &init : graph.initializer())
    defined.insert(init.name());
  for (const auto &node : graph.node())
    for (const std::string &output : node.output())
      defined.insert(output);
  for (const auto &node : graph.node()) {
    for (const std::string &input : node.input())
      if (!input.empty() && !defined.contains(input) && seen.insert(input).second)
        reads.push_back(input);
    for (const auto &attr : node.attribute()) {
      if (attr.has_g())
        collectOuterReads(attr.g(), defined, seen, reads);
      for (const auto &g : attr.graphs())
        collectOuterReads(g, defined, seen, reads);
    }
  }
  for (const auto &info : graph.output())
    if (!defined.contains(info.name()) && seen.insert(info.name()).second)
      reads.push_back(info.name());
}

/// A copy of subgraph `graph` as a model of its own, specialized to one inlining: every
/// binding becomes a graph input of its value's static type, the small integer constants
/// among them initializers too, and foldShapeComputations then evaluates what those
/// determine (an unrolled Loop's Slice bounds from its iteration number, ...) and infers
/// every shape, as it does for the main graph. Null when ONNX inference rejects the copy.
std::unique_ptr<onnx::ModelProto>
GraphImporter::specializeSubgraph(const onnx::GraphProto &graph, ArrayRef<Binding> bindings,
                                  ShapeDataMap &data) const {
  auto copy = std::make_unique<onnx::ModelProto>();
  copy->set_ir_version(model->ir_version());
  *copy->mutable_opset_import() = model->opset_import();
  onnx::GraphProto &body = *copy->mutable_graph();
  body = graph;
  body.clear_input();
  body.clear_value_info();
  for (const Binding &binding : bindings) {
    auto type = cast<RankedTensorType>(binding.value.getType());
    auto *info = body.add_input();
    info->set_name(binding.name);
    auto *tensorType = info->mutable_type()->mutable_tensor_type();
    tensorType->set_elem_type(binding.onnxType);
    auto *shape = tensorType->mutable_shape();
    for (int64_t d : type.getShape())
      shape->add_dim()->set_dim_value(d);
    DenseElementsAttr constant = getConstant(binding.value);
    bool foldable = binding.onnxType == onnx::TensorProto::INT64 ||
                    binding.onnxType == onnx::TensorProto::INT32 ||
                    binding.onnxType == onnx::TensorProto::BOOL;
    if (!constant || !foldable || constant.getNumElements() > 4096)
      continue;
    auto *init = body.add_initializer();
    init->set_name(binding.name);
    init->set_data_type(binding.onnxType);
    for (int64_t d : type.getShape())
      init->add_dims(d);
    for (const APInt &v : constant.getValues<APInt>()) {
      if (binding.onnxType == onnx::TensorProto::INT64)
        init->add_int64_data(v.getSExtValue());
      else
        init->add_int32_data(binding.onnxType == onnx::TensorProto::BOOL ? !v.isZero()
                                                                        : v.getSExtValue());
    }
  }
  nameUnnamedNodes(body);
  std::string error;
  try {
    if (!foldShapeComputations(*copy, data, error))
      return nullptr;
  } catch (const std::exception &) {
    return nullptr;
  }
  return copy;
}

/// Imports `original` at the builder's insertion point with its inputs bound to `inputs`
/// (as many), naming its nodes "<prefix><node>"; returns the values of its outputs. Nodes
/// read the outer scope's tensors by name; nested subgraphs import through their own
/// converters. The nodes imported are those of its specialization to these values
/// (specializeSubgraph), or its own where ONNX inference rejects that.
FailureOr<SmallVector<Value>> GraphImporter::inlineGraph(const onnx::GraphProto &original,
                                                         ArrayRef<Value> inputs,
                                                         std::string prefix,
                                                         OpBuilder &builder) {
  SmallVector<Binding> bindings;
  for (auto [info, value] : llvm::zip(original.input(), inputs)) {
    auto type = cast<RankedTensorType>(value.getType());
    if (!agrees(info.type(), type)) {
      std::string got;
      llvm::raw_string_ostream os(got);
      os << type;
      return report("subgraph input '" + prefix + info.name() + "' is given a " + got +
                    ", which disagrees with its declared type");
    }
    int32_t declared = info.type().has_tensor_type() ? info.type().tensor_type().elem_type() : 0;
    bindings.push_back({info.name(), value,
                        declared ? declared : onnxElementTypeOf(type.getElementType())});
  }
  llvm::StringSet<> seen;
  SmallVector<std::string> reads;
  collectOuterReads(original, {}, seen, reads);
  for (const std::string &name : reads)
    if (Value value = values.lookup(name)) {
      int32_t known = onnxElementType(name);
      bindings.push_back({name, value, known ? known : onnxElementTypeOf(getElementType(value))});
    }

  ShapeDataMap data;
  std::unique_ptr<onnx::ModelProto> specialized = specializeSubgraph(original, bindings, data);
  const onnx::GraphProto &graph = specialized ? specialized->graph() : original;
  SubgraphScope scope(*this, graph, std::move(prefix), specialized ? &data : shapeData);
  collectTypes(graph);
  llvm::StringSet<> bound;
  for (const Binding &binding : bindings) {
    values[binding.name] = binding.value;
    sequences.erase(binding.name);
    bound.insert(binding.name);
  }
  for (const auto &init : graph.initializer()) {
    if (bound.contains(init.name()))
      continue;
    std::string message;
    auto attr = convertTensor(init, &ctx, message);
    if (failed(attr))
      return report("subgraph initializer " + message);
    values[init.name()] = builder.create<tosa::ConstOp>(
        NameLoc::get(StringAttr::get(&ctx, scopePrefix + init.name())), attr->getType(),
        *attr);
  }
  for (int i = 0, e = graph.node_size(); i < e; ++i)
    if (failed(importNode(graph.node(i), i, builder)))
      return failure();
  SmallVector<Value> results;
  for (const auto &output : graph.output()) {
    Value value = values.lookup(output.name());
    if (!value)
      return report("subgraph output '" + scopePrefix + output.name() +
                    "' is never produced");
    results.push_back(value);
  }
  return results;
}

OwningOpRef<ModuleOp> GraphImporter::import(const onnx::ModelProto &model) {
  this->model = &model;
  for (const auto &opsetId : model.opset_import())
    if (opsetId.domain().empty() || opsetId.domain() == "ai.onnx")
      opset = opsetId.version();
  const onnx::GraphProto &graph = model.graph();
  bool usesDefaultDomain = llvm::any_of(graph.node(), [](const onnx::NodeProto &node) {
    return node.domain().empty() || node.domain() == "ai.onnx";
  });
  if (opset == 0 && usesDefaultDomain) {
    (void)report("model imports no version of the default ONNX opset");
    return nullptr;
  }
  if (graph.sparse_initializer_size() > 0) {
    (void)report("sparse initializers are not supported");
    return nullptr;
  }
  collectTypes(graph);
  if (failed(checkSupported(graph)))
    return nullptr;

  auto nameLoc = [&](const std::string &name) -> Location {
    return NameLoc::get(StringAttr::get(&ctx, name));
  };
  OwningOpRef<ModuleOp> module = ModuleOp::create(
      nameLoc(graph.name().empty() ? std::string("onnx") : graph.name()));
  OpBuilder builder(&ctx);
  builder.setInsertionPointToEnd(module->getBody());

  // Signature: graph inputs that are not initializers.
  llvm::StringSet<> initializerNames;
  for (const auto &init : graph.initializer())
    initializerNames.insert(init.name());
  SmallVector<const onnx::ValueInfoProto *> args;
  SmallVector<Type> argTypes;
  SmallVector<Location> argLocs;
  for (const auto &input : graph.input()) {
    if (initializerNames.contains(input.name()) && !specialized.contains(input.name()))
      continue;
    auto type = getStaticType(input.name(), "graph input");
    if (failed(type))
      return nullptr;
    args.push_back(&input);
    Type storage = unsignedStorageType(onnxElementType(input.name()), &ctx);
    argTypes.push_back(storage ? type->clone(storage) : *type);
    argLocs.push_back(nameLoc(input.name()));
  }
  auto func = builder.create<func::FuncOp>(
      nameLoc(graph.name().empty() ? std::string("main") : graph.name()),
      "main", builder.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  for (auto [index, arg, loc, info] :
       llvm::enumerate(entry->getArguments(), argLocs, args)) {
    arg.setLoc(loc);
    values[info->name()] = arg;
    auto computeType = cast<RankedTensorType>(*getStaticType(info->name(), "graph input"));
    if (unsignedBits(onnxElementType(info->name())))
      func.setArgAttr(index, "loupe.unsigned", builder.getUnitAttr());
    if (computeType.getNumElements() == 0) {
      // Nothing to read: the argument stays in the signature, its (empty) value is known.
      values[info->name()] = createEmptyConst(builder, loc, computeType);
    } else if (unsignedBits(onnxElementType(info->name()))) {
      // Zero-extended into the computing type (a sign-extending cast, then the mask).
      ImplicitLocOpBuilder b(loc, builder);
      values[info->name()] = createCast(b, arg, computeType.getElementType());
      wrapUnsigned(info->name(), b);
    }
  }

  for (const auto &init : graph.initializer()) {
    auto attr = convertTensor(init, &ctx, error);
    if (failed(attr)) {
      error = fileName + ": initializer " + error;
      return nullptr;
    }
    values[init.name()] =
        builder.create<tosa::ConstOp>(nameLoc(init.name()),
                                      attr->getType(), *attr);
    if (specialized.contains(init.name()))
      for (auto [index, info] : llvm::enumerate(args))
        if (info->name() == init.name())
          func.setArgAttr(index, "loupe.specialized", *attr);
  }

  for (int i = 0, e = graph.node_size(); i < e; ++i)
    if (failed(importNode(graph.node(i), i, builder)))
      return nullptr;

  SmallVector<Value> results;
  for (const auto &output : graph.output()) {
    auto it = values.find(output.name());
    if (it == values.end()) {
      (void)report("graph output '" + output.name() + "' is never produced");
      return nullptr;
    }
    Value result = it->second;
    if (Type storage = unsignedStorageType(onnxElementType(output.name()), &ctx)) {
      ImplicitLocOpBuilder b(nameLoc(output.name()), builder);
      result = createCast(b, result, storage);
    }
    results.push_back(result);
  }
  builder.create<func::ReturnOp>(nameLoc("return"), results);
  func.setFunctionType(
      builder.getFunctionType(argTypes, ValueRange(results).getTypes()));
  for (auto [index, output] : llvm::enumerate(graph.output()))
    if (unsignedBits(onnxElementType(output.name())))
      func.setResultAttr(index, "loupe.unsigned", builder.getUnitAttr());

  // Drop constants nothing uses (unused initializers, folded weights).
  SmallVector<Operation *> deadConstants;
  func.walk([&](tosa::ConstOp op) {
    if (op->use_empty())
      deadConstants.push_back(op);
  });
  for (Operation *op : deadConstants)
    op->erase();
  moveWeightsToResources(func);

  std::string diagnostics;
  {
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
      llvm::raw_string_ostream os(diagnostics);
      os << "\n  " << diag.getLocation() << ": " << diag;
      for (const Diagnostic &note : diag.getNotes())
        os << "\n  note: " << note;
      return success();
    });
    if (failed(verify(*module))) {
      (void)report("imported module does not verify:" + diagnostics);
      return nullptr;
    }
  }
  return module;
}

//===----------------------------------------------------------------------===//
// NodeContext
//===----------------------------------------------------------------------===//

NodeContext::NodeContext(GraphImporter &importer, const onnx::NodeProto &node,
                         StringRef name, ImplicitLocOpBuilder &builder)
    : b(builder), importer(importer), node(node), nodeName(name.str()) {}

StringRef NodeContext::opType() const { return node.op_type(); }
int64_t NodeContext::opset() const { return importer.opset; }

unsigned NodeContext::numInputs() const { return node.input_size(); }
bool NodeContext::hasInput(unsigned i) const {
  return i < numInputs() && !node.input(i).empty();
}
Value NodeContext::input(unsigned i) const {
  return hasInput(i) ? importer.values.lookup(node.input(i)) : Value();
}
StringRef NodeContext::inputName(unsigned i) const {
  return i < numInputs() ? StringRef(node.input(i)) : StringRef();
}
RankedTensorType NodeContext::inputType(unsigned i) const {
  Value v = input(i);
  return v ? cast<RankedTensorType>(v.getType()) : RankedTensorType();
}
DenseElementsAttr NodeContext::constantInput(unsigned i) const {
  Value v = input(i);
  return v ? getConstant(v) : DenseElementsAttr();
}

FailureOr<SmallVector<int64_t>> NodeContext::constantIntsInput(unsigned i) {
  DenseElementsAttr attr = constantInput(i);
  SmallVector<int64_t> result;
  if (!attr && hasInput(i)) {
    // Not a constant op, but maybe ONNX data propagation knows the values.
    auto it = importer.shapeData->find(node.input(i));
    if (it != importer.shapeData->end() &&
        llvm::all_of(it->second.dim(),
                     [](const auto &dim) { return dim.has_dim_value(); })) {
      for (const auto &dim : it->second.dim())
        result.push_back(dim.dim_value());
      return result;
    }
  }
  if (!attr || !isa<IntegerType>(attr.getElementType()))
    return fail("input '" + inputName(i) +
                "' must be a constant integer tensor");
  for (const APInt &v : attr.getValues<APInt>())
    result.push_back(v.getSExtValue());
  return result;
}

FailureOr<double> NodeContext::constantScalarInput(unsigned i) {
  DenseElementsAttr attr = constantInput(i);
  if (!attr || attr.getNumElements() != 1)
    return fail("input '" + inputName(i) + "' must be a one-element constant");
  if (isa<FloatType>(attr.getElementType()))
    return (*attr.getValues<APFloat>().begin()).convertToDouble();
  return static_cast<double>((*attr.getValues<APInt>().begin()).getSExtValue());
}

bool NodeContext::isUnsigned(StringRef name) const {
  return unsignedBits(importer.onnxElementType(name.str())) != 0;
}

unsigned NodeContext::numOutputs() const { return node.output_size(); }
bool NodeContext::hasOutput(unsigned i) const {
  return i < numOutputs() && !node.output(i).empty();
}
StringRef NodeContext::outputName(unsigned i) const {
  return i < numOutputs() ? StringRef(node.output(i)) : StringRef();
}

FailureOr<RankedTensorType> NodeContext::outputType(unsigned i) {
  if (!hasOutput(i))
    return fail("output " + Twine(i) + " is missing");
  auto type = importer.getStaticType(node.output(i), "tensor");
  if (failed(type))
    return fail("needs a static shape for output '" + outputName(i) + "'");
  if (exceedsElementLimit(type->getShape()))
    return fail("output '" + outputName(i) + "' would have more than 2^37 elements");
  return type;
}

RankedTensorType NodeContext::knownOutputType(unsigned i) const {
  std::string why;
  return hasOutput(i) ? importer.findStaticType(node.output(i), why) : RankedTensorType();
}

void NodeContext::setOutput(unsigned i, Value value) {
  if (!hasOutput(i))
    return;
  importer.values[node.output(i)] = value;
  importer.sequences.erase(node.output(i)); // it shadows an outer scope's sequence
}

bool NodeContext::isSequenceInput(unsigned i) const {
  return hasInput(i) && importer.sequences.count(node.input(i));
}

FailureOr<SmallVector<Value>> NodeContext::sequenceInput(unsigned i) {
  if (!isSequenceInput(i))
    return fail("input '" + inputName(i) + "' must be a sequence");
  return importer.sequences.lookup(node.input(i));
}

void NodeContext::setSequenceOutput(unsigned i, ArrayRef<Value> values) {
  if (!hasOutput(i))
    return;
  importer.sequences[node.output(i)] = SmallVector<Value>(values);
  importer.values.erase(node.output(i)); // it shadows an outer scope's tensor
}

static const onnx::AttributeProto *findAttr(const onnx::NodeProto &node,
                                            StringRef name) {
  for (const auto &attr : node.attribute())
    if (attr.name() == name)
      return &attr;
  return nullptr;
}

bool NodeContext::hasAttr(StringRef attr) const {
  return findAttr(node, attr) != nullptr;
}
int64_t NodeContext::getInt(StringRef attr, int64_t defaultValue) const {
  const auto *a = findAttr(node, attr);
  return a ? a->i() : defaultValue;
}
float NodeContext::getFloat(StringRef attr, float defaultValue) const {
  const auto *a = findAttr(node, attr);
  return a ? a->f() : defaultValue;
}
std::string NodeContext::getString(StringRef attr,
                                   StringRef defaultValue) const {
  const auto *a = findAttr(node, attr);
  return a ? a->s() : defaultValue.str();
}
SmallVector<int64_t> NodeContext::getInts(StringRef attr) const {
  const auto *a = findAttr(node, attr);
  return a ? SmallVector<int64_t>(a->ints().begin(), a->ints().end())
           : SmallVector<int64_t>();
}
SmallVector<std::string> NodeContext::getStrings(StringRef attr) const {
  const auto *a = findAttr(node, attr);
  return a ? SmallVector<std::string>(a->strings().begin(), a->strings().end())
           : SmallVector<std::string>();
}
SmallVector<float> NodeContext::getFloats(StringRef attr) const {
  const auto *a = findAttr(node, attr);
  return a ? SmallVector<float>(a->floats().begin(), a->floats().end())
           : SmallVector<float>();
}

FailureOr<Type> NodeContext::getElementTypeAttr(StringRef attr) {
  const auto *a = findAttr(node, attr);
  if (!a)
    return fail("missing attribute '" + attr + "'");
  Type type = convertElementType(a->i(), b.getContext());
  if (!type)
    return unsupportedAttr(attr, getElementTypeName(a->i()));
  return type;
}

FailureOr<DenseElementsAttr> NodeContext::getTensor(StringRef attr) {
  const auto *a = findAttr(node, attr);
  if (!a || !a->has_t())
    return fail("missing tensor attribute '" + attr + "'");
  std::string message;
  auto result = convertTensor(a->t(), b.getContext(), message);
  if (failed(result))
    return fail("attribute '" + attr + "': " + message);
  return result;
}

FailureOr<SmallVector<Value>> NodeContext::inlineGraphAttr(StringRef attr,
                                                           ArrayRef<Value> inputs,
                                                           const Twine &scope) {
  const auto *a = findAttr(node, attr);
  if (!a || !a->has_g())
    return fail("missing graph attribute '" + attr + "'");
  const onnx::GraphProto &graph = a->g();
  if (graph.input_size() != static_cast<int>(inputs.size()))
    return fail("subgraph '" + attr + "' has " + Twine(graph.input_size()) + " inputs, " +
                Twine(inputs.size()) + " given");
  if (graph.sparse_initializer_size() > 0)
    return fail("subgraph '" + attr + "' has sparse initializers, which are not supported");
  // An empty body still costs a little (the unrolled values it passes on).
  importer.inlinedNodes += std::max(graph.node_size(), 1);
  if (importer.inlinedNodes > kMaxInlinedNodes)
    return fail("unrolling would import more than " + Twine(kMaxInlinedNodes) +
                " subgraph nodes (reached at " + scope + " of '" + attr + "', " +
                Twine(graph.node_size()) + " nodes); the trip count is too large");
  return importer.inlineGraph(graph, inputs, (name() + "/" + scope + "/").str(), b);
}

LogicalResult NodeContext::fail(const Twine &message) {
  return importer.report("node '" + name() + "' (" + opType() + ", opset " +
                         Twine(opset()) + "): " + message);
}

LogicalResult NodeContext::unsupportedAttr(StringRef attr,
                                           const Twine &value) {
  return fail("unsupported value " + value + " of attribute '" + attr + "'");
}

} // namespace loupe::frontends::onnx_import

//===----------------------------------------------------------------------===//
// Public API
//===----------------------------------------------------------------------===//

namespace loupe::frontends {

void registerOnnxImporterDialects(MLIRContext &context) {
  context.loadDialect<func::FuncDialect, tosa::TosaDialect, tensor::TensorDialect,
                      arith::ArithDialect, linalg::LinalgDialect, math::MathDialect,
                      cf::ControlFlowDialect>();
}

OwningOpRef<ModuleOp> importOnnxBytes(const std::string &bytes,
                                      const std::string &name,
                                      MLIRContext &context,
                                      std::string &error,
                                      const InputBindings &inputs,
                                      std::vector<InputDeclaration> *declared) {
  error.clear();
  onnx::ModelProto model;
  onnx_import::ShapeDataMap shapeData;
  std::vector<std::string> specialized;
  if (bytes.empty() || !model.ParseFromString(bytes)) {
    error = name + ": not a valid ONNX model (protobuf parse failed)";
    return nullptr;
  }
  if (declared) {
    declared->clear();
    llvm::StringSet<> initializers;
    for (const auto &init : model.graph().initializer())
      initializers.insert(init.name());
    for (const auto &input : model.graph().input()) {
      if (initializers.contains(input.name()))
        continue;
      InputDeclaration d{input.name(), {}};
      if (input.type().has_tensor_type() && input.type().tensor_type().has_shape())
        for (const auto &dim : input.type().tensor_type().shape().dim())
          d.dims.push_back(onnx_import::dimText(dim));
      declared->push_back(std::move(d));
    }
  }
  try {
    onnx_import::fixOnnxShapeInference();
    onnx::checker::check_model(model);
    std::string attrError;
    if (failed(onnx_import::checkAttributesForInference(model.graph(),
                                                        attrError))) {
      error = name + ": invalid ONNX model: " + attrError;
      return nullptr;
    }
    if (failed(onnx_import::checkTensorSignature(model.graph(), attrError)) ||
        failed(onnx_import::bindInputShapes(*model.mutable_graph(), inputs, attrError))) {
      error = name + ": " + attrError;
      return nullptr;
    }
    specialized = onnx_import::specializeShapeTensorInputs(*model.mutable_graph(), inputs.values);
    onnx_import::nameUnnamedNodes(*model.mutable_graph());
    onnx_import::foldBatchNormIntoConv(*model.mutable_graph());
    // Folded weights are initializers now, their ranks known: checked again.
    if (onnx_import::foldConstantNodes(*model.mutable_graph()) &&
        failed(onnx_import::checkAttributesForInference(model.graph(), attrError))) {
      error = name + ": invalid ONNX model: " + attrError;
      return nullptr;
    }
    if (!onnx_import::foldShapeComputations(model, shapeData, attrError)) {
      error = name + ": " + attrError;
      return nullptr;
    }
  } catch (const std::exception &e) {
    // ValidationError/InferenceError messages can span several lines.
    std::string what = e.what();
    error = name + ": invalid ONNX model: " + what;
    return nullptr;
  }
  registerOnnxImporterDialects(context);
  onnx_import::GraphImporter importer(context, name, shapeData, specialized);
  OwningOpRef<ModuleOp> module = importer.import(model);
  if (!module)
    error = importer.takeError();
  return module;
}

OwningOpRef<ModuleOp> importOnnxFile(const std::string &path,
                                     MLIRContext &context,
                                     std::string &error,
                                     const InputBindings &inputs,
                                     std::vector<InputDeclaration> *declared) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    error = path + ": cannot open file";
    return nullptr;
  }
  std::ostringstream contents;
  contents << file.rdbuf();
  if (file.bad()) {
    error = path + ": read error";
    return nullptr;
  }
  return importOnnxBytes(contents.str(), path, context, error, inputs, declared);
}

} // namespace loupe::frontends
