// RUN: loupe-opt --loupe-instrument-dispatches --loupe-pack-gemv-weights --split-input-file %s | FileCheck %s

// A code-generated GEMV whose B is a weight of the blob reads it as 64-column panels packed at
// compile time, [N / 64, K, 64], plus its last N % 64 columns, [K, N % 64]: B[2, 65] = 0..129
// row-major becomes panels 0..63, 65..128 and tail 64, 129. The weight nothing reads any more
// leaves the blob, whose other slot (`other`, read by a oneDNN GEMV) moves to offset 0. The
// generics keep the dispatch; its schedule says what was packed.

// CHECK: module attributes {ral.weights = {bytes = 584 : i64, constants = [{name = "other", offset = 0 : i64, value = dense<{{.*}}> : tensor<4x4xf32>}, {name = "b.panels", offset = 64 : i64, value = dense_resource<b.panels> : tensor<1x2x64xf32>}, {name = "b.tail", offset = 576 : i64, value = dense_resource<b.tail> : tensor<2x1xf32>}]}}
// CHECK-LABEL: func.func @main
// CHECK-SAME: name = "dispatch_0_matmul"{{.*}}schedule = "B packed at compile time into 1 panel of 2x64 and its last 1 columns"
// CHECK: %[[A:.*]] = ral.recv_input %{{.*}}, 0 : memref<1x2xf32>
// CHECK: %[[C:.*]] = memref.alloc() : memref<1x65xf32>
// CHECK: %[[A1:.*]] = memref.collapse_shape %[[A]] {{\[\[}}0, 1]] : memref<1x2xf32> into memref<2xf32>
// CHECK: %[[C1:.*]] = memref.collapse_shape %[[C]] {{\[\[}}0, 1]] : memref<1x65xf32> into memref<65xf32>
// CHECK: %[[PANELS:.*]] = ral.constant %{{.*}}, 64 : memref<1x2x64xf32>
// CHECK: %[[HEAD:.*]] = memref.subview %[[C1]][0] [64] [1]
// CHECK: %[[CP:.*]] = memref.expand_shape %[[HEAD]] {{\[\[}}0, 1]] output_shape [1, 64]
// CHECK: linalg.generic {indexing_maps = [#[[K:.*]], #[[PKL:.*]], #[[PL:.*]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[A1]], %[[PANELS]] : memref<2xf32>, memref<1x2x64xf32>) outs(%[[CP]] :
// CHECK-SAME: attrs = {loupe.backend = "codegen", loupe.cluster = 3 : i64, loupe.dispatch_id = 0 : i64}
// CHECK: %[[TAIL:.*]] = ral.constant %{{.*}}, 576 : memref<2x1xf32>
// CHECK: %[[CT:.*]] = memref.subview %[[C1]][64] [1] [1]
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%[[A1]], %[[TAIL]] : memref<2xf32>, memref<2x1xf32>) outs(%[[CT]] :
// CHECK-SAME: loupe.dispatch_id = 0 : i64
// CHECK: ral.constant %{{.*}}, 0 : memref<4x4xf32>
// CHECK: linalg.matmul {loupe.backend = "onednn"
// CHECK: b.panels: "0x40000000{{.*}}00007C4200008242{{.*}}"
// CHECK: b.tail: "0x400000000000804200000143"
module attributes {ral.weights = {bytes = 1104 : i64, constants = [
    {name = "b", offset = 0 : i64, value = dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0, 64.0], [65.0, 66.0, 67.0, 68.0, 69.0, 70.0, 71.0, 72.0, 73.0, 74.0, 75.0, 76.0, 77.0, 78.0, 79.0, 80.0, 81.0, 82.0, 83.0, 84.0, 85.0, 86.0, 87.0, 88.0, 89.0, 90.0, 91.0, 92.0, 93.0, 94.0, 95.0, 96.0, 97.0, 98.0, 99.0, 100.0, 101.0, 102.0, 103.0, 104.0, 105.0, 106.0, 107.0, 108.0, 109.0, 110.0, 111.0, 112.0, 113.0, 114.0, 115.0, 116.0, 117.0, 118.0, 119.0, 120.0, 121.0, 122.0, 123.0, 124.0, 125.0, 126.0, 127.0, 128.0, 129.0]]> : tensor<2x65xf32>},
    {name = "other", offset = 576 : i64, value = dense<[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0]]> : tensor<4x4xf32>}]}} {
  func.func @main(%ctx: !ral.context) {
    %a = ral.recv_input %ctx, 0 : memref<1x2xf32>
    %b = ral.constant %ctx, 0 : memref<2x65xf32>
    %c = memref.alloc() : memref<1x65xf32>
    linalg.matmul {loupe.backend = "codegen", loupe.cluster = 3 : i64} ins(%a, %b : memref<1x2xf32>, memref<2x65xf32>) outs(%c : memref<1x65xf32>)
    %x = ral.recv_input %ctx, 1 : memref<1x4xf32>
    %w = ral.constant %ctx, 576 : memref<4x4xf32>
    %y = memref.alloc() : memref<1x4xf32>
    linalg.matmul {loupe.backend = "onednn"} ins(%x, %w : memref<1x4xf32>, memref<4x4xf32>) outs(%y : memref<1x4xf32>)
    ral.send_output %ctx, 0, %c : memref<1x65xf32>
    ral.send_output %ctx, 1, %y : memref<1x4xf32>
    return
  }
}

// -----

// Not packed: a GEMV of one panel (its rows are contiguous already), two rows, a B computed
// at run time, a library GEMV. Nothing changes, the table included.
// CHECK: ral.weights = {bytes = 1536 : i64
// CHECK-LABEL: func.func @main
// CHECK-NOT: schedule
// CHECK-NOT: linalg.generic
// CHECK-NOT: panels
module attributes {ral.weights = {bytes = 1536 : i64, constants = [
    {name = "narrow", offset = 0 : i64, value = dense<1.0> : tensor<2x64xf32>},
    {name = "wide", offset = 512 : i64, value = dense<1.0> : tensor<2x128xf32>}]}} {
  func.func @main(%ctx: !ral.context) {
    %a = ral.recv_input %ctx, 0 : memref<1x2xf32>
    %narrow = ral.constant %ctx, 0 : memref<2x64xf32>
    %c = memref.alloc() : memref<1x64xf32>
    linalg.matmul {loupe.backend = "codegen"} ins(%a, %narrow : memref<1x2xf32>, memref<2x64xf32>) outs(%c : memref<1x64xf32>)
    %a2 = ral.recv_input %ctx, 1 : memref<2x2xf32>
    %wide = ral.constant %ctx, 512 : memref<2x128xf32>
    %c2 = memref.alloc() : memref<2x128xf32>
    linalg.matmul {loupe.backend = "codegen"} ins(%a2, %wide : memref<2x2xf32>, memref<2x128xf32>) outs(%c2 : memref<2x128xf32>)
    %b = ral.recv_input %ctx, 2 : memref<2x128xf32>
    %c3 = memref.alloc() : memref<1x128xf32>
    linalg.matmul {loupe.backend = "codegen"} ins(%a, %b : memref<1x2xf32>, memref<2x128xf32>) outs(%c3 : memref<1x128xf32>)
    %c4 = memref.alloc() : memref<1x128xf32>
    linalg.matmul {loupe.backend = "openblas"} ins(%a, %wide : memref<1x2xf32>, memref<2x128xf32>) outs(%c4 : memref<1x128xf32>)
    ral.send_output %ctx, 0, %c : memref<1x64xf32>
    ral.send_output %ctx, 1, %c2 : memref<2x128xf32>
    ral.send_output %ctx, 2, %c3 : memref<1x128xf32>
    ral.send_output %ctx, 3, %c4 : memref<1x128xf32>
    return
  }
}
