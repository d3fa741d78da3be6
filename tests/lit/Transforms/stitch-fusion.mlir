// kStitch fusion (BladeDISC): a row reduction and the ops that read its result become one loop
// over rows. Softmax and LayerNorm from TOSA: one loupe.fusion, one scf.forall over the rows,
// one kernel (one dispatch of kind kStitch) whose per-row scratch lives on the stack.
// RUN: loupe-opt --split-input-file --loupe-graph --loupe-cluster %s | FileCheck %s
// RUN: loupe-opt --split-input-file --loupe-graph --loupe-cluster --loupe-lower --loupe-ral %s | FileCheck %s --check-prefix=RAL

// CHECK-LABEL: func.func @softmax
// CHECK-SAME: loupe.refused_merges = []
// CHECK: loupe.fusion "kStitch" on "codegen" attributes {id = 0 : i64, {{.*}}kStitch: each row's reductions and their readers in one loop"}
// CHECK: scf.forall (%{{.*}}) in (64)
// The max, then exp written once into the row (two ops read it), its sum, the scaling.
// CHECK: linalg.generic {{.*}}["parallel", "reduction"]
// CHECK: arith.maximumf
// CHECK: linalg.generic {{.*}}["parallel", "parallel"]
// CHECK: math.exp
// CHECK: linalg.generic {{.*}}["parallel", "reduction"]
// CHECK: linalg.generic {{.*}}["parallel", "parallel"]
// CHECK-NOT: math.exp
// CHECK: scf.forall.in_parallel
// CHECK-NOT: loupe.fusion
// RAL-LABEL: func.func @softmax
// RAL-SAME: loupe.dispatches = [{backend = "codegen", {{.*}}kind = "kStitch", {{.*}}name = "dispatch_0_stitch", op = "scf.forall"
// RAL-SAME: schedule = "{{.*}}; next row prefetched into L1"}]
// RAL: ral.cpu_launch %{{.*}}, @softmax_kernel_0, %c64
// RAL-NOT: ral.cpu_launch
// RAL: func.func private @softmax_kernel_0({{.*}}, %[[X:arg[0-9]+]]: memref<64x256xf32> {ral.noalias}, %{{.*}}: memref<64x256xf32> {ral.noalias})
// RAL-NOT: memref.alloc(
// RAL: memref.alloca() {alignment = 64 : i64} : memref<1xf32>
// RAL-NOT: memref.alloc(
// While the row is in L1 for exp, the next row's 4 lines per 64-float load are prefetched.
// RAL: %[[NEXT:.*]] = arith.minui %{{.*}}, %c63 : index
// RAL-NEXT: memref.prefetch %[[X]][%[[NEXT]], %[[C:.*]]], read, locality<3>, data : memref<64x256xf32>
// RAL-COUNT-3: memref.prefetch %[[X]][%[[NEXT]], %{{.*}}], read, locality<3>, data
// RAL: vector.load %[[X]][%{{.*}}, %[[C]]] : memref<64x256xf32>, vector<64xf32>
// RAL: return
func.func @softmax(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %m = tosa.reduce_max %x {axis = 1 : i32} : (tensor<64x256xf32>) -> tensor<64x1xf32>
  %d = tosa.sub %x, %m : (tensor<64x256xf32>, tensor<64x1xf32>) -> tensor<64x256xf32>
  %e = tosa.exp %d : (tensor<64x256xf32>) -> tensor<64x256xf32>
  %s = tosa.reduce_sum %e {axis = 1 : i32} : (tensor<64x256xf32>) -> tensor<64x1xf32>
  %r = tosa.reciprocal %s : (tensor<64x1xf32>) -> tensor<64x1xf32>
  %y = tosa.mul %e, %r {shift = 0 : i8} : (tensor<64x256xf32>, tensor<64x1xf32>) -> tensor<64x256xf32>
  return %y : tensor<64x256xf32>
}

// -----

// A 64 MiB softmax output (kMinStreamedOutputBytes): exp goes to a scratch row of its own, so
// the kernel only stores into the output, non-temporally (ral-stream-output-stores).
// CHECK-LABEL: func.func @softmax_streamed
// CHECK: arith.maximumf
// CHECK: %[[EXP:.*]] = bufferization.alloc_tensor() : tensor<1x4096xf32>
// CHECK: linalg.generic {{.*}}["parallel", "parallel"]{{.*}} outs(%[[EXP]] :
// CHECK: math.exp
// CHECK: scf.forall.in_parallel
// RAL-LABEL: func.func @softmax_streamed
// RAL-SAME: schedule = "{{.*}}; non-temporal stores into output 0 (64 MiB)"
// RAL: func.func private @softmax_streamed_kernel_0({{.*}}, %[[OUT:arg[0-9]+]]: memref<4096x4096xf32> {ral.noalias})
// RAL: memref.assume_alignment %[[OUT]], 64
// RAL: memref.alloca() {alignment = 64 : i64} : memref<1x4096xf32>
// RAL-NOT: memref.alloc(
// RAL-NOT: vector.load %[[OUT]]
// RAL: vector.store %{{.*}}, %[[OUT]][%{{.*}}, %{{.*}}] {nontemporal = true}
// RAL-NOT: vector.load %[[OUT]]
// RAL: llvm.fence seq_cst
// RAL-NEXT: return
func.func @softmax_streamed(%x: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %m = tosa.reduce_max %x {axis = 1 : i32} : (tensor<4096x4096xf32>) -> tensor<4096x1xf32>
  %d = tosa.sub %x, %m : (tensor<4096x4096xf32>, tensor<4096x1xf32>) -> tensor<4096x4096xf32>
  %e = tosa.exp %d : (tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %s = tosa.reduce_sum %e {axis = 1 : i32} : (tensor<4096x4096xf32>) -> tensor<4096x1xf32>
  %r = tosa.reciprocal %s : (tensor<4096x1xf32>) -> tensor<4096x1xf32>
  %y = tosa.mul %e, %r {shift = 0 : i8} : (tensor<4096x4096xf32>, tensor<4096x1xf32>) -> tensor<4096x4096xf32>
  return %y : tensor<4096x4096xf32>
}

// -----

// LayerNorm over the last axis of a batch of 1 (the unit dim is folded away): the mean, the
// variance of the centred row and the normalisation in one loop over the 16 rows; the scale is
// read whole by every row.
// CHECK-LABEL: func.func @layernorm
// CHECK: loupe.fusion "kStitch"
// CHECK: scf.forall (%{{.*}}) in (16)
// CHECK-COUNT-2: linalg.generic {{.*}}["parallel", "reduction"]
// CHECK: rsqrt
// CHECK: scf.forall.in_parallel
// CHECK-NOT: loupe.fusion
// RAL-LABEL: func.func @layernorm
// RAL-SAME: loupe.dispatches = [{backend = "codegen", {{.*}}kind = "kStitch"
// RAL-SAME: }]
func.func @layernorm(%x: tensor<1x16x128xf32>, %gamma: tensor<1x1x128xf32>) -> tensor<1x16x128xf32> {
  %n = "tosa.const"() {value = dense<7.8125e-03> : tensor<1x1x1xf32>} : () -> tensor<1x1x1xf32>
  %eps = "tosa.const"() {value = dense<1.0e-05> : tensor<1x1x1xf32>} : () -> tensor<1x1x1xf32>
  %s = tosa.reduce_sum %x {axis = 2 : i32} : (tensor<1x16x128xf32>) -> tensor<1x16x1xf32>
  %mean = tosa.mul %s, %n {shift = 0 : i8} : (tensor<1x16x1xf32>, tensor<1x1x1xf32>) -> tensor<1x16x1xf32>
  %c = tosa.sub %x, %mean : (tensor<1x16x128xf32>, tensor<1x16x1xf32>) -> tensor<1x16x128xf32>
  %sq = tosa.mul %c, %c {shift = 0 : i8} : (tensor<1x16x128xf32>, tensor<1x16x128xf32>) -> tensor<1x16x128xf32>
  %vs = tosa.reduce_sum %sq {axis = 2 : i32} : (tensor<1x16x128xf32>) -> tensor<1x16x1xf32>
  %var = tosa.mul %vs, %n {shift = 0 : i8} : (tensor<1x16x1xf32>, tensor<1x1x1xf32>) -> tensor<1x16x1xf32>
  %ve = tosa.add %var, %eps : (tensor<1x16x1xf32>, tensor<1x1x1xf32>) -> tensor<1x16x1xf32>
  %rs = tosa.rsqrt %ve : (tensor<1x16x1xf32>) -> tensor<1x16x1xf32>
  %n1 = tosa.mul %c, %rs {shift = 0 : i8} : (tensor<1x16x128xf32>, tensor<1x16x1xf32>) -> tensor<1x16x128xf32>
  %y = tosa.mul %n1, %gamma {shift = 0 : i8} : (tensor<1x16x128xf32>, tensor<1x1x128xf32>) -> tensor<1x16x128xf32>
  return %y : tensor<1x16x128xf32>
}

// -----

// A reduction's result read across rows (row i reads every row's sum) is not stitched: the
// loop over rows would recompute all sums for every row.
// CHECK-LABEL: func.func @across_rows
// CHECK-SAME: consumer = "columns", {{.*}}producer = "rowsum", {{.*}}rule = "kStitch computes whole rows; linalg.broadcast does not read and write them in place"
// CHECK: loupe.fusion "kRowReduction"
// CHECK: loupe.fusion "kLoop"
// CHECK-NOT: scf.forall
func.func @across_rows(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  %zero = arith.constant 0.0 : f32
  %e8 = tensor.empty() : tensor<8xf32>
  %z8 = linalg.fill ins(%zero : f32) outs(%e8 : tensor<8xf32>) -> tensor<8xf32>
  %row = linalg.reduce ins(%x : tensor<8x8xf32>) outs(%z8 : tensor<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    } loc("rowsum")
  %t = linalg.broadcast ins(%row : tensor<8xf32>) outs(%e : tensor<8x8xf32>) dimensions = [0] loc("columns")
  return %t : tensor<8x8xf32>
}
