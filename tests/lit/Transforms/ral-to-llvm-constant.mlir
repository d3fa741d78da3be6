// RUN: loupe-opt --ral-to-llvm --finalize-memref-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts %s | FileCheck %s

// A weight of the blob is one ral_constant(ctx, offset, bytes) call whose pointer becomes a
// statically shaped descriptor: 16x8 f32 at offset 4096 is 512 bytes.

// CHECK: llvm.mlir.global internal constant @[[NAME:.*]]("ral_constant___cpu___pvoid_i64_i64___pvoid\00")
// CHECK: llvm.func @main(%[[CTX:.*]]: !llvm.ptr)
// CHECK-DAG: %[[OFFSET:.*]] = llvm.mlir.constant(4096 : i64) : i64
// CHECK-DAG: %[[BYTES:.*]] = llvm.mlir.constant(512 : i64) : i64
// CHECK: llvm.store %[[OFFSET]]
// CHECK: llvm.store %[[BYTES]]
// CHECK: %[[API:.*]] = llvm.mlir.addressof @[[NAME]]
// CHECK: llvm.call @ral_api_call(%[[CTX]], %[[API]], %{{.*}})
// CHECK: %[[PTR:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.insertvalue %[[PTR]], %{{.*}}[0]
// CHECK: llvm.insertvalue %[[PTR]], %{{.*}}[1]
func.func @main(%ctx: !ral.context) {
  %w = ral.constant %ctx, 4096 : memref<16x8xf32>
  %c0 = arith.constant 0 : index
  %v = memref.load %w[%c0, %c0] : memref<16x8xf32>
  return
}
