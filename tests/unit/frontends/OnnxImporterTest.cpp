//===- OnnxImporterTest.cpp - ONNX -> TOSA importer, per op and errors ----===//
//
// Builds small ModelProtos in C++ (so this file needs -frtti for the ONNX
// headers), imports them and checks the IR: ops, result types, locations,
// and that the upstream TOSA -> linalg pipeline lowers the result.
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

#include <algorithm>
#include <cmath>
#include <fstream>
#include <initializer_list>
#include <sstream>

using namespace mlir;
using loupe::frontends::importOnnxBytes;
using loupe::frontends::importOnnxFile;
using namespace loupe::test;

namespace {

std::string locName(Operation *op) {
  if (auto loc = dyn_cast<NameLoc>(op->getLoc()))
    return loc.getName().str();
  return "<not a NameLoc>";
}

class OnnxImporterTest : public loupe::test::OnnxConverterTest {
protected:
  Operation *firstOp(ModuleOp module, StringRef name) {
    Operation *found = nullptr;
    module.walk([&](Operation *op) {
      if (!found && op->getName().getStringRef() == name)
        found = op;
    });
    return found;
  }
};

//===----------------------------------------------------------------------===//
// Graph structure, constants, locations
//===----------------------------------------------------------------------===//

TEST_F(OnnxImporterTest, SignatureSkipsInitializersAndNamesLocations) {
  ModelBuilder mb(6); // pytorch-style: initializers listed as inputs too
  mb.input("x", {2, 3}).input("w", {2, 3}).output("y", {2, 3});
  mb.rawInitializer("w", {2, 3});
  mb.node("Add", {"x", "w"}, {"s"});
  mb.node("Relu", {"s"}, {"y"}, "my_relu");
  auto module = import(mb);
  ASSERT_TRUE(module);
  func::FuncOp main = mainOf(*module);
  ASSERT_TRUE(main);
  EXPECT_EQ(main.getNumArguments(), 1u);
  EXPECT_EQ(resultType(*module), "tensor<2x3xf32>");
  Operation *cst = firstOp(*module, "tosa.const");
  ASSERT_TRUE(cst);
  EXPECT_EQ(locName(cst), "w");
  EXPECT_EQ(locName(firstOp(*module, "tosa.add")), "Add_0");
  EXPECT_EQ(locName(firstOp(*module, "tosa.clamp")), "my_relu");
  auto value = cast<DenseElementsAttr>(cast<tosa::ConstOp>(cst).getValue());
  EXPECT_FLOAT_EQ(value.getValues<float>()[5], 0.6f);
  expectLowers(*module);
}

TEST_F(OnnxImporterTest, ConstantNodeAndTypedInitializers) {
  ModelBuilder mb;
  mb.input("x", {4}).output("y", {4}).output("z", {2}, kI64);
  mb.initializer("k", {4}, {1, 2, 3, 4});
  mb.initializerI64("ints", {2}, {7, -1});
  auto &c = mb.node("Constant", {}, {"c"}, "the_constant");
  auto *attr = c.add_attribute();
  attr->set_name("value");
  attr->set_type(onnx::AttributeProto::TENSOR);
  attr->mutable_t()->set_data_type(kF32);
  attr->mutable_t()->add_dims(1);
  attr->mutable_t()->add_float_data(0.5f);
  mb.node("Mul", {"x", "c"}, {"m"});
  mb.node("Sub", {"m", "k"}, {"y"});
  mb.node("Identity", {"ints"}, {"z"});
  auto module = import(mb);
  ASSERT_TRUE(module);
  std::string ir = loupe::test::printWithLocs(*module);
  EXPECT_NE(ir.find("loc(\"the_constant\")"), std::string::npos) << ir;
  EXPECT_NE(ir.find("dense<[7, -1]> : tensor<2xi64>"), std::string::npos) << ir;
  EXPECT_EQ(resultType(*module, 1), "tensor<2xi64>");
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.mul"), 1);
  expectLowers(*module);
}

TEST_F(OnnxImporterTest, BroadcastReshapesLowerRankOperand) {
  ModelBuilder mb;
  mb.input("a", {2, 3, 4}).input("b", {4}).output("y", {2, 3, 4});
  mb.node("Div", {"a", "b"}, {"y"});
  auto module = import(mb);
  ASSERT_TRUE(module);
  auto reshape = cast<tosa::ReshapeOp>(firstOp(*module, "tosa.reshape"));
  EXPECT_EQ(reshape.getType().getShape(), ArrayRef<int64_t>({1, 1, 4}));
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.reciprocal"), 1);
  expectLowers(*module);
}

TEST_F(OnnxImporterTest, IntegerDivUsesIntDiv) {
  ModelBuilder mb;
  mb.input("a", {3}, kI32).input("b", {3}, kI32).output("y", {3}, kI32);
  mb.node("Div", {"a", "b"}, {"y"});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.int_div"), 1);
  expectLowers(*module);
}

TEST_F(OnnxImporterTest, Int64DivOfConstantsFolds) {
  ModelBuilder mb;
  mb.input("x", {2}, kI64).output("y", {2}, kI64);
  mb.initializerI64("a", {2}, {7, -7});
  mb.initializerI64("b", {2}, {2, 2});
  mb.node("Div", {"a", "b"}, {"q"});
  mb.node("Add", {"x", "q"}, {"y"});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.int_div"), 0);
  std::string ir = loupe::test::printWithLocs(*module);
  EXPECT_NE(ir.find("dense<[3, -3]> : tensor<2xi64>"), std::string::npos) << ir;
  expectLowers(*module);
}

//===----------------------------------------------------------------------===//
// Elementwise and activations
//===----------------------------------------------------------------------===//

TEST_F(OnnxImporterTest, UnaryAndActivationOps) {
  const char *ops[] = {"Relu",     "Sigmoid",  "Tanh",        "Exp",
                       "Log",      "Neg",      "Abs",         "Sqrt",
                       "Erf",      "LeakyRelu", "Elu",        "Selu",
                       "Softplus", "Softsign", "HardSigmoid", "Reciprocal",
                       "Floor",    "Ceil",     "HardSwish",   "Sign"};
  for (const char *op : ops) {
    ModelBuilder mb(14);
    mb.input("x", {2, 5}).output("y", {2, 5});
    mb.node(op, {"x"}, {"y"}, std::string("n_") + op);
    auto module = import(mb);
    ASSERT_TRUE(module) << op;
    EXPECT_EQ(resultType(*module), "tensor<2x5xf32>") << op;
    // Every op the converter created carries the node's name.
    mainOf(*module).walk([&](Operation *inner) {
      if (!isa<func::FuncOp, func::ReturnOp>(inner))
        EXPECT_EQ(locName(inner), std::string("n_") + op)
            << op << ": " << inner->getName().getStringRef().str();
    });
    expectLowers(*module);
  }
}

TEST_F(OnnxImporterTest, ClipWithConstantBoundsIsOneClamp) {
  ModelBuilder mb(13);
  mb.input("x", {6}).output("y", {6});
  mb.initializer("lo", {}, {-1.0f}).initializer("hi", {}, {2.0f});
  mb.node("Clip", {"x", "lo", "hi"}, {"y"});
  auto module = import(mb);
  ASSERT_TRUE(module);
  auto clamp = cast<tosa::ClampOp>(firstOp(*module, "tosa.clamp"));
  EXPECT_EQ(clamp.getMinFp().convertToDouble(), -1.0);
  EXPECT_EQ(clamp.getMaxFp().convertToDouble(), 2.0);
  expectLowers(*module);
}

TEST_F(OnnxImporterTest, PowAndPReluBroadcast) {
  ModelBuilder mb(16);
  mb.input("x", {2, 3, 4}).input("slope", {3, 1}).output("p", {2, 3, 4})
      .output("r", {2, 3, 4});
  mb.initializer("two", {}, {2.0f});
  mb.node("Pow", {"x", "two"}, {"p"});
  mb.node("PRelu", {"x", "slope"}, {"r"});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.pow"), 1);
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.select"), 1);
  expectLowers(*module);
}

TEST_F(OnnxImporterTest, CastTruncatesTowardZero) {
  ModelBuilder mb(13);
  mb.input("x", {4}).output("y", {4}, kI64);
  setInt(mb.node("Cast", {"x"}, {"y"}), "to", kI64);
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.floor"), 1);
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.ceil"), 1);
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.cast"), 1);
  expectLowers(*module);
}

//===----------------------------------------------------------------------===//
// Gemm, MatMul
//===----------------------------------------------------------------------===//

TEST_F(OnnxImporterTest, GemmWithAttributes) {
  ModelBuilder mb(13);
  mb.input("a", {3, 5}).output("y", {5, 4});
  mb.rawInitializer("b", {4, 3}).rawInitializer("c", {4});
  auto &n = mb.node("Gemm", {"a", "b", "c"}, {"y"}, "fc");
  setInt(n, "transA", 1);
  setInt(n, "transB", 1);
  setFloat(n, "alpha", 0.5f);
  setFloat(n, "beta", 2.0f);
  auto module = import(mb);
  ASSERT_TRUE(module);
  auto matmul = firstOp(*module, "tosa.matmul");
  ASSERT_TRUE(matmul);
  EXPECT_EQ(locName(matmul), "fc");
  // transB folds into the constant; transA stays a tosa.transpose.
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.transpose"), 1);
  EXPECT_EQ(resultType(*module), "tensor<5x4xf32>");
  expectLowers(*module);
}

TEST_F(OnnxImporterTest, MatMulBatchedAndBroadcast) {
  ModelBuilder mb;
  mb.input("a", {2, 3, 4, 5}).input("b", {5, 6}).input("c", {2, 1, 4, 5})
      .input("d", {3, 5, 6}).input("v", {5})
      .output("y1", {2, 3, 4, 6}).output("y2", {2, 3, 4, 6})
      .output("y3", {2, 3, 4});
  mb.node("MatMul", {"a", "b"}, {"y1"});
  mb.node("MatMul", {"c", "d"}, {"y2"});
  mb.node("MatMul", {"a", "v"}, {"y3"});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.matmul"), 3);
  EXPECT_GE(loupe::test::countOps(*module, "tosa.tile"), 1);
  EXPECT_EQ(resultType(*module, 2), "tensor<2x3x4xf32>");
  expectLowers(*module);
}

//===----------------------------------------------------------------------===//
// Conv, pools
//===----------------------------------------------------------------------===//

TEST_F(OnnxImporterTest, Conv2DPadsStridesDilationsNoBias) {
  ModelBuilder mb(11);
  mb.input("x", {1, 3, 9, 9}).output("y", {1, 4, 4, 3});
  mb.rawInitializer("w", {4, 3, 3, 3});
  auto &n = mb.node("Conv", {"x", "w"}, {"y"}, "conv");
  setInts(n, "pads", {1, 0, 1, 0});
  setInts(n, "strides", {2, 3});
  setInts(n, "dilations", {2, 1});
  auto module = import(mb);
  ASSERT_TRUE(module);
  auto conv = cast<tosa::Conv2DOp>(firstOp(*module, "tosa.conv2d"));
  EXPECT_EQ(conv.getInput().getType(),
            RankedTensorType::get({1, 9, 9, 3}, Float32Type::get(&ctx)));
  EXPECT_EQ(conv.getStride(), ArrayRef<int64_t>({2, 3}));
  EXPECT_EQ(conv.getDilation(), ArrayRef<int64_t>({2, 1}));
  EXPECT_EQ(locName(conv), "conv");
  EXPECT_EQ(resultType(*module), "tensor<1x4x4x3xf32>");
  expectLowers(*module);
}

// A stride-2 1x1 conv over an even extent never reads the last row and column; the conv still
// takes the whole input, not a strided slice of it (which oneDNN would copy on every call).
TEST_F(OnnxImporterTest, StridedConvReadsItsWholeInput) {
  ModelBuilder mb(11);
  mb.input("x", {1, 8, 6, 6}).output("y", {1, 4, 3, 3});
  mb.rawInitializer("w", {4, 8, 1, 1});
  setInts(mb.node("Conv", {"x", "w"}, {"y"}), "strides", {2, 2});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.slice"), 0);
  auto conv = cast<tosa::Conv2DOp>(firstOp(*module, "tosa.conv2d"));
  EXPECT_EQ(conv.getInput().getType(),
            RankedTensorType::get({1, 6, 6, 8}, Float32Type::get(&ctx)));
  EXPECT_EQ(conv.getPad(), ArrayRef<int64_t>({0, 0, 0, 0}));
  EXPECT_EQ(resultType(*module), "tensor<1x4x3x3xf32>");
  expectLowers(*module);
}

TEST_F(OnnxImporterTest, ConvGroupsDepthwise1DAnd3D) {
  ModelBuilder mb(11);
  mb.input("x", {1, 4, 6, 6}).input("x1", {1, 4, 10}).input("x3", {1, 2, 4, 4, 4})
      .output("g", {1, 6, 4, 4}).output("dw", {1, 8, 6, 6})
      .output("c1", {1, 2, 10}).output("c3", {1, 3, 3, 3, 3});
  mb.rawInitializer("wg", {6, 2, 3, 3}).rawInitializer("wd", {8, 1, 3, 3})
      .rawInitializer("w1", {2, 4, 3}).rawInitializer("w3", {3, 2, 2, 2, 2})
      .rawInitializer("bd", {8});
  setInt(mb.node("Conv", {"x", "wg"}, {"g"}), "group", 2);
  auto &dw = mb.node("Conv", {"x", "wd", "bd"}, {"dw"});
  setInt(dw, "group", 4);
  setString(dw, "auto_pad", "SAME_UPPER");
  setInts(mb.node("Conv", {"x1", "w1"}, {"c1"}), "pads", {1, 1});
  mb.node("Conv", {"x3", "w3"}, {"c3"});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.conv2d"), 3); // 2 groups + 1-D
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.depthwise_conv2d"), 1);
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.conv3d"), 1);
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.concat"), 1);
  expectLowers(*module);
}

TEST_F(OnnxImporterTest, ConvTranspose) {
  ModelBuilder mb(11);
  mb.input("x", {1, 3, 5, 5}).output("y", {1, 2, 10, 9});
  mb.rawInitializer("w", {3, 2, 3, 3});
  auto &n = mb.node("ConvTranspose", {"x", "w"}, {"y"});
  setInts(n, "strides", {2, 2});
  setInts(n, "pads", {1, 1, 1, 1});
  setInts(n, "output_padding", {1, 0});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.transpose_conv2d"), 1);
  EXPECT_EQ(resultType(*module), "tensor<1x2x10x9xf32>");
  expectLowers(*module);
}

TEST_F(OnnxImporterTest, PoolsCeilModeAndCountIncludePad) {
  ModelBuilder mb(11);
  mb.input("x", {1, 2, 7, 7}).input("x8", {1, 2, 8, 8}).input("x1", {1, 2, 9})
      .input("x3", {1, 2, 5, 5, 5})
      .output("mp", {1, 2, 4, 4}).output("ap", {1, 2, 4, 4})
      .output("ap1", {1, 2, 5}).output("mp3", {1, 2, 3, 3, 3})
      .output("gap", {1, 2, 1, 1});
  auto &mp = mb.node("MaxPool", {"x8"}, {"mp"}, "maxpool");
  setInts(mp, "kernel_shape", {3, 3});
  setInts(mp, "strides", {2, 2});
  setInt(mp, "ceil_mode", 1);
  auto &ap = mb.node("AveragePool", {"x"}, {"ap"});
  setInts(ap, "kernel_shape", {3, 3});
  setInts(ap, "strides", {2, 2});
  setInts(ap, "pads", {1, 1, 1, 1});
  setInt(ap, "count_include_pad", 1);
  auto &ap1 = mb.node("AveragePool", {"x1"}, {"ap1"});
  setInts(ap1, "kernel_shape", {3});
  setInts(ap1, "strides", {2});
  setInts(ap1, "pads", {1, 1});
  auto &mp3 = mb.node("MaxPool", {"x3"}, {"mp3"});
  setInts(mp3, "kernel_shape", {3, 3, 3});
  setInts(mp3, "strides", {2, 2, 2});
  setInts(mp3, "pads", {1, 1, 1, 1, 1, 1});
  mb.node("GlobalAveragePool", {"x"}, {"gap"});
  auto module = import(mb);
  ASSERT_TRUE(module);
  auto pool = cast<tosa::MaxPool2dOp>(firstOp(*module, "tosa.max_pool2d"));
  EXPECT_EQ(locName(pool), "maxpool");
  // 8 rows, k3 s2, ceil mode: 4 windows need one extra bottom/right pad row.
  EXPECT_EQ(pool.getPad(), ArrayRef<int64_t>({0, 1, 0, 1}));
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.pad"), 1); // count_include_pad
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.avg_pool2d"), 2);
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.max_pool2d"), 3); // 3-D = 2
  expectLowers(*module);
}

TEST_F(OnnxImporterTest, DilatedMaxPoolAndConvTranspose) {
  ModelBuilder mb(12);
  mb.input("x", {1, 2, 9, 9}).input("xt", {1, 2, 3, 3})
      .output("p1", {1, 2, 7, 7}).output("p2", {1, 2, 2, 2})
      .output("ct", {1, 3, 6, 6});
  mb.rawInitializer("w", {2, 3, 2, 2});
  auto &p1 = mb.node("MaxPool", {"x"}, {"p1"}); // stride 1: phases
  setInts(p1, "kernel_shape", {2, 2});
  setInts(p1, "dilations", {2, 2});
  auto &p2 = mb.node("MaxPool", {"x"}, {"p2"}); // stride = dilation
  setInts(p2, "kernel_shape", {3, 3});
  setInts(p2, "strides", {3, 3});
  setInts(p2, "dilations", {3, 3});
  setInts(p2, "pads", {1, 1, 1, 1});
  auto &ct = mb.node("ConvTranspose", {"xt", "w"}, {"ct"});
  setInts(ct, "dilations", {3, 3});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.max_pool2d"), 2 * 2 + 2);
  auto conv = cast<tosa::TransposeConv2DOp>(
      firstOp(*module, "tosa.transpose_conv2d"));
  // A 2x2 kernel with dilation 3 runs as a 4x4 one.
  EXPECT_EQ(cast<RankedTensorType>(conv.getFilter().getType()).getShape(),
            ArrayRef<int64_t>({3, 4, 4, 2}));
  expectLowers(*module);
}

//===----------------------------------------------------------------------===//
// Normalizations, softmax
//===----------------------------------------------------------------------===//

TEST_F(OnnxImporterTest, LpPoolsAndLpNormalization) {
  // LpPool is an average pool of |x|^p counting the padding, times the window, to the 1/p.
  ModelBuilder mb(11);
  mb.input("x", {1, 3, 6, 6}).output("a", {1, 3, 3, 3}).output("g", {1, 3, 1, 1})
      .output("n", {1, 3, 6, 6});
  auto &pool = mb.node("LpPool", {"x"}, {"a"});
  setInts(pool, "kernel_shape", {3, 3});
  setInts(pool, "strides", {2, 2});
  setInts(pool, "pads", {1, 1, 1, 1});
  setInt(mb.node("GlobalLpPool", {"x"}, {"g"}), "p", 3);
  auto &norm = mb.node("LpNormalization", {"x"}, {"n"});
  setInt(norm, "axis", 1);
  setInt(norm, "p", 1);
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.avg_pool2d"), 1);
  EXPECT_EQ(resultType(*module, 0), "tensor<1x3x3x3xf32>");
  EXPECT_EQ(resultType(*module, 1), "tensor<1x3x1x1xf32>");
  expectLowers(*module);
  // p outside what the op defines is named.
  ModelBuilder bad(11);
  bad.input("x", {1, 3, 6}).output("n", {1, 3, 6});
  setInt(bad.node("LpNormalization", {"x"}, {"n"}), "p", 3);
  EXPECT_NE(importError(bad).find("LpNormalization takes floats, p 1 or 2"), std::string::npos);
}

TEST_F(OnnxImporterTest, BatchNormFoldsConstantStatistics) {
  ModelBuilder mb(15);
  mb.input("x", {2, 3, 4, 4}).output("y", {2, 3, 4, 4});
  mb.initializer("s", {3}, {1, 2, 3}).initializer("b", {3}, {0, 1, 0})
      .initializer("m", {3}, {0.5f, 0, 0}).initializer("v", {3}, {1, 4, 9});
  setFloat(mb.node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y"}, "bn"),
           "epsilon", 0);
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.mul"), 1);
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.add"), 1);
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.rsqrt"), 0);
  std::string ir = loupe::test::printWithLocs(*module);
  // a = s / sqrt(v) = 1, 1, 1; c = b - m * a = -0.5, 1, 0.
  EXPECT_NE(ir.find("dense<1.000000e+00> : tensor<1x3x1x1xf32>"),
            std::string::npos) << ir;
  EXPECT_NE(ir.find("[[[[-5.000000e-01]], [[1.000000e+00]], [[0.000000e+00]]]]"),
            std::string::npos) << ir;
  expectLowers(*module);
}

TEST_F(OnnxImporterTest, LayerNormalizationWithMeanOutput) {
  ModelBuilder mb(17);
  mb.input("x", {2, 3, 8}).output("y", {2, 3, 8}).output("mean", {2, 1, 1});
  mb.rawInitializer("scale", {3, 8}).rawInitializer("bias", {3, 8});
  auto &n = mb.node("LayerNormalization", {"x", "scale", "bias"}, {"y", "mean"},
                    "ln");
  setInt(n, "axis", 1);
  setFloat(n, "epsilon", 1e-3f);
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.rsqrt"), 1);
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.reduce_sum"), 4);
  EXPECT_EQ(resultType(*module, 1), "tensor<2x1x1xf32>");
  expectLowers(*module);
}

TEST_F(OnnxImporterTest, SoftmaxOldOpsetCoercesTo2D) {
  ModelBuilder mb(11);
  mb.input("x", {2, 3, 4}).output("y", {2, 3, 4});
  setInt(mb.node("Softmax", {"x"}, {"y"}), "axis", 1);
  auto module = import(mb);
  ASSERT_TRUE(module);
  auto max = cast<tosa::ReduceMaxOp>(firstOp(*module, "tosa.reduce_max"));
  // [2, 12] reduced along axis 1.
  EXPECT_EQ(max.getInput().getType(),
            RankedTensorType::get({2, 12}, Float32Type::get(&ctx)));
  EXPECT_EQ(max.getAxis(), 1u);
  expectLowers(*module);
}

TEST_F(OnnxImporterTest, LogSoftmaxNewOpsetAlongAxis) {
  ModelBuilder mb(13);
  mb.input("x", {2, 3, 4}).output("y", {2, 3, 4});
  mb.node("LogSoftmax", {"x"}, {"y"});
  auto module = import(mb);
  ASSERT_TRUE(module);
  auto max = cast<tosa::ReduceMaxOp>(firstOp(*module, "tosa.reduce_max"));
  EXPECT_EQ(max.getAxis(), 2u);
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.log"), 1);
  expectLowers(*module);
}

//===----------------------------------------------------------------------===//
// Shapes and data movement
//===----------------------------------------------------------------------===//

TEST_F(OnnxImporterTest, ReshapeFlattenSqueezeUnsqueeze) {
  ModelBuilder mb(13);
  mb.input("x", {2, 3, 4}).output("r", {3, 8}).output("f", {6, 4})
      .output("u", {1, 2, 3, 4, 1}).output("s", {2, 3, 4});
  mb.initializerI64("shape", {2}, {3, -1});
  mb.initializerI64("zero_shape", {3}, {0, 3, 4});
  mb.initializerI64("uaxes", {2}, {0, -1});
  mb.initializerI64("saxes", {2}, {0, 4});
  mb.node("Reshape", {"x", "shape"}, {"r"});
  setInt(mb.node("Flatten", {"x"}, {"f"}), "axis", 2);
  mb.node("Unsqueeze", {"x", "uaxes"}, {"u"});
  mb.node("Squeeze", {"u", "saxes"}, {"s0"});
  mb.node("Reshape", {"s0", "zero_shape"}, {"s"});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module, 0), "tensor<3x8xf32>");
  EXPECT_EQ(resultType(*module, 1), "tensor<6x4xf32>");
  EXPECT_EQ(resultType(*module, 2), "tensor<1x2x3x4x1xf32>");
  EXPECT_EQ(resultType(*module, 3), "tensor<2x3x4xf32>");
  expectLowers(*module);
}

TEST_F(OnnxImporterTest, TransposeConcatSplitSlice) {
  ModelBuilder mb(13);
  mb.input("x", {2, 3, 4}).output("t", {4, 2, 3}).output("c", {2, 6, 4})
      .output("s0", {2, 3, 1}).output("s1", {2, 3, 3}).output("sl", {2, 2, 2});
  setInts(mb.node("Transpose", {"x"}, {"t"}), "perm", {2, 0, 1});
  setInt(mb.node("Concat", {"x", "x"}, {"c"}), "axis", -2);
  mb.initializerI64("split", {2}, {1, 3});
  setInt(mb.node("Split", {"x", "split"}, {"s0", "s1"}), "axis", 2);
  mb.initializerI64("starts", {2}, {-1, 0});
  mb.initializerI64("ends", {2}, {-100, 4});
  mb.initializerI64("axes", {2}, {1, 2});
  mb.initializerI64("steps", {2}, {-2, 2});
  mb.node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"sl"});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.transpose"), 1);
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.concat"), 1);
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.reverse"), 1);
  EXPECT_EQ(resultType(*module, 4), "tensor<2x2x2xf32>");
  expectLowers(*module);
}

TEST_F(OnnxImporterTest, GatherAndPadModes) {
  ModelBuilder mb(13);
  mb.input("x", {3, 4}).output("g", {3, 2}).output("pc", {5, 7})
      .output("pr", {5, 7}).output("pe", {5, 7});
  mb.initializerI64("idx", {2}, {-1, 0});
  mb.initializerI64("pads", {4}, {1, 2, 1, 1});
  setInt(mb.node("Gather", {"x", "idx"}, {"g"}), "axis", 1);
  mb.node("Pad", {"x", "pads"}, {"pc"});
  setString(mb.node("Pad", {"x", "pads"}, {"pr"}), "mode", "reflect");
  setString(mb.node("Pad", {"x", "pads"}, {"pe"}), "mode", "edge");
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.gather"), 1);
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.pad"), 1);
  expectLowers(*module);
}

TEST_F(OnnxImporterTest, ReductionsAttrAndInputAxes) {
  ModelBuilder mb(13);
  mb.input("x", {2, 3, 4}).output("mean", {2, 4}).output("sum", {2, 1, 4})
      .output("max", {1, 1, 1});
  auto &mean = mb.node("ReduceMean", {"x"}, {"mean"});
  setInts(mean, "axes", {1});
  setInt(mean, "keepdims", 0);
  mb.initializerI64("axes", {1}, {-2});
  mb.node("ReduceSum", {"x", "axes"}, {"sum"});
  mb.node("ReduceMax", {"x"}, {"max"});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module, 0), "tensor<2x4xf32>");
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.reduce_max"), 3);
  expectLowers(*module);
}

TEST_F(OnnxImporterTest, GatherElementsAndGatherND) {
  ModelBuilder mb(13);
  mb.input("x", {3, 4}).input("ie", {2, 4}, kI64).input("ind", {2, 1}, kI64)
      .output("ge", {2, 4}).output("gnd", {2, 4});
  setInt(mb.node("GatherElements", {"x", "ie"}, {"ge"}), "axis", 0);
  mb.node("GatherND", {"x", "ind"}, {"gnd"});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.gather"), 2);
  EXPECT_EQ(resultType(*module, 1), "tensor<2x4xf32>");
  expectLowers(*module);
}

TEST_F(OnnxImporterTest, ResizeNearestLinearCubic) {
  ModelBuilder mb(13);
  mb.input("x", {1, 2, 4, 4}).output("n", {1, 2, 8, 12})
      .output("l", {1, 2, 3, 5}).output("c", {1, 2, 6, 6});
  mb.initializer("roi", {0}, {});
  mb.initializer("scales", {4}, {1, 1, 2, 3});
  mb.initializerI64("lsizes", {4}, {1, 2, 3, 5});
  mb.initializerI64("csizes", {4}, {1, 2, 6, 6});
  mb.node("Resize", {"x", "roi", "scales"}, {"n"}, "up");
  setString(mb.node("Resize", {"x", "roi", "", "lsizes"}, {"l"}), "mode",
            "linear");
  auto &c = mb.node("Resize", {"x", "roi", "", "csizes"}, {"c"});
  setString(c, "mode", "cubic");
  setString(c, "coordinate_transformation_mode", "align_corners");
  auto module = import(mb);
  ASSERT_TRUE(module);
  // Nearest: one gather per resized axis; linear 2 taps, cubic 4 taps each.
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.gather"), 2 + 4 + 8);
  EXPECT_EQ(resultType(*module, 0), "tensor<1x2x8x12xf32>");
  expectLowers(*module);
}

TEST_F(OnnxImporterTest, OneHotTriluHardmaxCumSum) {
  ModelBuilder mb(14);
  mb.input("idx", {3}, kI64).input("m", {3, 4}).output("oh", {3, 5})
      .output("tu", {3, 4}).output("tl", {3, 4}).output("hm", {3, 4})
      .output("cs", {3, 4});
  mb.initializerI64("depth", {}, {5});
  mb.initializer("values", {2}, {0, 1});
  mb.initializerI64("k", {}, {7});
  mb.initializerI64("axis", {}, {1});
  mb.node("OneHot", {"idx", "depth", "values"}, {"oh"});
  mb.node("Trilu", {"m", "k"}, {"tu"}); // keeps nothing: k beyond the matrix
  setInt(mb.node("Trilu", {"m"}, {"tl"}), "upper", 0);
  mb.node("Hardmax", {"m"}, {"hm"});
  auto &cs = mb.node("CumSum", {"m", "axis"}, {"cs"});
  setInt(cs, "exclusive", 1);
  setInt(cs, "reverse", 1);
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.argmax"), 1);
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.reverse"), 2);
  EXPECT_EQ(resultType(*module, 1), "tensor<3x4xf32>");
  expectLowers(*module);
}

TEST_F(OnnxImporterTest, RoundModIsNaNIsInf) {
  ModelBuilder mb(13);
  mb.input("x", {6}).input("a", {6}, kI32).input("b", {6}, kI32)
      .output("r", {6}).output("m", {6}, kI32)
      .output("nan", {6}, onnx::TensorProto::BOOL)
      .output("inf", {6}, onnx::TensorProto::BOOL);
  mb.node("Round", {"x"}, {"r"});
  mb.node("Mod", {"a", "b"}, {"m"});
  mb.node("IsNaN", {"x"}, {"nan"});
  mb.node("IsInf", {"x"}, {"inf"});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(loupe::test::countOps(*module, "arith.remsi"), 1); // in one linalg.generic
  EXPECT_EQ(resultType(*module, 2), "tensor<6xi1>");
  expectLowers(*module);
}

TEST_F(OnnxImporterTest, MathTosaLacksIsOneLinalgGeneric) {
  // Inverse trigonometric functions, integer Pow and BitShift: one linalg.generic each (or
  // TOSA's logical shifts), located at the node; a float BitShift is named.
  constexpr int32_t kU8 = onnx::TensorProto::UINT8;
  ModelBuilder mb(13);
  mb.input("x", {4}).input("a", {4}, kI32).input("e", {4}, kI32).input("u", {4}, kU8)
      .input("s", {4}, kU8).output("acos", {4}).output("atanh", {4}).output("pow", {4}, kI32)
      .output("shl", {4}, kU8);
  mb.node("Acos", {"x"}, {"acos"}, "acos_node");
  mb.node("Atanh", {"x"}, {"atanh"});
  mb.node("Pow", {"a", "e"}, {"pow"});
  setString(mb.node("BitShift", {"u", "s"}, {"shl"}), "direction", "LEFT");
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(loupe::test::countOps(*module, "linalg.generic"), 3);
  EXPECT_EQ(loupe::test::countOps(*module, "math.acos"), 1);
  EXPECT_EQ(loupe::test::countOps(*module, "math.atanh"), 1);
  EXPECT_EQ(loupe::test::countOps(*module, "arith.muli"), 61); // 31 bits: 31 + 30 squarings
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.logical_left_shift"), 1);
  EXPECT_EQ(locName(firstOp(*module, "linalg.generic")), "acos_node");
  EXPECT_EQ(resultType(*module, 3), "tensor<4xi8>"); // uint8 storage
  expectLowers(*module);

  ModelBuilder bad(13);
  bad.input("x", {4}).output("y", {4});
  setString(bad.node("BitShift", {"x", "x"}, {"y"}), "direction", "LEFT");
  EXPECT_NE(importError(bad).find("BitShift"), std::string::npos); // ONNX or the converter
}

TEST_F(OnnxImporterTest, NonZeroTakesTheDeclaredCountAndChecksIt) {
  ModelBuilder mb(13);
  mb.input("x", {2, 3}).output("y", {2, 4}, kI64);
  mb.node("NonZero", {"x"}, {"y"});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module), "tensor<2x4xi64>");
  EXPECT_EQ(loupe::test::countOps(*module, "cf.assert"), 1);
  expectLowers(*module);
  // Without a declared count the size is unknown.
  ModelBuilder open(13);
  open.input("x", {2, 3}).output("y", {2, -1}, kI64);
  open.node("NonZero", {"x"}, {"y"});
  std::string message = importError(open);
  EXPECT_NE(message.find("tensor 'y' has a dynamic dimension"), std::string::npos) << message;
}

TEST_F(OnnxImporterTest, MaxRoiPoolIsAMaskedMaxPerBin) {
  ModelBuilder mb(1);
  mb.input("x", {2, 3, 8, 10}).input("rois", {4, 5}).output("y", {4, 3, 2, 3});
  auto &pool = mb.node("MaxRoiPool", {"x", "rois"}, {"y"});
  setInts(pool, "pooled_shape", {2, 3});
  setFloat(pool, "spatial_scale", 0.5f);
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module), "tensor<4x3x2x3xf32>");
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.gather"), 1); // each roi's image
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.reduce_max"), 2);
  expectLowers(*module);
}

TEST_F(OnnxImporterTest, LossesReduceToScalars) {
  ModelBuilder mb(13);
  mb.input("scores", {3, 5, 2}).input("labels", {3, 2}, kI64)
      .output("sce", {}).output("logp", {3, 5, 2}).output("nll", {3, 2});
  mb.initializer("w", {5}, {1, 2, 3, 4, 5});
  auto &sce = mb.node("SoftmaxCrossEntropyLoss", {"scores", "labels", "w"},
                      {"sce", "logp"});
  setInt(sce, "ignore_index", 1);
  setString(mb.node("NegativeLogLikelihoodLoss", {"scores", "labels"}, {"nll"}),
            "reduction", "none");
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module, 0), "tensor<f32>");
  EXPECT_EQ(resultType(*module, 2), "tensor<3x2xf32>");
  expectLowers(*module);
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST_F(OnnxImporterTest, UnsupportedOpIsNamed) {
  ModelBuilder mb(15);
  mb.input("x", {3}).output("y", {3});
  mb.node("Relu", {"x"}, {"r"});
  mb.node("Bernoulli", {"r"}, {"y"});
  std::string message = importError(mb);
  EXPECT_EQ(message, "test.onnx: unsupported ONNX op 'Bernoulli' (node 'Bernoulli_1', opset 15): "
                     "random numbers: results cannot be checked against a reference");

  // All unsupported op types are listed, the first one with its node.
  mb.node("Bernoulli", {"x"}, {"z"});
  mb.node("RandomUniformLike", {"x"}, {"w"});
  mb.node("Custom", {"w"}, {"v"}).set_domain("com.example");
  auto *customOpset = mb.model.add_opset_import();
  customOpset->set_domain("com.example");
  customOpset->set_version(1);
  message = importError(mb);
  EXPECT_EQ(message,
            "test.onnx: unsupported ONNX op 'Bernoulli' (node 'Bernoulli_1', opset 15): random "
            "numbers: results cannot be checked against a reference; also unsupported: "
            "RandomUniformLike, com.example.Custom");
}

TEST_F(OnnxImporterTest, UnsupportedAttributeNamesNodeAndAttribute) {
  ModelBuilder mb(13);
  mb.input("x", {1, 1, 8, 8}).output("y", {1, 1, 3, 3});
  auto &n = mb.node("MaxPool", {"x"}, {"y"}, "pool1");
  setInts(n, "kernel_shape", {2, 2});
  setInts(n, "strides", {2, 2});
  setInts(n, "dilations", {3, 3}); // neither divides the other
  std::string message = importError(mb);
  EXPECT_NE(message.find("test.onnx: node 'pool1' (MaxPool, opset 13)"),
            std::string::npos) << message;
  EXPECT_NE(message.find("'dilations'"), std::string::npos) << message;
}

TEST_F(OnnxImporterTest, UnboundSymbolicInputDimIsAnError) {
  ModelBuilder mb(13);
  mb.input("x", {-1, 3}).output("y", {-1, 3});
  mb.node("Relu", {"x"}, {"y"});
  std::string message = importError(mb);
  EXPECT_NE(message.find("graph input 'x' [N,3] has a symbolic dim 0 ('N'): give its shape "
                         "with --input-shape x=D0,D1,..."),
            std::string::npos) << message;
}

/// Imports `mb` with `shapes`; the entry's argument and result types, or the error.
static std::string importWithShapes(MLIRContext &ctx, const ModelBuilder &mb,
                                    const loupe::frontends::InputBindings &shapes) {
  std::string error;
  auto module = importOnnxBytes(mb.bytes(), "test.onnx", ctx, error, shapes);
  if (!module)
    return error;
  std::string types;
  llvm::raw_string_ostream os(types);
  os << module->lookupSymbol<func::FuncOp>("main").getFunctionType();
  return types;
}

TEST_F(OnnxImporterTest, InputShapesBindSymbolicDimsEverywhere) {
  // x [N,3] and z [N,3] share 'N': binding it in x binds z; the output follows.
  ModelBuilder mb(13);
  mb.input("x", {-1, 3}).input("z", {-1, 3}).output("y", {-1, 3});
  mb.node("Add", {"x", "z"}, {"y"});
  loupe::frontends::InputBindings byName;
  byName.byName["x"] = {5, 3};
  EXPECT_EQ(importWithShapes(ctx, mb, byName),
            "(tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<5x3xf32>");
  // The tensors of a run bind what no name binds, by position.
  loupe::frontends::InputBindings byPosition;
  byPosition.byPosition = {{7, 3}, {7, 3}};
  EXPECT_EQ(importWithShapes(ctx, mb, byPosition),
            "(tensor<7x3xf32>, tensor<7x3xf32>) -> tensor<7x3xf32>");
}

TEST_F(OnnxImporterTest, InputShapeErrorsNameTheInputAndDim) {
  ModelBuilder mb(13);
  mb.input("x", {-1, 3}).input("z", {-1, 3}).output("y", {-1, 3});
  mb.node("Add", {"x", "z"}, {"y"});
  auto error = [&](std::map<std::string, std::vector<int64_t>> byName) {
    loupe::frontends::InputBindings shapes;
    shapes.byName = std::move(byName);
    return importWithShapes(ctx, mb, shapes);
  };
  EXPECT_EQ(error({{"w", {1, 3}}}),
            "test.onnx: --input-shape names 'w', which is not a graph input (inputs: x, z)");
  EXPECT_EQ(error({{"x", {5}}}),
            "test.onnx: graph input 'x': rank 2 in the model, --input-shape has 1 dims");
  EXPECT_EQ(error({{"x", {5, 4}}}),
            "test.onnx: graph input 'x': dim 1 is 3 in the model, --input-shape gives 4");
  EXPECT_EQ(error({{"x", {5, 3}}, {"z", {6, 3}}}),
            "test.onnx: graph input 'z': dim 0 ('N') is 6 in --input-shape, but another input "
            "binds 'N' to 5");
}

TEST_F(OnnxImporterTest, ShapeTensorInputsAreSpecializedToTheRunsValues) {
  // Slice's starts/ends are graph inputs: with the run's values they become constants, the
  // inputs stay in the signature marked with their value, and the slice is static.
  ModelBuilder mb(13);
  mb.input("x", {4, 6}).input("starts", {2}, kI64).input("ends", {2}, kI64);
  mb.output("y", {-1, -1});
  mb.node("Slice", {"x", "starts", "ends"}, {"y"});
  auto bytes = [](std::vector<int64_t> v) {
    return std::string(reinterpret_cast<const char *>(v.data()), v.size() * 8);
  };
  loupe::frontends::InputBindings inputs;
  inputs.values = {std::string(4 * 6 * 4, '\0'), bytes({1, 2}), bytes({3, 5})};
  std::string error;
  auto module = importOnnxBytes(mb.bytes(), "test.onnx", ctx, error, inputs);
  ASSERT_TRUE(module) << error;
  func::FuncOp main = mainOf(*module);
  EXPECT_EQ(main.getNumArguments(), 3u);
  EXPECT_FALSE(main.getArgAttr(0, "loupe.specialized")); // data: never specialized
  auto starts = main.getArgAttrOfType<DenseElementsAttr>(1, "loupe.specialized");
  ASSERT_TRUE(starts);
  EXPECT_EQ(llvm::to_vector(starts.getValues<int64_t>()), (SmallVector<int64_t>{1, 2}));
  EXPECT_EQ(resultType(*module), "tensor<2x3xf32>");
  expectLowers(*module);
  // Without values the error names the input.
  EXPECT_NE(importError(mb).find("input 'starts' must be a constant integer tensor"),
            std::string::npos) << error;
}

TEST_F(OnnxImporterTest, UnsignedTensorsComputeWidenedAndWrap) {
  // uint8 + uint8: the entry takes and returns i8 storage marked loupe.unsigned, computes in
  // i16 zero-extended, and masks the sum back to [0, 255].
  constexpr int32_t kU8 = onnx::TensorProto::UINT8;
  ModelBuilder mb(14);
  mb.input("a", {4}, kU8).input("b", {4}, kU8).output("y", {4}, kU8);
  mb.node("Add", {"a", "b"}, {"y"});
  auto module = import(mb);
  ASSERT_TRUE(module);
  func::FuncOp main = mainOf(*module);
  EXPECT_TRUE(main.getArgAttr(0, "loupe.unsigned"));
  EXPECT_TRUE(main.getResultAttr(0, "loupe.unsigned"));
  EXPECT_EQ(resultType(*module), "tensor<4xi8>");
  auto add = cast<tosa::AddOp>(firstOp(*module, "tosa.add"));
  EXPECT_TRUE(cast<RankedTensorType>(add.getType()).getElementType().isInteger(16));
  int masks = 0;
  module->walk([&](tosa::BitwiseAndOp) { ++masks; });
  EXPECT_EQ(masks, 3); // each input, and the sum
  expectLowers(*module);
}

TEST_F(OnnxImporterTest, LargeInitializersBecomeResourceBlobs) {
  // 256 floats (1 KiB) become a dense_resource named after the tensor; 4 stay inline.
  ModelBuilder mb(13);
  mb.input("x", {1, 256}).output("y", {1, 256}).input("s", {1, 4}).output("t", {1, 4});
  mb.rawInitializer("big.w", {1, 256}).rawInitializer("small", {1, 4});
  mb.node("Add", {"x", "big.w"}, {"y"});
  mb.node("Add", {"s", "small"}, {"t"});
  auto module = import(mb);
  ASSERT_TRUE(module);
  int resources = 0, dense = 0;
  module->walk([&](tosa::ConstOp op) {
    if (auto r = dyn_cast<DenseResourceElementsAttr>(op.getValue())) {
      ++resources;
      EXPECT_EQ(r.getRawHandle().getKey(), "big.w");
      ASSERT_TRUE(r.getRawHandle().getBlob());
      ArrayRef<char> data = r.getRawHandle().getBlob()->getData();
      ASSERT_EQ(data.size(), 1024u);
      EXPECT_FLOAT_EQ(reinterpret_cast<const float *>(data.data())[255], 25.6f);
    } else if (isa<DenseElementsAttr>(op.getValue())) {
      ++dense;
    }
  });
  EXPECT_EQ(resources, 1);
  EXPECT_EQ(dense, 1);
}

TEST_F(OnnxImporterTest, WeightQuantizationIsFoldedAtImport) {
  // torch's per-channel weight fake quantization: scale = max|w| over each output channel /
  // 127, then QuantizeLinear and DequantizeLinear of the weight. All constant: folded at
  // import into the dequantized weight. The activation's QDQ (of a graph input) stays.
  ModelBuilder mb(17);
  mb.input("x", {1, 2, 4, 4}).output("y", {1, 2, 4, 4});
  mb.initializer("w", {2, 2, 1, 1}, {0.1f, -0.3f, 0.26f, 0.05f})
      .initializer("n127", {}, {127.f})
      .initializer("xs", {}, {0.05f})
      .initializerInt("wz", {2}, onnx::TensorProto::INT8, {0, 0})
      .initializerInt("xz", {}, onnx::TensorProto::UINT8, {0});
  mb.node("QuantizeLinear", {"x", "xs", "xz"}, {"xq"}, "xq");
  mb.node("DequantizeLinear", {"xq", "xs", "xz"}, {"xdq"}, "xdq");
  mb.node("Abs", {"w"}, {"wa"}, "abs");
  onnx::NodeProto &max = mb.node("ReduceMax", {"wa"}, {"wm"}, "max");
  setInts(max, "axes", {1, 2, 3});
  setInt(max, "keepdims", 0);
  mb.node("Div", {"wm", "n127"}, {"ws"}, "scale");
  setInt(mb.node("QuantizeLinear", {"w", "ws", "wz"}, {"wq"}, "wq"), "axis", 0);
  setInt(mb.node("DequantizeLinear", {"wq", "ws", "wz"}, {"wdq"}, "wdq"), "axis", 0);
  mb.node("Conv", {"xdq", "wdq"}, {"y"}, "conv");
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.abs"), 0);
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.reduce_max"), 0);
  EXPECT_EQ(loupe::test::countOps(*module, "linalg.generic"), 2); // the input's QDQ
  // The weight, each value a multiple of its channel's scale: round(w / s) * s.
  float s0 = 0.3f / 127, s1 = 0.26f / 127;
  std::vector<float> want = {std::nearbyint(0.1f / s0) * s0, -127 * s0, 127 * s1,
                             std::nearbyint(0.05f / s1) * s1};
  std::sort(want.begin(), want.end());
  bool found = false;
  module->walk([&](tosa::ConstOp op) {
    auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
    if (!dense || !dense.getElementType().isF32() || dense.getNumElements() != 4)
      return;
    std::vector<float> got(dense.getValues<float>().begin(), dense.getValues<float>().end());
    std::sort(got.begin(), got.end());
    found |= got == want;
  });
  EXPECT_TRUE(found) << "no constant holds the fake-quantized weight";
  expectLowers(*module);
}

TEST_F(OnnxImporterTest, CheckerFailureIsReported) {
  ModelBuilder mb(13);
  mb.input("x", {3}).output("y", {3});
  mb.node("Relu", {"undefined_tensor"}, {"y"});
  std::string message = importError(mb);
  EXPECT_EQ(message.rfind("test.onnx: invalid ONNX model:", 0), 0u) << message;
}

TEST_F(OnnxImporterTest, ValuesThatCrashOnnxShapeInferenceAreRejected) {
  // ONNX 1.12's own shape inference divides by strides and indexes by the
  // LayerNormalization axis unchecked; the importer refuses these first.
  ModelBuilder conv(13);
  conv.input("x", {1, 1, 4, 4}).output("y", {1, 1, 4, 4});
  conv.rawInitializer("w", {1, 1, 1, 1});
  setInts(conv.node("Conv", {"x", "w"}, {"y"}, "c"), "strides", {0, 1});
  EXPECT_NE(importError(conv).find("node 'c' (Conv): attribute 'strides'"),
            std::string::npos) << error;

  // Found by fuzzing: an input of rank 3 for a weight of rank 4 read past the input's shape.
  ModelBuilder ranks(13);
  ranks.input("x", {2, 4, 4}).output("y", {1, 2, 4, 4});
  ranks.rawInitializer("w", {2, 2, 1, 1});
  ranks.node("Conv", {"x", "w"}, {"y"}, "c");
  EXPECT_NE(importError(ranks).find("node 'c' (Conv): input rank 3 and weight rank 4 differ"),
            std::string::npos) << error;
  // The same with a weight computed by elementwise ops (a rank the importer derives).
  ModelBuilder computed(13);
  computed.input("x", {2, 4, 4}).output("y", {1, 2, 4, 4});
  computed.rawInitializer("w", {2, 2, 1, 1});
  computed.node("Relu", {"w"}, {"wr"}, "r");
  computed.node("Conv", {"x", "wr"}, {"y"}, "c");
  EXPECT_NE(importError(computed).find("node 'c' (Conv): input rank 3 and weight rank 4 differ"),
            std::string::npos) << error;

  ModelBuilder ln(17);
  ln.input("x", {2, 3}).input("scale", {3}).output("y", {2, 3});
  setInt(ln.node("LayerNormalization", {"x", "scale"}, {"y"}, "ln"), "axis", -7);
  EXPECT_NE(importError(ln).find("axis is out of range"), std::string::npos)
      << error;
}

TEST_F(OnnxImporterTest, GarbageBytes) {
  std::string garbage = "\x01\x02this is not a protobuf\xff\xfe\x00\x13";
  auto module = importOnnxBytes(garbage, "garbage.onnx", ctx, error);
  EXPECT_FALSE(module);
  EXPECT_EQ(error.rfind("garbage.onnx: ", 0), 0u) << error;
  module = importOnnxBytes("", "empty.onnx", ctx, error);
  EXPECT_FALSE(module);
  EXPECT_EQ(error.rfind("empty.onnx: ", 0), 0u) << error;
}

TEST_F(OnnxImporterTest, TruncatedFile) {
  ModelBuilder mb(13);
  mb.input("x", {64, 64}).output("y", {64, 64});
  mb.rawInitializer("w", {64, 64});
  mb.node("Add", {"x", "w"}, {"y"});
  std::string bytes = mb.bytes();
  std::string path = ::testing::TempDir() + "truncated.onnx";
  for (size_t keep : {bytes.size() / 2, bytes.size() - 3, size_t(5)}) {
    {
      std::ofstream out(path, std::ios::binary);
      out.write(bytes.data(), keep);
    }
    auto module = importOnnxFile(path, ctx, error);
    EXPECT_FALSE(module) << keep;
    EXPECT_EQ(error.rfind(path + ": ", 0), 0u) << error;
  }
}

TEST_F(OnnxImporterTest, MissingFile) {
  auto module = importOnnxFile("/nonexistent/dir/model.onnx", ctx, error);
  EXPECT_FALSE(module);
  EXPECT_EQ(error, "/nonexistent/dir/model.onnx: cannot open file");
}

} // namespace

TEST_F(OnnxImporterTest, ShapeComputationsFoldOnceShapesAreBound) {
  // An attention head split as exporters write it, on x [N, 8]: the Reshape target is
  // Concat(Gather(Shape(x), 0), Div(Gather(Shape(x), 1), heads), Where(Equal(-1, -1), ...))
  // (Div and Where/Equal are outside ONNX's own data propagation). With N bound to 3 it
  // folds to [3, 4, 2] and the entry holds a single reshape of x.
  ModelBuilder mb(13);
  mb.input("x", {-1, 8}).output("y", {-1, 4, 2});
  mb.initializerI64("zero", {1}, {0}).initializerI64("one", {1}, {1});
  mb.initializerI64("heads", {1}, {4}).initializerI64("minus1", {1}, {-1});
  mb.node("Shape", {"x"}, {"shape"});
  setInt(mb.node("Gather", {"shape", "zero"}, {"batch"}), "axis", 0);
  setInt(mb.node("Gather", {"shape", "one"}, {"width"}), "axis", 0);
  mb.node("Div", {"width", "heads"}, {"per_head"});
  mb.node("Equal", {"minus1", "minus1"}, {"is_minus1"});
  mb.node("Where", {"is_minus1", "one", "minus1"}, {"last"});
  mb.node("Mul", {"last", "one"}, {"last2"});
  mb.node("Add", {"last2", "one"}, {"two"}); // 1 + 1
  setInt(mb.node("Concat", {"batch", "heads", "two"}, {"target"}), "axis", 0);
  mb.node("Reshape", {"x", "target"}, {"y"}, "split");
  loupe::frontends::InputBindings shapes;
  shapes.byName["x"] = {3, 8};
  std::string error;
  auto module = importOnnxBytes(mb.bytes(), "test.onnx", ctx, error, shapes);
  ASSERT_TRUE(module) << error;
  func::FuncOp main = mainOf(*module);
  std::string type;
  llvm::raw_string_ostream os(type);
  os << main.getFunctionType();
  EXPECT_EQ(type, "(tensor<3x8xf32>) -> tensor<3x4x2xf32>");
  int ops = 0;
  main.walk([&](Operation *op) { ops += !isa<func::FuncOp, func::ReturnOp, tosa::ConstOp>(op); });
  EXPECT_EQ(ops, 1) << "only the reshape of x remains";
  EXPECT_TRUE(firstOp(*module, "tosa.reshape"));
}

/// The float values of a small constant (a dense tosa.const); empty otherwise.
static std::vector<float> constantFloats(Value value) {
  auto op = value.getDefiningOp<tosa::ConstOp>();
  auto dense = op ? dyn_cast<DenseElementsAttr>(op.getValue()) : DenseElementsAttr();
  std::vector<float> out;
  if (dense)
    for (float v : dense.getValues<float>())
      out.push_back(v);
  return out;
}

TEST_F(OnnxImporterTest, BatchNormalizationFoldsIntoTheConvBeforeIt) {
  // conv (2 output channels) -> bn: one conv with folded weights and bias, no per-call
  // scale/shift. W'[o] = W[o] * s[o], b'[o] = (b[o] - mean[o]) * s[o] + beta[o] with
  // s = gamma / sqrt(var + eps).
  ModelBuilder mb(13);
  mb.input("x", {1, 1, 3, 3}).output("y", {1, 2, 3, 3});
  mb.initializer("w", {2, 1, 1, 1}, {2.f, 3.f}).initializer("b", {2}, {1.f, -1.f});
  mb.initializer("gamma", {2}, {1.f, 2.f}).initializer("beta", {2}, {0.5f, 0.f});
  mb.initializer("mean", {2}, {1.f, 0.f}).initializer("var", {2}, {3.f, 0.f});
  mb.node("Conv", {"x", "w", "b"}, {"c"}, "conv");
  setFloat(mb.node("BatchNormalization", {"c", "gamma", "beta", "mean", "var"}, {"y"}, "bn"),
           "epsilon", 1.f);
  auto module = import(mb);
  ASSERT_TRUE(module);
  int convs = 0, others = 0;
  mainOf(*module).walk([&](Operation *op) {
    if (isa<tosa::Conv2DOp>(op))
      ++convs;
    else if (!isa<func::FuncOp, func::ReturnOp, tosa::ConstOp, tosa::TransposeOp>(op))
      ++others;
  });
  EXPECT_EQ(convs, 1);
  EXPECT_EQ(others, 0) << "the batch norm left per-call ops";
  auto conv = cast<tosa::Conv2DOp>(firstOp(*module, "tosa.conv2d"));
  std::vector<float> weights = constantFloats(conv.getWeight());
  std::vector<float> bias = constantFloats(conv.getBias());
  // s = [1/2, 2/1]: W' = [1, 6], b' = [(1-1)/2 + 0.5, (-1-0)*2 + 0] = [0.5, -2].
  EXPECT_EQ(weights, (std::vector<float>{1.f, 6.f}));
  EXPECT_EQ(bias, (std::vector<float>{0.5f, -2.f}));
}
