//===- OnnxSelectionTest.cpp - Einsum, TopK and Scatter* import -----------===//
//
// Builds small ModelProtos in C++ (so this file needs -frtti for the ONNX
// headers), imports them and checks the TOSA the converters of
// OnnxOpsEinsum.cpp and OnnxOpsScatter.cpp produce: result types, the ops
// used, errors, and that the upstream TOSA -> linalg pipeline lowers it.
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


class OnnxSelectionTest : public loupe::test::OnnxConverterTest {};

//===----------------------------------------------------------------------===//
// Einsum
//===----------------------------------------------------------------------===//

TEST_F(OnnxSelectionTest, EinsumBatchMatMulIsOneMatMul) {
  ModelBuilder mb(12);
  mb.input("a", {2, 3, 4}).input("b", {2, 4, 5}).output("y", {2, 3, 5});
  setString(mb.node("Einsum", {"a", "b"}, {"y"}), "equation", "bij, bjk -> bik");
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module), "tensor<2x3x5xf32>");
  EXPECT_EQ(countOps(*module, "tosa.matmul"), 1);
  EXPECT_EQ(countOps(*module, "tosa.transpose"), 0);
  expectLowers(*module);
}

TEST_F(OnnxSelectionTest, EinsumImplicitOutputSumsAndTransposes) {
  // "ji,jk": j is summed, the output is "ik"; "i,i" is an inner product.
  ModelBuilder mb(12);
  mb.input("a", {4, 3}).input("b", {4, 5}).input("v", {6}).output("y", {3, 5})
      .output("dot", {});
  setString(mb.node("Einsum", {"a", "b"}, {"y"}), "equation", "ji,jk");
  setString(mb.node("Einsum", {"v", "v"}, {"dot"}), "equation", "i,i");
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module, 0), "tensor<3x5xf32>");
  EXPECT_EQ(resultType(*module, 1), "tensor<f32>");
  EXPECT_EQ(countOps(*module, "tosa.matmul"), 2);
  EXPECT_EQ(countOps(*module, "tosa.transpose"), 1);
  expectLowers(*module);
}

TEST_F(OnnxSelectionTest, EinsumTransposeSumAndDiagonal) {
  ModelBuilder mb(12);
  mb.input("x", {3, 4}).input("d", {2, 5, 5}).output("t", {4, 3})
      .output("s", {3}).output("diag", {2, 5});
  setString(mb.node("Einsum", {"x"}, {"t"}), "equation", "ij->ji");
  setString(mb.node("Einsum", {"x"}, {"s"}), "equation", "ij->i");
  setString(mb.node("Einsum", {"d"}, {"diag"}), "equation", "...ii ->...i");
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module, 0), "tensor<4x3xf32>");
  EXPECT_EQ(resultType(*module, 1), "tensor<3xf32>");
  EXPECT_EQ(resultType(*module, 2), "tensor<2x5xf32>");
  EXPECT_EQ(countOps(*module, "tosa.matmul"), 0);
  EXPECT_EQ(countOps(*module, "tosa.transpose"), 1);
  EXPECT_EQ(countOps(*module, "tosa.reduce_sum"), 1);
  // The diagonal: every 6th element of the merged 5x5 dims.
  EXPECT_EQ(countOps(*module, "tosa.slice"), 1);
  expectLowers(*module);
}

TEST_F(OnnxSelectionTest, EinsumMalformedEquationIsAnError) {
  // ONNX 1.12 shape inference accepts these; the converter must not.
  const std::pair<const char *, const char *> cases[] = {
      {"ij,jk->iz", "output label 'z' is in no operand"},
      {"i1,jk->ik", "operand 0 holds something other than letters"},
  };
  for (auto [equation, why] : cases) {
    ModelBuilder mb(12);
    mb.input("a", {2, 3}).input("b", {3, 4}).output("y", {2, 4});
    setString(mb.node("Einsum", {"a", "b"}, {"y"}), "equation", equation);
    std::string message = importError(mb);
    EXPECT_NE(message.find(std::string("malformed equation '") + equation +
                           "': " + why),
              std::string::npos)
        << message;
  }
}

//===----------------------------------------------------------------------===//
// TopK
//===----------------------------------------------------------------------===//

TEST_F(OnnxSelectionTest, TopKLargestAndSmallest) {
  ModelBuilder mb(11);
  mb.input("x", {3, 5}).input("n", {4, 3}, kI32)
      .output("v", {3, 2}).output("i", {3, 2}, kI64)
      .output("sv", {2, 3}, kI32).output("si", {2, 3}, kI64);
  mb.initializerI64("k", {1}, {2});
  setInt(mb.node("TopK", {"x", "k"}, {"v", "i"}), "axis", -1);
  auto &smallest = mb.node("TopK", {"n", "k"}, {"sv", "si"});
  setInt(smallest, "axis", 0);
  setInt(smallest, "largest", 0);
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module, 0), "tensor<3x2xf32>");
  EXPECT_EQ(resultType(*module, 1), "tensor<3x2xi64>");
  EXPECT_EQ(resultType(*module, 2), "tensor<2x3xi32>");
  EXPECT_EQ(resultType(*module, 3), "tensor<2x3xi64>");
  // Per TopK, k = 2 rounds of two argmax (masked keys, fallback).
  EXPECT_EQ(countOps(*module, "tosa.argmax"), 8);
  EXPECT_EQ(countOps(*module, "tosa.gather"), 2);
  // Integer smallest selects on ~x, not -x.
  EXPECT_EQ(countOps(*module, "tosa.bitwise_not"), 1);
  EXPECT_EQ(countOps(*module, "tosa.negate"), 0);
  expectLowers(*module);
}

TEST_F(OnnxSelectionTest, TopKOpset1TakesKFromTheAttribute) {
  ModelBuilder mb(1);
  mb.input("x", {4, 6}).output("v", {4, 3}).output("i", {4, 3}, kI64);
  setInt(mb.node("TopK", {"x"}, {"v", "i"}), "k", 3);
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module, 0), "tensor<4x3xf32>");
  EXPECT_EQ(countOps(*module, "tosa.argmax"), 6);
  expectLowers(*module);
}

//===----------------------------------------------------------------------===//
// ScatterElements, ScatterND
//===----------------------------------------------------------------------===//

TEST_F(OnnxSelectionTest, ScatterElementsAddOfDuplicatesIsAMatMul) {
  ModelBuilder mb(16);
  mb.input("data", {1, 5}).input("updates", {1, 2}).output("y", {1, 5})
      .output("p", {1, 5});
  mb.initializerI64("indices", {1, 2}, {1, 1});
  auto &add = mb.node("ScatterElements", {"data", "indices", "updates"}, {"y"});
  setInt(add, "axis", 1);
  setString(add, "reduction", "add");
  auto &mul = mb.node("ScatterElements", {"data", "indices", "updates"}, {"p"});
  setInt(mul, "axis", -1);
  setString(mul, "reduction", "mul");
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module, 0), "tensor<1x5xf32>");
  EXPECT_EQ(resultType(*module, 1), "tensor<1x5xf32>");
  EXPECT_EQ(countOps(*module, "tosa.scatter"), 0);
  EXPECT_EQ(countOps(*module, "tosa.matmul"), 1);
  EXPECT_EQ(countOps(*module, "tosa.reduce_prod"), 1);
  expectLowers(*module);
}

TEST_F(OnnxSelectionTest, ScatterNDNoneAndMax) {
  ModelBuilder mb(16);
  mb.input("data", {4, 4, 4}).input("indices", {2, 1}, kI64)
      .input("updates", {2, 4, 4}).output("y", {4, 4, 4})
      .output("m", {4, 4, 4});
  mb.node("ScatterND", {"data", "indices", "updates"}, {"y"});
  setString(mb.node("ScatterND", {"data", "indices", "updates"}, {"m"}),
            "reduction", "max");
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module, 0), "tensor<4x4x4xf32>");
  EXPECT_EQ(resultType(*module, 1), "tensor<4x4x4xf32>");
  EXPECT_EQ(countOps(*module, "tosa.scatter"), 0);
  // none: the last update of each row is gathered.
  EXPECT_EQ(countOps(*module, "tosa.gather"), 1);
  EXPECT_EQ(countOps(*module, "tosa.maximum"), 2);
  expectLowers(*module);
}

} // namespace
