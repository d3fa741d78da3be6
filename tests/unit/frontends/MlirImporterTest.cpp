//===- MlirImporterTest.cpp - .mlir parsing and diagnostics ---------------===//

#include "FrontendTestUtils.h"
#include "loupe/Frontends/MlirImporter.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <fstream>

namespace {

std::string writeTemp(const std::string &name, const std::string &text) {
  std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

TEST(MlirImporterTest, ParsesAndLowersTheTosaExample) {
  mlir::MLIRContext ctx;
  std::string error;
  std::string path =
      std::string(LOUPE_SOURCE_DIR) + "/examples/models/mlp_tosa.mlir";
  auto module = loupe::frontends::importMlirFile(path, ctx, error);
  ASSERT_TRUE(module) << error;
  EXPECT_TRUE(error.empty()) << error;
  EXPECT_EQ(loupe::test::countOps(*module, "tosa.fully_connected"), 1);
  std::string diagnostics;
  EXPECT_TRUE(mlir::succeeded(loupe::test::lowerTosaToLinalg(*module, diagnostics)))
      << diagnostics;
}

TEST(MlirImporterTest, ParsesLinalgAndFriends) {
  mlir::MLIRContext ctx;
  std::string error;
  std::string path = writeTemp("linalg_ok.mlir", R"mlir(
func.func @f(%a: tensor<4xf32>, %m: memref<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  %v = memref.load %m[%c0] : memref<4xf32>
  scf.for %i = %c0 to %c0 step %c0 { }
  return %r : tensor<4xf32>
}
)mlir");
  auto module = loupe::frontends::importMlirFile(path, ctx, error);
  EXPECT_TRUE(module) << error;
}

TEST(MlirImporterTest, SyntaxErrorHasFileLineColumn) {
  mlir::MLIRContext ctx;
  std::string error;
  std::string path = writeTemp("broken.mlir", "func.func @f() {\n"
                                              "  %0 = tosa.bogus_op\n"
                                              "}\n");
  auto module = loupe::frontends::importMlirFile(path, ctx, error);
  EXPECT_FALSE(module);
  EXPECT_NE(error.find(path + ":2:"), std::string::npos) << error;
  EXPECT_NE(error.find("error: "), std::string::npos) << error;
}

TEST(MlirImporterTest, VerifierErrorHasFileLineColumn) {
  mlir::MLIRContext ctx;
  std::string error;
  // Parses, but 6 elements cannot be reshaped to 7: the verifier rejects it.
  std::string path = writeTemp("invalid.mlir", R"mlir(func.func @f(%a: tensor<2x3xf32>) -> tensor<7xf32> {
  %0 = tosa.reshape %a {new_shape = array<i64: 7>} : (tensor<2x3xf32>) -> tensor<7xf32>
  return %0 : tensor<7xf32>
}
)mlir");
  auto module = loupe::frontends::importMlirFile(path, ctx, error);
  EXPECT_FALSE(module);
  EXPECT_NE(error.find(path + ":2:8: error: "), std::string::npos) << error;
}

TEST(MlirImporterTest, MissingFile) {
  mlir::MLIRContext ctx;
  std::string error;
  auto module =
      loupe::frontends::importMlirFile("/nonexistent/x.mlir", ctx, error);
  EXPECT_FALSE(module);
  EXPECT_EQ(error.rfind("/nonexistent/x.mlir: cannot open file", 0), 0u)
      << error;
}

} // namespace
