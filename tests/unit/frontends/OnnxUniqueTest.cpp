//===- OnnxUniqueTest.cpp - Unique import ----------------------------------===//
//
// Builds small ModelProtos in C++ (so this file needs -frtti for the ONNX
// headers), imports them and checks the TOSA the converter of OnnxOpsUnique.cpp
// produces: result types, the ops used, the run-time check on the declared
// count, errors, and that the upstream TOSA -> linalg pipeline lowers it.
//
//===----------------------------------------------------------------------===//

#include "FrontendTestUtils.h"
#include "OnnxConverterTest.h"
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

constexpr int32_t kF32 = onnx::TensorProto::FLOAT;
constexpr int32_t kI64 = onnx::TensorProto::INT64;
constexpr int32_t kI32 = onnx::TensorProto::INT32;

/// Assembles a single-graph ModelProto with one Unique node (opset 11) of
/// input "x" and outputs "y", "indices", "inverse", "counts".
class UniqueModel {
public:
  UniqueModel(std::initializer_list<int64_t> xShape, int32_t elemType,
              std::initializer_list<int64_t> yShape, int64_t k) {
    model.set_ir_version(8);
    model.set_producer_name("loupe-test");
    auto *opsetId = model.add_opset_import();
    opsetId->set_domain("");
    opsetId->set_version(11);
    auto *graph = model.mutable_graph();
    graph->set_name("test_graph");
    int64_t n = 1;
    for (int64_t d : xShape)
      n *= d;
    setType(graph->add_input(), "x", elemType, xShape);
    setType(graph->add_output(), "y", elemType, yShape);
    setType(graph->add_output(), "indices", kI64, {k});
    setType(graph->add_output(), "inverse", kI64, {n});
    setType(graph->add_output(), "counts", kI64, {k});
    node = graph->add_node();
    node->set_op_type("Unique");
    node->add_input("x");
    for (const char *o : {"y", "indices", "inverse", "counts"})
      node->add_output(o);
  }

  /// Sets `axis`; its inverse_indices then has the size of that dim.
  UniqueModel &axis(int64_t axis, int64_t dimSize) {
    setInt("axis", axis);
    auto *shape = model.mutable_graph()->mutable_output(2)->mutable_type()
                      ->mutable_tensor_type()->mutable_shape();
    shape->mutable_dim(0)->set_dim_value(dimSize);
    return *this;
  }
  UniqueModel &setInt(const std::string &name, int64_t v) {
    auto *a = node->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
    return *this;
  }
  std::string bytes() const { return model.SerializeAsString(); }

private:
  static void setType(onnx::ValueInfoProto *info, const std::string &name,
                      int32_t elemType, std::initializer_list<int64_t> shape) {
    info->set_name(name);
    auto *tensorType = info->mutable_type()->mutable_tensor_type();
    tensorType->set_elem_type(elemType);
    auto *tensorShape = tensorType->mutable_shape();
    for (int64_t d : shape)
      tensorShape->add_dim()->set_dim_value(d);
  }

  onnx::ModelProto model;
  onnx::NodeProto *node;
};

class OnnxUniqueTest : public loupe::test::OnnxConverterTest {};

TEST_F(OnnxUniqueTest, SortedFlattenedTakesTheDeclaredCount) {
  UniqueModel model({2, 3}, kI32, {4}, 4);
  auto module = import(model);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module, 0), "tensor<4xi32>");
  EXPECT_EQ(resultType(*module, 1), "tensor<4xi64>");
  EXPECT_EQ(resultType(*module, 2), "tensor<6xi64>");
  EXPECT_EQ(resultType(*module, 3), "tensor<4xi64>");
  // Y and counts are gathered at the first occurrences; nothing is scattered or sorted.
  EXPECT_EQ(countOps(*module, "tosa.gather"), 2);
  EXPECT_EQ(countOps(*module, "tosa.argmax"), 0);
  EXPECT_EQ(countOps(*module, "tosa.transpose"), 0);
  // One check that the data hold exactly the declared 4 distinct values.
  EXPECT_EQ(countOps(*module, "cf.assert"), 1);
  expectLowers(*module);
}

TEST_F(OnnxUniqueTest, SlicesAlongANegativeAxisAreMovedFirstAndBack) {
  // x [2, 4, 2], axis -2: four slices of 2x2 elements, three distinct.
  UniqueModel model({2, 4, 2}, kF32, {2, 3, 2}, 3);
  model.axis(-2, 4).setInt("sorted", 1);
  auto module = import(model);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module, 0), "tensor<2x3x2xf32>");
  EXPECT_EQ(resultType(*module, 2), "tensor<4xi64>");
  EXPECT_EQ(resultType(*module, 3), "tensor<3xi64>");
  EXPECT_EQ(countOps(*module, "tosa.transpose"), 2);
  EXPECT_EQ(countOps(*module, "cf.assert"), 1);
  expectLowers(*module);
}

TEST_F(OnnxUniqueTest, UnsortedOrdersByFirstOccurrence) {
  UniqueModel model({6}, kF32, {4}, 4);
  model.setInt("sorted", 0);
  auto module = import(model);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module, 0), "tensor<4xf32>");
  // First differing position, then each element's first index; no value ordering.
  EXPECT_EQ(countOps(*module, "tosa.reduce_min"), 2);
  expectLowers(*module);
}

TEST_F(OnnxUniqueTest, ImpossibleOrOversizedCountsAreErrors) {
  std::string tooMany = importError(UniqueModel({6}, kF32, {7}, 7));
  EXPECT_NE(tooMany.find("the model declares 7 unique values, outside [1, 6]"),
            std::string::npos)
      << tooMany;
  std::string tooLarge = importError(UniqueModel({5000}, kF32, {10}, 10));
  EXPECT_NE(tooLarge.find("5000 slices of 1 elements: their pairwise comparison "
                          "of n*n*m = 25000000 elements is above the supported"),
            std::string::npos)
      << tooLarge;
}

} // namespace
