// Each phase runs on its own through loupe-opt, and the phases compose.
// RUN: loupe-opt --loupe-graph %s | FileCheck %s --check-prefix=GRAPH
// RUN: loupe-opt --loupe-graph --loupe-cluster %s | FileCheck %s --check-prefix=CLUSTER
// RUN: loupe-opt --loupe-graph --loupe-cluster --loupe-lower %s | FileCheck %s --check-prefix=LOWER
// RUN: loupe-opt --loupe-graph --loupe-cluster --loupe-lower --loupe-ral %s | FileCheck %s --check-prefix=RAL
// RUN: loupe-opt --loupe-graph --loupe-cluster --loupe-lower --loupe-ral --loupe-llvm %s | FileCheck %s --check-prefix=LLVM

// GRAPH-LABEL: func.func @main
// GRAPH: tosa.matmul
// GRAPH: tosa.clamp

// The matmul cluster takes its operand and result views; the clamp (min and max) is not the
// ReLU of onednn's matmul_bias_act.
// CLUSTER-LABEL: func.func @main
// CLUSTER-SAME: rule = "onednn linalg.batch_matmul: matmul_bias_act covers a result view, C + bias, then ReLU or GELU or hardswish or SiLU, or relu(C + residual); not linalg.generic here"
// CLUSTER-NOT: tosa.
// CLUSTER: loupe.fusion "kLibrary" on "onednn" attributes {id = 0 : i64, pattern = "out_elemwise_fusable"
// CLUSTER-NEXT: tensor.expand_shape
// CLUSTER: linalg.batch_matmul
// CLUSTER-NEXT: tensor.collapse_shape
// CLUSTER: loupe.fusion "kLoop" on "codegen" attributes {id = 1

// LOWER-LABEL: func.func @main
// LOWER-SAME: -> memref<32x16xf32>
// LOWER-NOT: tosa.
// LOWER-NOT: loupe.fusion
// LOWER: linalg.batch_matmul {{.*}}loupe.cluster = 0

// RAL: module attributes {loupe.dedup = {kernels = 1 : i64, unique = 1 : i64}}
// RAL-LABEL: func.func @main
// RAL-SAME: (%[[CTX:.*]]: !ral.context)
// RAL-SAME: loupe.dispatches
// RAL: ral.recv_input %[[CTX]], 0 : memref<32x8xf32>
// RAL: callee = "ral_batch_gemm_onednn"
// RAL: ral.cpu_launch %[[CTX]], @main_kernel_0
// RAL: ral.send_output %[[CTX]], 0
// RAL: func.func private @main_kernel_0(%{{.*}}: !ral.context, %{{.*}}: index, %{{.*}}: index
// RAL-SAME: ral.cpu_kernel
// RAL: scf.for
// RAL: vector.load {{.*}} vector<64xf32>

// LLVM-LABEL: llvm.func @main
// LLVM-NOT: = tosa.
// LLVM-NOT: = memref.
// LLVM-NOT: = ral.
// LLVM: llvm.call @ral_api_call
// LLVM: llvm.func @main_kernel_0_abi(%{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr)
// LLVM: llvm.call @main_kernel_0(
// LLVM: llvm.func @main_kernel_0(%{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr {llvm.noalias})
func.func @main(%x: tensor<32x8xf32>, %w: tensor<1x8x16xf32>) -> tensor<32x16xf32> {
  %a = tosa.reshape %x {new_shape = array<i64: 1, 32, 8>} : (tensor<32x8xf32>) -> tensor<1x32x8xf32>
  %m = tosa.matmul %a, %w : (tensor<1x32x8xf32>, tensor<1x8x16xf32>) -> tensor<1x32x16xf32>
  %r = tosa.reshape %m {new_shape = array<i64: 32, 16>} : (tensor<1x32x16xf32>) -> tensor<32x16xf32>
  %c = tosa.clamp %r {min_fp = 0.0 : f32, max_fp = 3.4e38 : f32, min_int = 0 : i64, max_int = 9223372036854775807 : i64} : (tensor<32x16xf32>) -> tensor<32x16xf32>
  return %c : tensor<32x16xf32>
}
