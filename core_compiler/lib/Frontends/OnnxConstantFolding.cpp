//===- OnnxConstantFolding.cpp - Weight computations evaluated at import --------===//
//
// Quantization exports compute their weights' scales and fake-quantized values in the graph:
// torch's per-channel export is Abs -> ReduceMax -> Clip -> Div (the scale) -> QuantizeLinear ->
// DequantizeLinear of the weight initializer, a static QDQ export DequantizeLinear of an int8
// initializer. Every input is a constant, so the result is too: this pass evaluates such nodes
// on the ModelProto, once, and replaces each by an initializer (what ONNX Runtime's constant
// folding does at session creation), instead of the compiled model recomputing its weights on
// every run. The arithmetic is the runtime's: f32 operations, QuantizeLinear's x / scale
// rounded half to even, DequantizeLinear's (x - zero point) * scale with the difference exact.
//
//===----------------------------------------------------------------------===//
#include "OnnxGraphRewrites.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <optional>

namespace loupe::frontends::onnx_import {
namespace {

using onnx::TensorProto;

/// Folded tensors stay below this many elements (a weight; bounds import time and memory).
constexpr int64_t kMaxFoldedElements = int64_t(1) << 26;

/// A constant: f32 values, or integers as int32 (8/32-bit ones; int64 ones, as reduction axes
/// come, when they fit).
struct Constant {
  int32_t type = TensorProto::FLOAT;
  std::vector<int64_t> dims;
  std::vector<float> f;
  std::vector<int32_t> i;
  int64_t size() const {
    return type == TensorProto::FLOAT ? int64_t(f.size()) : int64_t(i.size());
  }
};

int64_t product(const std::vector<int64_t> &dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

bool isInteger(int32_t type) {
  return type == TensorProto::INT8 || type == TensorProto::UINT8 || type == TensorProto::INT32;
}

/// The values of `t` (raw or typed fields), nullopt for other types or external data.
std::optional<Constant> read(const TensorProto &t) {
  Constant c;
  c.type = t.data_type();
  c.dims.assign(t.dims().begin(), t.dims().end());
  int64_t n = product(c.dims);
  if (t.data_location() == TensorProto::EXTERNAL || n > kMaxFoldedElements ||
      (c.type != TensorProto::FLOAT && c.type != TensorProto::INT64 && !isInteger(c.type)))
    return std::nullopt;
  if (c.type == TensorProto::INT64) {
    std::vector<int64_t> wide(n);
    if (t.has_raw_data() && t.raw_data().size() == size_t(n) * 8)
      std::memcpy(wide.data(), t.raw_data().data(), size_t(n) * 8);
    else if (t.int64_data_size() == n)
      wide.assign(t.int64_data().begin(), t.int64_data().end());
    else
      return std::nullopt;
    for (int64_t v : wide) {
      if (v != int32_t(v))
        return std::nullopt;
      c.i.push_back(int32_t(v));
    }
    return c;
  }
  if (t.has_raw_data()) {
    const std::string &raw = t.raw_data();
    size_t width = c.type == TensorProto::FLOAT || c.type == TensorProto::INT32 ? 4 : 1;
    if (raw.size() != size_t(n) * width)
      return std::nullopt;
    if (c.type == TensorProto::FLOAT) {
      c.f.resize(n);
      std::memcpy(c.f.data(), raw.data(), raw.size());
    } else if (c.type == TensorProto::INT32) {
      c.i.resize(n);
      std::memcpy(c.i.data(), raw.data(), raw.size());
    } else {
      for (char v : raw)
        c.i.push_back(c.type == TensorProto::INT8 ? int32_t(int8_t(v)) : int32_t(uint8_t(v)));
    }
    return c;
  }
  if (c.type == TensorProto::FLOAT && t.float_data_size() == n)
    c.f.assign(t.float_data().begin(), t.float_data().end());
  else if (isInteger(c.type) && t.int32_data_size() == n)
    c.i.assign(t.int32_data().begin(), t.int32_data().end());
  else
    return std::nullopt;
  return c;
}

TensorProto write(const std::string &name, const Constant &c) {
  TensorProto t;
  t.set_name(name);
  t.set_data_type(c.type);
  for (int64_t d : c.dims)
    t.add_dims(d);
  if (c.type == TensorProto::FLOAT) {
    t.set_raw_data(std::string(reinterpret_cast<const char *>(c.f.data()), c.f.size() * 4));
  } else if (c.type == TensorProto::INT32) {
    t.set_raw_data(std::string(reinterpret_cast<const char *>(c.i.data()), c.i.size() * 4));
  } else {
    std::string raw(c.i.size(), '\0');
    for (size_t k = 0; k < c.i.size(); ++k)
      raw[k] = char(c.i[k]);
    t.set_raw_data(raw);
  }
  return t;
}

/// Numpy broadcasting of two float tensors through `op`.
std::optional<Constant> binary(const Constant &a, const Constant &b,
                               const std::function<float(float, float)> &op) {
  if (a.type != TensorProto::FLOAT || b.type != TensorProto::FLOAT)
    return std::nullopt;
  std::optional<std::vector<int64_t>> dims = broadcastDims({a.dims, b.dims});
  if (!dims || product(*dims) > kMaxFoldedElements)
    return std::nullopt;
  Constant out;
  out.dims = *dims;
  forEachBroadcast({a.dims, b.dims}, out.dims, [&](llvm::ArrayRef<int64_t> at) {
    out.f.push_back(op(a.f[at[0]], b.f[at[1]]));
  });
  return out;
}

/// ReduceMax/ReduceMin over `axes` (all when empty), keeping reduced dims as 1 if `keep`.
std::optional<Constant> reduce(const Constant &x, std::vector<int64_t> axes, bool keep, bool max) {
  int64_t rank = int64_t(x.dims.size());
  if (x.type != TensorProto::FLOAT || x.f.empty())
    return std::nullopt;
  std::vector<bool> reduced(rank, axes.empty());
  for (int64_t a : axes) {
    if (a < -rank || a >= rank)
      return std::nullopt;
    reduced[(a + rank) % rank] = true;
  }
  Constant out;
  std::vector<int64_t> kept(rank); // the output dims with reduced ones as 1
  for (int64_t d = 0; d < rank; ++d) {
    kept[d] = reduced[d] ? 1 : x.dims[d];
    if (!reduced[d] || keep)
      out.dims.push_back(kept[d]);
  }
  out.f.assign(product(kept), max ? -INFINITY : INFINITY);
  std::vector<int64_t> index(rank, 0);
  for (float v : x.f) {
    int64_t o = 0;
    for (int64_t d = 0; d < rank; ++d)
      o = o * kept[d] + (reduced[d] ? 0 : index[d]);
    out.f[o] = max ? std::max(out.f[o], v) : std::min(out.f[o], v);
    for (int64_t d = rank - 1; d >= 0 && ++index[d] == x.dims[d]; --d)
      index[d] = 0;
  }
  return out;
}

/// The per-element index into a (de)quantization parameter: a scalar, or one value per slice
/// along `axis` of `x`; nullopt when `param` is neither.
std::optional<std::function<int64_t(int64_t)>> paramIndex(const Constant &x, const Constant &param,
                                                          int64_t axis) {
  if (param.size() == 1)
    return [](int64_t) { return int64_t(0); };
  int64_t rank = int64_t(x.dims.size());
  if (param.dims.size() != 1 || axis < -rank || axis >= rank)
    return std::nullopt;
  axis = (axis + rank) % rank;
  int64_t channels = x.dims[axis], inner = 1;
  for (int64_t d = axis + 1; d < rank; ++d)
    inner *= x.dims[d];
  if (param.dims[0] != channels)
    return std::nullopt;
  return [=](int64_t k) { return (k / inner) % channels; };
}

/// A (de)quantization's scale and zero point (0 when absent) for each element of x.
struct Quantization {
  std::function<float(int64_t)> scale;
  std::function<int32_t(int64_t)> zero;
};

/// The parameters of QuantizeLinear or DequantizeLinear `node` on `x`: per tensor or per slice
/// along its `axis`; nullopt for blocked ones or shapes that are neither.
std::optional<Quantization> quantization(const onnx::NodeProto &node, const Constant &x,
                                         const Constant &scale, const Constant *zero) {
  int64_t axis = intAttribute(node, "axis", 1);
  auto si = paramIndex(x, scale, axis);
  auto zi = zero ? paramIndex(x, *zero, axis) : std::nullopt;
  if (scale.type != TensorProto::FLOAT || intAttribute(node, "block_size", 0) || !si ||
      (zero && (!zi || zero->type == TensorProto::FLOAT)))
    return std::nullopt;
  return Quantization{[&scale, si = *si](int64_t k) { return scale.f[si(k)]; },
                      [zero, zi](int64_t k) { return zero ? zero->i[(*zi)(k)] : 0; }};
}

/// Evaluates `node` on constant `in` (empty optional inputs as null), or nullopt.
std::optional<Constant> evaluate(const onnx::NodeProto &node,
                                 const std::vector<const Constant *> &in) {
  const std::string &op = node.op_type();
  auto arg = [&](size_t k) { return k < in.size() ? in[k] : nullptr; };
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") {
    if (in.size() != 2 || !in[0] || !in[1])
      return std::nullopt;
    char kind = op[0];
    return binary(*in[0], *in[1], [kind](float a, float b) {
      return kind == 'A' ? a + b : kind == 'S' ? a - b : kind == 'M' ? a * b : a / b;
    });
  }
  if (op == "Abs" || op == "Neg") {
    if (!arg(0) || arg(0)->type != TensorProto::FLOAT)
      return std::nullopt;
    Constant out = *in[0];
    for (float &v : out.f)
      v = op == "Abs" ? std::fabs(v) : -v;
    return out;
  }
  if (op == "Clip") { // min and max as inputs (opset 11+), either may be absent
    const Constant *x = arg(0), *lo = arg(1), *hi = arg(2);
    if (!x || x->type != TensorProto::FLOAT || findAttribute(node, "min") ||
        findAttribute(node, "max") ||
        (lo && (lo->type != TensorProto::FLOAT || lo->size() != 1)) ||
        (hi && (hi->type != TensorProto::FLOAT || hi->size() != 1)))
      return std::nullopt;
    Constant out = *x;
    for (float &v : out.f)
      v = std::min(std::max(v, lo ? lo->f[0] : -INFINITY), hi ? hi->f[0] : INFINITY);
    return out;
  }
  if (op == "ReduceMax" || op == "ReduceMin") {
    std::vector<int64_t> axes;
    if (const onnx::AttributeProto *a = findAttribute(node, "axes"))
      axes.assign(a->ints().begin(), a->ints().end());
    else if (const Constant *a = arg(1); a && a->type == TensorProto::INT64)
      axes.assign(a->i.begin(), a->i.end());
    else if (a)
      return std::nullopt;
    if (axes.empty() && intAttribute(node, "noop_with_empty_axes", 0))
      return arg(0) ? std::optional<Constant>(*in[0]) : std::nullopt;
    return arg(0) ? reduce(*in[0], axes, intAttribute(node, "keepdims", 1), op == "ReduceMax")
                  : std::nullopt;
  }
  if (op == "QuantizeLinear") {
    const Constant *x = arg(0), *zero = arg(2);
    auto params = arg(1) && x ? quantization(node, *x, *in[1], zero) : std::nullopt;
    if (!params || x->type != TensorProto::FLOAT ||
        (zero && zero->type != TensorProto::INT8 && zero->type != TensorProto::UINT8) ||
        !intAttribute(node, "saturate", 1))
      return std::nullopt;
    Constant out;
    out.type = zero ? zero->type : TensorProto::UINT8;
    out.dims = x->dims;
    bool int8 = out.type == TensorProto::INT8;
    int32_t lo = int8 ? -128 : 0, hi = int8 ? 127 : 255;
    for (int64_t k = 0; k < x->size(); ++k) {
      float q = std::nearbyint(x->f[k] / params->scale(k)); // ties to even
      if (std::isnan(q))
        return std::nullopt; // left to the kernel, whatever it makes of it
      out.i.push_back(int32_t(std::clamp(double(q) + params->zero(k), double(lo), double(hi))));
    }
    return out;
  }
  if (op == "DequantizeLinear") {
    const Constant *x = arg(0), *zero = arg(2);
    auto params = arg(1) && x ? quantization(node, *x, *in[1], zero) : std::nullopt;
    if (!params || !isInteger(x->type) || (zero && zero->type != x->type))
      return std::nullopt;
    Constant out;
    out.dims = x->dims;
    for (int64_t k = 0; k < x->size(); ++k)
      out.f.push_back(float(x->i[k] - params->zero(k)) * params->scale(k));
    return out;
  }
  return std::nullopt;
}

} // namespace

int foldConstantNodes(onnx::GraphProto &graph) {
  llvm::StringMap<Constant> constants;
  for (const TensorProto &t : graph.initializer())
    if (std::optional<Constant> c = read(t))
      constants[t.name()] = std::move(*c);
  llvm::StringSet<> graphOutputs;
  for (const auto &output : graph.output())
    graphOutputs.insert(output.name());

  std::vector<bool> drop(graph.node_size(), false);
  std::vector<TensorProto> added;
  for (int n = 0; n < graph.node_size(); ++n) {
    const onnx::NodeProto &node = graph.node(n);
    if (!(node.domain().empty() || node.domain() == "ai.onnx") || node.output_size() != 1 ||
        graphOutputs.contains(node.output(0)))
      continue;
    if (node.op_type() == "Constant") { // a source, read by what folds
      if (const onnx::AttributeProto *value = findAttribute(node, "value"))
        if (std::optional<Constant> c = read(value->t()))
          constants[node.output(0)] = std::move(*c);
      continue;
    }
    std::vector<const Constant *> inputs;
    bool allConstant = node.input_size() > 0;
    for (const std::string &name : node.input()) {
      auto it = name.empty() ? constants.end() : constants.find(name);
      allConstant &= name.empty() || it != constants.end();
      inputs.push_back(it == constants.end() ? nullptr : &it->second);
    }
    if (!allConstant)
      continue;
    std::optional<Constant> out = evaluate(node, inputs);
    if (!out || out->size() > kMaxFoldedElements)
      continue;
    added.push_back(write(node.output(0), *out));
    constants[node.output(0)] = std::move(*out);
    drop[n] = true;
  }
  if (added.empty())
    return 0;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  for (int n = 0; n < graph.node_size(); ++n)
    if (!drop[n])
      *kept.Add() = graph.node(n);
  graph.mutable_node()->Swap(&kept);
  // Only the results something still reads become initializers (not the scales and int8
  // weights between a weight and its dequantized copy).
  llvm::StringSet<> stillRead = graphOutputs;
  for (const onnx::NodeProto &node : graph.node())
    for (const std::string &name : node.input())
      stillRead.insert(name);
  int folded = int(added.size());
  for (TensorProto &t : added)
    if (stillRead.contains(t.name()))
      *graph.add_initializer() = std::move(t);
  return folded;
}

} // namespace loupe::frontends::onnx_import
