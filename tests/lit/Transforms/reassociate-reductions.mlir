// RUN: loupe-opt --pass-pipeline="builtin.module(func.func(loupe-reassociate-reductions))" %s | FileCheck %s

// The op combining the accumulator of a reduction gets `reassoc` (so LLVM may sum in vector
// lanes); the other float ops of the body, and elementwise kernels, keep strict order.

// CHECK-LABEL: func.func @row_sum
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
// CHECK-LABEL: func.func @elementwise
// CHECK-NOT: fastmath
func.func @row_sum(%x: memref<4x8xf32>, %y: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x8xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %sq = arith.mulf %in, %in : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  }
  return
}
func.func @elementwise(%x: memref<4xf32>, %y: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  }
  return
}
