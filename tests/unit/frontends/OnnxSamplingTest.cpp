//===- OnnxSamplingTest.cpp - GridSample, RoiAlign, MaxUnpool, ... import -===//
//
// Builds small ModelProtos in C++ (so this file needs -frtti for the ONNX
// headers), imports them and checks the TOSA the converters of
// OnnxOpsSampling.cpp (and MaxPool's Indices / 3-D ConvTranspose of
// OnnxOpsNN.cpp) produce: result types, the ops used, errors, and that the
// upstream TOSA -> linalg pipeline lowers it. Numerics are covered by the
// node tests of loupe-conformance.
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
constexpr int32_t kU8 = onnx::TensorProto::UINT8;
constexpr int32_t kBool = onnx::TensorProto::BOOL;

/// Assembles a single-graph ModelProto (as in OnnxImporterTest.cpp).
class ModelBuilder {
public:
  explicit ModelBuilder(int64_t opset) {
    model.set_ir_version(8);
    model.set_producer_name("loupe-test");
    auto *opsetId = model.add_opset_import();
    opsetId->set_domain("");
    opsetId->set_version(opset);
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
  /// An INT64 (or, with `elemType` BOOL, boolean) initializer.
  ModelBuilder &initializer(const std::string &name,
                            std::initializer_list<int64_t> shape,
                            const std::vector<int64_t> &values,
                            int32_t elemType = kI64) {
    auto *t = model.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(elemType);
    for (int64_t d : shape)
      t->add_dims(d);
    for (int64_t v : values) {
      if (elemType == kBool)
        t->add_int32_data(v != 0);
      else
        t->add_int64_data(v);
    }
    return *this;
  }
  onnx::NodeProto &node(const std::string &opType,
                        std::initializer_list<std::string> inputs,
                        std::initializer_list<std::string> outputs) {
    auto *n = model.mutable_graph()->add_node();
    n->set_op_type(opType);
    for (const auto &i : inputs)
      n->add_input(i);
    for (const auto &o : outputs)
      n->add_output(o);
    return *n;
  }
  std::string bytes() const { return model.SerializeAsString(); }

private:
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

void setInts(onnx::NodeProto &n, const std::string &name,
             std::initializer_list<int64_t> v) {
  auto *a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v)
    a->add_ints(x);
}

class OnnxSamplingTest : public loupe::test::OnnxConverterTest {};

//===----------------------------------------------------------------------===//
// GridSample
//===----------------------------------------------------------------------===//

TEST_F(OnnxSamplingTest, GridSampleGathersOncePerTap) {
  // bilinear: 2x2 taps, nearest: 1, bicubic: 4x4.
  const std::pair<const char *, int> modes[] = {
      {"bilinear", 4}, {"nearest", 1}, {"bicubic", 16}};
  for (auto [mode, gathers] : modes) {
    ModelBuilder mb(16);
    mb.input("x", {2, 3, 4, 5}).input("grid", {2, 6, 7, 2})
        .output("y", {2, 3, 6, 7});
    auto &n = mb.node("GridSample", {"x", "grid"}, {"y"});
    setString(n, "mode", mode);
    setString(n, "padding_mode", "reflection");
    setInt(n, "align_corners", 1);
    auto module = import(mb);
    ASSERT_TRUE(module);
    EXPECT_EQ(resultType(*module), "tensor<2x3x6x7xf32>");
    EXPECT_EQ(countOps(*module, "tosa.gather"), gathers) << mode;
    expectLowers(*module);
  }
}

TEST_F(OnnxSamplingTest, GridSampleRejectsUnknownPadding) {
  ModelBuilder mb(16);
  mb.input("x", {1, 1, 4, 4}).input("grid", {1, 2, 2, 2}).output("y", {1, 1, 2, 2});
  setString(mb.node("GridSample", {"x", "grid"}, {"y"}), "padding_mode", "wrap");
  EXPECT_NE(importError(mb).find("padding_mode"), std::string::npos);
}

//===----------------------------------------------------------------------===//
// RoiAlign
//===----------------------------------------------------------------------===//

TEST_F(OnnxSamplingTest, RoiAlignGathersFourCornersPerSample) {
  ModelBuilder mb(16);
  mb.input("x", {2, 3, 10, 8}).input("rois", {4, 4}).input("b", {4}, kI64)
      .output("y", {4, 3, 5, 2});
  auto &n = mb.node("RoiAlign", {"x", "rois", "b"}, {"y"});
  setInt(n, "output_height", 5);
  setInt(n, "output_width", 2);
  setInt(n, "sampling_ratio", 2);
  setString(n, "mode", "max");
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module), "tensor<4x3x5x2xf32>");
  EXPECT_EQ(countOps(*module, "tosa.gather"), 2 * 2 * 4);
  expectLowers(*module);
}

TEST_F(OnnxSamplingTest, RoiAlignAdaptiveSamplingNeedsConstantRois) {
  ModelBuilder mb(16);
  mb.input("x", {1, 1, 10, 10}).input("rois", {2, 4}).input("b", {2}, kI64)
      .output("y", {2, 1, 3, 3});
  auto &n = mb.node("RoiAlign", {"x", "rois", "b"}, {"y"});
  setInt(n, "output_height", 3);
  setInt(n, "output_width", 3);
  EXPECT_NE(importError(mb).find("sampling_ratio 0 (adaptive) needs constant "
                                 "rois"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// MaxUnpool, Det, ReverseSequence, Compress
//===----------------------------------------------------------------------===//

TEST_F(OnnxSamplingTest, MaxUnpoolOutputShapePadsTheEnd) {
  ModelBuilder mb(11);
  mb.input("x", {1, 2, 2, 2}).input("i", {1, 2, 2, 2}, kI64)
      .output("y", {1, 2, 5, 5});
  mb.initializer("shape", {4}, {1, 2, 5, 5});
  auto &n = mb.node("MaxUnpool", {"x", "i", "shape"}, {"y"});
  setInts(n, "kernel_shape", {2, 2});
  setInts(n, "strides", {2, 2});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module), "tensor<1x2x5x5xf32>");
  EXPECT_EQ(countOps(*module, "tosa.reduce_max"), 1);
  EXPECT_EQ(countOps(*module, "tosa.pad"), 1);
  expectLowers(*module);
}

TEST_F(OnnxSamplingTest, DetKeepsBatchDims) {
  ModelBuilder mb(11);
  mb.input("a", {2, 3, 4, 4}).input("m", {3, 3}).output("d", {2, 3})
      .output("s", {});
  mb.node("Det", {"a"}, {"d"});
  mb.node("Det", {"m"}, {"s"});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module, 0), "tensor<2x3xf32>");
  EXPECT_EQ(resultType(*module, 1), "tensor<f32>");
  expectLowers(*module);
}

TEST_F(OnnxSamplingTest, DetRejectsLargeMatrices) {
  ModelBuilder mb(11);
  mb.input("a", {9, 9}).output("d", {});
  mb.node("Det", {"a"}, {"d"});
  EXPECT_NE(importError(mb).find("only matrices of size 1 to 6 are supported, "
                                 "not 9"),
            std::string::npos);
}

TEST_F(OnnxSamplingTest, ReverseSequenceIsOneGather) {
  ModelBuilder mb(10);
  mb.input("x", {5, 3, 2}).input("lens", {3}, kI64).output("y", {5, 3, 2});
  auto &n = mb.node("ReverseSequence", {"x", "lens"}, {"y"});
  setInt(n, "batch_axis", 1);
  setInt(n, "time_axis", 0);
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module), "tensor<5x3x2xf32>");
  EXPECT_EQ(countOps(*module, "tosa.gather"), 1);
  EXPECT_EQ(countOps(*module, "tosa.transpose"), 2);
  expectLowers(*module);
}

TEST_F(OnnxSamplingTest, CompressWithAndWithoutAxis) {
  ModelBuilder mb(11);
  mb.input("x", {3, 4}).output("y", {3, 2}).output("flat", {3});
  mb.initializer("c", {3}, {0, 1, 1}, kBool);
  mb.initializer("f", {5}, {1, 0, 0, 1, 1}, kBool);
  setInt(mb.node("Compress", {"x", "c"}, {"y"}), "axis", -1);
  mb.node("Compress", {"x", "f"}, {"flat"});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module, 0), "tensor<3x2xf32>");
  EXPECT_EQ(resultType(*module, 1), "tensor<3xf32>");
  EXPECT_EQ(countOps(*module, "tosa.gather"), 2);
  expectLowers(*module);
}

//===----------------------------------------------------------------------===//
// MaxPool (Indices, uint8) and 3-D ConvTranspose (OnnxOpsNN.cpp)
//===----------------------------------------------------------------------===//

TEST_F(OnnxSamplingTest, MaxPoolIndicesAreAnArgMaxOverGatheredWindows) {
  ModelBuilder mb(12);
  mb.input("x", {2, 3, 5, 5}).output("y", {2, 3, 2, 2})
      .output("i", {2, 3, 2, 2}, kI64);
  auto &n = mb.node("MaxPool", {"x"}, {"y", "i"});
  setInts(n, "kernel_shape", {2, 2});
  setInts(n, "strides", {2, 2});
  setInt(n, "storage_order", 1);
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module, 0), "tensor<2x3x2x2xf32>");
  EXPECT_EQ(resultType(*module, 1), "tensor<2x3x2x2xi64>");
  EXPECT_EQ(countOps(*module, "tosa.argmax"), 1);
  EXPECT_EQ(countOps(*module, "tosa.max_pool2d"), 0);
  expectLowers(*module);
}

TEST_F(OnnxSamplingTest, MaxPoolUint8PoolsInI16) {
  ModelBuilder mb(12);
  mb.input("x", {1, 1, 5, 5}, kU8).output("y", {1, 1, 5, 5}, kU8);
  auto &n = mb.node("MaxPool", {"x"}, {"y"});
  setInts(n, "kernel_shape", {5, 5});
  setInts(n, "pads", {2, 2, 2, 2});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(countOps(*module, "tosa.max_pool2d"), 1);
  expectLowers(*module);
}

TEST_F(OnnxSamplingTest, ConvTranspose3DIsAConv3D) {
  ModelBuilder mb(11);
  mb.input("x", {1, 4, 3, 4, 5}).input("w", {4, 3, 3, 3, 3})
      .output("y", {1, 6, 5, 7, 7});
  auto &n = mb.node("ConvTranspose", {"x", "w"}, {"y"});
  setInt(n, "group", 2);
  setInts(n, "strides", {1, 2, 1});
  setInts(n, "pads", {0, 1, 0, 0, 1, 0});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module), "tensor<1x6x5x7x7xf32>");
  EXPECT_EQ(countOps(*module, "tosa.conv3d"), 2);
  expectLowers(*module);
}

} // namespace
