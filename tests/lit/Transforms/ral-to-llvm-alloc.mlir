// RUN: loupe-opt --ral-to-llvm --split-input-file %s | FileCheck %s

// Top-level allocations of a context function go through the runtime's allocator.

// CHECK-DAG: llvm.mlir.global internal constant @[[ALLOC:.*]]("ral_alloc___cpu___pvoid_i64___pvoid\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[FREE:.*]]("ral_dealloc___cpu___pvoid_pvoid___void\00")
// CHECK-LABEL: func.func @main
// CHECK: %[[BYTES:.*]] = llvm.mlir.constant(256 : i64) : i64
// CHECK: llvm.mlir.addressof @[[ALLOC]]
// CHECK: llvm.call @ral_api_call
// CHECK-NOT: memref.alloc
// CHECK: llvm.mlir.addressof @[[FREE]]
// CHECK: llvm.call @ral_api_call
// CHECK-NOT: memref.dealloc
func.func @main(%ctx: !ral.context) {
  %m = memref.alloc() : memref<8x8xf32>
  ral.send_output %ctx, 0, %m : memref<8x8xf32>
  memref.dealloc %m : memref<8x8xf32>
  return
}

// -----

// A dynamically shaped allocation keeps the whole function on malloc/free, so every buffer is
// freed by the allocator that made it. Inside loops, call storage is still in the entry block.

// CHECK-LABEL: func.func @dynamic
// CHECK: memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: memref.alloc() : memref<4xf32>
// CHECK: memref.dealloc
// CHECK-NOT: llvm.mlir.addressof
func.func @dynamic(%ctx: !ral.context, %n: index) {
  %d = memref.alloc(%n) : memref<?xf32>
  %m = memref.alloc() : memref<4xf32>
  memref.dealloc %m : memref<4xf32>
  memref.dealloc %d : memref<?xf32>
  return
}

// -----

// CHECK-LABEL: func.func @loop
// CHECK-NEXT: llvm.mlir.constant(1 : i64)
// CHECK-NEXT: llvm.alloca
// CHECK: scf.for
// CHECK-NOT: llvm.alloca
// CHECK: llvm.call @ral_api_call
func.func @loop(%ctx: !ral.context, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %m = memref.alloc() : memref<4xf32>
    memref.dealloc %m : memref<4xf32>
  }
  return
}
