//===- OnnxTrainingTest.cpp - Training-domain optimizers and training modes ----===//
//
// Builds small ModelProtos in C++ (so this file needs -frtti for the ONNX
// headers), imports them and checks the TOSA the converters produce for the
// ai.onnx.preview.training optimizers (OnnxOpsTraining.cpp), BatchNormalization
// and Dropout in training mode, and Resize's tf_crop_and_resize: result types,
// the ops used, errors, and that the upstream TOSA -> linalg pipeline lowers it.
//
//===----------------------------------------------------------------------===//

#include "FrontendTestUtils.h"
#include "OnnxConverterTest.h"
#include "OnnxModelBuilder.h"
#include "loupe/Frontends/OnnxImporter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"

#include "onnx/onnx_pb.h"

#include <gtest/gtest.h>

#include <initializer_list>

using namespace mlir;
using loupe::frontends::importOnnxBytes;
using loupe::test::countOps;

namespace {

using loupe::test::setInt;
using loupe::test::setString;

constexpr int32_t kF32 = onnx::TensorProto::FLOAT;
constexpr int32_t kI64 = onnx::TensorProto::INT64;
constexpr int32_t kBool = onnx::TensorProto::BOOL;
constexpr const char *kTraining = "ai.onnx.preview.training";

/// Assembles a single-graph ModelProto importing the default opset `opset`
/// (none when 0) and, when `training`, ai.onnx.preview.training version 1.
class ModelBuilder {
public:
  explicit ModelBuilder(int64_t opset, bool training = false) {
    model.set_ir_version(8);
    model.set_producer_name("loupe-test");
    if (opset > 0)
      addOpset("", opset);
    if (training)
      addOpset(kTraining, 1);
    model.mutable_graph()->set_name("test_graph");
  }

  ModelBuilder &input(const std::string &name,
                      std::initializer_list<int64_t> shape,
                      int32_t elemType = kF32) {
    setType(model.mutable_graph()->add_input(), name, elemType, shape);
    return *this;
  }
  ModelBuilder &output(const std::string &name,
                       std::initializer_list<int64_t> shape,
                       int32_t elemType = kF32) {
    setType(model.mutable_graph()->add_output(), name, elemType, shape);
    return *this;
  }
  /// A float or bool initializer (a bool holds 0 or 1).
  ModelBuilder &initializer(const std::string &name, int32_t elemType,
                            std::initializer_list<int64_t> shape,
                            const std::vector<float> &values) {
    auto *t = model.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(elemType);
    for (int64_t d : shape)
      t->add_dims(d);
    for (float v : values) {
      if (elemType == kBool)
        t->add_int32_data(v != 0);
      else
        t->add_float_data(v);
    }
    return *this;
  }
  onnx::NodeProto &node(const std::string &opType,
                        std::initializer_list<std::string> inputs,
                        std::initializer_list<std::string> outputs,
                        const std::string &domain = "") {
    auto *n = model.mutable_graph()->add_node();
    n->set_op_type(opType);
    n->set_domain(domain);
    for (const auto &i : inputs)
      n->add_input(i);
    for (const auto &o : outputs)
      n->add_output(o);
    return *n;
  }
  std::string bytes() const { return model.SerializeAsString(); }

private:
  void addOpset(const std::string &domain, int64_t version) {
    auto *opsetId = model.add_opset_import();
    opsetId->set_domain(domain);
    opsetId->set_version(version);
  }
  static void setType(onnx::ValueInfoProto *info, const std::string &name,
                      int32_t elemType, std::initializer_list<int64_t> shape) {
    info->set_name(name);
    auto *tensorType = info->mutable_type()->mutable_tensor_type();
    tensorType->set_elem_type(elemType);
    auto *tensorShape = tensorType->mutable_shape(); // present even for scalars
    for (int64_t d : shape)
      tensorShape->add_dim()->set_dim_value(d);
  }

  onnx::ModelProto model;
};

void setFloat(onnx::NodeProto &n, const std::string &name, float v) {
  auto *a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}

class OnnxTrainingTest : public loupe::test::OnnxConverterTest {};

//===----------------------------------------------------------------------===//
// ai.onnx.preview.training optimizers
//===----------------------------------------------------------------------===//

TEST_F(OnnxTrainingTest, AdagradUpdatesEveryGroup) {
  ModelBuilder mb(0, /*training=*/true);
  mb.input("R", {}).input("T", {}, kI64).input("X1", {1}).input("X2", {2, 3})
      .input("G1", {1}).input("G2", {2, 3}).input("H1", {1}).input("H2", {2, 3})
      .output("X1_new", {1}).output("X2_new", {2, 3})
      .output("H1_new", {1}).output("H2_new", {2, 3});
  auto &n = mb.node("Adagrad", {"R", "T", "X1", "X2", "G1", "G2", "H1", "H2"},
                    {"X1_new", "X2_new", "H1_new", "H2_new"}, kTraining);
  setFloat(n, "decay_factor", 0.1f);
  setFloat(n, "epsilon", 1e-5f);
  setFloat(n, "norm_coefficient", 0.001f);
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module, 0), "tensor<1xf32>");
  EXPECT_EQ(resultType(*module, 1), "tensor<2x3xf32>");
  EXPECT_EQ(resultType(*module, 2), "tensor<1xf32>");
  EXPECT_EQ(resultType(*module, 3), "tensor<2x3xf32>");
  // One square root per group; no T-dependent select in Adagrad.
  EXPECT_EQ(countOps(*module, "linalg.generic"), 2);
  EXPECT_EQ(countOps(*module, "tosa.select"), 0);
  expectLowers(*module);
}

TEST_F(OnnxTrainingTest, AdamSelectsTheBiasCorrectionOnT) {
  ModelBuilder mb(0, /*training=*/true);
  mb.input("R", {}).input("T", {}, kI64).input("X", {4}).input("G", {4})
      .input("V", {4}).input("H", {4})
      .output("X_new", {4}).output("V_new", {4}).output("H_new", {4});
  auto &n = mb.node("Adam", {"R", "T", "X", "G", "V", "H"},
                    {"X_new", "V_new", "H_new"}, kTraining);
  setFloat(n, "alpha", 0.95f);
  setFloat(n, "norm_coefficient_post", 0.01f);
  auto module = import(mb);
  ASSERT_TRUE(module);
  for (unsigned i = 0; i < 3; ++i)
    EXPECT_EQ(resultType(*module, i), "tensor<4xf32>");
  // alpha^T and beta^T, chosen over R when T > 0.
  EXPECT_EQ(countOps(*module, "tosa.pow"), 2);
  EXPECT_EQ(countOps(*module, "tosa.greater"), 1);
  EXPECT_EQ(countOps(*module, "tosa.select"), 1);
  expectLowers(*module);
}

TEST_F(OnnxTrainingTest, MomentumStandardAndNesterov) {
  ModelBuilder mb(0, /*training=*/true);
  mb.input("R", {}).input("T", {}, kI64).input("X", {2}).input("G", {2})
      .input("V", {2})
      .output("X_s", {2}).output("V_s", {2}).output("X_n", {2}).output("V_n", {2});
  for (auto [mode, x, v] : {std::tuple{"standard", "X_s", "V_s"},
                            std::tuple{"nesterov", "X_n", "V_n"}}) {
    auto &n = mb.node("Momentum", {"R", "T", "X", "G", "V"}, {x, v}, kTraining);
    setFloat(n, "alpha", 0.95f);
    setFloat(n, "beta", 0.1f);
    setFloat(n, "norm_coefficient", 0.001f);
    setString(n, "mode", mode);
  }
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module, 0), "tensor<2xf32>");
  EXPECT_EQ(resultType(*module, 3), "tensor<2xf32>");
  // beta' = T > 0 ? beta : 1, once per node.
  EXPECT_EQ(countOps(*module, "tosa.select"), 2);
  expectLowers(*module);
}

TEST_F(OnnxTrainingTest, MomentumErrors) {
  {
    ModelBuilder mb(0, /*training=*/true);
    mb.input("R", {}).input("T", {}, kI64).input("X", {2}).input("G", {2})
        .input("V", {2}).output("X_new", {2}).output("V_new", {2});
    auto &n = mb.node("Momentum", {"R", "T", "X", "G", "V"}, {"X_new", "V_new"},
                      kTraining);
    setFloat(n, "alpha", 0.9f);
    setFloat(n, "beta", 1.0f);
    setFloat(n, "norm_coefficient", 0.0f);
    setString(n, "mode", "heavy_ball");
    std::string message = importError(mb);
    EXPECT_NE(message.find("unsupported value 'heavy_ball' of attribute 'mode'"),
              std::string::npos)
        << message;
  }
  {
    // ONNX shape inference does not check that G and V match X.
    ModelBuilder mb(0, /*training=*/true);
    mb.input("R", {}).input("T", {}, kI64).input("X", {2}).input("G", {3})
        .input("V", {2}).output("X_new", {2}).output("V_new", {2});
    auto &n = mb.node("Momentum", {"R", "T", "X", "G", "V"}, {"X_new", "V_new"},
                      kTraining);
    setFloat(n, "alpha", 0.9f);
    setFloat(n, "beta", 1.0f);
    setFloat(n, "norm_coefficient", 0.0f);
    setString(n, "mode", "standard");
    std::string message = importError(mb);
    EXPECT_NE(message.find("input 'G' must have the type of 'X'"), std::string::npos)
        << message;
  }
}

//===----------------------------------------------------------------------===//
// BatchNormalization, Dropout in training mode
//===----------------------------------------------------------------------===//

TEST_F(OnnxTrainingTest, BatchNormTrainingModeUsesBatchStatistics) {
  ModelBuilder mb(15);
  mb.input("x", {2, 3, 4, 5}).input("s", {3}).input("b", {3}).input("m", {3})
      .input("v", {3})
      .output("y", {2, 3, 4, 5}).output("rm", {3}).output("rv", {3});
  auto &n = mb.node("BatchNormalization", {"x", "s", "b", "m", "v"},
                    {"y", "rm", "rv"});
  setInt(n, "training_mode", 1);
  setFloat(n, "momentum", 0.8f);
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module, 0), "tensor<2x3x4x5xf32>");
  EXPECT_EQ(resultType(*module, 1), "tensor<3xf32>");
  EXPECT_EQ(resultType(*module, 2), "tensor<3xf32>");
  // Mean and variance over N, H and W: three reductions each.
  EXPECT_EQ(countOps(*module, "tosa.reduce_sum"), 6);
  EXPECT_EQ(countOps(*module, "tosa.rsqrt"), 1);
  expectLowers(*module);
}

TEST_F(OnnxTrainingTest, DropoutTrainingWithZeroRatioIsIdentity) {
  ModelBuilder mb(13);
  mb.input("x", {3, 4}).output("y", {3, 4}).output("mask", {3, 4}, kBool);
  mb.initializer("ratio", kF32, {}, {0.0f}).initializer("training", kBool, {}, {1});
  mb.node("Dropout", {"x", "ratio", "training"}, {"y", "mask"});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module, 0), "tensor<3x4xf32>");
  EXPECT_EQ(resultType(*module, 1), "tensor<3x4xi1>");
  EXPECT_EQ(countOps(*module, "tosa.const"), 1); // the all-true mask
  expectLowers(*module);
}

TEST_F(OnnxTrainingTest, DropoutTrainingWithNonzeroRatioIsAnError) {
  ModelBuilder mb(13);
  mb.input("x", {3, 4}).output("y", {3, 4});
  mb.initializer("ratio", kF32, {}, {0.5f}).initializer("training", kBool, {}, {1});
  mb.node("Dropout", {"x", "ratio", "training"}, {"y"});
  std::string message = importError(mb);
  EXPECT_NE(message.find("training mode with a nonzero ratio drops random elements"),
            std::string::npos)
      << message;
}

//===----------------------------------------------------------------------===//
// Resize: tf_crop_and_resize
//===----------------------------------------------------------------------===//

TEST_F(OnnxTrainingTest, ResizeTfCropAndResizeExtrapolates) {
  ModelBuilder mb(13);
  mb.input("x", {1, 1, 4, 4}).output("y", {1, 1, 3, 3});
  mb.initializer("roi", kF32, {8}, {0, 0, 0.4f, 0.6f, 1, 1, 1.2f, 1.7f});
  auto *sizes = mb.node("Constant", {}, {"sizes"}).add_attribute();
  sizes->set_name("value");
  sizes->set_type(onnx::AttributeProto::TENSOR);
  auto *t = sizes->mutable_t();
  t->set_data_type(kI64);
  t->add_dims(4);
  for (int64_t v : {1, 1, 3, 3})
    t->add_int64_data(v);
  auto &n = mb.node("Resize", {"x", "roi", "", "sizes"}, {"y"});
  setString(n, "mode", "linear");
  setString(n, "coordinate_transformation_mode", "tf_crop_and_resize");
  setFloat(n, "extrapolation_value", 10.0f);
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module), "tensor<1x1x3x3xf32>");
  // H and W both leave the input: their outside masks are or-ed, one select.
  EXPECT_EQ(countOps(*module, "tosa.logical_or"), 1);
  EXPECT_EQ(countOps(*module, "tosa.select"), 1);
  expectLowers(*module);
}

TEST_F(OnnxTrainingTest, ResizeTfCropAndResizeNeedsAConstantRoi) {
  ModelBuilder mb(13);
  mb.input("x", {1, 1, 4, 4}).input("roi", {8}).output("y", {1, 1, 8, 8});
  mb.initializer("scales", kF32, {4}, {1, 1, 2, 2});
  auto &n = mb.node("Resize", {"x", "roi", "scales"}, {"y"});
  setString(n, "coordinate_transformation_mode", "tf_crop_and_resize");
  std::string message = importError(mb);
  EXPECT_NE(message.find("tf_crop_and_resize needs a constant float roi of 8 values"),
            std::string::npos)
      << message;
}

} // namespace
