// RUN: loupe-opt --ral-outline-cpu-kernels --split-input-file %s | FileCheck %s
// RUN: loupe-opt --ral-outline-cpu-kernels --ral-outline-cpu-kernels --split-input-file %s | FileCheck %s --check-prefix=TWICE

// An elementwise loop becomes a kernel over its rows: the innermost dimension stays a loop.
// Constants and globals are cloned into the kernel, buffers are passed, and distinct buffers
// are marked ral.noalias. A workgroup gets ~8192 work units: loads and stores count 2, so a
// row is (2 + 2 + 1 + 2) x 128 = 896 units: 10 rows.

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[CTX:.*]]: !ral.context)
// CHECK: ral.cpu_launch %[[CTX]], @main_kernel_0, %c8{{(_[0-9]+)?}}, %c10{{(_[0-9]+)?}}, %[[IN:.*]], %[[OUT:.*]] : memref<8x128xf32>, memref<8x128xf32>
// CHECK-NOT: scf.parallel
// CHECK: ral.send_output %[[CTX]], 0, %[[OUT]]
// CHECK: func.func private @main_kernel_0(%[[KCTX:.*]]: !ral.context, %[[BEGIN:.*]]: index, %[[END:.*]]: index,
// CHECK-SAME: %[[A:.*]]: memref<8x128xf32> {ral.noalias}, %[[B:.*]]: memref<8x128xf32> {ral.noalias})
// CHECK-SAME: attributes {ral.cpu_kernel}
// CHECK: %[[BIAS:.*]] = memref.get_global @bias
// CHECK: scf.for %[[I:.*]] = %[[BEGIN]] to %[[END]]
// CHECK: scf.parallel (%[[J:.*]]) =
// CHECK: memref.load %[[A]][%[[I]], %[[J]]]
// CHECK: memref.load %[[BIAS]][%[[J]]]
// CHECK: memref.store %{{.*}}, %[[B]][%[[I]], %[[J]]]

// TWICE-COUNT-1: func.func private @main_kernel_0
// TWICE-NOT: func.func private @main_kernel_1
memref.global "private" constant @bias : memref<128xf32> = dense<1.0>
func.func @main(%ctx: !ral.context) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %in = ral.recv_input %ctx, 0 : memref<8x128xf32>
  %bias = memref.get_global @bias : memref<128xf32>
  %out = memref.alloc() : memref<8x128xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c128) step (%c1, %c1) {
    %x = memref.load %in[%i, %j] : memref<8x128xf32>
    %b = memref.load %bias[%j] : memref<128xf32>
    %y = arith.addf %x, %b : f32
    memref.store %y, %out[%i, %j] : memref<8x128xf32>
    scf.reduce
  }
  ral.send_output %ctx, 0, %out : memref<8x128xf32>
  return
}

// -----

// Leading unit dimensions: linearising is free, so the innermost dimension is distributed
// too. Two views of one buffer are not marked ral.noalias; a reduction (scf.parallel with
// results) and a function without a context are left alone.

// CHECK-LABEL: func.func @views
// CHECK: ral.cpu_launch %{{.*}}, @views_kernel_0, %c4096{{(_[0-9]+)?}}, %{{.*}}, %[[V:.*]], %[[W:.*]] : memref<1x4096xf32>, memref<4096xf32>
// CHECK: scf.parallel {{.*}} init
// CHECK: func.func private @views_kernel_0(%{{.*}}: !ral.context, %[[B:.*]]: index, %[[E:.*]]: index, %{{.*}}: memref<1x4096xf32>, %{{.*}}: memref<4096xf32>)
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK: scf.for %[[I:.*]] = %[[B]] to %[[E]]
// CHECK-NOT: arith.divui
// CHECK-NEXT: memref.load %{{.*}}[%[[C0]], %[[I]]]
// CHECK-NOT: scf.parallel
// CHECK: return
// CHECK-LABEL: func.func @no_context
// CHECK: scf.parallel
func.func @views(%ctx: !ral.context) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4096 = arith.constant 4096 : index
  %zero = arith.constant 0.0 : f32
  %buf = memref.alloc() : memref<1x4096xf32>
  %flat = memref.collapse_shape %buf [[0, 1]] : memref<1x4096xf32> into memref<4096xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c1, %c4096) step (%c1, %c1) {
    %x = memref.load %buf[%i, %j] : memref<1x4096xf32>
    memref.store %x, %flat[%j] : memref<4096xf32>
    scf.reduce
  }
  %sum = scf.parallel (%j) = (%c0) to (%c4096) step (%c1) init (%zero) -> f32 {
    %x = memref.load %flat[%j] : memref<4096xf32>
    scf.reduce(%x : f32) {
    ^bb0(%l: f32, %r: f32):
      %s = arith.addf %l, %r : f32
      scf.reduce.return %s : f32
    }
  }
  ral.send_output %ctx, 0, %buf : memref<1x4096xf32>
  return
}
func.func @no_context(%m: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    memref.store %zero, %m[%i] : memref<16xf32>
    scf.reduce
  }
  return
}

// -----

// Dynamic bounds: the trip count is computed at the launch and the bound is passed; the kernel
// scales the iteration by the step.

// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[CTX:.*]]: !ral.context, %[[N:.*]]: index, %[[M:.*]]: memref<?x4xf32>)
// CHECK: %[[EXT:.*]] = arith.maxsi %[[N]]
// CHECK: %[[TRIPS:.*]] = arith.ceildivsi %[[EXT]], %{{.*}}
// CHECK: %[[BLOCK:.*]] = arith.constant 1024 : index
// CHECK: ral.cpu_launch %[[CTX]], @dynamic_kernel_0, %[[TRIPS]], %[[BLOCK]], %[[N]], %[[M]] : index, memref<?x4xf32>
// CHECK: func.func private @dynamic_kernel_0({{.*}}, %{{.*}}: index, %[[KM:.*]]: memref<?x4xf32> {ral.noalias})
// CHECK: scf.for %[[I:.*]] =
// CHECK: %[[ROW:.*]] = arith.muli %[[I]], %{{.*}} : index
// CHECK: memref.store %{{.*}}, %[[KM]][%[[ROW]], %{{.*}}]
func.func @dynamic(%ctx: !ral.context, %n: index, %m: memref<?x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %c4) step (%c2, %c1) {
    memref.store %one, %m[%i, %j] : memref<?x4xf32>
    scf.reduce
  }
  return
}

// -----

// Regression: an 8-D loop whose first dimension alone is distributed (a leading repeat of 64,
// Expand/Tile of a 4-D tensor) keeps the other seven as a serial scf.parallel, every one of
// its induction variables mapped (they once dangled, and the compile crashed).

// CHECK-LABEL: func.func @main
// CHECK: ral.cpu_launch %{{.*}}, @main_kernel_0, %c64
// CHECK-LABEL: func.func private @main_kernel_0
// CHECK: scf.for %[[I:[^ ]*]] = %{{.*}} to %{{.*}} step
// CHECK: scf.parallel (%[[D1:[^,]*]], %[[D2:[^,]*]], %[[D3:[^,]*]], %[[D4:[^,]*]], %[[D5:[^,]*]], %[[D6:[^,]*]], %[[D7:[^)]*]]) =
// CHECK: memref.load %{{.*}}[%[[D1]], %[[D3]], %[[D5]], %[[D7]]]
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[D1]], %[[D2]], %[[D3]], %[[D4]], %[[D5]], %[[D6]], %[[D7]]]
func.func @main(%ctx: !ral.context, %x: memref<1x3x4x4xf32>, %y: memref<64x1x1x3x1x4x1x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%a, %b, %c, %d, %e, %f, %g, %h) = (%c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0)
      to (%c64, %c1, %c1, %c3, %c1, %c4, %c1, %c4) step (%c1, %c1, %c1, %c1, %c1, %c1, %c1, %c1) {
    %v = memref.load %x[%b, %d, %f, %h] : memref<1x3x4x4xf32>
    memref.store %v, %y[%a, %b, %c, %d, %e, %f, %g, %h] : memref<64x1x1x3x1x4x1x4xf32>
    scf.reduce
  }
  return
}

// -----

// A column reduction in vector-dialect code (loupe-vectorize-cpu): a vector<64xf32> op counts
// one unit per 16 lanes (a load two), so an iteration is about 224 x (8 + 4) = 2688 units and
// the loop streams rows of 224 x 64 floats (32 x 8192 units per workgroup: 98 iterations).
// With 224 x 2688 units in all, over 8 x 8192, the loop is split into at least 8
// workgroups: 28 iterations each, so both threads end together (at 147, one of two
// workgroups ran half as long).
// CHECK-LABEL: func.func @column_sum
// CHECK: ral.cpu_launch %{{.*}}, @column_sum_kernel_0, %c224{{(_[0-9]+)?}}, %c28{{(_[0-9]+)?}},
func.func @column_sum(%ctx: !ral.context) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c224 = arith.constant 224 : index
  %in = ral.recv_input %ctx, 0 : memref<224x224x64xf32>
  %out = memref.alloc() : memref<224x64xf32>
  scf.parallel (%w) = (%c0) to (%c224) step (%c1) {
    %init = vector.load %out[%w, %c0] : memref<224x64xf32>, vector<64xf32>
    %sum = scf.for %h = %c0 to %c224 step %c1 iter_args(%acc = %init) -> (vector<64xf32>) {
      %x = vector.load %in[%h, %w, %c0] : memref<224x224x64xf32>, vector<64xf32>
      %s = arith.addf %acc, %x : vector<64xf32>
      scf.yield %s : vector<64xf32>
    }
    vector.store %sum, %out[%w, %c0] : memref<224x64xf32>, vector<64xf32>
    scf.reduce
  }
  ral.send_output %ctx, 0, %out : memref<224x64xf32>
  return
}

// -----

// Fewer streamed rows than that still make two workgroups: 56 iterations of about
// 56 x (6 + 3) = 504 units (EfficientNet-B0's squeeze-excitation pool over 56x56x144, W
// summed first) would be one workgroup of 32 x 8192 units, all on one thread (128 us); with
// more than 8192 units in all, two of 28 contiguous rows each.
// CHECK-LABEL: func.func @pool_rows
// CHECK: ral.cpu_launch %{{.*}}, @pool_rows_kernel_0, %c56{{(_[0-9]+)?}}, %c28{{(_[0-9]+)?}},
func.func @pool_rows(%ctx: !ral.context) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c56 = arith.constant 56 : index
  %in = ral.recv_input %ctx, 0 : memref<56x56x48xf32>
  %out = memref.alloc() : memref<56x48xf32>
  scf.parallel (%h) = (%c0) to (%c56) step (%c1) {
    %init = vector.load %out[%h, %c0] : memref<56x48xf32>, vector<48xf32>
    %sum = scf.for %w = %c0 to %c56 step %c1 iter_args(%acc = %init) -> (vector<48xf32>) {
      %x = vector.load %in[%h, %w, %c0] : memref<56x56x48xf32>, vector<48xf32>
      %s = arith.addf %acc, %x : vector<48xf32>
      scf.yield %s : vector<48xf32>
    }
    vector.store %sum, %out[%h, %c0] : memref<56x48xf32>, vector<48xf32>
    scf.reduce
  }
  ral.send_output %ctx, 0, %out : memref<56x48xf32>
  return
}
