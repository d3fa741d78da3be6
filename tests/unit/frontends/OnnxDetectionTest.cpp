//===- OnnxDetectionTest.cpp - NonMaxSuppression import ---------------------===//
//
// Builds small ModelProtos in C++ (so this file needs -frtti for the ONNX headers), imports
// them and checks the TOSA the converter of OnnxOpsDetection.cpp produces: result types, the
// ops used, the run-time check, errors, and that the upstream TOSA -> linalg pipeline lowers
// it. The numbers are checked by the node tests (loupe-conformance --filter
// test_nonmaxsuppression).
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
constexpr int32_t kI64 = onnx::TensorProto::INT64;

/// Assembles a graph of NonMaxSuppression nodes over `boxes` and `scores`.
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

  /// A dim of -1 is symbolic ("n").
  ModelBuilder &input(const std::string &name, std::initializer_list<int64_t> shape,
                      int32_t elemType = kF32) {
    setType(model.mutable_graph()->add_input(), name, elemType, shape);
    return *this;
  }
  ModelBuilder &output(const std::string &name, std::initializer_list<int64_t> shape,
                       int32_t elemType = kI64) {
    setType(model.mutable_graph()->add_output(), name, elemType, shape);
    return *this;
  }
  /// A one-element initializer [1] of `elemType` (INT64 or FLOAT).
  ModelBuilder &scalar(const std::string &name, int32_t elemType, double value) {
    auto *t = model.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(elemType);
    t->add_dims(1);
    if (elemType == kI64)
      t->add_int64_data(static_cast<int64_t>(value));
    else
      t->add_float_data(static_cast<float>(value));
    return *this;
  }
  onnx::NodeProto &nms(std::initializer_list<std::string> inputs, const std::string &output) {
    auto *n = model.mutable_graph()->add_node();
    n->set_op_type("NonMaxSuppression");
    for (const auto &i : inputs)
      n->add_input(i);
    n->add_output(output);
    return *n;
  }
  std::string bytes() const { return model.SerializeAsString(); }

private:
  static void setType(onnx::ValueInfoProto *info, const std::string &name, int32_t elemType,
                      std::initializer_list<int64_t> shape) {
    info->set_name(name);
    auto *tensorType = info->mutable_type()->mutable_tensor_type();
    tensorType->set_elem_type(elemType);
    auto *tensorShape = tensorType->mutable_shape();
    for (int64_t d : shape) {
      if (d < 0)
        tensorShape->add_dim()->set_dim_param("n");
      else
        tensorShape->add_dim()->set_dim_value(d);
    }
  }

  onnx::ModelProto model;
};


class OnnxDetectionTest : public loupe::test::OnnxConverterTest {};

TEST_F(OnnxDetectionTest, CornerBoxesWithScoreThreshold) {
  ModelBuilder mb(11);
  mb.input("boxes", {1, 6, 4}).input("scores", {1, 2, 6}).output("selected", {4, 3});
  mb.scalar("max", kI64, 2).scalar("iou", kF32, 0.5).scalar("score", kF32, 0.0);
  mb.nms({"boxes", "scores", "max", "iou", "score"}, "selected");
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module), "tensor<4x3xi64>");
  // One gather puts the boxes in rank order; one linalg.generic tests every pair's IoU.
  EXPECT_EQ(countOps(*module, "tosa.gather"), 1);
  EXPECT_EQ(countOps(*module, "linalg.generic"), 1);
  // Corners in any order: min and max of each coordinate pair.
  EXPECT_EQ(countOps(*module, "tosa.minimum"), 2);
  EXPECT_EQ(countOps(*module, "tosa.maximum"), 2);
  // The greedy pass: one step per rank (a logical_not each), the threshold one more.
  EXPECT_EQ(countOps(*module, "tosa.logical_not"), 6 + 1);
  // The data must select the 4 rows the model declares.
  EXPECT_EQ(countOps(*module, "cf.assert"), 1);
  EXPECT_NE(loupe::test::printWithLocs(*module).find(
                "the data select a number of boxes other than the 4 that output 'selected'"),
            std::string::npos);
  expectLowers(*module);
}

TEST_F(OnnxDetectionTest, CenterBoxesWithRuntimeLimitsAndNoScoreThreshold) {
  // Opset 10; max_output_boxes_per_class and iou_threshold fed at run time.
  ModelBuilder mb(10);
  mb.input("boxes", {2, 5, 4}).input("scores", {2, 1, 5}).input("max", {1}, kI64)
      .input("iou", {1}).output("selected", {3, 3});
  setInt(mb.nms({"boxes", "scores", "max", "iou"}, "selected"), "center_point_box", 1);
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module), "tensor<3x3xi64>");
  EXPECT_EQ(countOps(*module, "tosa.minimum"), 0);
  EXPECT_EQ(countOps(*module, "tosa.logical_not"), 5);
  EXPECT_EQ(countOps(*module, "cf.assert"), 1);
  expectLowers(*module);
}

TEST_F(OnnxDetectionTest, NoDeclaredRowsIsFoldedByTheImporter) {
  // An output known empty is an empty constant; the converter does not run (nor check).
  ModelBuilder mb(11);
  mb.input("boxes", {1, 3, 4}).input("scores", {1, 1, 3}).output("selected", {0, 3});
  mb.nms({"boxes", "scores"}, "selected"); // max_output_boxes_per_class absent: none
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module), "tensor<0x3xi64>");
  EXPECT_EQ(countOps(*module, "tosa.gather"), 0);
}

TEST_F(OnnxDetectionTest, DataDependentOutputShapeIsAnError) {
  ModelBuilder mb(11);
  mb.input("boxes", {1, 6, 4}).input("scores", {1, 1, 6}).output("selected", {-1, 3});
  mb.scalar("max", kI64, 3);
  mb.nms({"boxes", "scores", "max"}, "selected");
  std::string message = importError(mb);
  EXPECT_NE(message.find("how many boxes it selects depends on the data: the model must "
                         "declare output 0 ('selected') with a static shape [num_selected, 3]"),
            std::string::npos)
      << message;
}

TEST_F(OnnxDetectionTest, TooManyBoxesIsAnError) {
  ModelBuilder mb(11);
  mb.input("boxes", {1, 1000, 4}).input("scores", {1, 1, 1000}).output("selected", {3, 3});
  mb.scalar("max", kI64, 3);
  mb.nms({"boxes", "scores", "max"}, "selected");
  std::string message = importError(mb);
  EXPECT_NE(message.find("1000 boxes per batch; at most 256 are supported"), std::string::npos)
      << message;
}

} // namespace
