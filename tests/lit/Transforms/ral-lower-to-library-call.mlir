// RUN: loupe-opt --ral-lower-to-library-call --split-input-file %s | FileCheck %s

// A zero-filled f32 matmul becomes one ral_gemm dispatch; the fill goes away.

// CHECK-LABEL: func.func @main
// CHECK-NOT: linalg.fill
// CHECK: %[[F:.*]] = arith.constant false
// CHECK: ral.dispatch %{{.*}}, %{{.*}}, %{{.*}}, %[[C:.*]], %[[F]], %[[F]] {abi = "ral_gemm___cpu___pvoid_m2df32_m2df32_m2df32_i1_i1___void", callee = "ral_gemm", device = "cpu", has_side_effect}
// CHECK-NOT: linalg.matmul
// CHECK: ral.send_output %{{.*}}, 0, %[[C]]
func.func @main(%ctx: !ral.context) {
  %a = ral.recv_input %ctx, 0 : memref<4x8xf32>
  %b = ral.recv_input %ctx, 1 : memref<8x16xf32>
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<4x16xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<4x16xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  ral.send_output %ctx, 0, %c : memref<4x16xf32>
  return
}

// -----

// Batched matmul goes to ral_batch_gemm.

// CHECK-LABEL: func.func @main
// CHECK: ral.dispatch {{.*}}callee = "ral_batch_gemm"{{.*}} : (memref<2x4x8xf32>, memref<2x8x16xf32>, memref<2x4x16xf32>, i1, i1) -> ()
func.func @main(%ctx: !ral.context, %a: memref<2x4x8xf32>, %b: memref<2x8x16xf32>, %c: memref<2x4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<2x4x16xf32>)
  linalg.batch_matmul ins(%a, %b : memref<2x4x8xf32>, memref<2x8x16xf32>) outs(%c : memref<2x4x16xf32>)
  return
}

// -----

// Patterns that must not match: accumulation into a non-zero output, an output read between
// the fill and the matmul, another element type, and functions without a context.

// CHECK-LABEL: func.func @accumulate
// CHECK: linalg.matmul
// CHECK-LABEL: func.func @read_between
// CHECK: linalg.matmul
// CHECK-LABEL: func.func @f64
// CHECK: linalg.matmul
// CHECK-LABEL: func.func @no_context
// CHECK: linalg.matmul
// CHECK-NOT: ral.dispatch
func.func @accumulate(%ctx: !ral.context, %a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%c : memref<4x16xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}
func.func @read_between(%ctx: !ral.context, %a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>, %d: memref<4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x16xf32>)
  memref.copy %c, %d : memref<4x16xf32> to memref<4x16xf32>
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}
func.func @f64(%ctx: !ral.context, %a: memref<4x8xf64>, %b: memref<8x16xf64>, %c: memref<4x16xf64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%c : memref<4x16xf64>)
  linalg.matmul ins(%a, %b : memref<4x8xf64>, memref<8x16xf64>) outs(%c : memref<4x16xf64>)
  return
}
func.func @no_context(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x16xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}
