// Contiguous elementwise kernels become one 1-D loop over collapsed views; a broadcast stays.
// RUN: loupe-opt --split-input-file --loupe-linearize-elementwise %s | FileCheck %s

// TOSA's batch of 1 read at index 0: the unit dim is dropped, then all dims collapse.
// CHECK-LABEL: func.func @hardswish_like
// CHECK-DAG: %[[A:.*]] = memref.collapse_shape %arg0 {{.*}} into memref<448xf32>
// CHECK-DAG: %[[B:.*]] = memref.collapse_shape %arg1 {{.*}} into memref<448xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel"]} ins(%[[A]] : memref<448xf32>) outs(%[[B]] : memref<448xf32>)
#pinned = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @hardswish_like(%x: memref<1x4x7x16xf32>, %y: memref<1x4x7x16xf32>) {
  %c = arith.constant 0.5 : f32
  linalg.generic {indexing_maps = [#pinned, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<1x4x7x16xf32>) outs(%y : memref<1x4x7x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %c : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// A bias broadcast along rows reads one operand at another index: left as it is.
// CHECK-LABEL: func.func @bias
// CHECK-NOT: collapse_shape
// CHECK: iterator_types = ["parallel", "parallel"]
#row = affine_map<(d0, d1) -> (d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @bias(%b: memref<16xf32>, %y: memref<8x16xf32>) {
  linalg.generic {indexing_maps = [#row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%b : memref<16xf32>) outs(%y : memref<8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}
