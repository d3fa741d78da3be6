//===- OnnxBatchNormFolding.cpp - BatchNormalization into the conv before it ----===//
//
// Inference BatchNormalization after a convolution with constant weights is an affine map per
// output channel, so it folds into the convolution once, at import: W'[o] = W[o] * s[o] and
// b'[o] = (b[o] - mean[o]) * s[o] + beta[o] with s = gamma / sqrt(var + epsilon) (the folding
// PyTorch's ONNX export and every inference compiler apply; exporters such as paddle2onnx leave
// it to the runtime). The folded weights are new initializers; the BatchNormalization node goes.
//
//===----------------------------------------------------------------------===//
#include "OnnxGraphRewrites.h"

#include "llvm/ADT/StringMap.h"

#include <cmath>
#include <cstring>
#include <optional>

namespace loupe::frontends::onnx_import {
namespace {

/// The float32 values of an initializer (raw or float_data), nullopt for other types.
std::optional<std::vector<float>> floats(const onnx::TensorProto &t) {
  if (t.data_type() != onnx::TensorProto::FLOAT ||
      t.data_location() == onnx::TensorProto::EXTERNAL)
    return std::nullopt;
  int64_t n = 1;
  for (int64_t d : t.dims())
    n *= d;
  std::vector<float> values;
  if (t.has_raw_data()) {
    if (t.raw_data().size() != static_cast<size_t>(n) * 4)
      return std::nullopt;
    values.resize(n);
    std::memcpy(values.data(), t.raw_data().data(), n * 4);
  } else {
    if (t.float_data_size() != n)
      return std::nullopt;
    values.assign(t.float_data().begin(), t.float_data().end());
  }
  return values;
}

onnx::TensorProto makeFloats(const std::string &name, const std::vector<int64_t> &dims,
                             const std::vector<float> &values) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims)
    t.add_dims(d);
  t.set_raw_data(std::string(reinterpret_cast<const char *>(values.data()), values.size() * 4));
  return t;
}

} // namespace

void nameUnnamedNodes(onnx::GraphProto &graph) {
  for (int i = 0; i < graph.node_size(); ++i)
    if (graph.node(i).name().empty())
      graph.mutable_node(i)->set_name(graph.node(i).op_type() + "_" + std::to_string(i));
}

int foldBatchNormIntoConv(onnx::GraphProto &graph) {
  llvm::StringMap<const onnx::TensorProto *> initializers;
  for (const auto &init : graph.initializer())
    initializers[init.name()] = &init;
  llvm::StringMap<int> readers, producer;
  for (int i = 0; i < graph.node_size(); ++i) {
    for (const std::string &input : graph.node(i).input())
      ++readers[input];
    for (const std::string &output : graph.node(i).output())
      producer[output] = i;
  }
  for (const auto &output : graph.output())
    ++readers[output.name()];

  std::vector<bool> drop(graph.node_size(), false);
  std::vector<onnx::TensorProto> added;
  int folded = 0;
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto &bn = graph.node(i);
    bool defaultDomain = bn.domain().empty() || bn.domain() == "ai.onnx";
    if (!defaultDomain || bn.op_type() != "BatchNormalization" || bn.input_size() != 5 ||
        bn.output_size() < 1)
      continue;
    bool inference = true;
    float epsilon = 1e-5f;
    for (const auto &a : bn.attribute()) {
      if (a.name() == "epsilon")
        epsilon = a.f();
      if (a.name() == "training_mode" && a.i() != 0)
        inference = false;
    }
    for (int o = 1; o < bn.output_size(); ++o)
      inference &= bn.output(o).empty();
    auto conv = producer.find(bn.input(0));
    if (!inference || conv == producer.end() || readers.lookup(bn.input(0)) != 1)
      continue;
    onnx::NodeProto &cv = *graph.mutable_node(conv->second);
    if (cv.op_type() != "Conv" || !(cv.domain().empty() || cv.domain() == "ai.onnx") ||
        cv.input_size() < 2 || drop[conv->second])
      continue;
    auto initializer = [&](const std::string &name) -> std::optional<std::vector<float>> {
      auto it = initializers.find(name);
      return it == initializers.end() ? std::nullopt : floats(*it->second);
    };
    std::optional<std::vector<float>> w = initializer(cv.input(1));
    std::optional<std::vector<float>> gamma = initializer(bn.input(1)), beta = initializer(bn.input(2)),
                                      mean = initializer(bn.input(3)), var = initializer(bn.input(4));
    if (!w || !gamma || !beta || !mean || !var)
      continue;
    const onnx::TensorProto &wProto = *initializers.lookup(cv.input(1));
    size_t channels = gamma->size();
    if (wProto.dims_size() < 1 || static_cast<size_t>(wProto.dims(0)) != channels ||
        beta->size() != channels || mean->size() != channels || var->size() != channels ||
        w->size() % channels)
      continue;
    std::vector<float> bias(channels, 0.f);
    if (cv.input_size() > 2 && !cv.input(2).empty()) {
      std::optional<std::vector<float>> b = initializer(cv.input(2));
      if (!b || b->size() != channels)
        continue;
      bias = *b;
    }
    size_t perChannel = w->size() / channels;
    for (size_t o = 0; o < channels; ++o) {
      float s = (*gamma)[o] / std::sqrt((*var)[o] + epsilon);
      for (size_t k = 0; k < perChannel; ++k)
        (*w)[o * perChannel + k] *= s;
      bias[o] = (bias[o] - (*mean)[o]) * s + (*beta)[o];
    }
    std::string prefix = cv.name().empty() ? bn.output(0) : cv.name();
    std::vector<int64_t> wDims(wProto.dims().begin(), wProto.dims().end());
    added.push_back(makeFloats(prefix + ".weight_bn_folded", wDims, *w));
    added.push_back(makeFloats(prefix + ".bias_bn_folded", {static_cast<int64_t>(channels)}, bias));
    cv.set_input(1, added[added.size() - 2].name());
    if (cv.input_size() > 2)
      cv.set_input(2, added.back().name());
    else
      cv.add_input(added.back().name());
    cv.set_output(0, bn.output(0));
    drop[i] = true;
    ++folded;
  }
  if (!folded)
    return 0;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  for (int i = 0; i < graph.node_size(); ++i)
    if (!drop[i])
      *kept.Add() = graph.node(i);
  graph.mutable_node()->Swap(&kept);
  for (onnx::TensorProto &t : added)
    *graph.add_initializer() = std::move(t);
  return folded;
}

} // namespace loupe::frontends::onnx_import
