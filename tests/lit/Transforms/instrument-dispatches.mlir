// RUN: loupe-opt --loupe-instrument-dispatches --split-input-file %s | FileCheck %s

// Every top-level linalg op and memref.copy of the entry becomes a numbered dispatch,
// bracketed by the runtime's hooks; the table names the source op through its loc.

// CHECK-LABEL: func.func @main
// CHECK-SAME: loupe.dispatches = [{id = 0 : i64, loc = "fill_site", name = "dispatch_0_fill", op = "linalg.fill"}, {id = 1 : i64, loc = "Gemm_0", name = "dispatch_1_matmul", op = "linalg.matmul"}, {id = 2 : i64, loc = "out", name = "dispatch_2_copy", op = "memref.copy"}]
// CHECK: %[[ID0:.*]] = arith.constant 0 : i64
// CHECK-NEXT: call @loupe_ral_dispatch_begin(%[[ID0]])
// CHECK-NEXT: linalg.fill {loupe.dispatch_id = 0 : i64}
// CHECK-NEXT: call @loupe_ral_dispatch_end(%[[ID0]])
// CHECK: %[[ID1:.*]] = arith.constant 1 : i64
// CHECK-NEXT: call @loupe_ral_dispatch_begin(%[[ID1]])
// CHECK-NEXT: linalg.matmul {loupe.dispatch_id = 1 : i64}
// CHECK-NEXT: call @loupe_ral_dispatch_end(%[[ID1]])
// CHECK: memref.copy {{.*}} {loupe.dispatch_id = 2 : i64}
// CHECK: func.func private @loupe_ral_dispatch_{{begin|end}}(i64)
func.func @main(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %out: memref<4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<4x16xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<4x16xf32>) loc("fill_site")
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%acc : memref<4x16xf32>) loc("Gemm_0")
  memref.copy %acc, %out : memref<4x16xf32> to memref<4x16xf32> loc("out")
  memref.dealloc %acc : memref<4x16xf32>
  return
}

// -----

// Without @main, the only public function is the entry; private helpers are not instrumented.

// CHECK-LABEL: func.func private @helper
// CHECK-NOT: loupe_ral_dispatch_begin
// CHECK: return
// CHECK-LABEL: func.func @forward
// CHECK: call @loupe_ral_dispatch_begin
// CHECK: linalg.fill {loupe.dispatch_id = 0 : i64}
func.func private @helper(%m: memref<4xf32>) {
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%m : memref<4xf32>)
  return
}
func.func @forward(%m: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%m : memref<4xf32>)
  return
}

// -----

// An entry without kernels is left alone.

// CHECK-LABEL: func.func @main
// CHECK-NOT: loupe.dispatches
// CHECK-NOT: loupe_ral_dispatch
func.func @main(%m: memref<4xf32>) {
  return
}
