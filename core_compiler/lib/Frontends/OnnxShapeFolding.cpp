//===- OnnxShapeFolding.cpp - Evaluate shape computations at import ---------===//
//
// Exporters compute the integer operands of Reshape, Expand, Tile, Slice, ... from shapes at
// run time: Shape -> Gather -> Div -> Concat, Equal/Where around -1, Range. Once the input
// shapes are bound these are constants. This pass evaluates them on the ModelProto, between
// rounds of ONNX shape inference (with data propagation), and replaces every folded node by an
// initializer, so that inference then knows every shape statically and the importer sees
// constant operands. Only small integer tensors are evaluated; anything else stays a node.
//
//===----------------------------------------------------------------------===//
#include "OnnxGraphRewrites.h"

#include "onnx/defs/schema.h"
#include "onnx/onnx_pb.h"
#include "onnx/shape_inference/implementation.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <numeric>
#include <optional>

namespace loupe::frontends::onnx_import {
namespace {

/// Tensors larger than this are never evaluated (shape math is a handful of values).
constexpr int64_t kMaxFoldedElements = 4096;

/// A small integer tensor: int64/int32/bool values as int64, row-major.
struct IntTensor {
  int32_t type = onnx::TensorProto::INT64;
  std::vector<int64_t> dims;
  std::vector<int64_t> values;
  int64_t size() const { return static_cast<int64_t>(values.size()); }
};

bool isIntType(int32_t type) {
  return type == onnx::TensorProto::INT64 || type == onnx::TensorProto::INT32 ||
         type == onnx::TensorProto::BOOL;
}

int64_t count(const std::vector<int64_t> &dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t(1), std::multiplies<int64_t>());
}

std::optional<IntTensor> fromProto(const onnx::TensorProto &t) {
  if (!isIntType(t.data_type()) || t.data_location() == onnx::TensorProto::EXTERNAL)
    return std::nullopt;
  IntTensor out;
  out.type = t.data_type();
  out.dims.assign(t.dims().begin(), t.dims().end());
  if (llvm::any_of(out.dims, [](int64_t d) { return d < 0; }) ||
      count(out.dims) > kMaxFoldedElements)
    return std::nullopt;
  int64_t n = count(out.dims);
  if (t.has_raw_data()) {
    const std::string &raw = t.raw_data();
    size_t width = t.data_type() == onnx::TensorProto::INT64   ? 8
                   : t.data_type() == onnx::TensorProto::INT32 ? 4
                                                                : 1;
    if (raw.size() != static_cast<size_t>(n) * width)
      return std::nullopt;
    for (int64_t i = 0; i < n; ++i) {
      int64_t v = 0;
      if (width == 8)
        std::memcpy(&v, raw.data() + i * 8, 8);
      else if (width == 4) {
        int32_t w;
        std::memcpy(&w, raw.data() + i * 4, 4);
        v = w;
      } else {
        v = raw[i] != 0;
      }
      out.values.push_back(v);
    }
  } else if (t.data_type() == onnx::TensorProto::INT64) {
    out.values.assign(t.int64_data().begin(), t.int64_data().end());
  } else {
    out.values.assign(t.int32_data().begin(), t.int32_data().end());
  }
  if (out.size() != n)
    return std::nullopt;
  return out;
}

onnx::TensorProto toProto(const IntTensor &t, const std::string &name) {
  onnx::TensorProto proto;
  proto.set_name(name);
  proto.set_data_type(t.type);
  for (int64_t d : t.dims)
    proto.add_dims(d);
  for (int64_t v : t.values) {
    if (t.type == onnx::TensorProto::INT64)
      proto.add_int64_data(v);
    else
      proto.add_int32_data(static_cast<int32_t>(t.type == onnx::TensorProto::BOOL ? v != 0 : v));
  }
  return proto;
}

/// Numpy broadcasting of `inputs` through `fn` (element values in input order).
std::optional<IntTensor> broadcast(const std::vector<const IntTensor *> &inputs, int32_t type,
                                   const std::function<int64_t(const std::vector<int64_t> &)> &fn) {
  std::vector<std::vector<int64_t>> shapes;
  for (const IntTensor *t : inputs)
    shapes.push_back(t->dims);
  std::optional<std::vector<int64_t>> dims = broadcastDims(shapes);
  if (!dims || count(*dims) > kMaxFoldedElements)
    return std::nullopt;
  IntTensor out;
  out.type = type;
  out.dims = *dims;
  std::vector<int64_t> args(inputs.size());
  forEachBroadcast(shapes, *dims, [&](llvm::ArrayRef<int64_t> offsets) {
    for (size_t k = 0; k < inputs.size(); ++k)
      args[k] = inputs[k]->values[offsets[k]];
    out.values.push_back(fn(args));
  });
  return out;
}

std::optional<std::vector<int64_t>> intsAttr(const onnx::NodeProto &node, const char *name) {
  const auto *a = findAttribute(node, name);
  if (!a)
    return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}
std::optional<int64_t> normalize(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

/// Evaluates one node whose inputs are all known; nullopt when the op, a value or an attribute
/// is outside what this folds. `shapeOf` gives the static shape of a tensor (for Shape, Size).
class Evaluator {
public:
  Evaluator(const llvm::StringMap<IntTensor> &known,
            std::function<std::optional<std::vector<int64_t>>(const std::string &)> shapeOf)
      : known(known), shapeOf(std::move(shapeOf)) {}

  std::optional<IntTensor> eval(const onnx::NodeProto &node) {
    const std::string &op = node.op_type();
    if (op == "Shape" || op == "Size") {
      auto shape = node.input_size() ? shapeOf(node.input(0)) : std::nullopt;
      if (!shape)
        return std::nullopt;
      IntTensor out;
      if (op == "Size") {
        out.values = {count(*shape)};
        return out;
      }
      int64_t rank = shape->size();
      auto clamp = [&](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + rank : i, 0, rank); };
      int64_t start = clamp(intAttribute(node, "start", 0)),
              end = clamp(intAttribute(node, "end", rank));
      out.values.assign(shape->begin() + start, shape->begin() + std::max(start, end));
      out.dims = {out.size()};
      return out;
    }
    if (op == "Constant") {
      const auto *value = findAttribute(node, "value");
      if (value && value->has_t())
        return fromProto(value->t());
      IntTensor out;
      if (const auto *v = findAttribute(node, "value_int")) {
        out.values = {v->i()};
        return out;
      }
      if (const auto *v = findAttribute(node, "value_ints")) {
        out.values.assign(v->ints().begin(), v->ints().end());
        out.dims = {out.size()};
        return out;
      }
      return std::nullopt;
    }
    std::vector<const IntTensor *> in;
    for (const std::string &name : node.input()) {
      if (name.empty()) {
        in.push_back(nullptr);
        continue;
      }
      auto it = known.find(name);
      if (it == known.end())
        return std::nullopt;
      in.push_back(&it->second);
    }
    auto input = [&](size_t i) -> const IntTensor * { return i < in.size() ? in[i] : nullptr; };
    if (!input(0))
      return std::nullopt;
    const IntTensor &x = *in[0];
    int64_t rank = x.dims.size();

    auto binary = [&](const std::function<std::optional<int64_t>(int64_t, int64_t)> &fn,
                      int32_t type) -> std::optional<IntTensor> {
      if (in.size() != 2 || !in[1])
        return std::nullopt;
      bool ok = true;
      auto out = broadcast({in[0], in[1]}, type, [&](const std::vector<int64_t> &a) {
        std::optional<int64_t> r = fn(a[0], a[1]);
        ok &= r.has_value();
        return r.value_or(0);
      });
      return ok ? out : std::nullopt;
    };
    using R = std::optional<int64_t>;
    if (op == "Add")
      return binary([](int64_t a, int64_t b) -> R { return a + b; }, x.type);
    if (op == "Sub")
      return binary([](int64_t a, int64_t b) -> R { return a - b; }, x.type);
    if (op == "Mul")
      return binary([](int64_t a, int64_t b) -> R { return a * b; }, x.type);
    if (op == "Div") // Truncating, as integer Div everywhere else in the importer.
      return binary([](int64_t a, int64_t b) -> R { return b ? R(a / b) : std::nullopt; }, x.type);
    if (op == "Mod" && intAttribute(node, "fmod", 0) == 0) // Sign of the divisor (numpy's %).
      return binary([](int64_t a, int64_t b) -> R {
        if (!b)
          return std::nullopt;
        int64_t m = a % b;
        return m != 0 && ((m < 0) != (b < 0)) ? m + b : m;
      }, x.type);
    if (op == "Min" && in.size() == 2)
      return binary([](int64_t a, int64_t b) -> R { return std::min(a, b); }, x.type);
    if (op == "Max" && in.size() == 2)
      return binary([](int64_t a, int64_t b) -> R { return std::max(a, b); }, x.type);
    if (op == "Equal")
      return binary([](int64_t a, int64_t b) -> R { return a == b; }, onnx::TensorProto::BOOL);
    if (op == "Less")
      return binary([](int64_t a, int64_t b) -> R { return a < b; }, onnx::TensorProto::BOOL);
    if (op == "Greater")
      return binary([](int64_t a, int64_t b) -> R { return a > b; }, onnx::TensorProto::BOOL);
    if (op == "And")
      return binary([](int64_t a, int64_t b) -> R { return a && b; }, onnx::TensorProto::BOOL);
    if (op == "Or")
      return binary([](int64_t a, int64_t b) -> R { return a || b; }, onnx::TensorProto::BOOL);
    if (op == "Not" || op == "Neg" || op == "Abs" || op == "Identity") {
      IntTensor out = x;
      for (int64_t &v : out.values)
        v = op == "Not" ? !v : op == "Neg" ? -v : op == "Abs" ? std::abs(v) : v;
      return out;
    }
    if (op == "Where") {
      if (in.size() != 3 || !in[1] || !in[2])
        return std::nullopt;
      return broadcast({in[0], in[1], in[2]}, in[1]->type,
                       [](const std::vector<int64_t> &a) { return a[0] ? a[1] : a[2]; });
    }
    if (op == "Cast") {
      int64_t to = intAttribute(node, "to", 0);
      if (!isIntType(static_cast<int32_t>(to)))
        return std::nullopt;
      IntTensor out = x;
      out.type = static_cast<int32_t>(to);
      for (int64_t &v : out.values)
        v = to == onnx::TensorProto::BOOL    ? v != 0
            : to == onnx::TensorProto::INT32 ? static_cast<int32_t>(v)
                                             : v;
      return out;
    }
    if (op == "Unsqueeze" || op == "Squeeze") {
      std::optional<std::vector<int64_t>> axes = intsAttr(node, "axes");
      if (!axes && input(1))
        axes = input(1)->values;
      IntTensor out = x;
      if (op == "Unsqueeze") {
        if (!axes)
          return std::nullopt;
        int64_t outRank = rank + axes->size();
        std::vector<bool> isNew(outRank, false);
        for (int64_t a : *axes) {
          auto n = normalize(a, outRank);
          if (!n || isNew[*n])
            return std::nullopt;
          isNew[*n] = true;
        }
        out.dims.clear();
        for (int64_t d = 0, from = 0; d < outRank; ++d)
          out.dims.push_back(isNew[d] ? 1 : x.dims[from++]);
        return out;
      }
      out.dims.clear();
      for (int64_t d = 0; d < rank; ++d) {
        bool drop = axes ? llvm::any_of(*axes, [&](int64_t a) { return normalize(a, rank) == d; })
                         : x.dims[d] == 1;
        if (drop && x.dims[d] != 1)
          return std::nullopt;
        if (!drop)
          out.dims.push_back(x.dims[d]);
      }
      return out;
    }
    if (op == "Reshape" && input(1)) {
      std::vector<int64_t> dims = input(1)->values;
      int64_t inferred = -1, known = 1;
      for (size_t i = 0; i < dims.size(); ++i) {
        if (dims[i] == 0 && !intAttribute(node, "allowzero", 0))
          dims[i] = static_cast<int64_t>(i) < rank ? x.dims[i] : -2;
        if (dims[i] == -1 && inferred < 0)
          inferred = i;
        else if (dims[i] < 0)
          return std::nullopt;
        else
          known *= dims[i];
      }
      if (inferred >= 0)
        dims[inferred] = known ? x.size() / known : 0;
      if (count(dims) != x.size())
        return std::nullopt;
      IntTensor out = x;
      out.dims = dims;
      return out;
    }
    if (op == "Concat") {
      auto axis = rank ? normalize(intAttribute(node, "axis", 0), rank) : std::nullopt;
      if (!axis)
        return std::nullopt;
      IntTensor out;
      out.type = x.type;
      out.dims = x.dims;
      out.dims[*axis] = 0;
      for (const IntTensor *t : in) {
        if (!t || t->dims.size() != x.dims.size())
          return std::nullopt;
        out.dims[*axis] += t->dims[*axis];
      }
      int64_t outer = count({x.dims.begin(), x.dims.begin() + *axis});
      int64_t inner = count({x.dims.begin() + *axis + 1, x.dims.end()});
      for (int64_t o = 0; o < outer; ++o)
        for (const IntTensor *t : in) {
          int64_t chunk = t->dims[*axis] * inner;
          out.values.insert(out.values.end(), t->values.begin() + o * chunk,
                            t->values.begin() + (o + 1) * chunk);
        }
      return out;
    }
    if (op == "Gather" && input(1)) {
      auto axis = rank ? normalize(intAttribute(node, "axis", 0), rank) : std::nullopt;
      if (!axis)
        return std::nullopt;
      const IntTensor &indices = *input(1);
      int64_t k = x.dims[*axis];
      int64_t outer = count({x.dims.begin(), x.dims.begin() + *axis});
      int64_t inner = count({x.dims.begin() + *axis + 1, x.dims.end()});
      IntTensor out;
      out.type = x.type;
      out.dims.assign(x.dims.begin(), x.dims.begin() + *axis);
      out.dims.insert(out.dims.end(), indices.dims.begin(), indices.dims.end());
      out.dims.insert(out.dims.end(), x.dims.begin() + *axis + 1, x.dims.end());
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i : indices.values) {
          if (i < -k || i >= k)
            return std::nullopt;
          int64_t row = i < 0 ? i + k : i;
          auto begin = x.values.begin() + (o * k + row) * inner;
          out.values.insert(out.values.end(), begin, begin + inner);
        }
      return out;
    }
    if (op == "Slice" && rank == 1) {
      // Slices of shape vectors: 1-D only (opset >= 10 takes starts/ends as inputs).
      std::optional<std::vector<int64_t>> starts = intsAttr(node, "starts"),
                                          ends = intsAttr(node, "ends");
      if (input(1) && input(2)) {
        starts = input(1)->values;
        ends = input(2)->values;
      }
      std::vector<int64_t> axes = input(3) ? input(3)->values : intsAttr(node, "axes").value_or(
                                                                    std::vector<int64_t>{0});
      int64_t step = input(4) && input(4)->size() == 1 ? input(4)->values[0] : 1;
      if (!starts || !ends || starts->size() != 1 || ends->size() != 1 || axes.size() != 1 ||
          !normalize(axes[0], 1) || step == 0)
        return std::nullopt;
      int64_t n = x.dims[0];
      auto clampIndex = [&](int64_t i, int64_t lo, int64_t hi) {
        if (i < 0)
          i += n;
        return std::clamp(i, lo, hi);
      };
      int64_t begin = step > 0 ? clampIndex((*starts)[0], 0, n) : clampIndex((*starts)[0], -1, n - 1);
      int64_t end = step > 0 ? clampIndex((*ends)[0], 0, n) : clampIndex((*ends)[0], -1, n - 1);
      IntTensor out;
      out.type = x.type;
      for (int64_t i = begin; step > 0 ? i < end : i > end; i += step)
        out.values.push_back(x.values[i]);
      out.dims = {out.size()};
      return out;
    }
    if (op == "Range" && in.size() == 3 && in[1] && in[2] && x.size() == 1 &&
        in[1]->size() == 1 && in[2]->size() == 1) {
      int64_t start = x.values[0], limit = in[1]->values[0], delta = in[2]->values[0];
      if (delta == 0)
        return std::nullopt;
      int64_t n = std::max<int64_t>(0, (limit - start + delta + (delta > 0 ? -1 : 1)) / delta);
      if (n > kMaxFoldedElements)
        return std::nullopt;
      IntTensor out;
      out.type = x.type;
      for (int64_t i = 0; i < n; ++i)
        out.values.push_back(start + i * delta);
      out.dims = {n};
      return out;
    }
    if (op == "ConstantOfShape") {
      if (rank != 1 || llvm::any_of(x.values, [](int64_t d) { return d < 0; }) ||
          count(x.values) > kMaxFoldedElements)
        return std::nullopt;
      IntTensor out;
      out.type = onnx::TensorProto::FLOAT; // The default value: a float 0.
      int64_t fill = 0;
      if (const auto *value = findAttribute(node, "value"); value && value->has_t()) {
        auto v = fromProto(value->t());
        if (!v || v->size() != 1)
          return std::nullopt;
        out.type = v->type;
        fill = v->values[0];
      }
      if (!isIntType(out.type))
        return std::nullopt;
      out.dims = x.values;
      out.values.assign(count(x.values), fill);
      return out;
    }
    if (op == "Expand" && input(1)) {
      IntTensor shape;
      shape.dims = input(1)->values;
      if (llvm::any_of(shape.dims, [](int64_t d) { return d < 0; }))
        return std::nullopt;
      shape.values.assign(count(shape.dims), 0);
      return broadcast({&x, &shape}, x.type, [](const std::vector<int64_t> &a) { return a[0]; });
    }
    return std::nullopt;
  }

private:
  const llvm::StringMap<IntTensor> &known;
  std::function<std::optional<std::vector<int64_t>>(const std::string &)> shapeOf;
};

} // namespace

const onnx::AttributeProto *findAttribute(const onnx::NodeProto &node, const char *name) {
  for (const auto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

int64_t intAttribute(const onnx::NodeProto &node, const char *name, int64_t fallback) {
  const auto *a = findAttribute(node, name);
  return a ? a->i() : fallback;
}

std::optional<std::vector<int64_t>> broadcastDims(const std::vector<std::vector<int64_t>> &shapes) {
  size_t rank = 0;
  for (const auto &shape : shapes)
    rank = std::max(rank, shape.size());
  std::vector<int64_t> dims(rank, 1);
  for (const auto &shape : shapes)
    for (size_t i = 0; i < shape.size(); ++i) {
      int64_t &d = dims[rank - shape.size() + i];
      if (d != shape[i] && d != 1 && shape[i] != 1)
        return std::nullopt;
      if (shape[i] != 1)
        d = shape[i];
    }
  return dims;
}

void forEachBroadcast(const std::vector<std::vector<int64_t>> &shapes,
                      const std::vector<int64_t> &dims,
                      llvm::function_ref<void(llvm::ArrayRef<int64_t>)> visit) {
  size_t rank = dims.size();
  // Per operand, its row-major stride along each result dim (0 where it broadcasts).
  std::vector<std::vector<int64_t>> strides;
  for (const auto &shape : shapes) {
    std::vector<int64_t> s(rank, 0);
    for (int64_t i = int64_t(shape.size()) - 1, step = 1; i >= 0; step *= shape[i], --i)
      s[rank - shape.size() + i] = shape[i] == 1 ? 0 : step;
    strides.push_back(std::move(s));
  }
  std::vector<int64_t> index(rank, 0), offsets(shapes.size(), 0);
  int64_t n = std::accumulate(dims.begin(), dims.end(), int64_t(1), std::multiplies<int64_t>());
  for (int64_t at = 0; at < n; ++at) {
    for (size_t k = 0; k < shapes.size(); ++k) {
      offsets[k] = 0;
      for (size_t d = 0; d < rank; ++d)
        offsets[k] += index[d] * strides[k][d];
    }
    visit(offsets);
    for (int64_t d = int64_t(rank) - 1; d >= 0 && ++index[d] == dims[d]; --d)
      index[d] = 0;
  }
}

bool foldShapeComputations(onnx::ModelProto &model, ShapeDataMap &shapeData,
                           std::string &error) {
  onnx::GraphProto &graph = *model.mutable_graph();
  onnx::ShapeInferenceOptions options(/*check_type_val=*/false, /*strict_mode_val=*/1,
                                      /*data_prop_val=*/true);
  llvm::StringSet<> graphOutputs;
  for (const auto &output : graph.output())
    graphOutputs.insert(output.name());
  // Each round folds what the last inference made static; chains fold one link per round
  // at most where an op needs a shape (Shape of an Expand of a folded shape ...).
  for (int round = 0; round < 16; ++round) {
    shapeData.clear();
    try {
      onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), options,
                                         &shapeData);
    } catch (const std::exception &e) {
      error = std::string("invalid ONNX model: ") + e.what();
      return false;
    }
    llvm::StringMap<const onnx::TypeProto *> types;
    for (const auto &info : graph.input())
      types[info.name()] = &info.type();
    for (const auto &info : graph.value_info())
      types[info.name()] = &info.type();
    llvm::StringMap<IntTensor> known;
    for (const auto &init : graph.initializer())
      if (auto t = fromProto(init))
        known[init.name()] = std::move(*t);
    auto shapeOf = [&](const std::string &name) -> std::optional<std::vector<int64_t>> {
      if (auto it = known.find(name); it != known.end())
        return it->second.dims;
      auto it = types.find(name);
      if (it == types.end() || !it->second->has_tensor_type() ||
          !it->second->tensor_type().has_shape())
        return std::nullopt;
      std::vector<int64_t> dims;
      for (const auto &dim : it->second->tensor_type().shape().dim()) {
        if (!dim.has_dim_value())
          return std::nullopt;
        dims.push_back(dim.dim_value());
      }
      return dims;
    };
    Evaluator evaluator(known, shapeOf);
    std::vector<onnx::NodeProto> kept;
    std::vector<onnx::TensorProto> folded;
    for (const onnx::NodeProto &node : graph.node()) {
      bool defaultDomain = node.domain().empty() || node.domain() == "ai.onnx";
      std::optional<IntTensor> value;
      if (defaultDomain && node.output_size() == 1 && !node.output(0).empty() &&
          !graphOutputs.contains(node.output(0)))
        value = evaluator.eval(node);
      if (!value) {
        kept.push_back(node);
        continue;
      }
      folded.push_back(toProto(*value, node.output(0)));
      known[node.output(0)] = std::move(*value);
    }
    // Constant nodes alone are not worth another round: the importer takes them as they are.
    bool progress = llvm::any_of(folded, [&](const onnx::TensorProto &t) {
      for (const auto &node : graph.node())
        if (node.output_size() && node.output(0) == t.name())
          return node.op_type() != "Constant";
      return false;
    });
    if (!progress)
      return true;
    graph.clear_node();
    for (onnx::NodeProto &node : kept)
      *graph.add_node() = std::move(node);
    for (onnx::TensorProto &t : folded)
      *graph.add_initializer() = std::move(t);
    // Inference recomputes the value_info from the folded graph.
    graph.clear_value_info();
  }
  return true;
}

} // namespace loupe::frontends::onnx_import
