// RUN: loupe-opt --finalize-memref-to-llvm --ral-to-llvm --convert-func-to-llvm --convert-arith-to-llvm --reconcile-unrealized-casts %s | FileCheck %s

// Each ral op becomes one ral_api_call(ctx, name, args) with the name encoded from the
// ral-level types; a rank-2 memref takes 3+2*2 = 7 slots.

// CHECK-DAG: llvm.mlir.global internal constant @[[RECV:__loupe_str_[0-9A-F]+]]("ral_recv_input___cpu___pvoid_i64___m2df32\00")
// CHECK-DAG: llvm.mlir.global internal constant @{{.*}}("ral_send_output___cpu___pvoid_i64_m2df32___void\00")
// CHECK-DAG: llvm.mlir.global internal constant @{{.*}}("ral_sort___cpu___pvoid_m2df32_i1___void\00")
// CHECK-DAG: llvm.func @ral_api_call(!llvm.ptr, !llvm.ptr, !llvm.ptr)
// CHECK-LABEL: llvm.func @main
// CHECK-SAME: (%[[CTX:.*]]: !llvm.ptr)
// The argument arrays of all three calls are allocated up front, in the entry block:
// recv_input has ctx, index, result = 3 slots; the dispatch ctx + 7 memref slots + i1 = 9;
// send_output ctx, index + 7 memref slots = 9.
// CHECK-DAG: llvm.alloca %{{.*}} x !llvm.array<3 x ptr>
// CHECK-DAG: llvm.alloca %{{.*}} x !llvm.array<9 x ptr>
// CHECK: %[[NAME:.*]] = llvm.mlir.addressof @[[RECV]]
// CHECK: llvm.call @ral_api_call(%[[CTX]], %[[NAME]], %{{.*}})
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK: llvm.call @ral_api_call
// CHECK: llvm.call @ral_api_call
// CHECK-NOT: ral.
func.func @main(%ctx: !ral.context) {
  %x = ral.recv_input %ctx, 0 : memref<4x8xf32>
  %true = arith.constant true
  ral.dispatch %ctx, %x, %true {callee = "ral_sort", device = "cpu", has_side_effect} : (memref<4x8xf32>, i1) -> ()
  ral.send_output %ctx, 0, %x : memref<4x8xf32>
  return
}
