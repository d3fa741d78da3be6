//===- OnnxModelBuilder.h - ONNX ModelProtos for the importer tests ---*- C++ -*-===//
//
// Builds small single-graph ModelProtos in C++ for the converter tests (the ONNX headers need
// -frtti: tests/unit/frontends/CMakeLists.txt).
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_TESTS_ONNXMODELBUILDER_H
#define LOUPE_TESTS_ONNXMODELBUILDER_H

#include "onnx/onnx_pb.h"

#include <initializer_list>
#include <string>
#include <vector>

namespace loupe::test {

constexpr int32_t kF32 = onnx::TensorProto::FLOAT;
constexpr int32_t kI64 = onnx::TensorProto::INT64;
constexpr int32_t kI32 = onnx::TensorProto::INT32;

/// Assembles a single-graph ModelProto; a negative dim is the symbolic dim "N".
class ModelBuilder {
public:
  explicit ModelBuilder(int64_t opset = 17) {
    model.set_ir_version(8);
    model.set_producer_name("loupe-test");
    auto *opsetId = model.add_opset_import();
    opsetId->set_domain("");
    opsetId->set_version(opset);
    graph().set_name("test_graph");
  }

  onnx::GraphProto &graph() { return *model.mutable_graph(); }

  static void setType(onnx::ValueInfoProto *info, const std::string &name,
                      int32_t elemType, std::initializer_list<int64_t> shape) {
    info->set_name(name);
    auto *tensorType = info->mutable_type()->mutable_tensor_type();
    tensorType->set_elem_type(elemType);
    auto *tensorShape = tensorType->mutable_shape();
    for (int64_t d : shape) {
      if (d < 0)
        tensorShape->add_dim()->set_dim_param("N");
      else
        tensorShape->add_dim()->set_dim_value(d);
    }
  }
  ModelBuilder &input(const std::string &name,
                      std::initializer_list<int64_t> shape,
                      int32_t elemType = kF32) {
    setType(graph().add_input(), name, elemType, shape);
    return *this;
  }
  ModelBuilder &output(const std::string &name,
                       std::initializer_list<int64_t> shape,
                       int32_t elemType = kF32) {
    setType(graph().add_output(), name, elemType, shape);
    return *this;
  }
  ModelBuilder &initializer(const std::string &name,
                            std::initializer_list<int64_t> shape,
                            const std::vector<float> &values) {
    auto *t = graph().add_initializer();
    t->set_name(name);
    t->set_data_type(kF32);
    for (int64_t d : shape)
      t->add_dims(d);
    for (float v : values)
      t->add_float_data(v);
    return *this;
  }
  /// An initializer with `count` elements 0.1, 0.2, ... in raw_data.
  ModelBuilder &rawInitializer(const std::string &name,
                               std::initializer_list<int64_t> shape) {
    auto *t = graph().add_initializer();
    t->set_name(name);
    t->set_data_type(kF32);
    int64_t count = 1;
    for (int64_t d : shape) {
      t->add_dims(d);
      count *= d;
    }
    std::vector<float> values(count);
    for (int64_t i = 0; i < count; ++i)
      values[i] = 0.1f * (i + 1);
    t->set_raw_data(std::string(reinterpret_cast<const char *>(values.data()),
                                values.size() * sizeof(float)));
    return *this;
  }
  /// An 8-, 16- or 32-bit integer initializer of `elemType` (int32_data, as ONNX stores them).
  ModelBuilder &initializerInt(const std::string &name, std::initializer_list<int64_t> shape,
                               int32_t elemType, const std::vector<int32_t> &values) {
    auto *t = graph().add_initializer();
    t->set_name(name);
    t->set_data_type(elemType);
    for (int64_t d : shape)
      t->add_dims(d);
    for (int32_t v : values)
      t->add_int32_data(v);
    return *this;
  }
  ModelBuilder &initializerI64(const std::string &name,
                               std::initializer_list<int64_t> shape,
                               const std::vector<int64_t> &values) {
    auto *t = graph().add_initializer();
    t->set_name(name);
    t->set_data_type(kI64);
    for (int64_t d : shape)
      t->add_dims(d);
    for (int64_t v : values)
      t->add_int64_data(v);
    return *this;
  }
  onnx::NodeProto &node(const std::string &opType,
                        std::initializer_list<std::string> inputs,
                        std::initializer_list<std::string> outputs,
                        const std::string &name = "") {
    auto *n = graph().add_node();
    n->set_op_type(opType);
    n->set_name(name);
    for (const auto &i : inputs)
      n->add_input(i);
    for (const auto &o : outputs)
      n->add_output(o);
    return *n;
  }
  std::string bytes() const { return model.SerializeAsString(); }

  onnx::ModelProto model;
};

inline void setInt(onnx::NodeProto &n, const std::string &name, int64_t v) {
  auto *a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}
inline void setFloat(onnx::NodeProto &n, const std::string &name, float v) {
  auto *a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}
inline void setInts(onnx::NodeProto &n, const std::string &name,
             std::initializer_list<int64_t> v) {
  auto *a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v)
    a->add_ints(x);
}
inline void setString(onnx::NodeProto &n, const std::string &name,
               const std::string &v) {
  auto *a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

} // namespace loupe::test

#endif // LOUPE_TESTS_ONNXMODELBUILDER_H
