//===- OnnxShapeTensorInputs.cpp - Specialize graph inputs read as shape tensors ---===//
//
// Some ONNX operands decide shapes or attributes rather than carry data: Reshape's shape,
// Slice's starts, Pad's pads, Resize's scales, TopK's k, a Loop's trip count ("shape tensors"
// in TensorRT's terms). A static-shape compiler needs their values. When such an operand is a
// graph input and the run gives its value, the input is specialized: its value becomes an
// initializer of the same name (so ONNX shape inference and every converter see a constant),
// the input stays in the signature, and the artifact checks each call feeds that value
// (TensorRT builds engines for shape-tensor values the same way, with a profile per value).
// What computes such an operand through shape arithmetic (Cast, Add, Concat, ...) counts too.
//
//===----------------------------------------------------------------------===//
#include "OnnxGraphRewrites.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

namespace loupe::frontends::onnx_import {
namespace {

/// Input slots each op reads as a shape tensor.
const llvm::StringMap<std::vector<int>> &shapeTensorOperands() {
  static const llvm::StringMap<std::vector<int>> table = {
      {"Reshape", {1}},        {"Expand", {1}},          {"Tile", {1}},
      {"Pad", {1, 2, 3}},      {"Slice", {1, 2, 3, 4}},  {"Split", {1}},
      {"Squeeze", {1}},        {"Unsqueeze", {1}},       {"ConstantOfShape", {0}},
      {"Range", {0, 1, 2}},    {"OneHot", {1}},          {"Trilu", {1}},
      {"CumSum", {1}},         {"ReduceSum", {1}},       {"ReduceMean", {1}},
      {"ReduceMax", {1}},      {"ReduceMin", {1}},       {"ReduceProd", {1}},
      {"ReduceL1", {1}},       {"ReduceL2", {1}},        {"ReduceSumSquare", {1}},
      {"ReduceLogSum", {1}},   {"ReduceLogSumExp", {1}}, {"Resize", {1, 2, 3}},
      {"Upsample", {1}},       {"TopK", {1}},            {"Dropout", {1, 2}},
      {"If", {0}},             {"Loop", {0, 1}},         {"HannWindow", {0}},
      {"HammingWindow", {0}},  {"BlackmanWindow", {0}},  {"DFT", {1, 2}},
      {"STFT", {1, 3}},        {"MelWeightMatrix", {0, 1, 2, 3, 4}},
      {"Compress", {1}},       {"MaxUnpool", {2}},       {"CenterCropPad", {1}},
      {"SplitToSequence", {1}},
  };
  return table;
}

int64_t elementCount(const onnx::ValueInfoProto &input) {
  int64_t n = 1;
  for (const auto &dim : input.type().tensor_type().shape().dim())
    n *= dim.dim_value();
  return n;
}

/// Bytes per element of the fixed-size ONNX types a value can be given for; 0 otherwise.
size_t elementSize(int32_t type) {
  switch (type) {
  case onnx::TensorProto::BOOL: case onnx::TensorProto::INT8: case onnx::TensorProto::UINT8:
    return 1;
  case onnx::TensorProto::INT16: case onnx::TensorProto::UINT16:
  case onnx::TensorProto::FLOAT16: case onnx::TensorProto::BFLOAT16:
    return 2;
  case onnx::TensorProto::INT32: case onnx::TensorProto::UINT32: case onnx::TensorProto::FLOAT:
    return 4;
  case onnx::TensorProto::INT64: case onnx::TensorProto::UINT64: case onnx::TensorProto::DOUBLE:
    return 8;
  default:
    return 0;
  }
}

} // namespace

std::vector<std::string> specializeShapeTensorInputs(onnx::GraphProto &graph,
                                                     const std::vector<std::string> &values) {
  llvm::StringSet<> initializers, readAsShape;
  for (const auto &init : graph.initializer())
    initializers.insert(init.name());
  for (const auto &node : graph.node()) {
    if (!node.domain().empty() && node.domain() != "ai.onnx")
      continue;
    auto it = shapeTensorOperands().find(node.op_type());
    if (it == shapeTensorOperands().end())
      continue;
    for (int slot : it->second)
      if (slot < node.input_size() && !node.input(slot).empty())
        readAsShape.insert(node.input(slot));
  }
  // What computes a shape tensor is read as one too (Range(0, Cast(size), 1) in an expanded
  // window function): walk the nodes backwards through shape arithmetic.
  static const llvm::StringSet<> kShapeArithmetic = {
      "Cast", "Identity", "Squeeze", "Unsqueeze", "Reshape", "Concat", "Add", "Sub",
      "Mul",  "Div",      "Neg",     "Ceil",      "Floor",   "Max",    "Min"};
  for (auto node = graph.node().rbegin(); node != graph.node().rend(); ++node)
    if ((node->domain().empty() || node->domain() == "ai.onnx") &&
        kShapeArithmetic.contains(node->op_type()) &&
        llvm::any_of(node->output(), [&](const std::string &o) { return readAsShape.contains(o); }))
      for (const std::string &input : node->input())
        if (!input.empty())
          readAsShape.insert(input);
  std::vector<std::string> specialized;
  size_t position = 0;
  for (const auto &input : graph.input()) {
    if (initializers.contains(input.name()))
      continue;
    size_t at = position++;
    if (at >= values.size() || !readAsShape.contains(input.name()) ||
        !input.type().has_tensor_type() || !input.type().tensor_type().has_shape())
      continue;
    const auto &type = input.type().tensor_type();
    size_t size = elementSize(type.elem_type());
    if (!size || values[at].size() != size * elementCount(input))
      continue; // Not the declared type and shape: the run's input check reports it.
    onnx::TensorProto *init = graph.add_initializer();
    init->set_name(input.name());
    init->set_data_type(type.elem_type());
    for (const auto &dim : type.shape().dim())
      init->add_dims(dim.dim_value());
    init->set_raw_data(values[at]);
    specialized.push_back(input.name());
  }
  return specialized;
}

} // namespace loupe::frontends::onnx_import
