// RUN: loupe-opt %s | loupe-opt | FileCheck %s

// Every ral op round-trips through its custom form.

// CHECK-LABEL: func.func @main(%{{.*}}: !ral.context)
// CHECK: %[[X:.*]] = ral.recv_input %{{.*}}, 0 : memref<8x64xf32>
// CHECK: ral.dispatch %{{.*}}, %[[X]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {callee = "ral_gemm", device = "cpu", has_side_effect} : (memref<8x64xf32>, memref<64x8xf32>, memref<8x8xf32>, i1, i1) -> ()
// CHECK: ral.cpu_launch %{{.*}}, @kernel, %{{.*}}, %{{.*}}, %{{.*}} : memref<8x8xf32>
// CHECK: ral.send_output %{{.*}}, 0, %{{.*}} : memref<8x8xf32>
func.func @main(%ctx: !ral.context) {
  %x = ral.recv_input %ctx, 0 : memref<8x64xf32>
  %w = ral.recv_input %ctx, 1 : memref<64x8xf32>
  %y = memref.alloc() : memref<8x8xf32>
  %false = arith.constant false
  ral.dispatch %ctx, %x, %w, %y, %false, %false {callee = "ral_gemm", device = "cpu", has_side_effect}
      : (memref<8x64xf32>, memref<64x8xf32>, memref<8x8xf32>, i1, i1) -> ()
  %size = arith.constant 64 : index
  %block = arith.constant 16 : index
  ral.cpu_launch %ctx, @kernel, %size, %block, %y : memref<8x8xf32>
  ral.send_output %ctx, 0, %y : memref<8x8xf32>
  return
}
func.func private @kernel(!ral.context, index, index, memref<8x8xf32>)
