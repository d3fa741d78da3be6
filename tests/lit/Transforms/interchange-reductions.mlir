// loupe-interchange-reductions: a column reduction with too few leading parallel iterations
// gets its outer row dims before the reduction loop, so they can be distributed.
// RUN: loupe-opt --loupe-interchange-reductions --split-input-file %s | FileCheck %s

// A global mean's first step over NHWC, [1, H, W, C] -> [1, W, C]: W (loop 2) moves before H,
// C (64 floats, at least one vector) stays innermost.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-LABEL: func.func @column_mean
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
#in = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#out = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
func.func @column_mean(%x: memref<1x224x224x64xf32>, %y: memref<1x224x64xf32>) {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction", "parallel", "parallel"]}
      ins(%x : memref<1x224x224x64xf32>) outs(%y : memref<1x224x64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Enough leading parallel iterations already (a batch of 64), or only one vector of trailing
// dims: the order stays.
// CHECK-LABEL: func.func @kept
// CHECK: iterator_types = ["parallel", "reduction", "parallel", "parallel"]
// CHECK: iterator_types = ["parallel", "reduction", "parallel"]
#in4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#out4 = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#in3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#out3 = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @kept(%x: memref<64x8x8x64xf32>, %y: memref<64x8x64xf32>, %u: memref<1x8x16xf32>, %v: memref<1x16xf32>) {
  linalg.generic {indexing_maps = [#in4, #out4], iterator_types = ["parallel", "reduction", "parallel", "parallel"]}
      ins(%x : memref<64x8x8x64xf32>) outs(%y : memref<64x8x64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#in3, #out3], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%u : memref<1x8x16xf32>) outs(%v : memref<1x16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}
