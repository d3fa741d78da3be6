// RUN: loupe-opt --ral-to-llvm %s | FileCheck %s

// ral.cpu_launch: one ral_cpu_launch_1d call with the kernel's C entry point and a params
// array; a statically shaped memref travels as its aligned pointer, noalias where the outliner
// said so, and the _abi entry point unpacks params and calls the kernel.

// CHECK-DAG: llvm.mlir.global internal constant @[[LAUNCH:.*]]("ral_cpu_launch_1d___cpu___pvoid_pvoid_i64_i64_pvoid_ppvoid___void\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[NAME:.*]]("launch_kernel_0\00")
// CHECK-LABEL: func.func @launch
// CHECK: %[[ALIGNED:.*]] = llvm.extractvalue %{{.*}}[1]
// CHECK: llvm.store %[[ALIGNED]]
// CHECK: constant @launch_kernel_0_abi : (!llvm.ptr, index, index, !llvm.ptr) -> ()
// CHECK: llvm.mlir.addressof @[[NAME]]
// CHECK: llvm.mlir.addressof @[[LAUNCH]]
// CHECK: llvm.call @ral_api_call
// CHECK-NOT: ral.cpu_launch
// CHECK: func.func private @launch_kernel_0_abi(%[[CTX:.*]]: !llvm.ptr, %[[B:.*]]: index, %[[E:.*]]: index, %[[P:.*]]: !llvm.ptr)
// CHECK: %[[AT0:.*]] = llvm.getelementptr %[[P]][0]
// CHECK: %[[SLOT0:.*]] = llvm.load %[[AT0]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[PTR:.*]] = llvm.load %[[SLOT0]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[AT1:.*]] = llvm.getelementptr %[[P]][1]
// CHECK: %[[SLOT1:.*]] = llvm.load %[[AT1]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[DYN:.*]] = llvm.load %[[SLOT1]] : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
// CHECK: %[[M:.*]] = builtin.unrealized_conversion_cast %[[DYN]] {{.*}} to memref<?xf32>
// CHECK: call @launch_kernel_0(%[[CTX]], %[[B]], %[[E]], %[[PTR]], %[[M]])
// CHECK: func.func private @launch_kernel_0(%{{.*}}: !llvm.ptr, %{{.*}}: index, %{{.*}}: index, %{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: memref<?xf32>)
func.func @launch(%ctx: !ral.context, %n: index) {
  %c16 = arith.constant 16 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<16xf32>
  %d = memref.alloc(%n) : memref<?xf32>
  ral.cpu_launch %ctx, @launch_kernel_0, %c16, %c4, %a, %d : memref<16xf32>, memref<?xf32>
  return
}
func.func private @launch_kernel_0(%ctx: !ral.context, %begin: index, %end: index,
                                   %a: memref<16xf32> {ral.noalias}, %d: memref<?xf32>) attributes {ral.cpu_kernel} {
  %zero = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  scf.for %i = %begin to %end step %c1 {
    memref.store %zero, %a[%i] : memref<16xf32>
  }
  return
}
