//===- OnnxQuantizationTest.cpp - Quantization ops import -----------------===//
//
// Builds small ModelProtos in C++ (so this file needs -frtti for the ONNX
// headers), imports them and checks the TOSA the converters of
// OnnxOpsQuantization.cpp produce: result types, the ops used (int8
// quantized_batch_matmul or i32 matmuls, f64 convolutions), errors, and that the upstream TOSA -> linalg pipeline
// lowers it. The numbers are checked by the ONNX node tests (conformance).
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
using namespace loupe::test;

namespace {

constexpr int32_t kI8 = onnx::TensorProto::INT8;
constexpr int32_t kU8 = onnx::TensorProto::UINT8;

class OnnxQuantizationTest : public loupe::test::OnnxConverterTest {};

//===----------------------------------------------------------------------===//
// QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear
//===----------------------------------------------------------------------===//

TEST_F(OnnxQuantizationTest, QuantizeLinearPerAxisAndDefaultZeroPoint) {
  // int8 along axis 0 from the zero point's type; uint8 without a zero point.
  ModelBuilder mb(13);
  mb.input("x", {3, 4}).input("s", {3}).input("zp", {3}, kI8)
      .input("t", {}).output("q", {3, 4}, kI8).output("u", {3, 4}, kU8);
  setInt(mb.node("QuantizeLinear", {"x", "s", "zp"}, {"q"}), "axis", 0);
  mb.node("QuantizeLinear", {"x", "t"}, {"u"});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module, 0), "tensor<3x4xi8>");
  EXPECT_EQ(resultType(*module, 1), "tensor<3x4xi8>");
  // Division, round-half-to-even and saturation: one generic each.
  EXPECT_EQ(countOps(*module, "linalg.generic"), 2);
  std::string text = loupe::test::printWithLocs(*module);
  EXPECT_NE(text.find("math.roundeven"), std::string::npos);
  EXPECT_NE(text.find("arith.divf"), std::string::npos);
  expectLowers(*module);
}

TEST_F(OnnxQuantizationTest, DequantizeLinearInt32AndPerAxisUint8) {
  ModelBuilder mb(13);
  mb.input("a", {5}, kI32).input("s", {}).input("b", {2, 3, 4}, kU8)
      .input("bs", {4}).input("bz", {4}, kU8)
      .output("ya", {5}).output("yb", {2, 3, 4});
  mb.node("DequantizeLinear", {"a", "s"}, {"ya"});
  setInt(mb.node("DequantizeLinear", {"b", "bs", "bz"}, {"yb"}), "axis", -1);
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module, 0), "tensor<5xf32>");
  EXPECT_EQ(resultType(*module, 1), "tensor<2x3x4xf32>");
  EXPECT_EQ(countOps(*module, "linalg.generic"), 2);
  expectLowers(*module);
}

TEST_F(OnnxQuantizationTest, DynamicQuantizeLinearHasThreeOutputs) {
  ModelBuilder mb(11);
  mb.input("x", {2, 3}).output("y", {2, 3}, kU8).output("ys", {})
      .output("yz", {}, kU8);
  mb.node("DynamicQuantizeLinear", {"x"}, {"y", "ys", "yz"});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module, 0), "tensor<2x3xi8>");
  EXPECT_EQ(resultType(*module, 1), "tensor<f32>");
  EXPECT_EQ(resultType(*module, 2), "tensor<i8>");
  EXPECT_EQ(countOps(*module, "tosa.reduce_min"), 1);
  EXPECT_EQ(countOps(*module, "tosa.reduce_max"), 1);
  expectLowers(*module);
}

//===----------------------------------------------------------------------===//
// MatMulInteger, QLinearMatMul
//===----------------------------------------------------------------------===//

TEST_F(OnnxQuantizationTest, MatMulIntegerWithPerTensorZeroPointsIsAnInt8LibraryOp) {
  // uint8 A moves to int8 (its zero point with it); B's batch broadcasts by tiling.
  ModelBuilder mb(10);
  mb.input("a", {4, 3}, kU8).input("b", {2, 3, 5}, kI8)
      .input("za", {}, kU8).input("zb", {1}, kI8).output("y", {2, 4, 5}, kI32);
  mb.node("MatMulInteger", {"a", "b", "za", "zb"}, {"y"});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module), "tensor<2x4x5xi32>");
  EXPECT_EQ(opTypes(*module, "linalg.quantized_batch_matmul"),
            "(tensor<2x4x3xi8>, tensor<2x3x5xi8>, i32, i32, tensor<2x4x5xi32>) -> "
            "tensor<2x4x5xi32>");
  EXPECT_EQ(countOps(*module, "tosa.matmul"), 0);
  expectLowers(*module);
}

TEST_F(OnnxQuantizationTest, MatMulIntegerIsAnI32MatMul) {
  // Per-row zero point of A, per-column one of B, batch of A folded into M.
  ModelBuilder mb(10);
  mb.input("a", {2, 4, 3}, kI8).input("b", {3, 5}, kU8)
      .input("za", {4}, kI8).input("zb", {5}, kU8).output("y", {2, 4, 5}, kI32);
  mb.node("MatMulInteger", {"a", "b", "za", "zb"}, {"y"});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module), "tensor<2x4x5xi32>");
  EXPECT_EQ(opTypes(*module, "tosa.matmul"),
            "(tensor<1x8x3xi32>, tensor<1x3x5xi32>) -> tensor<1x8x5xi32>");
  EXPECT_EQ(countOps(*module, "tosa.sub"), 2);
  expectLowers(*module);
}

TEST_F(OnnxQuantizationTest, QLinearMatMulRequantizesTheInt32Product) {
  ModelBuilder mb(10);
  mb.input("a", {2, 4}, kU8).input("as", {}).input("az", {}, kU8)
      .input("b", {4, 3}, kU8).input("bs", {3}).input("bz", {}, kU8)
      .input("ys", {}).input("yz", {}, kI8).output("y", {2, 3}, kI8);
  mb.node("QLinearMatMul", {"a", "as", "az", "b", "bs", "bz", "ys", "yz"},
          {"y"});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module), "tensor<2x3xi8>");
  EXPECT_EQ(opTypes(*module, "linalg.quantized_batch_matmul"),
            "(tensor<1x2x4xi8>, tensor<1x4x3xi8>, i32, i32, tensor<1x2x3xi32>) -> "
            "tensor<1x2x3xi32>");
  expectLowers(*module);
}

//===----------------------------------------------------------------------===//
// ConvInteger, QLinearConv
//===----------------------------------------------------------------------===//

TEST_F(OnnxQuantizationTest, ConvIntegerWithConstantZeroPointsIsAnInt8Conv) {
  // uint8 x (zero point 130, an initializer) moves to int8 with zero point 2; per-channel
  // weight zero points that are all 0 count as one.
  ModelBuilder mb(10);
  mb.input("x", {1, 3, 5, 5}, kU8).input("w", {4, 3, 3, 3}, kI8)
      .initializerInt("zx", {}, kU8, {130}).initializerInt("zw", {4}, kI8, {0, 0, 0, 0})
      .output("y", {1, 4, 5, 5}, kI32);
  auto &conv = mb.node("ConvInteger", {"x", "w", "zx", "zw"}, {"y"});
  setInts(conv, "pads", {1, 1, 1, 1});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module), "tensor<1x4x5x5xi32>");
  EXPECT_EQ(opTypes(*module, "tosa.conv2d"),
            "(tensor<1x5x5x3xi8>, tensor<4x3x3x3xi8>, tensor<4xi32>) -> tensor<1x5x5x4xi32>");
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  EXPECT_NE(text.find("quantization_info = #tosa.conv_quant<input_zp = 2, weight_zp = 0>"),
            std::string::npos)
      << text;
  expectLowers(*module);
}

TEST_F(OnnxQuantizationTest, ConvIntegerIsAnExactF64Conv) {
  // Two groups, per-output-channel weight zero points, strides and pads.
  ModelBuilder mb(10);
  mb.input("x", {1, 4, 7, 6}, kU8).input("w", {6, 2, 3, 2}, kI8)
      .input("zx", {}, kU8).input("zw", {6}, kI8)
      .output("y", {1, 6, 4, 6}, kI32);
  auto &conv = mb.node("ConvInteger", {"x", "w", "zx", "zw"}, {"y"});
  setInt(conv, "group", 2);
  setInts(conv, "strides", {2, 1});
  setInts(conv, "pads", {1, 0, 1, 1});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module), "tensor<1x6x4x6xi32>");
  EXPECT_EQ(countOps(*module, "tosa.conv2d"), 2);
  EXPECT_EQ(opTypes(*module, "tosa.conv2d"),
            "(tensor<1x7x6x2xf64>, tensor<3x3x2x2xf64>, tensor<3xf64>) -> "
            "tensor<1x4x6x3xf64>");
  expectLowers(*module);
}

TEST_F(OnnxQuantizationTest, QLinearConvDepthwiseWithBias) {
  ModelBuilder mb(10);
  mb.input("x", {1, 3, 6, 6}, kU8).input("xs", {}).input("xz", {}, kU8)
      .input("w", {3, 1, 3, 3}, kI8).input("ws", {3}).input("wz", {3}, kI8)
      .input("ys", {}).input("yz", {}, kU8).input("B", {3}, kI32)
      .output("y", {1, 3, 6, 6}, kU8);
  auto &conv = mb.node(
      "QLinearConv", {"x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "B"}, {"y"});
  setInt(conv, "group", 3);
  setInts(conv, "pads", {1, 1, 1, 1});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module), "tensor<1x3x6x6xi8>");
  EXPECT_EQ(countOps(*module, "tosa.depthwise_conv2d"), 1);
  EXPECT_EQ(countOps(*module, "tosa.conv2d"), 0);
  expectLowers(*module);
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST_F(OnnxQuantizationTest, ScaleOfTheWrongLengthIsAnError) {
  ModelBuilder mb(13);
  mb.input("x", {2, 3}).input("s", {2}).output("y", {2, 3}, kU8);
  mb.node("QuantizeLinear", {"x", "s"}, {"y"});
  std::string message = importError(mb);
  EXPECT_NE(message.find("input 's' must hold one value or be a 1-D tensor "
                         "of 3 values along axis 1"),
            std::string::npos)
      << message;
}

TEST_F(OnnxQuantizationTest, MatMulIntegerRejectsWideInputs) {
  ModelBuilder mb(10);
  mb.input("a", {2, 3}, kI32).input("b", {3, 2}, kI8).output("y", {2, 2}, kI32);
  mb.node("MatMulInteger", {"a", "b"}, {"y"});
  std::string message = importError(mb);
  EXPECT_NE(message.find("input 'a' must be int8 or uint8"), std::string::npos)
      << message;
}

} // namespace
