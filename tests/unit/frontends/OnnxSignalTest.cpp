//===- OnnxSignalTest.cpp - Windows, DFT, STFT and MelWeightMatrix import -===//
//
// Builds small ModelProtos in C++ (so this file needs -frtti for the ONNX
// headers), imports them and checks what the converters of OnnxOpsSignal.cpp
// produce: result types, constant values, the ops used, errors, and that the
// upstream TOSA -> linalg pipeline lowers it.
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

constexpr int32_t kF32 = onnx::TensorProto::FLOAT;
constexpr int32_t kF64 = onnx::TensorProto::DOUBLE;
constexpr int32_t kI64 = onnx::TensorProto::INT64;
constexpr int32_t kI32 = onnx::TensorProto::INT32;

/// Assembles a single-graph ModelProto (as in OnnxSelectionTest.cpp).
class ModelBuilder {
public:
  explicit ModelBuilder(int64_t opset = 17) {
    model.set_ir_version(8);
    model.set_producer_name("loupe-test");
    auto *opsetId = model.add_opset_import();
    opsetId->set_domain("");
    opsetId->set_version(opset);
    model.mutable_graph()->set_name("test_graph");
  }

  ModelBuilder &input(const std::string &name, std::initializer_list<int64_t> shape,
                      int32_t elemType = kF32) {
    setType(model.mutable_graph()->add_input(), name, elemType, shape);
    return *this;
  }
  ModelBuilder &output(const std::string &name, std::initializer_list<int64_t> shape,
                       int32_t elemType = kF32) {
    setType(model.mutable_graph()->add_output(), name, elemType, shape);
    return *this;
  }
  /// A scalar initializer of type `elemType` (int32, int64 or float).
  ModelBuilder &scalar(const std::string &name, int32_t elemType, double value) {
    auto *t = model.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(elemType);
    if (elemType == kI32)
      t->add_int32_data(static_cast<int32_t>(value));
    else if (elemType == kI64)
      t->add_int64_data(static_cast<int64_t>(value));
    else
      t->add_float_data(static_cast<float>(value));
    return *this;
  }
  onnx::NodeProto &node(const std::string &opType, std::initializer_list<std::string> inputs,
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
  static void setType(onnx::ValueInfoProto *info, const std::string &name, int32_t elemType,
                      std::initializer_list<int64_t> shape) {
    info->set_name(name);
    auto *tensorType = info->mutable_type()->mutable_tensor_type();
    tensorType->set_elem_type(elemType);
    auto *tensorShape = tensorType->mutable_shape(); // present even for scalars
    for (int64_t d : shape)
      tensorShape->add_dim()->set_dim_value(d);
  }

  onnx::ModelProto model;
};


class OnnxSignalTest : public loupe::test::OnnxConverterTest {
protected:
  /// The values of result `i` of @main when a constant produces it; empty otherwise.
  static std::vector<double> resultConstant(ModuleOp module, unsigned i = 0) {
    Operation *terminator = mainOf(module).getBody().front().getTerminator();
    Operation *def = terminator->getOperand(i).getDefiningOp();
    auto attr = def ? def->getAttrOfType<DenseElementsAttr>("value") : nullptr;
    std::vector<double> values;
    if (attr)
      for (const APFloat &v : attr.getValues<APFloat>())
        values.push_back(v.convertToDouble());
    return values;
  }
};

void expectNear(const std::vector<double> &got, const std::vector<double> &want,
                double tolerance = 1e-6) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tolerance) << "element " << i;
}

//===----------------------------------------------------------------------===//
// Windows
//===----------------------------------------------------------------------===//

TEST_F(OnnxSignalTest, WindowsAreConstants) {
  ModelBuilder mb;
  mb.scalar("size", kI32, 4).scalar("five", kI64, 5);
  mb.output("hann", {4}).output("blackman", {5}, kF64).output("hamming", {1});
  mb.node("HannWindow", {"size"}, {"hann"});
  auto &blackman = mb.node("BlackmanWindow", {"five"}, {"blackman"});
  setInt(blackman, "periodic", 0);
  setInt(blackman, "output_datatype", kF64);
  mb.scalar("one", kI64, 1);
  setInt(mb.node("HammingWindow", {"one"}, {"hamming"}), "periodic", 0);
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module, 0), "tensor<4xf32>");
  EXPECT_EQ(resultType(*module, 1), "tensor<5xf64>");
  EXPECT_EQ(countOps(*module, "tosa.const"), 3);
  // Periodic Hann of 4: 0.5 - 0.5 cos(2 pi n / 4).
  expectNear(resultConstant(*module, 0), {0, 0.5, 1, 0.5});
  // Symmetric Blackman of 5 (numpy.blackman(5)).
  expectNear(resultConstant(*module, 1), {0, 0.34, 1, 0.34, 0}, 1e-12);
  // A symmetric window of one sample is [1] (numpy, torch).
  expectNear(resultConstant(*module, 2), {1});
}

//===----------------------------------------------------------------------===//
// DFT
//===----------------------------------------------------------------------===//

TEST_F(OnnxSignalTest, RealOnesidedDftIsOneMatMul) {
  ModelBuilder mb;
  mb.input("x", {2, 8, 3, 1}).output("y", {2, 5, 3, 2});
  setInt(mb.node("DFT", {"x"}, {"y"}), "onesided", 1);
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module), "tensor<2x5x3x2xf32>");
  EXPECT_EQ(countOps(*module, "tosa.matmul"), 1);
  expectLowers(*module);
}

TEST_F(OnnxSignalTest, ComplexInverseDftZeroPadsToDftLength) {
  ModelBuilder mb;
  mb.input("x", {1, 4, 6, 2}).output("y", {1, 4, 9, 2}).output("t", {1, 4, 3, 2});
  mb.scalar("nine", kI64, 9).scalar("three", kI64, 3);
  auto &padded = mb.node("DFT", {"x", "nine"}, {"y"});
  setInt(padded, "axis", 2);
  setInt(padded, "inverse", 1);
  // Truncated to 3 samples: a slice before the matmul.
  setInt(mb.node("DFT", {"x", "three"}, {"t"}), "axis", -2);
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module, 0), "tensor<1x4x9x2xf32>");
  EXPECT_EQ(resultType(*module, 1), "tensor<1x4x3x2xf32>");
  EXPECT_EQ(countOps(*module, "tosa.matmul"), 2);
  EXPECT_EQ(countOps(*module, "tosa.slice"), 1);
  expectLowers(*module);
}

TEST_F(OnnxSignalTest, OverlongDftIsAnError) {
  ModelBuilder mb;
  mb.input("x", {1, 5000, 1}).output("y", {1, 5000, 2});
  mb.node("DFT", {"x"}, {"y"});
  std::string message = importError(mb);
  EXPECT_NE(message.find("node 'DFT_0' (DFT, opset 17): DFT length 5000 is outside "
                         "[1, 4096] (it is built as an O(n^2) matmul)"),
            std::string::npos)
      << message;
}

//===----------------------------------------------------------------------===//
// STFT
//===----------------------------------------------------------------------===//

TEST_F(OnnxSignalTest, StftGathersFramesAndMultipliesTheWindow) {
  // 100 samples, frames of 16 every 8: 11 frames of 9 one-sided bins (the
  // default onesided = 1; ONNX 1.12's own inference would say 12 x 16).
  ModelBuilder mb;
  mb.input("signal", {2, 100, 1}).input("window", {16}).output("y", {2, 11, 9, 2});
  mb.scalar("step", kI64, 8);
  mb.node("STFT", {"signal", "step", "window"}, {"y"});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module), "tensor<2x11x9x2xf32>");
  EXPECT_EQ(countOps(*module, "tosa.gather"), 1);
  EXPECT_EQ(countOps(*module, "tosa.mul"), 1);
  EXPECT_EQ(countOps(*module, "tosa.matmul"), 1);
  expectLowers(*module);
}

TEST_F(OnnxSignalTest, StftOfComplexSignalMustBeTwoSided) {
  ModelBuilder mb;
  mb.input("signal", {1, 32, 2}).output("y", {1, 3, 9, 2});
  mb.scalar("step", kI64, 8).scalar("length", kI64, 16);
  setInt(mb.node("STFT", {"signal", "step", "", "length"}, {"y"}), "onesided", 1);
  std::string message = importError(mb);
  EXPECT_NE(message.find("onesided output needs a real signal and a forward transform"),
            std::string::npos)
      << message;
}

//===----------------------------------------------------------------------===//
// MelWeightMatrix
//===----------------------------------------------------------------------===//

TEST_F(OnnxSignalTest, MelWeightMatrixIsTheReferenceConstant) {
  // The inputs of the ONNX backend test test_melweightmatrix.
  ModelBuilder mb;
  mb.scalar("bins", kI32, 8).scalar("dft", kI32, 16).scalar("rate", kI32, 8192)
      .scalar("low", kF32, 0).scalar("high", kF32, 4096).output("y", {9, 8});
  mb.node("MelWeightMatrix", {"bins", "dft", "rate", "low", "high"}, {"y"});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module), "tensor<9x8xf32>");
  std::vector<double> want(9 * 8, 0);
  // Filter edges (0 0 0 1 1 2 3 4 5 6): unit peaks at (0,0) (0,1) (1,2) (1,3)
  // (2,4) (3,5) (4,6) (5,7).
  for (auto [row, col] : {std::pair{0, 0}, {0, 1}, {1, 2}, {1, 3}, {2, 4}, {3, 5},
                          {4, 6}, {5, 7}})
    want[row * 8 + col] = 1;
  expectNear(resultConstant(*module), want);
}

} // namespace
