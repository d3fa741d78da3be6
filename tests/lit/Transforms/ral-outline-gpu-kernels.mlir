// RUN: loupe-opt --ral-outline-gpu-kernels --cse --split-input-file --verify-diagnostics %s | FileCheck %s

// Elementwise on rows of 256: four consecutive elements per thread (64x256 / 4 = 4096
// threads -> 16 blocks), 128-bit vector loads and stores of 16-byte aligned buffers; the
// scalar constant is splat.

// CHECK-LABEL: func.func @main
// CHECK-SAME: {id = 0 : i64, launch = "grid 16x1x1 block 256x1x1", name = "dispatch_0_generic", schedule = "thread-per-vector4"}
// CHECK: gpu.func @dispatch_0_generic(%[[X:.*]]: memref<64x256xf32>, %[[BIAS:.*]]: memref<256xf32>, %[[Y:.*]]: memref<64x256xf32>) kernel
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[ID:.*]], %c4096
// CHECK: scf.if %[[IN]]
// CHECK: %[[QUAD:.*]] = arith.remui %[[ID]], %c64
// CHECK: %[[ROW:.*]] = arith.divui %[[ID]], %c64
// CHECK: %[[COL:.*]] = arith.muli %[[QUAD]], %c4
// CHECK: memref.assume_alignment %[[X]], 16
// CHECK: %[[XV:.*]] = vector.load %[[X]][%[[ROW]], %[[COL]]] : memref<64x256xf32>, vector<4xf32>
// CHECK: memref.assume_alignment %[[BIAS]], 16
// CHECK: %[[BV:.*]] = vector.load %[[BIAS]][%[[COL]]] : memref<256xf32>, vector<4xf32>
// CHECK: %[[S:.*]] = arith.addf %[[XV]], %[[BV]] : vector<4xf32>
// CHECK: %[[ZERO:.*]] = vector.splat %{{.*}} : vector<4xf32>
// CHECK: %[[R:.*]] = arith.maximumf %[[S]], %[[ZERO]] : vector<4xf32>
// CHECK: memref.assume_alignment %[[Y]], 16
// CHECK: vector.store %[[R]], %[[Y]][%[[ROW]], %[[COL]]] : memref<64x256xf32>, vector<4xf32>
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
memref.global "private" constant @bias : memref<256xf32> = dense<1.0>
func.func @main(%ctx: !ral.context) attributes {loupe.dispatches = [{id = 0 : i64, name = "dispatch_0_generic"}]} {
  %x = ral.recv_input %ctx, 0 : memref<64x256xf32>
  %b = memref.get_global @bias : memref<256xf32>
  %y = memref.alloc() : memref<64x256xf32>
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : memref<64x256xf32>, memref<256xf32>) outs(%y : memref<64x256xf32>)
      attrs = {loupe.dispatch_id = 0 : i64} {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %s = arith.addf %v, %c : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  ral.send_output %ctx, 0, %y : memref<64x256xf32>
  return
}

// -----

// Elementwise with rows of 255 (not a multiple of 4): one thread per element, linearised
// innermost-fastest, 256 threads per block (64x255 = 16320 elements -> 64 blocks). Weights
// are read through a device copy, constants are cloned into the kernel, which is named after
// its dispatch.

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[CTX:[a-z0-9]*]]: !ral.context)
// CHECK-SAME: {id = 0 : i64, launch = "grid 64x1x1 block 256x1x1", name = "dispatch_0_generic", schedule = "thread-per-element"}
// CHECK: %[[G:.*]] = memref.get_global @bias
// CHECK: %[[B:.*]] = ral.device_constant %[[CTX]], %[[G]] : memref<255xf32>
// CHECK: gpu.launch_func @dispatch_0_generic::@dispatch_0_generic blocks in (%c64, %c1, %c1) threads in (%c256, %c1, %c1) args(%{{.*}} : memref<64x255xf32>, %[[B]] : memref<255xf32>, %{{.*}} : memref<64x255xf32>) {loupe.dispatch_id = 0 : i64}
// CHECK: gpu.module @dispatch_0_generic
// CHECK: gpu.func @dispatch_0_generic(%[[X:.*]]: memref<64x255xf32>, %[[BIAS:.*]]: memref<255xf32>, %[[Y:.*]]: memref<64x255xf32>) kernel
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 64, 1, 1>
// CHECK-DAG: %[[BID:.*]] = gpu.block_id x
// CHECK-DAG: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[ID:.*]] = arith.addi %{{.*}}, %[[TID]]
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[ID]], %c16320
// CHECK: scf.if %[[IN]]
// CHECK: %[[COL:.*]] = arith.remui %[[ID]], %c255
// CHECK: %[[ROW:.*]] = arith.divui %[[ID]], %c255
// CHECK: %[[I:.*]] = affine.apply #{{.*}}(%[[ROW]])
// CHECK: %[[J:.*]] = affine.apply #{{.*}}(%[[COL]])
// CHECK: memref.load %[[X]][%[[I]], %[[J]]]
// CHECK: memref.load %[[BIAS]][%[[J]]]
// CHECK: arith.maximumf
// CHECK: memref.store %{{.*}}, %[[Y]][%[[I]], %[[J]]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
memref.global "private" constant @bias : memref<255xf32> = dense<1.0>
func.func @main(%ctx: !ral.context) attributes {loupe.dispatches = [{id = 0 : i64, name = "dispatch_0_generic"}]} {
  %x = ral.recv_input %ctx, 0 : memref<64x255xf32>
  %b = memref.get_global @bias : memref<255xf32>
  %y = memref.alloc() : memref<64x255xf32>
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : memref<64x255xf32>, memref<255xf32>) outs(%y : memref<64x255xf32>)
      attrs = {loupe.dispatch_id = 0 : i64} {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %s = arith.addf %v, %c : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  ral.send_output %ctx, 0, %y : memref<64x255xf32>
  return
}

// -----

// Vector lanes with a per-row scale (not indexed by the innermost loop: one load, broadcast)
// and a body constant (splat); the output is read too (accumulation).

// CHECK-LABEL: func.func @main
// CHECK-SAME: schedule = "thread-per-vector4"
// CHECK: gpu.func @kernel_0(%[[X:.*]]: memref<8x16xf32>, %[[SCALE:.*]]: memref<8x1xf32>, %[[Y:.*]]: memref<8x16xf32>)
// CHECK: %[[XV:.*]] = vector.load %[[X]]
// CHECK: %[[SC:.*]] = memref.load %[[SCALE]][%[[ROW:.*]], %c0]
// CHECK: %[[SV:.*]] = vector.splat %[[SC]] : vector<4xf32>
// CHECK: %[[YV:.*]] = vector.load %[[Y]]
// CHECK: %[[TWO:.*]] = arith.constant dense<2.000000e+00> : vector<4xf32>
// CHECK: %[[M:.*]] = arith.mulf %[[XV]], %[[SV]] : vector<4xf32>
// CHECK: %[[A:.*]] = arith.addf %[[M]], %[[YV]] : vector<4xf32>
// CHECK: %[[R:.*]] = arith.mulf %[[A]], %[[TWO]] : vector<4xf32>
// CHECK: vector.store %[[R]], %[[Y]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0, 0)>
func.func @main(%ctx: !ral.context) attributes {loupe.dispatches = [{id = 0 : i64, name = "kernel_0"}]} {
  %x = ral.recv_input %ctx, 0 : memref<8x16xf32>
  %s = ral.recv_input %ctx, 1 : memref<8x1xf32>
  %y = ral.recv_input %ctx, 2 : memref<8x16xf32>
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : memref<8x16xf32>, memref<8x1xf32>) outs(%y : memref<8x16xf32>)
      attrs = {loupe.dispatch_id = 0 : i64} {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %two = arith.constant 2.0 : f32
    %m = arith.mulf %v, %c : f32
    %a = arith.addf %m, %o : f32
    %r = arith.mulf %a, %two : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// No vector access, one thread per element: rows that start off a 16-byte boundary (offset
// 2, row stride 18), a transposed read, and a linalg.index in the body.

// CHECK-LABEL: func.func @main
// CHECK-SAME: {id = 0 : i64, {{[^}]*}}schedule = "thread-per-element"}
// CHECK-SAME: {id = 1 : i64, {{[^}]*}}schedule = "thread-per-element"}
// CHECK-SAME: {id = 2 : i64, {{[^}]*}}schedule = "thread-per-element"}
// CHECK-NOT: vector.load
#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
func.func @main(%ctx: !ral.context) attributes {loupe.dispatches = [{id = 0 : i64, name = "misaligned"}, {id = 1 : i64, name = "transposed"}, {id = 2 : i64, name = "indexed"}]} {
  %x = ral.recv_input %ctx, 0 : memref<8x18xf32>
  %y = ral.recv_input %ctx, 1 : memref<8x16xf32>
  %t = ral.recv_input %ctx, 2 : memref<16x8xf32>
  %view = memref.subview %x[0, 2] [8, 16] [1, 1] : memref<8x18xf32> to memref<8x16xf32, strided<[18, 1], offset: 2>>
  linalg.copy {loupe.dispatch_id = 0 : i64} ins(%view : memref<8x16xf32, strided<[18, 1], offset: 2>>) outs(%y : memref<8x16xf32>)
  linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<16x8xf32>) outs(%y : memref<8x16xf32>) attrs = {loupe.dispatch_id = 1 : i64} {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  }
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%y : memref<8x16xf32>) attrs = {loupe.dispatch_id = 2 : i64} {
  ^bb0(%o: f32):
    %j = linalg.index 1 : index
    %i = arith.index_cast %j : index to i32
    %f = arith.sitofp %i : i32 to f32
    linalg.yield %f : f32
  }
  return
}

// -----

// Row reduction of 8 rows x 510: one warp per row, 4 rows per block. Each lane folds a
// strided part of its row from the neutral element (scalar loads: 510 is not a multiple of
// 4), a butterfly of 5 xor shuffles combines the lanes, and lane 0 folds the total into the
// output's initial value.

// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func @kernel_0::@kernel_0 blocks in (%c2, %c1, %c1) threads in (%c32, %c4, %c1)
// CHECK: gpu.func @kernel_0(%[[X:.*]]: memref<8x510xf32>, %[[S:.*]]: memref<8xf32>) kernel
// CHECK-DAG: %[[LANE:.*]] = gpu.thread_id x
// CHECK-DAG: %[[TY:.*]] = gpu.thread_id y
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %[[TY]]
// CHECK: scf.if
// CHECK: %[[PART:.*]] = scf.for %[[R:.*]] = %[[LANE]] to %c510 step %c32 iter_args(%[[ACC:.*]] = %cst)
// CHECK: %[[V:.*]] = memref.load %[[X]][%[[ROW]], %[[R]]]
// CHECK: %[[SUM:.*]] = arith.addf %[[V]], %[[ACC]]
// CHECK: scf.yield %[[SUM]]
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[LANE]], %c0
// CHECK: scf.if %[[FIRST]]
// CHECK: %[[INIT:.*]] = memref.load %[[S]][%[[ROW]]]
// CHECK: arith.addf %[[INIT]],
// CHECK: memref.store
// CHECK-NOT: gpu.barrier
#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
func.func @main(%ctx: !ral.context) {
  %x = ral.recv_input %ctx, 0 : memref<8x510xf32>
  %s = memref.alloc() : memref<8xf32>
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x510xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  }
  ral.send_output %ctx, 0, %s : memref<8xf32>
  return
}

// -----

// The same reduction over rows of 512: each lane reads 128-bit vectors at 4 * lane, 4 * lane
// + 128, ... into 4 partials, folds them, then the warp's butterfly runs as above.

// CHECK-LABEL: func.func @main
// CHECK: gpu.func @kernel_0(%[[X:.*]]: memref<8x512xf32>, %[[S:.*]]: memref<8xf32>) kernel
// CHECK-DAG: %[[LANE:.*]] = gpu.thread_id x
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %{{.*}}
// CHECK: scf.if
// CHECK: %[[FIRST:.*]] = arith.muli %[[LANE]], %c4
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<4xf32>
// CHECK: %[[PART:.*]] = scf.for %[[R:.*]] = %[[FIRST]] to %c512 step %c128 iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (vector<4xf32>)
// CHECK: memref.assume_alignment %[[X]], 16
// CHECK: %[[V:.*]] = vector.load %[[X]][%[[ROW]], %[[R]]] : memref<8x512xf32>, vector<4xf32>
// CHECK: %[[SUM:.*]] = arith.addf %[[V]], %[[ACC]] : vector<4xf32>
// CHECK: scf.yield %[[SUM]]
// CHECK: %[[E0:.*]] = vector.extract %[[PART]][0]
// CHECK: %[[E1:.*]] = vector.extract %[[PART]][1]
// CHECK: %[[F1:.*]] = arith.addf %[[E0]], %[[E1]]
// CHECK: %[[E2:.*]] = vector.extract %[[PART]][2]
// CHECK: %[[F2:.*]] = arith.addf %[[F1]], %[[E2]]
// CHECK: %[[E3:.*]] = vector.extract %[[PART]][3]
// CHECK: %[[F3:.*]] = arith.addf %[[F2]], %[[E3]]
// CHECK: gpu.shuffle xor %[[F3]]
// CHECK-COUNT-4: gpu.shuffle xor
#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
func.func @main(%ctx: !ral.context) {
  %x = ral.recv_input %ctx, 0 : memref<8x512xf32>
  %s = memref.alloc() : memref<8xf32>
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x512xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  }
  ral.send_output %ctx, 0, %s : memref<8xf32>
  return
}

// -----

// A row longer than warp-row-max (1024) gets a block of 256 threads (reading vectors of 4:
// 1024 elements per step); the 8 warp partials meet in workgroup memory behind a barrier and
// are reduced again. The reduction dimension is written first in the op: its loops are
// reordered parallel-then-reduction.

// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func @kernel_0::@kernel_0 blocks in (%c4, %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK: gpu.func @kernel_0(%[[X:.*]]: memref<4x4096xf32>, %{{.*}}: memref<4xf32>) workgroup(%[[SMEM:.*]] : memref<8xf32, #gpu.address_space<workgroup>>) kernel
// CHECK: scf.for %{{.*}} = %{{.*}} to %c4096 step %c1024
// CHECK: vector.load %[[X]]
// CHECK: arith.maximumf
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK: memref.store %{{.*}}, %[[SMEM]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[SMEM]]
// CHECK-COUNT-5: gpu.shuffle xor
#t = affine_map<(d0, d1) -> (d1, d0)>
#o = affine_map<(d0, d1) -> (d1)>
func.func @main(%ctx: !ral.context) {
  %x = ral.recv_input %ctx, 0 : memref<4x4096xf32>
  %m = memref.alloc() : memref<4xf32>
  linalg.generic {indexing_maps = [#t, #o], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<4x4096xf32>) outs(%m : memref<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.maximumf %v, %acc : f32
    linalg.yield %r : f32
  }
  ral.send_output %ctx, 0, %m : memref<4xf32>
  return
}

// -----

// A column reduction (the innermost memory dimension is a parallel loop) keeps one thread per
// output with the reduction loop inside it: consecutive threads read consecutive columns.

// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func @kernel_0::@kernel_0 blocks in (%c2, %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK: gpu.func @kernel_0
// CHECK: scf.if
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c1
// CHECK-NOT: gpu.shuffle
#r = affine_map<(d0, d1) -> (d0, d1)>
#c = affine_map<(d0, d1) -> (d1)>
func.func @main(%ctx: !ral.context) {
  %x = ral.recv_input %ctx, 0 : memref<64x512xf32>
  %s = memref.alloc() : memref<512xf32>
  linalg.generic {indexing_maps = [#r, #c], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<64x512xf32>) outs(%s : memref<512xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  }
  ral.send_output %ctx, 0, %s : memref<512xf32>
  return
}

// -----

// Copies and fills are kernels too; a 0-d op runs on one thread.

// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func @kernel_0::@kernel_0 blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1)
// CHECK: gpu.launch_func @kernel_1::@kernel_1 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
// CHECK-NOT: memref.copy
func.func @main(%ctx: !ral.context) {
  %x = ral.recv_input %ctx, 0 : memref<10xf32>
  %y = memref.alloc() : memref<10xf32>
  memref.copy %x, %y : memref<10xf32> to memref<10xf32>
  %z = memref.alloc() : memref<f32>
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%z : memref<f32>)
  ral.send_output %ctx, 0, %y : memref<10xf32>
  ral.send_output %ctx, 1, %z : memref<f32>
  return
}

// -----

// Host code cannot read device memory.
func.func @main(%ctx: !ral.context) {
  %x = ral.recv_input %ctx, 0 : memref<4xf32>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'memref.load' op reads or writes device memory in host code (cuda target)}}
  %v = memref.load %x[%c0] : memref<4xf32>
  return
}

// -----

// A library dispatch's descriptor (ral.host_read, as ral-lower-to-library-call marks conv
// params) stays the host global: ral_conv_cudnn reads it on the host, and a device copy made
// the first GPU run segfault. The weight beside it gets its device copy.

// CHECK-LABEL: func.func @main
// CHECK: %[[P:.*]] = memref.get_global @params : memref<9xi64> {ral.host_read}
// CHECK-NOT: ral.device_constant %{{.*}}, %[[P]]
// CHECK: %[[W:.*]] = memref.get_global @weight : memref<4x3x3x3xf32>
// CHECK: %[[DW:.*]] = ral.device_constant %{{.*}}, %[[W]] : memref<4x3x3x3xf32>
// CHECK: ral.dispatch %{{.*}}, %{{.*}}, %[[DW]], %{{.*}}, %{{.*}}, %[[P]] {{.*}}callee = "ral_conv_cudnn"
memref.global "private" constant @params : memref<9xi64> = dense<[1, 1, 0, 0, 0, 0, 1, 1, 1]>
memref.global "private" constant @weight : memref<4x3x3x3xf32> = dense<0.5>
func.func @main(%ctx: !ral.context) attributes {loupe.dispatches = []} {
  %x = ral.recv_input %ctx, 0 : memref<1x3x8x8xf32>
  %p = memref.get_global @params : memref<9xi64> {ral.host_read}
  %w = memref.get_global @weight : memref<4x3x3x3xf32>
  %bias = memref.alloca() : memref<0xf32>
  %y = memref.alloc() : memref<1x4x6x6xf32>
  ral.dispatch %ctx, %x, %w, %bias, %y, %p {callee = "ral_conv_cudnn", device = "gpu", has_side_effect} : (memref<1x3x8x8xf32>, memref<4x3x3x3xf32>, memref<0xf32>, memref<1x4x6x6xf32>, memref<9xi64>) -> ()
  ral.send_output %ctx, 0, %y : memref<1x4x6x6xf32>
  return
}
