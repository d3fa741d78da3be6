// RUN: loupe-opt --ral-stream-output-stores --split-input-file %s | FileCheck %s

// A 64 MiB output (kMinStreamedOutputBytes) that only this kernel writes, through a view, with vector stores: they
// become non-temporal, the kernel assumes the buffer's 64-byte alignment and ends with a
// fence, and the dispatch's schedule says so. The input's loads are left alone.
// CHECK-LABEL: func.func @main
// CHECK-SAME: schedule = "vectorised: vector<64xf32>; non-temporal stores into output 0 (64 MiB)"
// CHECK: func.func private @main_kernel_0({{.*}}, %[[IN:.*]]: memref<16777216xf32>, %[[OUT:.*]]: memref<16777216xf32>)
// CHECK-NEXT: memref.assume_alignment %[[OUT]], 64
// CHECK-NOT: memref.assume_alignment
// CHECK: vector.load %[[IN]][%{{.*}}] : memref<16777216xf32>, vector<64xf32>
// CHECK: vector.store %{{.*}}, %[[OUT]][%{{.*}}] {nontemporal = true}
// CHECK-NEXT: }
// CHECK-NEXT: llvm.fence seq_cst
// CHECK-NEXT: return
func.func @main(%ctx: !ral.context) attributes {loupe.dispatches = [{id = 0 : i64, schedule = "vectorised: vector<64xf32>"}]} {
  %id = arith.constant 0 : i64
  %c64 = arith.constant 64 : index
  %c8 = arith.constant 8 : index
  %in = ral.recv_input %ctx, 0 : memref<4096x4096xf32>
  %out = ral.recv_output %ctx, 0 : memref<4096x4096xf32>
  ral.dispatch %ctx, %id {callee = "ral_dispatch_begin", device = "cpu", has_side_effect} : (i64) -> ()
  %a = memref.collapse_shape %in [[0, 1]] : memref<4096x4096xf32> into memref<16777216xf32>
  %b = memref.collapse_shape %out [[0, 1]] : memref<4096x4096xf32> into memref<16777216xf32>
  ral.cpu_launch %ctx, @main_kernel_0, %c64, %c8, %a, %b : memref<16777216xf32>, memref<16777216xf32>
  ral.dispatch %ctx, %id {callee = "ral_dispatch_end", device = "cpu", has_side_effect} : (i64) -> ()
  ral.send_output %ctx, 0, %out : memref<4096x4096xf32>
  return
}
func.func private @main_kernel_0(%ctx: !ral.context, %begin: index, %end: index, %in: memref<16777216xf32>, %out: memref<16777216xf32>) attributes {ral.cpu_kernel} {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %begin to %end step %c1 {
    %o = arith.muli %i, %c64 : index
    %v = vector.load %in[%o] : memref<16777216xf32>, vector<64xf32>
    vector.store %v, %out[%o] : memref<16777216xf32>, vector<64xf32>
  }
  return
}

// -----

// Left alone: an output below kMinStreamedOutputBytes (@small), one the kernel reads back (@reread), one a
// later kernel reads (@later: its first kernel's stores stay ordinary).
// CHECK-LABEL: func.func @small
// CHECK-NOT: nontemporal
// CHECK-NOT: llvm.fence
// CHECK-NOT: assume_alignment
// CHECK-LABEL: func.func @reread
// CHECK-NOT: nontemporal
// CHECK-NOT: llvm.fence
// CHECK-NOT: assume_alignment
// CHECK-LABEL: func.func @later
// CHECK-NOT: nontemporal
// CHECK-NOT: llvm.fence
// CHECK-NOT: assume_alignment
func.func @small(%ctx: !ral.context) {
  %c64 = arith.constant 64 : index
  %c8 = arith.constant 8 : index
  %out = ral.recv_output %ctx, 0 : memref<64x32xf32>
  ral.cpu_launch %ctx, @store_kernel, %c64, %c8, %out : memref<64x32xf32>
  ral.send_output %ctx, 0, %out : memref<64x32xf32>
  return
}
func.func private @store_kernel(%ctx: !ral.context, %begin: index, %end: index, %out: memref<64x32xf32>) attributes {ral.cpu_kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant dense<0.0> : vector<32xf32>
  scf.for %i = %begin to %end step %c1 {
    vector.store %zero, %out[%i, %c0] : memref<64x32xf32>, vector<32xf32>
  }
  return
}
func.func @reread(%ctx: !ral.context) {
  %c64 = arith.constant 64 : index
  %c8 = arith.constant 8 : index
  %out = ral.recv_output %ctx, 0 : memref<4096x4096xf32>
  ral.cpu_launch %ctx, @reread_kernel, %c64, %c8, %out : memref<4096x4096xf32>
  ral.send_output %ctx, 0, %out : memref<4096x4096xf32>
  return
}
func.func private @reread_kernel(%ctx: !ral.context, %begin: index, %end: index, %out: memref<4096x4096xf32>) attributes {ral.cpu_kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %begin to %end step %c1 {
    %v = vector.load %out[%i, %c0] : memref<4096x4096xf32>, vector<64xf32>
    %w = arith.addf %v, %v : vector<64xf32>
    vector.store %w, %out[%i, %c0] : memref<4096x4096xf32>, vector<64xf32>
  }
  return
}
func.func @later(%ctx: !ral.context) {
  %c64 = arith.constant 64 : index
  %c8 = arith.constant 8 : index
  %out = ral.recv_output %ctx, 0 : memref<4096x4096xf32>
  ral.cpu_launch %ctx, @first_kernel, %c64, %c8, %out : memref<4096x4096xf32>
  ral.cpu_launch %ctx, @second_kernel, %c64, %c8, %out : memref<4096x4096xf32>
  ral.send_output %ctx, 0, %out : memref<4096x4096xf32>
  return
}
func.func private @first_kernel(%ctx: !ral.context, %begin: index, %end: index, %out: memref<4096x4096xf32>) attributes {ral.cpu_kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant dense<1.0> : vector<64xf32>
  scf.for %i = %begin to %end step %c1 {
    vector.store %one, %out[%i, %c0] : memref<4096x4096xf32>, vector<64xf32>
  }
  return
}
func.func private @second_kernel(%ctx: !ral.context, %begin: index, %end: index, %out: memref<4096x4096xf32>) attributes {ral.cpu_kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %begin to %end step %c1 {
    %v = vector.load %out[%i, %c0] : memref<4096x4096xf32>, vector<64xf32>
    %w = arith.addf %v, %v : vector<64xf32>
    vector.store %w, %out[%i, %c0] : memref<4096x4096xf32>, vector<64xf32>
  }
  return
}
