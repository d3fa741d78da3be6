// RUN: loupe-opt --ral-inject-execution-context --split-input-file %s | FileCheck %s
// RUN: loupe-opt --ral-inject-execution-context="device=gpu" --split-input-file %s | FileCheck %s --check-prefix=GPU

// Inputs arrive through recv_input; each output is sent right after its buffer is final, not
// at the end: %first is sent before the second kernel runs. On the CPU the outputs are
// computed in the caller's buffers (recv_output instead of alloc); for the GPU they stay
// device allocations, copied out when sent.

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[CTX:.*]]: !ral.context)
// CHECK-SAME: ral.inputs = [memref<4xf32>], ral.outputs = [memref<4xf32>, memref<4xf32>]
// CHECK-NEXT: %[[X:.*]] = ral.recv_input %[[CTX]], 0 : memref<4xf32>
// CHECK: %[[A:.*]] = ral.recv_output %[[CTX]], 0 : memref<4xf32>
// CHECK: linalg.generic {{.*}} ins(%[[X]] : memref<4xf32>) outs(%[[A]] : memref<4xf32>)
// CHECK: ral.send_output %[[CTX]], 0, %[[A]] : memref<4xf32>
// CHECK: %[[B:.*]] = ral.recv_output %[[CTX]], 1 : memref<4xf32>
// GPU-LABEL: func.func @main
// GPU-NOT: ral.recv_output
// GPU: memref.alloc
// CHECK: linalg.generic {{.*}} ins(%[[A]] : memref<4xf32>) outs(%[[B]] : memref<4xf32>)
// CHECK: ral.send_output %[[CTX]], 1, %[[B]] : memref<4xf32>
// CHECK-NEXT: return{{$}}
#id = affine_map<(d0) -> (d0)>
func.func @main(%x: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<4xf32>) outs(%a : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  %b = memref.alloc() : memref<4xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<4xf32>) outs(%b : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  return %a, %b : memref<4xf32>, memref<4xf32>
}

// -----

// A write through a view delays the send until after that write.

// CHECK-LABEL: func.func @main
// CHECK: %[[A:.*]] = ral.recv_output %{{.*}}, 0 : memref<2x2xf32>
// CHECK: %[[V:.*]] = memref.collapse_shape %[[A]]
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[V]] : memref<4xf32>)
// CHECK-NEXT: ral.send_output %{{.*}}, 0, %[[A]] : memref<2x2xf32>
func.func @main() -> memref<2x2xf32> {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<2x2xf32>
  %v = memref.collapse_shape %a [[0, 1]] : memref<2x2xf32> into memref<4xf32>
  linalg.fill ins(%zero : f32) outs(%v : memref<4xf32>)
  return %a : memref<2x2xf32>
}

// -----

// An input returned as it is is sent right away.

// CHECK-LABEL: func.func @main
// CHECK: %[[X:.*]] = ral.recv_input %{{.*}}, 0 : memref<3xi64>
// CHECK-NEXT: ral.send_output %{{.*}}, 0, %[[X]] : memref<3xi64>
func.func @main(%x: memref<3xi64>) -> memref<3xi64> {
  return %x : memref<3xi64>
}
