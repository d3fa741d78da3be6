// Code-generated CPU kernels as vector-dialect tiles; what stays scalar says why.
// RUN: loupe-opt --split-input-file --pass-pipeline='builtin.module(func.func(loupe-vectorize-cpu))' %s | FileCheck %s

// Elementwise: 64-float tiles (four registers) in an scf.parallel the outliner spreads.
// CHECK-LABEL: func.func @elementwise
// CHECK: scf.parallel (%[[I:.*]]) = (%c0) to (%c4096) step (%c64)
// CHECK:   %[[X:.*]] = vector.load %arg0[%[[I]]] : memref<4096xf32>, vector<64xf32>
// CHECK:   %[[T:.*]] = math.tanh %[[X]] : vector<64xf32>
// CHECK:   vector.store %[[T]], %arg1[%[[I]]] : memref<4096xf32>, vector<64xf32>
// CHECK-NOT: linalg.generic
#id1 = affine_map<(d0) -> (d0)>
func.func @elementwise(%x: memref<4096xf32>, %y: memref<4096xf32>) {
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%x : memref<4096xf32>) outs(%y : memref<4096xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  }
  return
}

// -----

// Streaming through 1 MiB or more (kMinPrefetchedStreamBytes): each 64-float load also
// prefetches its 4 lines 4 KiB (1024 floats) ahead, clamped to the buffer; a smaller buffer
// stays in L2 and gets none.
// CHECK-LABEL: func.func @streaming
// CHECK: scf.parallel (%[[I:.*]]) = (%c0) to (%c262144) step (%c64)
// CHECK:   %[[AHEAD:.*]] = arith.addi %[[I]], %c1024 : index
// CHECK:   %[[AT:.*]] = arith.minui %[[AHEAD]], %c262143 : index
// CHECK:   memref.prefetch %arg0[%[[AT]]], read, locality<3>, data : memref<262144xf32>
// CHECK-COUNT-3: memref.prefetch %arg0[%{{.*}}], read, locality<3>, data
// CHECK:   vector.load %arg0[%[[I]]] : memref<262144xf32>, vector<64xf32>
// CHECK-LABEL: func.func @small_stream
// CHECK-NOT: memref.prefetch
// CHECK: return
#id1 = affine_map<(d0) -> (d0)>
func.func @streaming(%x: memref<262144xf32>, %y: memref<262144xf32>) {
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%x : memref<262144xf32>) outs(%y : memref<262144xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  return
}
func.func @small_stream(%x: memref<131072xf32>, %y: memref<131072xf32>) {
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%x : memref<131072xf32>) outs(%y : memref<131072xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  return
}

// -----

// A column reduction (global mean over NHWC, rows interchanged outside): the accumulator
// tile is loaded once, carried through the reduction loop in registers, stored once.
// CHECK-LABEL: func.func @column_sum
// CHECK: scf.parallel (%[[W:.*]]) = (%c0) to (%c8) step (%c1)
// CHECK:   %[[INIT:.*]] = vector.load %arg1[%[[W]], %c0] : memref<8x64xf32>, vector<64xf32>
// CHECK:   %[[SUM:.*]] = scf.for %[[H:.*]] = %c0 to %c16 step %c1 iter_args(%[[ACC:.*]] = %[[INIT]]) -> (vector<64xf32>)
// CHECK:     %[[X:.*]] = vector.load %arg0[%[[H]], %[[W]], %c0] : memref<16x8x64xf32>, vector<64xf32>
// CHECK:     %[[NEW:.*]] = arith.addf %[[ACC]], %[[X]] : vector<64xf32>
// CHECK:     scf.yield %[[NEW]]
// CHECK:   vector.store %[[SUM]], %arg1[%[[W]], %c0] : memref<8x64xf32>, vector<64xf32>
#in = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
#out = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @column_sum(%x: memref<16x8x64xf32>, %y: memref<8x64xf32>) {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : memref<16x8x64xf32>) outs(%y : memref<8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A matrix-vector product (an LSTM step's h x R): 64 columns of C carried through the k loop
// in registers, each step one broadcast of A's element, one 64-float row of B and an FMA;
// the k tile's unit dim leaves no element-by-element moves behind.
// CHECK-LABEL: func.func @gemv
// CHECK: scf.parallel (%[[N:.*]]) = (%c0) to (%c1024) step (%c64)
// CHECK:   %[[INIT:.*]] = vector.load %arg2[%c0, %c0, %[[N]]] : memref<1x1x1024xf32>, vector<64xf32>
// CHECK:   %[[C:.*]] = scf.for %[[K:.*]] = %c0 to %c256 step %c1 iter_args(%[[ACC:.*]] = %[[INIT]]) -> (vector<64xf32>)
// CHECK-NEXT:     %[[A:.*]] = memref.load %arg0[%c0, %c0, %[[K]]] : memref<1x1x256xf32>
// CHECK-NEXT:     %[[AS:.*]] = vector.splat %[[A]] : vector<64xf32>
// CHECK-NEXT:     %[[B:.*]] = vector.load %arg1[%c0, %[[K]], %[[N]]] : memref<1x256x1024xf32>, vector<64xf32>
// CHECK-NEXT:     %[[P:.*]] = arith.mulf %[[AS]], %[[B]] : vector<64xf32>
// CHECK-NEXT:     %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : vector<64xf32>
// CHECK-NEXT:     scf.yield %[[S]]
// CHECK:   vector.store %[[C]], %arg2[%c0, %c0, %[[N]]] : memref<1x1x1024xf32>, vector<64xf32>
func.func @gemv(%a: memref<1x1x256xf32>, %b: memref<1x256x1024xf32>, %c: memref<1x1x1024xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<1x1x256xf32>, memref<1x256x1024xf32>)
                      outs(%c : memref<1x1x1024xf32>)
  return
}

// -----

// A classifier's GEMV of 1000 columns: tiles of 64 up to 960, then 32 and 8, each accumulator
// a power of two (LLVM widens a loop-carried vector<40xf32> with element inserts).
// CHECK-LABEL: func.func @gemv_1000
// CHECK: scf.parallel (%{{.*}}) = (%c0) to (%c960) step (%c64)
// CHECK:   scf.for {{.*}} -> (vector<64xf32>)
// CHECK: scf.for {{.*}} -> (vector<32xf32>)
// CHECK: scf.for {{.*}} -> (vector<8xf32>)
// CHECK-NOT: vector<40xf32>
func.func @gemv_1000(%a: memref<1x1280xf32>, %b: memref<1280x1000xf32>, %c: memref<1x1000xf32>) {
  linalg.matmul ins(%a, %b : memref<1x1280xf32>, memref<1280x1000xf32>)
                outs(%c : memref<1x1000xf32>)
  return
}

// -----

// An output map with a constant 0 (unit-dim folding leaves one on the fused LSTM cell's c
// output) reads as the loop of extent 1: vectorised, where upstream linalg::vectorize refuses
// the map as it is.
// CHECK-LABEL: func.func @zero_output_index
// CHECK: scf.parallel
// CHECK: vector.load %arg0[%c0, %{{.*}}] : memref<1x256xf32>, vector<64xf32>
// CHECK: math.tanh {{.*}} : vector<64xf32>
// CHECK: vector.store {{.*}}, %arg1[%c0, %{{.*}}] : memref<1x256xf32>, vector<64xf32>
// CHECK: vector.store {{.*}}, %arg2[%c0, %{{.*}}] : memref<1x256xf32>, vector<64xf32>
#zero_row = affine_map<(d0, d1) -> (0, d1)>
#rows2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @zero_output_index(%x: memref<1x256xf32>, %c: memref<1x256xf32>, %h: memref<1x256xf32>) {
  linalg.generic {indexing_maps = [#zero_row, #zero_row, #rows2],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<1x256xf32>) outs(%c, %h : memref<1x256xf32>, memref<1x256xf32>) {
  ^bb0(%in: f32, %out: f32, %out2: f32):
    %t = math.tanh %in : f32
    %m = arith.mulf %t, %in : f32
    linalg.yield %t, %m : f32, f32
  }
  return
}

// -----

// A row reduction (softmax's max): 4 x 16 partial maxima, from -inf, over the row seen as
// [64, 64] in a scratch buffer (LLVM keeps it in registers), then one tree reduction of
// the lanes into the result.
// CHECK-LABEL: func.func @row_max
// CHECK: %[[NEG:.*]] = arith.constant dense<0xFF800000> : vector<64xf32>
// CHECK: %[[LANES:.*]] = memref.alloc() {{.*}} : memref<1x64xf32>
// CHECK: vector.store %[[NEG]], %[[LANES]]
// CHECK: %[[ROW:.*]] = memref.expand_shape %arg0 {{\[\[}}0], [1, 2]] output_shape [1, 64, 64]
// CHECK: %[[INIT:.*]] = vector.load %[[LANES]]
// CHECK: %[[M:.*]] = scf.for %[[K:.*]] = %c0 to %c64 step %c1 iter_args(%[[ACC:.*]] = %[[INIT]]) -> (vector<64xf32>)
// CHECK:   %[[X:.*]] = vector.load %[[ROW]][%c0, %[[K]], %c0] {{.*}} vector<64xf32>
// CHECK:   arith.maximumf %[[ACC]], %[[X]] : vector<64xf32>
// CHECK: vector.store %[[M]], %[[LANES]]
// CHECK: %[[ALL:.*]] = vector.load %[[LANES]]
// CHECK: vector.reduction <maximumf>, %[[ALL]], {{.*}} fastmath<reassoc> : vector<64xf32> into f32
// CHECK: memref.dealloc %[[LANES]]
#row = affine_map<(d0, d1) -> (d0, d1)>
#res = affine_map<(d0, d1) -> (d0)>
func.func @row_max(%x: memref<1x4096xf32>, %m: memref<1xf32>) {
  linalg.generic {indexing_maps = [#row, #res], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<1x4096xf32>) outs(%m : memref<1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out fastmath<reassoc> : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A map with a constant 0 (a unit dim read at index 0, as unit-dim folding leaves an LSTM
// step's gate add) is a broadcast, not a window: vectorised.
// CHECK-LABEL: func.func @zero_index
// CHECK: scf.parallel
// CHECK: vector.load %arg0[%c0, %{{.*}}] : memref<1x1024xf32>, vector<64xf32>
// CHECK: arith.addf {{.*}} : vector<64xf32>
#zero = affine_map<(d0, d1) -> (0, d1)>
#rows = affine_map<(d0, d1) -> (d0, d1)>
func.func @zero_index(%x: memref<1x1024xf32>, %y: memref<4x1024xf32>, %z: memref<4x1024xf32>) {
  linalg.generic {indexing_maps = [#zero, #rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : memref<1x1024xf32>, memref<4x1024xf32>) outs(%z : memref<4x1024xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Each dispatch's schedule says what its ops became: the vectors, or scalar loops and why (a
// transpose reads across rows; i1 vectors are bit-packed in memory). A dim of 100, which no
// vector width divides, is split into 64 + 36 (an elementwise op, unlike an accumulating one,
// keeps widths that are not powers of two: each part would cost a launch).
// CHECK-LABEL: func.func @reasons
// CHECK-SAME: schedule = "vectorised: vector<5xf32>"
// CHECK-SAME: schedule = "scalar loops for linalg.transpose: operand 0 is not read along its rows by loop 1"
// CHECK-SAME: schedule = "scalar loops for linalg.generic: no vector rule for i1"
// CHECK-SAME: schedule = "vectorised: vector<64xf32>, vector<36xf32>"
// CHECK: vector.store {{.*}} vector<5xf32>
// CHECK: linalg.transpose
// CHECK: linalg.generic
// CHECK: vector.load %arg7[%c0] : memref<100xf32>, vector<64xf32>
// CHECK: vector.load %arg7[%c64] : memref<100xf32>, vector<36xf32>
#id = affine_map<(d0) -> (d0)>
func.func @reasons(%ctx: !ral.context, %a: memref<5xf32>, %b: memref<5xf32>, %t: memref<16x32xf32>,
                   %u: memref<32x16xf32>, %p: memref<16xi1>, %q: memref<16xi1>,
                   %c: memref<100xf32>, %d: memref<100xf32>)
    attributes {loupe.dispatches = [{id = 0 : i64}, {id = 1 : i64},
                                    {id = 2 : i64}, {id = 3 : i64}]} {
  %null = llvm.mlir.zero : !llvm.ptr
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  ral.dispatch %ctx, %c0, %null, %null, %null {callee = "ral_dispatch_begin", device = "cpu", has_side_effect} : (i64, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<5xf32>) outs(%b : memref<5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  ral.dispatch %ctx, %c0 {callee = "ral_dispatch_end", device = "cpu", has_side_effect} : (i64) -> ()
  ral.dispatch %ctx, %c1, %null, %null, %null {callee = "ral_dispatch_begin", device = "cpu", has_side_effect} : (i64, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
  linalg.transpose ins(%t : memref<16x32xf32>) outs(%u : memref<32x16xf32>) permutation = [1, 0]
  ral.dispatch %ctx, %c1 {callee = "ral_dispatch_end", device = "cpu", has_side_effect} : (i64) -> ()
  ral.dispatch %ctx, %c2, %null, %null, %null {callee = "ral_dispatch_begin", device = "cpu", has_side_effect} : (i64, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%p : memref<16xi1>) outs(%q : memref<16xi1>) {
  ^bb0(%in: i1, %out: i1):
    %true = arith.constant true
    %n = arith.xori %in, %true : i1
    linalg.yield %n : i1
  }
  ral.dispatch %ctx, %c2 {callee = "ral_dispatch_end", device = "cpu", has_side_effect} : (i64) -> ()
  ral.dispatch %ctx, %c3, %null, %null, %null {callee = "ral_dispatch_begin", device = "cpu", has_side_effect} : (i64, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%c : memref<100xf32>) outs(%d : memref<100xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  ral.dispatch %ctx, %c3 {callee = "ral_dispatch_end", device = "cpu", has_side_effect} : (i64) -> ()
  return
}
