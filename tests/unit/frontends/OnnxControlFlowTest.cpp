//===- OnnxControlFlowTest.cpp - If, Loop and Scan import -----------------===//
//
// Builds small ModelProtos with subgraphs in C++ (so this file needs -frtti for
// the ONNX headers), imports them and checks what OnnxOpsControlFlow.cpp and the
// importer's subgraph inlining produce: result types, the ops of the unrolled
// bodies, their "<node>/iter<i>/<inner node>" locations, errors, and that the
// upstream TOSA -> linalg pipeline lowers the result.
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

using loupe::test::setInts;

constexpr int32_t kF32 = onnx::TensorProto::FLOAT;
constexpr int32_t kI64 = onnx::TensorProto::INT64;
constexpr int32_t kBool = onnx::TensorProto::BOOL;

/// Adds inputs, outputs, initializers and nodes to a GraphProto: the model's
/// graph or a node's GRAPH attribute.
class GraphBuilder {
public:
  explicit GraphBuilder(onnx::GraphProto *graph) : graph(graph) {}

  GraphBuilder &input(const std::string &name, std::initializer_list<int64_t> shape,
                      int32_t elemType = kF32) {
    setType(graph->add_input(), name, elemType, shape);
    return *this;
  }
  GraphBuilder &output(const std::string &name, std::initializer_list<int64_t> shape,
                       int32_t elemType = kF32) {
    setType(graph->add_output(), name, elemType, shape);
    return *this;
  }
  /// An int64 (or bool, 0/1) initializer.
  GraphBuilder &initializer(const std::string &name, std::initializer_list<int64_t> shape,
                            const std::vector<int64_t> &values, int32_t elemType = kI64) {
    auto *t = graph->add_initializer();
    t->set_name(name);
    t->set_data_type(elemType);
    for (int64_t d : shape)
      t->add_dims(d);
    for (int64_t v : values) {
      if (elemType == kI64)
        t->add_int64_data(v);
      else
        t->add_int32_data(static_cast<int32_t>(v));
    }
    return *this;
  }
  onnx::NodeProto &node(const std::string &opType, std::initializer_list<std::string> inputs,
                        std::initializer_list<std::string> outputs) {
    auto *n = graph->add_node();
    n->set_op_type(opType);
    for (const auto &i : inputs)
      n->add_input(i);
    for (const auto &o : outputs)
      n->add_output(o);
    return *n;
  }

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

  onnx::GraphProto *graph;
};

/// Holds the model, as a base so that it is built before the GraphBuilder base.
struct ModelHolder {
  onnx::ModelProto model;
};

/// A single-graph ModelProto (as in OnnxSelectionTest.cpp).
class ModelBuilder : private ModelHolder, public GraphBuilder {
public:
  explicit ModelBuilder(int64_t opset) : GraphBuilder(model.mutable_graph()) {
    model.set_ir_version(8);
    model.set_producer_name("loupe-test");
    auto *opsetId = model.add_opset_import();
    opsetId->set_domain("");
    opsetId->set_version(opset);
    model.mutable_graph()->set_name("test_graph");
  }
  std::string bytes() const { return model.SerializeAsString(); }
};

/// Adds GRAPH attribute `name` to `n`; returns a builder for it.
GraphBuilder graphAttr(onnx::NodeProto &n, const std::string &name) {
  auto *a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::GRAPH);
  a->mutable_g()->set_name(name);
  return GraphBuilder(a->mutable_g());
}
void setInt(onnx::NodeProto &n, const std::string &name, int64_t v) {
  auto *a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}
/// A Constant node holding one bool.
void constantBool(GraphBuilder &g, const std::string &output, bool value) {
  auto &n = g.node("Constant", {}, {output});
  auto *a = n.add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(kBool);
  a->mutable_t()->add_int32_data(value);
}

class OnnxControlFlowTest : public loupe::test::OnnxConverterTest {
protected:
  static bool hasLoc(ModuleOp module, const std::string &name) {
    return loupe::test::printWithLocs(module).find("loc(\"" + name + "\")") !=
           std::string::npos;
  }
};

//===----------------------------------------------------------------------===//
// If
//===----------------------------------------------------------------------===//

/// If(cond) { x + x } else { x * x }, reading the outer x.
void addIf(ModelBuilder &mb) {
  auto &n = mb.node("If", {"cond"}, {"y"});
  GraphBuilder thenBranch = graphAttr(n, "then_branch");
  thenBranch.node("Add", {"x", "x"}, {"t"});
  thenBranch.output("t", {2, 3});
  GraphBuilder elseBranch = graphAttr(n, "else_branch");
  elseBranch.node("Mul", {"x", "x"}, {"e"});
  elseBranch.output("e", {2, 3});
}

TEST_F(OnnxControlFlowTest, IfWithConstantConditionInlinesTheChosenBranch) {
  ModelBuilder mb(13);
  mb.input("x", {2, 3}).output("y", {2, 3}).initializer("cond", {}, {1}, kBool);
  addIf(mb);
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module), "tensor<2x3xf32>");
  EXPECT_EQ(countOps(*module, "tosa.add"), 1);
  EXPECT_EQ(countOps(*module, "tosa.mul"), 0);
  EXPECT_TRUE(hasLoc(*module, "If_0/then/Add_0")) << loupe::test::printWithLocs(*module);
  expectLowers(*module);
}

TEST_F(OnnxControlFlowTest, IfWithRunTimeConditionSelects) {
  ModelBuilder mb(13);
  mb.input("x", {2, 3}).input("cond", {}, kBool).output("y", {2, 3});
  addIf(mb);
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(countOps(*module, "tosa.add"), 1);
  EXPECT_EQ(countOps(*module, "tosa.mul"), 1);
  EXPECT_EQ(countOps(*module, "tosa.select"), 1);
  expectLowers(*module);
}

//===----------------------------------------------------------------------===//
// Loop
//===----------------------------------------------------------------------===//

/// Loop(M, cond, y) whose body adds x[i] (a slice by the iteration number) to y
/// and emits y as a scan output; x is read from the outer scope.
void addSliceLoop(ModelBuilder &mb, std::initializer_list<std::string> outputs) {
  auto &n = mb.node("Loop", {"M", "cond", "y"}, outputs);
  GraphBuilder body = graphAttr(n, "body");
  body.input("i", {}, kI64).input("c", {}, kBool).input("y_in", {1});
  body.initializer("one", {}, {1});
  body.node("Identity", {"c"}, {"c_out"});
  body.node("Add", {"i", "one"}, {"end"});
  setInts(body.node("Unsqueeze", {"i"}, {"start1"}), "axes", {0});
  setInts(body.node("Unsqueeze", {"end"}, {"end1"}), "axes", {0});
  body.node("Slice", {"x", "start1", "end1"}, {"s"});
  body.node("Add", {"y_in", "s"}, {"y_out"});
  body.node("Identity", {"y_out"}, {"scan"});
  body.output("c_out", {}, kBool).output("y_out", {1}).output("scan", {1});
}

TEST_F(OnnxControlFlowTest, LoopUnrollsWithTheIterationNumber) {
  ModelBuilder mb(11);
  mb.input("x", {5}).input("y", {1}).output("y_final", {1}).output("ys", {3, 1});
  mb.initializer("M", {}, {3}).initializer("cond", {}, {1}, kBool);
  addSliceLoop(mb, {"y_final", "ys"});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module, 0), "tensor<1xf32>");
  EXPECT_EQ(resultType(*module, 1), "tensor<3x1xf32>");
  // The slice bounds fold per iteration: three constant slices, three adds.
  EXPECT_EQ(countOps(*module, "tosa.slice"), 3);
  EXPECT_EQ(countOps(*module, "tosa.add"), 3);
  EXPECT_EQ(countOps(*module, "tosa.concat"), 1);
  EXPECT_TRUE(hasLoc(*module, "Loop_0/iter2/Add_5")) << loupe::test::printWithLocs(*module);
  expectLowers(*module);
}

TEST_F(OnnxControlFlowTest, LoopStopsAtAConstantFalseCondition) {
  ModelBuilder mb(13);
  mb.input("y", {2}).output("y_final", {2});
  mb.initializer("M", {}, {10}).initializer("cond", {}, {1}, kBool);
  auto &n = mb.node("Loop", {"M", "cond", "y"}, {"y_final"});
  GraphBuilder body = graphAttr(n, "body");
  body.input("i", {}, kI64).input("c", {}, kBool).input("y_in", {2});
  constantBool(body, "stop", false);
  body.node("Add", {"y_in", "y_in"}, {"y_out"});
  body.output("stop", {}, kBool).output("y_out", {2});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module), "tensor<2xf32>");
  EXPECT_EQ(countOps(*module, "tosa.add"), 1);
  expectLowers(*module);
}

TEST_F(OnnxControlFlowTest, LoopWithRunTimeTripCountIsAnError) {
  ModelBuilder mb(11);
  mb.input("x", {5}).input("y", {1}).input("M", {}, kI64).output("y_final", {1});
  mb.initializer("cond", {}, {1}, kBool);
  // No graph output fixes the scan output's length.
  addSliceLoop(mb, {"y_final", "ys"});
  std::string message = importError(mb);
  EXPECT_NE(message.find("node 'Loop_0' (Loop, opset 11): trip count 'M' must be a constant"),
            std::string::npos)
      << message;
}

TEST_F(OnnxControlFlowTest, UnrollingBeyondTheBoundIsAnError) {
  ModelBuilder mb(13);
  mb.input("y", {2}).output("y_final", {2});
  mb.initializer("M", {}, {1000000}).initializer("cond", {}, {1}, kBool);
  auto &n = mb.node("Loop", {"M", "cond", "y"}, {"y_final"});
  GraphBuilder body = graphAttr(n, "body");
  body.input("i", {}, kI64).input("c", {}, kBool).input("y_in", {2});
  body.node("Identity", {"c"}, {"c_out"});
  body.node("Add", {"y_in", "y_in"}, {"y_out"});
  body.output("c_out", {}, kBool).output("y_out", {2});
  std::string message = importError(mb);
  EXPECT_NE(message.find("unrolling would import more than 100000 subgraph nodes"),
            std::string::npos)
      << message;
}

//===----------------------------------------------------------------------===//
// Scan
//===----------------------------------------------------------------------===//

TEST_F(OnnxControlFlowTest, ScanAlongAxisOneInReverse) {
  // x [2, 3] scanned backwards along axis 1; the partial sums [2] stacked along
  // axis 1 of z, prepended (so z[:, 0] holds the full sum).
  ModelBuilder mb(11);
  mb.input("init", {2}).input("x", {2, 3}).output("sum", {2}).output("z", {2, 3});
  auto &n = mb.node("Scan", {"init", "x"}, {"sum", "z"});
  setInt(n, "num_scan_inputs", 1);
  setInts(n, "scan_input_axes", {1});
  setInts(n, "scan_input_directions", {1});
  setInts(n, "scan_output_axes", {-1});
  setInts(n, "scan_output_directions", {1});
  GraphBuilder body = graphAttr(n, "body");
  body.input("acc", {2}).input("next", {2});
  body.node("Add", {"acc", "next"}, {"acc_out"});
  body.node("Identity", {"acc_out"}, {"partial"});
  body.output("acc_out", {2}).output("partial", {2});
  auto module = import(mb);
  ASSERT_TRUE(module);
  EXPECT_EQ(resultType(*module, 0), "tensor<2xf32>");
  EXPECT_EQ(resultType(*module, 1), "tensor<2x3xf32>");
  EXPECT_EQ(countOps(*module, "tosa.add"), 3);
  EXPECT_EQ(countOps(*module, "tosa.slice"), 3);
  EXPECT_TRUE(hasLoc(*module, "Scan_0/iter1/Add_0"));
  expectLowers(*module);
}

} // namespace
