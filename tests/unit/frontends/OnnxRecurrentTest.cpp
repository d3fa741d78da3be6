//===- OnnxRecurrentTest.cpp - ONNX RNN, GRU, LSTM -> TOSA ----------------===//
//
// Builds small RNN/GRU/LSTM ModelProtos in C++ (so this file needs -frtti for
// the ONNX headers), imports them and checks the result types, the unrolled
// structure (one input matmul per direction, one or two per step) and that
// the upstream TOSA -> linalg pipeline lowers the result. The numerics were
// checked against the ONNX reference implementations
// (onnx/backend/test/case/node/{rnn,gru,lstm}.py) outside this test.
//
//===----------------------------------------------------------------------===//

#include "FrontendTestUtils.h"
#include "OnnxConverterTest.h"
#include "OnnxModelBuilder.h"
#include "loupe/Frontends/OnnxImporter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/MLIRContext.h"

#include "onnx/onnx_pb.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <map>
#include <string>
#include <vector>

using namespace mlir;
using loupe::frontends::importOnnxBytes;

namespace {

using loupe::test::setInt;

constexpr int32_t kF32 = onnx::TensorProto::FLOAT;
constexpr int32_t kI32 = onnx::TensorProto::INT32;

/// Assembles a single-node ModelProto (opset 14 unless told).
class ModelBuilder {
public:
  explicit ModelBuilder(int64_t opset = 14) {
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
    for (int64_t d : shape)
      tensorShape->add_dim()->set_dim_value(d);
  }
  ModelBuilder &input(const std::string &name,
                      std::initializer_list<int64_t> shape,
                      int32_t elemType = kF32) {
    setType(graph().add_input(), name, elemType, shape);
    return *this;
  }
  ModelBuilder &output(const std::string &name,
                       std::initializer_list<int64_t> shape) {
    setType(graph().add_output(), name, kF32, shape);
    return *this;
  }
  /// A float initializer holding 0.01, 0.02, ... (small, so tanh/sigmoid
  /// stay in range).
  ModelBuilder &weights(const std::string &name,
                        std::initializer_list<int64_t> shape) {
    auto *t = graph().add_initializer();
    t->set_name(name);
    t->set_data_type(kF32);
    int64_t count = 1;
    for (int64_t d : shape) {
      t->add_dims(d);
      count *= d;
    }
    for (int64_t i = 0; i < count; ++i)
      t->add_float_data(0.01f * (i % 50 + 1));
    return *this;
  }
  onnx::NodeProto &node(const std::string &opType,
                        std::initializer_list<std::string> inputs,
                        std::initializer_list<std::string> outputs,
                        const std::string &name) {
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

void setString(onnx::NodeProto &n, const std::string &name,
               const std::string &v) {
  auto *a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}
void setStrings(onnx::NodeProto &n, const std::string &name,
                std::initializer_list<std::string> v) {
  auto *a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRINGS);
  for (const auto &s : v)
    a->add_strings(s);
}

class OnnxRecurrentTest : public loupe::test::OnnxConverterTest {};

TEST_F(OnnxRecurrentTest, LstmBidirectionalAllOutputs) {
  // seq 5, batch 2, input 3, hidden 4; every optional input given.
  ModelBuilder mb;
  mb.input("x", {5, 2, 3}).input("h0", {2, 2, 4}).input("c0", {2, 2, 4});
  mb.weights("w", {2, 16, 3}).weights("r", {2, 16, 4}).weights("b", {2, 32})
      .weights("p", {2, 12});
  mb.output("y", {5, 2, 2, 4}).output("y_h", {2, 2, 4}).output("y_c", {2, 2, 4});
  auto &n = mb.node("LSTM", {"x", "w", "r", "b", "", "h0", "c0", "p"},
                    {"y", "y_h", "y_c"}, "lstm");
  setInt(n, "hidden_size", 4);
  setString(n, "direction", "bidirectional");
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module, 0), "tensor<5x2x2x4xf32>");
  EXPECT_EQ(resultType(*module, 1), "tensor<2x2x4xf32>");
  EXPECT_EQ(resultType(*module, 2), "tensor<2x2x4xf32>");
  // Per direction: one matmul for X·W^T, one per step for H·R^T.
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.matmul"), 2 * (1 + 5));
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.sigmoid"), 2 * 5 * 3);
  expectLowers(*module);
}

TEST_F(OnnxRecurrentTest, GruLinearBeforeReset) {
  // seq 3, batch 2, input 4, hidden 5.
  ModelBuilder mb;
  mb.input("x", {3, 2, 4});
  mb.weights("w", {1, 15, 4}).weights("r", {1, 15, 5}).weights("b", {1, 30});
  mb.output("y", {3, 1, 2, 5}).output("y_h", {1, 2, 5});
  auto &n = mb.node("GRU", {"x", "w", "r", "b"}, {"y", "y_h"}, "gru");
  setInt(n, "hidden_size", 5);
  setInt(n, "linear_before_reset", 1);
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module, 0), "tensor<3x1x2x5xf32>");
  EXPECT_EQ(resultType(*module, 1), "tensor<1x2x5xf32>");
  // X·W^T once, then per step H·R^T for the z/r gates and for the h gate.
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.matmul"), 1 + 2 * 3);
  expectLowers(*module);
}

TEST_F(OnnxRecurrentTest, RnnBatchFirstLayout) {
  // layout = 1: X is [batch 2, seq 3, input 4]; Y is [batch, seq, dirs,
  // hidden], Y_h [batch, dirs, hidden]. Only Y_h is requested.
  ModelBuilder mb;
  mb.input("x", {2, 3, 4});
  mb.weights("w", {1, 5, 4}).weights("r", {1, 5, 5});
  mb.output("y_h", {2, 1, 5});
  auto &n = mb.node("RNN", {"x", "w", "r"}, {"", "y_h"}, "rnn");
  setInt(n, "hidden_size", 5);
  setInt(n, "layout", 1);
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module, 0), "tensor<2x1x5xf32>");
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.matmul"), 1 + 3);
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.tanh"), 3);
  expectLowers(*module);

  ModelBuilder withY;
  withY.input("x", {2, 3, 4});
  withY.weights("w", {1, 5, 4}).weights("r", {1, 5, 5});
  withY.output("y", {2, 3, 1, 5});
  setInt(withY.node("RNN", {"x", "w", "r"}, {"y"}, "rnn"), "layout", 1);
  auto moduleY = import(withY);
  ASSERT_TRUE(moduleY);
  EXPECT_EQ(resultType(*moduleY, 0), "tensor<2x3x1x5xf32>");
  expectLowers(*moduleY);
}

TEST_F(OnnxRecurrentTest, SequenceLensFromGraphInputMasksEachStep) {
  ModelBuilder mb;
  mb.input("x", {4, 3, 2}).input("lens", {3}, kI32);
  mb.weights("w", {1, 6, 2}).weights("r", {1, 6, 6});
  mb.output("y", {4, 1, 3, 6}).output("y_h", {1, 3, 6});
  auto &n = mb.node("RNN", {"x", "w", "r", "", "lens"}, {"y", "y_h"}, "rnn");
  setString(n, "direction", "reverse");
  auto module = import(mb);
  ASSERT_TRUE(module);
  // One `t < len` test per step, selecting both Y (zeros) and the state.
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.greater"), 4);
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.select"), 2 * 4);
  expectLowers(*module);
}

TEST_F(OnnxRecurrentTest, ExplicitActivationsWithParameters) {
  ModelBuilder mb;
  mb.input("x", {2, 1, 3});
  mb.weights("w", {2, 8, 3}).weights("r", {2, 8, 2});
  mb.output("y_h", {2, 1, 2}).output("y_c", {2, 1, 2});
  auto &n = mb.node("LSTM", {"x", "w", "r"}, {"", "y_h", "y_c"}, "lstm");
  setString(n, "direction", "bidirectional");
  // One direction's list serves both.
  setStrings(n, "activations", {"HardSigmoid", "LeakyRelu", "Softsign"});
  auto *alpha = n.add_attribute();
  alpha->set_name("activation_alpha");
  alpha->set_type(onnx::AttributeProto::FLOATS);
  alpha->add_floats(0.3f);
  alpha->add_floats(0.1f);
  auto *clip = n.add_attribute();
  clip->set_name("clip");
  clip->set_type(onnx::AttributeProto::FLOAT);
  clip->set_f(2.0f);
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module, 1), "tensor<2x1x2xf32>");
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.sigmoid"), 0);
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.tanh"), 0);
  expectLowers(*module);
}

TEST_F(OnnxRecurrentTest, UnrolledStepsShareOneRecurrenceWeight) {
  // Each of the 6 steps reshapes R^T ([1, 64, 16], 4 KiB: a resource blob) for its matmul;
  // the steps must share one blob, not carry 6 copies of the weight into the artifact.
  ModelBuilder mb;
  mb.input("x", {6, 1, 8}).weights("w", {1, 64, 8}).weights("r", {1, 64, 16});
  mb.output("y", {6, 1, 1, 16});
  setInt(mb.node("LSTM", {"x", "w", "r"}, {"y"}, "lstm"), "hidden_size", 16);
  auto module = import(mb);
  ASSERT_TRUE(module);
  std::map<std::string, Attribute> blobs; // bytes -> the one attribute holding them
  int resourceConsts = 0;
  module->walk([&](tosa::ConstOp op) {
    auto r = dyn_cast<DenseResourceElementsAttr>(op.getValue());
    if (!r || !r.getRawHandle().getBlob())
      return;
    ++resourceConsts;
    ArrayRef<char> data = r.getRawHandle().getBlob()->getData();
    Attribute first = blobs.try_emplace(std::string(data.data(), data.size()), r).first->second;
    EXPECT_EQ(first, r) << "a second copy of " << r.getRawHandle().getKey().str();
  });
  EXPECT_GE(resourceConsts, 6); // R^T in each step
  expectLowers(*module);
}

TEST_F(OnnxRecurrentTest, UnsupportedActivationIsReported) {
  ModelBuilder mb;
  mb.input("x", {2, 1, 3});
  mb.weights("w", {1, 4, 3}).weights("r", {1, 4, 4});
  mb.output("y_h", {1, 1, 4});
  auto &n = mb.node("RNN", {"x", "w", "r"}, {"", "y_h"}, "my_rnn");
  setStrings(n, "activations", {"Gelu"});
  std::string message = importError(mb);
  EXPECT_NE(message.find("node 'my_rnn' (RNN, opset 14)"), std::string::npos)
      << message;
  EXPECT_NE(message.find("unsupported activation 'Gelu'"), std::string::npos)
      << message;
  EXPECT_NE(message.find("supported: Relu, Tanh, Sigmoid"), std::string::npos)
      << message;
}

} // namespace
