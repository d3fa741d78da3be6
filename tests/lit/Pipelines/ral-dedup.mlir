// The ral phase deduplicates kernels: the three ReLUs on 1x16x16 (the first on the input, the
// others after each matmul) share one kernel, each over a 1-D view (loupe-linearize-elementwise).
// RUN: loupe-opt --loupe-graph --loupe-cluster --loupe-lower --loupe-ral %s | FileCheck %s

// CHECK: module attributes {loupe.dedup = {kernels = 3 : i64, unique = 1 : i64}}
// CHECK-LABEL: func.func @main
// CHECK: ral.cpu_launch %{{.*}}, @[[RELU:main_kernel_[0-9]+]], {{.*}} : memref<256xf32>, memref<256xf32>
// CHECK: ral.cpu_launch %{{.*}}, @[[RELU]],
// CHECK: ral.cpu_launch %{{.*}}, @[[RELU]],
// CHECK-COUNT-1: func.func private @main_kernel_
// CHECK-NOT: func.func private @main_kernel_
func.func @main(%x: tensor<1x16x16xf32>, %w: tensor<1x16x16xf32>) -> tensor<1x16x16xf32> {
  %r0 = tosa.clamp %x {min_fp = 0.0 : f32, max_fp = 3.4e38 : f32, min_int = 0 : i64, max_int = 9223372036854775807 : i64} : (tensor<1x16x16xf32>) -> tensor<1x16x16xf32>
  %m0 = tosa.matmul %r0, %w : (tensor<1x16x16xf32>, tensor<1x16x16xf32>) -> tensor<1x16x16xf32>
  %r1 = tosa.clamp %m0 {min_fp = 0.0 : f32, max_fp = 3.4e38 : f32, min_int = 0 : i64, max_int = 9223372036854775807 : i64} : (tensor<1x16x16xf32>) -> tensor<1x16x16xf32>
  %m1 = tosa.matmul %r1, %w : (tensor<1x16x16xf32>, tensor<1x16x16xf32>) -> tensor<1x16x16xf32>
  %r2 = tosa.clamp %m1 {min_fp = 0.0 : f32, max_fp = 3.4e38 : f32, min_int = 0 : i64, max_int = 9223372036854775807 : i64} : (tensor<1x16x16xf32>) -> tensor<1x16x16xf32>
  return %r2 : tensor<1x16x16xf32>
}
