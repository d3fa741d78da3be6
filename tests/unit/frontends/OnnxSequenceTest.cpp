//===- OnnxSequenceTest.cpp - Sequence ops and zero-size tensors at import -===//
//
// Builds small ModelProtos in C++ (so this file needs -frtti for the ONNX headers), imports
// them and checks what OnnxOpsSequence.cpp and the importer make of them: sequences as lists
// of tensors known at import (positions, SequenceMap unrolled, the TOSA ops left), the error
// for a sequence-typed graph input, and empty tensors folded to empty constants.
//
//===----------------------------------------------------------------------===//

#include "FrontendTestUtils.h"
#include "OnnxConverterTest.h"
#include "OnnxModelBuilder.h"
#include "loupe/Frontends/OnnxImporter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
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

void setType(onnx::ValueInfoProto *info, const std::string &name, int32_t elemType,
             std::initializer_list<int64_t> shape) {
  info->set_name(name);
  auto *tensorType = info->mutable_type()->mutable_tensor_type();
  tensorType->set_elem_type(elemType);
  auto *tensorShape = tensorType->mutable_shape(); // present even for scalars
  for (int64_t d : shape)
    tensorShape->add_dim()->set_dim_value(d);
}

onnx::NodeProto &addNode(onnx::GraphProto &graph, const std::string &opType,
                         std::initializer_list<std::string> inputs,
                         std::initializer_list<std::string> outputs) {
  auto *n = graph.add_node();
  n->set_op_type(opType);
  for (const auto &i : inputs)
    n->add_input(i);
  for (const auto &o : outputs)
    n->add_output(o);
  return *n;
}


/// Assembles a single-graph ModelProto (as in OnnxSelectionTest.cpp).
class ModelBuilder {
public:
  explicit ModelBuilder(int64_t opset) {
    model.set_ir_version(8);
    model.set_producer_name("loupe-test");
    auto *opsetId = model.add_opset_import();
    opsetId->set_domain("");
    opsetId->set_version(opset);
    graph().set_name("test_graph");
  }

  onnx::GraphProto &graph() { return *model.mutable_graph(); }
  ModelBuilder &input(const std::string &name, std::initializer_list<int64_t> shape,
                      int32_t elemType = kF32) {
    setType(graph().add_input(), name, elemType, shape);
    return *this;
  }
  /// A graph input of type sequence(tensor(float)).
  ModelBuilder &sequenceInput(const std::string &name) {
    auto *info = graph().add_input();
    info->set_name(name);
    info->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()
        ->set_elem_type(kF32);
    return *this;
  }
  ModelBuilder &output(const std::string &name, std::initializer_list<int64_t> shape,
                       int32_t elemType = kF32) {
    setType(graph().add_output(), name, elemType, shape);
    return *this;
  }
  /// An int64 scalar initializer.
  ModelBuilder &scalarI64(const std::string &name, int64_t value) {
    auto *t = graph().add_initializer();
    t->set_name(name);
    t->set_data_type(kI64);
    t->add_int64_data(value);
    return *this;
  }
  ModelBuilder &initializerI64(const std::string &name, std::initializer_list<int64_t> shape,
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
  onnx::NodeProto &node(const std::string &opType, std::initializer_list<std::string> inputs,
                        std::initializer_list<std::string> outputs) {
    return addNode(graph(), opType, inputs, outputs);
  }
  std::string bytes() const { return model.SerializeAsString(); }

private:
  onnx::ModelProto model;
};

class OnnxSequenceTest : public loupe::test::OnnxConverterTest {
protected:
  /// Type `i` of @main's results (or, with `argument`, its arguments) as text.
  static std::string typeText(ModuleOp module, unsigned i, bool argument = false) {
    FunctionType type = mainOf(module).getFunctionType();
    std::string text;
    llvm::raw_string_ostream os(text);
    os << (argument ? type.getInput(i) : type.getResult(i));
    return text;
  }

  /// The op kinds @main's body holds, besides tosa.const and func.return.
  static int countComputeOps(ModuleOp module) {
    int n = 0;
    mainOf(module).walk([&](Operation *op) {
      StringRef name = op->getName().getStringRef();
      n += name != "tosa.const" && name != "func.return" && name != "func.func";
    });
    return n;
  }
};

//===----------------------------------------------------------------------===//
// Sequences
//===----------------------------------------------------------------------===//

TEST_F(OnnxSequenceTest, InsertEraseAndAtPickTensorsAtImport) {
  // [a, b, c] -> erase -3 (a) -> [b, c] -> insert d at 1 -> [b, d, c]; at -2 is d.
  ModelBuilder mb(12);
  mb.input("a", {1}).input("b", {2}).input("c", {3}).input("d", {4}).output("y", {4});
  mb.scalarI64("erase", -3).scalarI64("insert", 1).scalarI64("at", -2);
  mb.node("SequenceConstruct", {"a", "b", "c"}, {"s1"});
  mb.node("SequenceErase", {"s1", "erase"}, {"s2"});
  mb.node("SequenceInsert", {"s2", "d", "insert"}, {"s3"});
  mb.node("SequenceAt", {"s3", "at"}, {"y"});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(typeText(*module, 0), "tensor<4xf32>");
  // The result is argument d itself: the sequence ops leave no op behind.
  auto ret = cast<func::ReturnOp>(mainOf(*module).getBody().front().getTerminator());
  EXPECT_EQ(ret.getOperand(0), mainOf(*module).getArgument(3));
  EXPECT_EQ(countComputeOps(*module), 0);
}

TEST_F(OnnxSequenceTest, EmptySequenceInsertsAtTheEndAndCountsLength) {
  ModelBuilder mb(12);
  mb.input("a", {2}).input("b", {3}).output("last", {3}).output("n", {}, kI64);
  mb.node("SequenceEmpty", {}, {"s0"});
  mb.node("SequenceInsert", {"s0", "a"}, {"s1"});
  mb.node("SequenceInsert", {"s1", "b"}, {"s2"});
  mb.node("Identity", {"s2"}, {"s3"});
  mb.node("SequenceErase", {"s3"}, {"s4"}); // the last: b
  mb.node("SequenceInsert", {"s4", "b"}, {"s5"});
  mb.scalarI64("end", -1);
  mb.node("SequenceAt", {"s5", "end"}, {"last"});
  mb.node("SequenceLength", {"s5"}, {"n"});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(typeText(*module, 0), "tensor<3xf32>");
  EXPECT_EQ(typeText(*module, 1), "tensor<i64>");
  auto ret = cast<func::ReturnOp>(mainOf(*module).getBody().front().getTerminator());
  auto length = ret.getOperand(1).getDefiningOp<tosa::ConstOp>();
  ASSERT_TRUE(length);
  EXPECT_EQ(cast<DenseElementsAttr>(length.getValue()).getSplatValue<int64_t>(), 2);
}

TEST_F(OnnxSequenceTest, ConcatFromSequenceConcatenatesOrStacks) {
  ModelBuilder mb(12);
  mb.input("a", {2, 3}).input("b", {2, 3}).output("cat", {2, 6}).output("stack", {2, 3, 2});
  mb.node("SequenceConstruct", {"a", "b"}, {"s"});
  setInt(mb.node("ConcatFromSequence", {"s"}, {"cat"}), "axis", 1);
  auto &stack = mb.node("ConcatFromSequence", {"s"}, {"stack"});
  setInt(stack, "axis", -1);
  setInt(stack, "new_axis", 1);
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(typeText(*module, 0), "tensor<2x6xf32>");
  EXPECT_EQ(typeText(*module, 1), "tensor<2x3x2xf32>");
  EXPECT_EQ(countOps(*module, "tosa.concat"), 2);
  expectLowers(*module);
}

TEST_F(OnnxSequenceTest, SplitToSequenceBySizesAndPerElement) {
  ModelBuilder mb(12);
  mb.input("x", {5, 4}).output("part", {3, 4}).output("row", {4}).output("n", {}, kI64);
  mb.initializerI64("sizes", {2}, {2, 3}).scalarI64("one", 1).scalarI64("last", -1);
  mb.node("SplitToSequence", {"x", "sizes"}, {"parts"});
  mb.node("SequenceAt", {"parts", "one"}, {"part"});
  setInt(mb.node("SplitToSequence", {"x"}, {"rows"}), "keepdims", 0);
  mb.node("SequenceAt", {"rows", "last"}, {"row"});
  mb.node("SequenceLength", {"rows"}, {"n"});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(typeText(*module, 0), "tensor<3x4xf32>");
  EXPECT_EQ(typeText(*module, 1), "tensor<4xf32>");
  // One slice per part (2 + 5); canonicalization drops those nothing reads.
  EXPECT_EQ(countOps(*module, "tosa.slice"), 7);
  expectLowers(*module);
}

TEST_F(OnnxSequenceTest, SequenceMapInlinesTheBodyPerElement) {
  ModelBuilder mb(17);
  mb.input("a", {2}).input("b", {3}).input("bias", {1}).output("y", {5});
  mb.node("SequenceConstruct", {"a", "b"}, {"s"});
  auto &map = mb.node("SequenceMap", {"s", "bias"}, {"mapped"});
  auto *body = map.add_attribute();
  body->set_name("body");
  body->set_type(onnx::AttributeProto::GRAPH);
  onnx::GraphProto &g = *body->mutable_g();
  g.set_name("body");
  auto *e = g.add_input();
  e->set_name("e");
  e->mutable_type()->mutable_tensor_type()->set_elem_type(kF32);
  setType(g.add_input(), "c", kF32, {1});
  setType(g.add_output(), "o", kF32, {});
  g.mutable_output(0)->mutable_type()->mutable_tensor_type()->clear_shape();
  addNode(g, "Add", {"e", "c"}, {"o"});
  setInt(mb.node("ConcatFromSequence", {"mapped"}, {"y"}), "axis", 0);
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(typeText(*module, 0), "tensor<5xf32>");
  EXPECT_EQ(countOps(*module, "tosa.add"), 2);
  expectLowers(*module);
}

TEST_F(OnnxSequenceTest, SequenceGraphInputIsAnError) {
  ModelBuilder mb(12);
  mb.sequenceInput("s").output("y", {2});
  mb.scalarI64("zero", 0);
  mb.node("SequenceAt", {"s", "zero"}, {"y"});
  EXPECT_NE(importError(mb).find(
                "graph input 's' is a sequence: the artifact ABI passes tensors only"),
            std::string::npos);
}

TEST_F(OnnxSequenceTest, PositionOutOfRangeIsAnError) {
  ModelBuilder mb(12);
  mb.input("a", {2}).output("y", {2});
  mb.scalarI64("two", 2);
  mb.node("SequenceConstruct", {"a", "a"}, {"s"});
  mb.node("SequenceAt", {"s", "two"}, {"y"});
  EXPECT_NE(importError(mb).find("position 2 is out of range for a sequence of 2 tensors"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// Zero-size tensors
//===----------------------------------------------------------------------===//

TEST_F(OnnxSequenceTest, EmptyGraphInputIsAnEmptyConstant) {
  // The argument stays in the signature; Relu of nothing is an empty constant.
  ModelBuilder mb(13);
  mb.input("x", {3, 0}).output("y", {3, 0});
  mb.node("Relu", {"x"}, {"y"});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(typeText(*module, 0, /*argument=*/true), "tensor<3x0xf32>");
  EXPECT_EQ(typeText(*module, 0), "tensor<3x0xf32>");
  EXPECT_EQ(countComputeOps(*module), 0);
  expectLowers(*module);
}

TEST_F(OnnxSequenceTest, EmptyOutputsOfAConverterFold) {
  // Split [0, 4, 0]: the converter slices, the importer replaces the empty parts by constants
  // and erases their slices; the empty Slice is never converted.
  ModelBuilder mb(13);
  mb.input("x", {4, 2})
      .output("p0", {0, 2})
      .output("p1", {4, 2})
      .output("p2", {0, 2})
      .output("none", {0, 2});
  mb.initializerI64("sizes", {3}, {0, 4, 0});
  mb.initializerI64("starts", {1}, {100}).initializerI64("ends", {1}, {200});
  mb.node("Split", {"x", "sizes"}, {"p0", "p1", "p2"});
  mb.node("Slice", {"x", "starts", "ends"}, {"none"});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(typeText(*module, 0), "tensor<0x2xf32>");
  EXPECT_EQ(typeText(*module, 3), "tensor<0x2xf32>");
  EXPECT_EQ(countOps(*module, "tosa.slice"), 0);
  EXPECT_EQ(countComputeOps(*module), 0);
  expectLowers(*module);
}

} // namespace
