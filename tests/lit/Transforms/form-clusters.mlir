// Clustering decisions of loupe-form-clusters, including every refusal rule.
// RUN: loupe-opt --split-input-file --loupe-form-clusters %s | FileCheck %s
// RUN: loupe-opt --split-input-file --loupe-form-clusters="fusion=false" %s | FileCheck %s --check-prefix=OFF
// RUN: loupe-opt --split-input-file --loupe-form-clusters="max-operands=3" %s | FileCheck %s --check-prefix=CAP
// RUN: loupe-opt --split-input-file --loupe-form-clusters="max-ops=1" %s | FileCheck %s --check-prefix=OPS
// RUN: loupe-opt --split-input-file --loupe-form-clusters="backends=openblas,codegen" %s | FileCheck %s --check-prefix=BLAS
// RUN: loupe-opt --split-input-file --loupe-form-clusters="device=gpu" %s | FileCheck %s --check-prefix=GPU

// An elementwise chain is one kLoop cluster; its fill and empty tensors are cloned in.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: loupe.refused_merges = []
// CHECK: %[[R:.*]] = loupe.fusion "kLoop" on "codegen" attributes {id = 0 : i64, pattern = "elemwise"
// CHECK-NEXT: tensor.empty
// CHECK-NEXT: linalg.add
// CHECK-NEXT: tensor.empty
// CHECK-NEXT: linalg.mul
// CHECK-NEXT: loupe.yield
// CHECK: return %[[R]]
// OFF-LABEL: func.func @chain
// OFF-SAME: {consumer = "mul", consumer_cluster = 1 : i64, consumer_op = "linalg.mul", producer = "add", producer_cluster = 0 : i64, producer_op = "linalg.add", rule = "fusion off"}
// OFF: loupe.fusion "kLoop" on "codegen" attributes {id = 0
// OFF: loupe.fusion "kLoop" on "codegen" attributes {id = 1
// CAP-LABEL: func.func @chain
// CAP-SAME: consumer = "mul", {{.*}}producer = "add", {{.*}}rule = "would take 4 kernel arguments (cap 3)"
// OPS-LABEL: func.func @chain
// OPS-SAME: consumer = "mul", {{.*}}producer = "add", {{.*}}rule = "would fuse 2 ops (cap 1)"
func.func @chain(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>, %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %s = linalg.add ins(%a, %b : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32> loc("add")
  %x = linalg.mul ins(%s, %c : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32> loc("mul")
  return %x : tensor<8x16xf32>
}

// -----

// %a feeds the add directly and through a matmul the add cannot take: merging %a's cluster
// with the add's would put the matmul on a path that leaves and re-enters the cluster.
// CHECK-LABEL: func.func @cycle
// CHECK-SAME: producer = "neg", producer_cluster = 0 : i64, producer_op = "linalg.negf", rule = "inputs of a library kernel (onednn linalg.matmul) are materialised"
// CHECK-SAME: consumer = "add", consumer_cluster = 2 : i64, consumer_op = "linalg.add", producer = "neg", producer_cluster = 0 : i64, producer_op = "linalg.negf", rule = "would create a cycle: a path between the two clusters leaves them"
// CHECK-SAME: producer = "mm", producer_cluster = 1 : i64, producer_op = "linalg.matmul", rule = "onednn linalg.matmul: its result has other readers, so no epilogue can take it"
func.func @cycle(%x: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
  %e = tensor.empty() : tensor<16x16xf32>
  %zero = arith.constant 0.0 : f32
  %a = linalg.negf ins(%x : tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32> loc("neg")
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %m = linalg.matmul ins(%a, %x : tensor<16x16xf32>, tensor<16x16xf32>) outs(%z : tensor<16x16xf32>) -> tensor<16x16xf32> loc("mm")
  %s = linalg.add ins(%a, %m : tensor<16x16xf32>, tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32> loc("add")
  return %s, %m : tensor<16x16xf32>, tensor<16x16xf32>
}

// -----

// One producer, a row and a column reduction: the second merge would mix them (DISC). The
// row reduction's result read by a broadcast makes a kStitch fusion on the CPU (one loop over
// rows); the GPU generates none, so there it stays a refused merge.
// CHECK-LABEL: func.func @reductions
// CHECK-SAME: consumer = "colsum", {{.*}}producer = "exp", {{.*}}rule = "mixes kColReduction and kRowReduction (DISC: one reduction kind per fusion)"
// CHECK: loupe.fusion "kStitch" on "codegen" attributes {id = 0 : i64, pattern = "reduce", {{.*}}3 ops fused; kStitch: each row's reductions and their readers in one loop"}
// CHECK: linalg.exp
// CHECK: linalg.fill
// CHECK: linalg.reduce
// CHECK: linalg.broadcast
// GPU-LABEL: func.func @reductions
// GPU-SAME: consumer = "scale", {{.*}}producer = "rowsum", {{.*}}rule = "reduction result consumed inside its own fusion (kStitch is generated for the CPU only)"
// GPU: loupe.fusion "kRowReduction" on "codegen" attributes {id = 0 : i64, pattern = "reduce", {{.*}}2 ops fused"}
// CHECK: loupe.fusion "kColReduction" on "codegen" attributes {id = 1
// The fill both reductions start from is cloned into each cluster.
// CHECK-NEXT: tensor.empty
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: linalg.reduce
func.func @reductions(%x: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<16xf32>) {
  %e = tensor.empty() : tensor<8x16xf32>
  %zero = arith.constant 0.0 : f32
  %ex = linalg.exp ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32> loc("exp")
  %e8 = tensor.empty() : tensor<8xf32>
  %z8 = linalg.fill ins(%zero : f32) outs(%e8 : tensor<8xf32>) -> tensor<8xf32>
  %row = linalg.reduce ins(%ex : tensor<8x16xf32>) outs(%z8 : tensor<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    } loc("rowsum")
  %e16 = tensor.empty() : tensor<16xf32>
  %z16 = linalg.fill ins(%zero : f32) outs(%e16 : tensor<16xf32>) -> tensor<16xf32>
  %col = linalg.reduce ins(%ex : tensor<8x16xf32>) outs(%z16 : tensor<16xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    } loc("colsum")
  %scaled = linalg.broadcast ins(%row : tensor<8xf32>) outs(%e : tensor<8x16xf32>) dimensions = [1] loc("scale")
  return %scaled, %col : tensor<8x16xf32>, tensor<16xf32>
}

// -----

// onednn's matmul_bias_act takes the result view, the bias and the ReLU; a different
// elementwise op after them is refused by the pattern, and openblas has no pattern at all.
// CHECK-LABEL: func.func @epilogue
// CHECK-SAME: consumer = "twice", {{.*}}rule = "onednn linalg.batch_matmul: matmul_bias_act covers a result view, C + bias, then ReLU or GELU or hardswish or SiLU, or relu(C + residual); not linalg.generic here"
// CHECK: loupe.fusion "kLibrary" on "onednn" attributes {id = 0 : i64, pattern = "matmul_bias_act", plevel = 15 : i64, reason = "{{.*}}takes the bias and ReLU after it as its epilogue; 4 ops fused"}
// CHECK: loupe.fusion "kLoop" on "codegen" attributes {id = 1
// BLAS-LABEL: func.func @epilogue
// BLAS-SAME: consumer = "view", {{.*}}rule = "openblas linalg.batch_matmul takes no other op (openblas registers no fuse pattern for batch_matmul)"
// BLAS: loupe.fusion "kLibrary" on "openblas" attributes {id = 0 : i64, pattern = "out_elemwise_fusable"
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (0, d1)>
func.func @epilogue(%x: tensor<1x4x8xf32>, %w: tensor<1x8x16xf32>, %bias: tensor<1x16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %e3 = tensor.empty() : tensor<1x4x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e3 : tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %m = linalg.batch_matmul ins(%x, %w : tensor<1x4x8xf32>, tensor<1x8x16xf32>) outs(%z : tensor<1x4x16xf32>) -> tensor<1x4x16xf32> loc("mm")
  %c = tensor.collapse_shape %m [[0, 1], [2]] : tensor<1x4x16xf32> into tensor<4x16xf32> loc("view")
  %e = tensor.empty() : tensor<4x16xf32>
  %b = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : tensor<4x16xf32>, tensor<1x16xf32>) outs(%e : tensor<4x16xf32>) {
    ^bb0(%in: f32, %bi: f32, %out: f32):
      %s = arith.addf %in, %bi : f32
      linalg.yield %s : f32
  } -> tensor<4x16xf32> loc("bias")
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %s = arith.maximumf %in, %zero : f32
      linalg.yield %s : f32
  } -> tensor<4x16xf32> loc("relu")
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %s = arith.mulf %in, %two : f32
      linalg.yield %s : f32
  } -> tensor<4x16xf32> loc("twice")
  return %t : tensor<4x16xf32>
}

// -----

// A batch of 2: the epilogue kernels are 2-D, so the bias add is not the batch matmul's.
// CHECK-LABEL: func.func @batched_bias
// CHECK-SAME: consumer = "bias2", {{.*}}rule = "onednn linalg.batch_matmul: its batch is 2, and matmul_bias_act is 2-D"
#b3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#bias3 = affine_map<(d0, d1, d2) -> (d2)>
func.func @batched_bias(%x: tensor<2x4x8xf32>, %w: tensor<2x8x16xf32>, %bias: tensor<16xf32>) -> tensor<2x4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %m = linalg.batch_matmul ins(%x, %w : tensor<2x4x8xf32>, tensor<2x8x16xf32>) outs(%z : tensor<2x4x16xf32>) -> tensor<2x4x16xf32> loc("mm2")
  %b = linalg.generic {indexing_maps = [#b3, #bias3, #b3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%m, %bias : tensor<2x4x16xf32>, tensor<16xf32>) outs(%e : tensor<2x4x16xf32>) {
    ^bb0(%in: f32, %bi: f32, %out: f32):
      %s = arith.addf %in, %bi : f32
      linalg.yield %s : f32
  } -> tensor<2x4x16xf32> loc("bias2")
  return %b : tensor<2x4x16xf32>
}

// -----

// A 1x1 convolution: the matmul's result expanded back to NHWC, then the ReLU alone (a
// BatchNorm of zero shift folded away leaves no bias): the ReLU is the epilogue.
// CHECK-LABEL: func.func @conv1x1_relu
// CHECK: loupe.fusion "kLibrary" on "onednn" attributes {id = 0 : i64, pattern = "matmul_bias_act", plevel = 15 : i64, reason = "{{.*}}takes the ReLU after it as its epilogue; 3 ops fused"}
#nhwc = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @conv1x1_relu(%x: tensor<64x16xf32>, %w: tensor<16x32xf32>) -> tensor<1x8x8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<64x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64x32xf32>) -> tensor<64x32xf32>
  %m = linalg.matmul ins(%x, %w : tensor<64x16xf32>, tensor<16x32xf32>) outs(%z : tensor<64x32xf32>) -> tensor<64x32xf32> loc("conv")
  %v = tensor.expand_shape %m [[0, 1, 2], [3]] output_shape [1, 8, 8, 32] : tensor<64x32xf32> into tensor<1x8x8x32xf32> loc("view")
  %e = tensor.empty() : tensor<1x8x8x32xf32>
  %r = linalg.generic {indexing_maps = [#nhwc, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%v : tensor<1x8x8x32xf32>) outs(%e : tensor<1x8x8x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %s = arith.maximumf %in, %zero : f32
      linalg.yield %s : f32
  } -> tensor<1x8x8x32xf32> loc("relu")
  return %r : tensor<1x8x8x32xf32>
}

// -----

// loupe-fuse-clusters fuses inside a region (the transpose, generalised, included), except a
// producer that is also an output of the region into a reduction (upstream's fusion would
// compute it twice, and a reduction with a second, elementwise result does not vectorise);
// loupe-inline-clusters dissolves the regions and tags every op.
// RUN: loupe-opt --split-input-file --loupe-form-clusters --loupe-fuse-clusters %s | FileCheck %s --check-prefix=FUSED
// RUN: loupe-opt --split-input-file --loupe-form-clusters --loupe-fuse-clusters --loupe-inline-clusters %s | FileCheck %s --check-prefix=INLINED
// FUSED-LABEL: func.func @fuse
// FUSED: loupe.fusion "kRowReduction" on "codegen" attributes {id = 0 : i64, pattern = "reduce", {{.*}}3 ops fused"}
// FUSED-NEXT: tensor.empty
// FUSED-NEXT: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]}
// FUSED-NEXT: ^bb0
// FUSED-NEXT: math.exp
// FUSED: linalg.fill
// FUSED-NEXT: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// FUSED: loupe.yield
// INLINED-LABEL: func.func @fuse
// INLINED-NOT: loupe.fusion
// INLINED: linalg.generic {{.*}} attrs = {loupe.cluster = 0 : i64}
// INLINED: linalg.fill {loupe.cluster = 0 : i64}
// INLINED: linalg.generic {{.*}} attrs = {loupe.cluster = 0 : i64}
func.func @fuse(%x: tensor<16x8xf32>) -> (tensor<8x16xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8x16xf32>
  %zero = arith.constant 0.0 : f32
  %t = linalg.transpose ins(%x : tensor<16x8xf32>) outs(%e : tensor<8x16xf32>) permutation = [1, 0] loc("t")
  %ex = linalg.exp ins(%t : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32> loc("exp")
  %e8 = tensor.empty() : tensor<8xf32>
  %z8 = linalg.fill ins(%zero : f32) outs(%e8 : tensor<8xf32>) -> tensor<8xf32>
  %row = linalg.reduce ins(%ex : tensor<8x16xf32>) outs(%z8 : tensor<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    } loc("rowsum")
  return %ex, %row : tensor<8x16xf32>, tensor<8xf32>
}

// -----

// Into an elementwise reader, such a producer fuses as one generic with both results, the
// value computed once (an LSTM step's c: yielded for the next step, read by its h).
// FUSED-LABEL: func.func @keep_producer_result
// FUSED: loupe.fusion "kLoop"
// FUSED-NEXT: tensor.empty
// FUSED-NEXT: tensor.empty
// FUSED-NEXT: %[[BOTH:.*]]:2 = linalg.generic
// FUSED-NEXT: ^bb0
// FUSED-NEXT: %[[C:.*]] = arith.addf
// FUSED-NEXT: %[[T:.*]] = math.tanh %[[C]]
// FUSED-NEXT: %[[H:.*]] = arith.mulf %{{.*}}, %[[T]]
// FUSED-NEXT: linalg.yield %[[C]], %[[H]]
// FUSED-NOT: linalg.generic
// FUSED: loupe.yield %[[BOTH]]#0, %[[BOTH]]#1
func.func @keep_producer_result(%a: tensor<1x256xf32>, %b: tensor<1x256xf32>, %o: tensor<1x256xf32>)
    -> (tensor<1x256xf32>, tensor<1x256xf32>) {
  %e = tensor.empty() : tensor<1x256xf32>
  %c = linalg.add ins(%a, %b : tensor<1x256xf32>, tensor<1x256xf32>) outs(%e : tensor<1x256xf32>) -> tensor<1x256xf32> loc("c")
  %t = linalg.tanh ins(%c : tensor<1x256xf32>) outs(%e : tensor<1x256xf32>) -> tensor<1x256xf32> loc("tanh")
  %h = linalg.mul ins(%o, %t : tensor<1x256xf32>, tensor<1x256xf32>) outs(%e : tensor<1x256xf32>) -> tensor<1x256xf32> loc("h")
  return %c, %h : tensor<1x256xf32>, tensor<1x256xf32>
}

// -----

// A 1x1 convolution as TOSA gives it: collapse, matmul, expand. Folding the reshapes into the
// matmul by expanding its loops would make it a generic that no library runs (ResNet-50's 1x1
// convolutions ran as generated loops): loupe-fuse-clusters leaves a library contraction named.
// FUSED-LABEL: func.func @matmul_stays_named
// FUSED: loupe.fusion "kLibrary" on "onednn"
// FUSED-NEXT: tensor.collapse_shape
// FUSED-NOT: linalg.generic
// FUSED: linalg.matmul ins(%collapsed, %{{.*}} : tensor<16x8xf32>, tensor<8x8xf32>)
// FUSED-NEXT: tensor.expand_shape
// FUSED-NEXT: loupe.yield
func.func @matmul_stays_named(%x: tensor<1x4x4x8xf32>, %w: tensor<8x8xf32>) -> tensor<1x4x4x8xf32> {
  %c = tensor.collapse_shape %x [[0, 1, 2], [3]] : tensor<1x4x4x8xf32> into tensor<16x8xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  %m = linalg.matmul ins(%c, %w : tensor<16x8xf32>, tensor<8x8xf32>) outs(%z : tensor<16x8xf32>) -> tensor<16x8xf32> loc("mm")
  %r = tensor.expand_shape %m [[0, 1, 2], [3]] output_shape [1, 4, 4, 8] : tensor<16x8xf32> into tensor<1x4x4x8xf32>
  return %r : tensor<1x4x4x8xf32>
}

// -----

// ResNet's block end: relu(conv3 + shortcut) after a 1x1 conv's matmul (collapse, matmul,
// expand) is the matmul's epilogue: onednn adds the shortcut as a post-op. The shortcut's own
// producer stays out.
// CHECK-LABEL: func.func @matmul_residual_relu
// CHECK: loupe.fusion "kLibrary" on "onednn" attributes {{{.*}}pattern = "matmul_bias_act"{{.*}}takes the residual add and ReLU after it as its epilogue; 4 ops fused"}
// CHECK: linalg.matmul
// CHECK: tensor.expand_shape
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: loupe.yield
#nhwc_res = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
#id4_res = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @matmul_residual_relu(%x: tensor<1x4x4x8xf32>, %w: tensor<8x8xf32>, %shortcut: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  %c = tensor.collapse_shape %x [[0, 1, 2], [3]] : tensor<1x4x4x8xf32> into tensor<16x8xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  %m = linalg.matmul ins(%c, %w : tensor<16x8xf32>, tensor<8x8xf32>) outs(%z : tensor<16x8xf32>) -> tensor<16x8xf32> loc("conv3")
  %r = tensor.expand_shape %m [[0, 1, 2], [3]] output_shape [1, 4, 4, 8] : tensor<16x8xf32> into tensor<1x4x4x8xf32>
  %o = tensor.empty() : tensor<1x4x4x8xf32>
  %sum = linalg.generic {indexing_maps = [#nhwc_res, #nhwc_res, #id4_res], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r, %shortcut : tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>) outs(%o : tensor<1x4x4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    %y = arith.maximumf %s, %zero : f32
    linalg.yield %y : f32
  } -> tensor<1x4x4x8xf32> loc("add")
  return %sum : tensor<1x4x4x8xf32>
}

// -----

// A max pool that oneDNN runs is a kLibrary cluster with its fill, and stays named through
// loupe-fuse-clusters for ral-lower-to-library-call; on the GPU it is generated (a generic).
// FUSED-LABEL: func.func @max_pool_stays_named
// FUSED: loupe.fusion "kLibrary" on "onednn"
// FUSED-NOT: linalg.generic
// FUSED: linalg.pooling_nhwc_max
// GPU-LABEL: func.func @max_pool_stays_named
// GPU: loupe.fusion "kInput" on "codegen"
func.func @max_pool_stays_named(%x: tensor<1x6x6x8xf32>) -> tensor<1x2x2x8xf32> {
  %lowest = arith.constant -3.40282347E+38 : f32
  %e = tensor.empty() : tensor<1x2x2x8xf32>
  %init = linalg.fill ins(%lowest : f32) outs(%e : tensor<1x2x2x8xf32>) -> tensor<1x2x2x8xf32>
  %window = tensor.empty() : tensor<3x3xf32>
  %p = linalg.pooling_nhwc_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
      ins(%x, %window : tensor<1x6x6x8xf32>, tensor<3x3xf32>) outs(%init : tensor<1x2x2x8xf32>) -> tensor<1x2x2x8xf32> loc("pool")
  return %p : tensor<1x2x2x8xf32>
}

// -----

// onednn's conv_bias_act: the conv (its bias is the broadcast its output starts from, cloned
// in) takes the ReLU after it. TOSA's NCHW transpose sits in between; the ReLU moves before it
// (they commute), onto the NHWC result, and the transpose joins the reader's cluster. A clamp
// to [0, 6] is not a ReLU: its conv takes nothing. Fusion off and codegen take no epilogue.
// CHECK-LABEL: func.func @conv_relu
// CHECK-SAME: consumer = "conv.view", consumer_cluster = 1 : i64, consumer_op = "linalg.transpose", producer = "relu", producer_cluster = 0 : i64, producer_op = "linalg.generic", rule = "onednn linalg.conv_2d_nhwc_fhwc: conv_bias_act covers the ReLU or hardswish or SiLU of the NHWC result; not linalg.transpose here"
// CHECK-SAME: consumer = "relu6.view", {{.*}}producer = "conv6", {{.*}}rule = "onednn linalg.conv_2d_nhwc_fhwc: conv_bias_act covers the ReLU or hardswish or SiLU of the NHWC result; not linalg.transpose here"
// CHECK: loupe.fusion "kLibrary" on "onednn" attributes {id = 0 : i64, pattern = "conv_bias_act", plevel = 15 : i64, reason = "highest plevel for conv2d on cpu (onednn 15, codegen 10); takes the ReLU after it as its epilogue; 2 ops fused"}
// CHECK-NEXT: tensor.empty
// CHECK-NEXT: linalg.generic
// CHECK: linalg.conv_2d_nhwc_fhwc
// CHECK-NEXT: tensor.empty() : tensor<1x5x5x4xf32>
// CHECK-NEXT: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%{{.*}} : tensor<1x5x5x4xf32>) outs(%{{.*}} : tensor<1x5x5x4xf32>)
// CHECK: arith.maximumf
// CHECK: loupe.yield
// CHECK: loupe.fusion "kLoop" on "codegen" attributes {id = 1 : i64, pattern = "injective", {{.*}}2 ops fused"}
// CHECK-NEXT: tensor.empty() : tensor<1x4x5x5xf32>
// CHECK-NEXT: linalg.transpose {{.*}} permutation = [0, 3, 1, 2]
// CHECK-NEXT: tensor.empty
// CHECK-NEXT: linalg.negf
// CHECK: loupe.fusion "kLibrary" on "onednn" attributes {id = 2 : i64, pattern = "out_elemwise_fusable"
// CHECK: loupe.fusion "kLoop" on "codegen" attributes {id = 3 : i64, pattern = "injective", {{.*}}2 ops fused"}
// CHECK-NEXT: tensor.empty
// CHECK-NEXT: linalg.transpose
// OFF-LABEL: func.func @conv_relu
// OFF-NOT: conv_bias_act
// OFF: linalg.conv_2d_nhwc_fhwc
// OFF: linalg.transpose
// OFF: linalg.generic
// BLAS-LABEL: func.func @conv_relu
// BLAS-NOT: conv_bias_act
// BLAS: loupe.fusion "kInput" on "codegen" attributes {id = 0 : i64, pattern = "out_elemwise_fusable"
#nhwc = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#channel = affine_map<(d0, d1, d2, d3) -> (d3)>
#batch1 = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
func.func @conv_relu(%x: tensor<1x7x7x2xf32>, %w: tensor<4x3x3x2xf32>) -> (tensor<1x4x5x5xf32>, tensor<1x4x5x5xf32>) {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %bias = arith.constant dense<[0.1, 0.2, 0.3, 0.4]> : tensor<4xf32>
  %e = tensor.empty() : tensor<1x5x5x4xf32>
  %b = linalg.generic {indexing_maps = [#channel, #nhwc], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : tensor<4xf32>) outs(%e : tensor<1x5x5x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
  } -> tensor<1x5x5x4xf32>
  %c = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x7x7x2xf32>, tensor<4x3x3x2xf32>) outs(%b : tensor<1x5x5x4xf32>) -> tensor<1x5x5x4xf32> loc("conv")
  %et = tensor.empty() : tensor<1x4x5x5xf32>
  %t = linalg.transpose ins(%c : tensor<1x5x5x4xf32>) outs(%et : tensor<1x4x5x5xf32>) permutation = [0, 3, 1, 2] loc("conv.view")
  %r = linalg.generic {indexing_maps = [#batch1, #nhwc], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%t : tensor<1x4x5x5xf32>) outs(%et : tensor<1x4x5x5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %m = arith.maximumf %in, %zero : f32
      linalg.yield %m : f32
  } -> tensor<1x4x5x5xf32> loc("relu")
  %n = linalg.negf ins(%r : tensor<1x4x5x5xf32>) outs(%et : tensor<1x4x5x5xf32>) -> tensor<1x4x5x5xf32> loc("neg")
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x5x5x4xf32>) -> tensor<1x5x5x4xf32>
  %c6 = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x7x7x2xf32>, tensor<4x3x3x2xf32>) outs(%z : tensor<1x5x5x4xf32>) -> tensor<1x5x5x4xf32> loc("conv6")
  %t6 = linalg.transpose ins(%c6 : tensor<1x5x5x4xf32>) outs(%et : tensor<1x4x5x5xf32>) permutation = [0, 3, 1, 2] loc("relu6.view")
  %r6 = linalg.generic {indexing_maps = [#batch1, #nhwc], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%t6 : tensor<1x4x5x5xf32>) outs(%et : tensor<1x4x5x5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %lo = arith.minimumf %in, %six : f32
      %hi = arith.maximumf %lo, %zero : f32
      linalg.yield %hi : f32
  } -> tensor<1x4x5x5xf32> loc("relu6")
  return %n, %r6 : tensor<1x4x5x5xf32>, tensor<1x4x5x5xf32>
}

// -----

// Hardswish as the ONNX importer lowers it, x * clamp(x * 1/6 + 1/2, 0, 1), four ops reading
// x twice: onednn's conv_bias_act takes it after a conv's NHWC result and matmul_bias_act
// after a matmul's bias (MobileNetV3's convs and 1x1 convs); fuse-clusters makes it one
// generic. cuDNN and cuBLASLt have no hardswish epilogue. The matmul starts from its bias
// broadcast (TOSA's fully_connected): that becomes a zero fill and `C + bias`; a zero bias
// (the second matmul's) only the fill.
// CHECK-LABEL: func.func @hardswish_epilogues
// CHECK: loupe.fusion "kLibrary" on "onednn" attributes {id = 0 : i64, pattern = "conv_bias_act", {{.*}}takes the hardswish after it as its epilogue; 5 ops fused"}
// CHECK: loupe.fusion "kLibrary" on "onednn" attributes {id = 1 : i64, pattern = "matmul_bias_act", {{.*}}takes the bias and hardswish after it as its epilogue; 6 ops fused"}
// CHECK-NEXT: tensor.empty
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32)
// CHECK-NEXT: linalg.matmul
// CHECK: loupe.fusion "kLibrary" on "onednn" attributes {id = 2 : i64, pattern = "matmul_bias_act", {{.*}}takes the ReLU after it as its epilogue; 2 ops fused"}
// CHECK-NEXT: tensor.empty
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32)
// CHECK-NEXT: linalg.matmul
// CHECK-NEXT: tensor.empty
// CHECK-NEXT: linalg.generic
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.maximumf
// FUSED-LABEL: func.func @hardswish_epilogues
// FUSED: linalg.conv_2d_nhwc_fhwc
// FUSED-NEXT: tensor.empty
// FUSED-NEXT: linalg.generic
// FUSED-NEXT: ^bb0
// FUSED-NEXT: arith.mulf
// FUSED-NEXT: arith.addf
// FUSED-NEXT: arith.minimumf
// FUSED-NEXT: arith.maximumf
// FUSED-NEXT: arith.mulf
// FUSED-NEXT: linalg.yield
// FUSED: linalg.matmul
// FUSED: linalg.generic
// FUSED-NEXT: ^bb0
// FUSED: arith.addf
// FUSED: arith.minimumf
// FUSED: linalg.yield
// GPU-LABEL: func.func @hardswish_epilogues
// GPU-SAME: producer = "conv", {{.*}}rule = "cudnn linalg.conv_2d_nhwc_fhwc: conv_bias_act has no hardswish; not linalg.generic here"
// GPU-SAME: producer = "bias", {{.*}}rule = "cublas linalg.matmul: matmul_bias_act has no hardswish; not linalg.generic here"
#hs4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#hs2 = affine_map<(d0, d1) -> (d0, d1)>
#hsbias = affine_map<(d0, d1) -> (d1)>
func.func @hardswish_epilogues(%x: tensor<1x5x5x4xf32>, %w: tensor<4x1x1x4xf32>, %a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %bias: tensor<4xf32>) -> (tensor<1x5x5x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %half = arith.constant 0.5 : f32
  %sixth = arith.constant 0.166666672 : f32
  %e = tensor.empty() : tensor<1x5x5x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x5x5x4xf32>) -> tensor<1x5x5x4xf32>
  %c = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x5x5x4xf32>, tensor<4x1x1x4xf32>) outs(%z : tensor<1x5x5x4xf32>) -> tensor<1x5x5x4xf32> loc("conv")
  %s = linalg.generic {indexing_maps = [#hs4, #hs4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<1x5x5x4xf32>) outs(%e : tensor<1x5x5x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %m = arith.mulf %in, %sixth : f32
      linalg.yield %m : f32
  } -> tensor<1x5x5x4xf32> loc("scale")
  %p = linalg.generic {indexing_maps = [#hs4, #hs4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<1x5x5x4xf32>) outs(%e : tensor<1x5x5x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %m = arith.addf %in, %half : f32
      linalg.yield %m : f32
  } -> tensor<1x5x5x4xf32> loc("plus")
  %g = linalg.generic {indexing_maps = [#hs4, #hs4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%p : tensor<1x5x5x4xf32>) outs(%e : tensor<1x5x5x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %lo = arith.minimumf %in, %one : f32
      %hi = arith.maximumf %lo, %zero : f32
      linalg.yield %hi : f32
  } -> tensor<1x5x5x4xf32> loc("clamp")
  %h = linalg.generic {indexing_maps = [#hs4, #hs4, #hs4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %g : tensor<1x5x5x4xf32>, tensor<1x5x5x4xf32>) outs(%e : tensor<1x5x5x4xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %m = arith.mulf %in, %in2 : f32
      linalg.yield %m : f32
  } -> tensor<1x5x5x4xf32> loc("times")
  %em = tensor.empty() : tensor<8x4xf32>
  %bb = linalg.generic {indexing_maps = [#hsbias, #hs2], iterator_types = ["parallel", "parallel"]}
      ins(%bias : tensor<4xf32>) outs(%em : tensor<8x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
  } -> tensor<8x4xf32>
  %mb = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%bb : tensor<8x4xf32>) -> tensor<8x4xf32> loc("bias")
  %ms = linalg.generic {indexing_maps = [#hs2, #hs2], iterator_types = ["parallel", "parallel"]}
      ins(%mb : tensor<8x4xf32>) outs(%em : tensor<8x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %m = arith.mulf %in, %sixth : f32
      linalg.yield %m : f32
  } -> tensor<8x4xf32> loc("mscale")
  %mp = linalg.generic {indexing_maps = [#hs2, #hs2], iterator_types = ["parallel", "parallel"]}
      ins(%ms : tensor<8x4xf32>) outs(%em : tensor<8x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %m = arith.addf %in, %half : f32
      linalg.yield %m : f32
  } -> tensor<8x4xf32> loc("mplus")
  %mg = linalg.generic {indexing_maps = [#hs2, #hs2], iterator_types = ["parallel", "parallel"]}
      ins(%mp : tensor<8x4xf32>) outs(%em : tensor<8x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %hi = arith.maximumf %in, %zero : f32
      %lo = arith.minimumf %hi, %one : f32
      linalg.yield %lo : f32
  } -> tensor<8x4xf32> loc("mclamp")
  %mh = linalg.generic {indexing_maps = [#hs2, #hs2, #hs2], iterator_types = ["parallel", "parallel"]}
      ins(%mg, %mb : tensor<8x4xf32>, tensor<8x4xf32>) outs(%em : tensor<8x4xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %m = arith.mulf %in, %in2 : f32
      linalg.yield %m : f32
  } -> tensor<8x4xf32> loc("mtimes")
  %zb = arith.constant dense<0.0> : tensor<4xf32>
  %zbb = linalg.generic {indexing_maps = [#hsbias, #hs2], iterator_types = ["parallel", "parallel"]}
      ins(%zb : tensor<4xf32>) outs(%em : tensor<8x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
  } -> tensor<8x4xf32>
  %zmm = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%zbb : tensor<8x4xf32>) -> tensor<8x4xf32> loc("zmm")
  %zr = linalg.generic {indexing_maps = [#hs2, #hs2], iterator_types = ["parallel", "parallel"]}
      ins(%zmm : tensor<8x4xf32>) outs(%em : tensor<8x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %m = arith.maximumf %in, %zero : f32
      linalg.yield %m : f32
  } -> tensor<8x4xf32> loc("zrelu")
  return %h, %mh, %zr : tensor<1x5x5x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

// A trained ResNet's conv3: its bias leaves the matmul's init, then the block's shortcut is
// added and the ReLU taken; matmul_bias_act takes all three.
// CHECK-LABEL: func.func @bias_residual_relu
// CHECK: loupe.fusion "kLibrary" on "onednn" attributes {id = 0 : i64, pattern = "matmul_bias_act", {{.*}}takes the bias and the residual add and ReLU after it as its epilogue; 5 ops fused"}
#brm = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#brb = affine_map<(d0, d1) -> (d1)>
#brn = affine_map<(d0, d1) -> (d0, d1)>
func.func @bias_residual_relu(%a: tensor<16x8xf32>, %b: tensor<8x4xf32>, %bias: tensor<4xf32>, %r: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x4xf32>
  %bb = linalg.generic {indexing_maps = [#brb, #brn], iterator_types = ["parallel", "parallel"]}
      ins(%bias : tensor<4xf32>) outs(%e : tensor<16x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
  } -> tensor<16x4xf32>
  %m = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x4xf32>) outs(%bb : tensor<16x4xf32>) -> tensor<16x4xf32> loc("conv3")
  %v = tensor.expand_shape %m [[0, 1, 2], [3]] output_shape [1, 4, 4, 4] : tensor<16x4xf32> into tensor<1x4x4x4xf32>
  %e4 = tensor.empty() : tensor<1x4x4x4xf32>
  %s = linalg.generic {indexing_maps = [#brm, #brm, #brm], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%v, %r : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) outs(%e4 : tensor<1x4x4x4xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %t = arith.addf %x, %y : f32
      linalg.yield %t : f32
  } -> tensor<1x4x4x4xf32> loc("add")
  %q = linalg.generic {indexing_maps = [#brm, #brm], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<1x4x4x4xf32>) outs(%e4 : tensor<1x4x4x4xf32>) {
    ^bb0(%x: f32, %o: f32):
      %t = arith.maximumf %x, %zero : f32
      linalg.yield %t : f32
  } -> tensor<1x4x4x4xf32> loc("relu")
  return %q : tensor<1x4x4x4xf32>
}

// -----

// TOSA's clamp to [0, max f32] is a ReLU too, here on the NHWC result; two convs reading the
// ReLU's result do not stop that. A conv whose result has a second reader keeps it: no
// epilogue.
// CHECK-LABEL: func.func @conv_relu_readers
// CHECK-SAME: consumer = "next1", consumer_cluster = 1 : i64, consumer_op = "linalg.conv_2d_nhwc_fhwc", producer = "relu", producer_cluster = 0 : i64, producer_op = "linalg.generic", rule = "two library kernels never share a fusion"
// CHECK-SAME: consumer = "next2", consumer_cluster = 2 : i64, consumer_op = "linalg.conv_2d_nhwc_fhwc", producer = "relu", producer_cluster = 0 : i64, producer_op = "linalg.generic", rule = "two library kernels never share a fusion"
// CHECK-SAME: consumer = "relu2", {{.*}}producer = "next2", {{.*}}rule = "onednn linalg.conv_2d_nhwc_fhwc: its result has other readers, so no epilogue can take it"
// CHECK: loupe.fusion "kLibrary" on "onednn" attributes {id = 0 : i64, pattern = "conv_bias_act", {{.*}}takes the ReLU after it as its epilogue; 2 ops fused"}
// CHECK: loupe.fusion "kLibrary" on "onednn" attributes {id = 1 : i64, pattern = "out_elemwise_fusable"
// CHECK: loupe.fusion "kLibrary" on "onednn" attributes {id = 2 : i64, pattern = "out_elemwise_fusable"
// CHECK: loupe.fusion "kLoop" on "codegen" attributes {id = 3 : i64, pattern = "elemwise"
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @conv_relu_readers(%x: tensor<1x5x5x4xf32>, %w: tensor<4x1x1x4xf32>) -> (tensor<1x5x5x4xf32>, tensor<1x5x5x4xf32>, tensor<1x5x5x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %max = arith.constant 3.40282347E+38 : f32
  %e = tensor.empty() : tensor<1x5x5x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x5x5x4xf32>) -> tensor<1x5x5x4xf32>
  %c = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x5x5x4xf32>, tensor<4x1x1x4xf32>) outs(%z : tensor<1x5x5x4xf32>) -> tensor<1x5x5x4xf32> loc("conv")
  %r = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<1x5x5x4xf32>) outs(%e : tensor<1x5x5x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %lo = arith.minimumf %in, %max : f32
      %hi = arith.maximumf %lo, %zero : f32
      linalg.yield %hi : f32
  } -> tensor<1x5x5x4xf32> loc("relu")
  %n1 = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%r, %w : tensor<1x5x5x4xf32>, tensor<4x1x1x4xf32>) outs(%z : tensor<1x5x5x4xf32>) -> tensor<1x5x5x4xf32> loc("next1")
  %n2 = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%r, %w : tensor<1x5x5x4xf32>, tensor<4x1x1x4xf32>) outs(%z : tensor<1x5x5x4xf32>) -> tensor<1x5x5x4xf32> loc("next2")
  %r2 = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%n2 : tensor<1x5x5x4xf32>) outs(%e : tensor<1x5x5x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %m = arith.maximumf %in, %zero : f32
      linalg.yield %m : f32
  } -> tensor<1x5x5x4xf32> loc("relu2")
  return %n1, %n2, %r2 : tensor<1x5x5x4xf32>, tensor<1x5x5x4xf32>, tensor<1x5x5x4xf32>
}

// -----

// SiLU as torch exports it, x * sigmoid(x): TOSA's sigmoid (one generic, 1 / (1 + exp(-x)))
// and the product reading x twice. onednn's conv_bias_act takes it after a conv's NHWC result
// and matmul_bias_act after a matmul (EfficientNet's stem and expansion convs); cuDNN has no
// SiLU epilogue.
// CHECK-LABEL: func.func @silu_epilogues
// CHECK: loupe.fusion "kLibrary" on "onednn" attributes {id = 0 : i64, pattern = "conv_bias_act", {{.*}}takes the SiLU after it as its epilogue; 3 ops fused"}
// CHECK: loupe.fusion "kLibrary" on "onednn" attributes {id = 1 : i64, pattern = "matmul_bias_act", {{.*}}takes the SiLU after it as its epilogue; 3 ops fused"}
// GPU-LABEL: func.func @silu_epilogues
// GPU-SAME: producer = "conv", {{.*}}rule = "cudnn linalg.conv_2d_nhwc_fhwc: conv_bias_act has no SiLU; not linalg.generic here"
#si4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#si2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @silu_epilogues(%x: tensor<1x5x5x4xf32>, %w: tensor<4x1x1x4xf32>, %a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> (tensor<1x5x5x4xf32>, tensor<8x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<1x5x5x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x5x5x4xf32>) -> tensor<1x5x5x4xf32>
  %c = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x5x5x4xf32>, tensor<4x1x1x4xf32>) outs(%z : tensor<1x5x5x4xf32>) -> tensor<1x5x5x4xf32> loc("conv")
  %s = linalg.generic {indexing_maps = [#si4, #si4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<1x5x5x4xf32>) outs(%e : tensor<1x5x5x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %n = arith.negf %in : f32
      %x1 = math.exp %n : f32
      %p = arith.addf %x1, %one : f32
      %g = arith.divf %one, %p : f32
      linalg.yield %g : f32
  } -> tensor<1x5x5x4xf32> loc("sigmoid")
  %h = linalg.generic {indexing_maps = [#si4, #si4, #si4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %s : tensor<1x5x5x4xf32>, tensor<1x5x5x4xf32>) outs(%e : tensor<1x5x5x4xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %m = arith.mulf %in, %in2 : f32
      linalg.yield %m : f32
  } -> tensor<1x5x5x4xf32> loc("times")
  %em = tensor.empty() : tensor<8x4xf32>
  %mz = linalg.fill ins(%zero : f32) outs(%em : tensor<8x4xf32>) -> tensor<8x4xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%mz : tensor<8x4xf32>) -> tensor<8x4xf32> loc("matmul")
  %ms = linalg.generic {indexing_maps = [#si2, #si2], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<8x4xf32>) outs(%em : tensor<8x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %n = arith.negf %in : f32
      %x1 = math.exp %n : f32
      %p = arith.addf %x1, %one : f32
      %g = arith.divf %one, %p : f32
      linalg.yield %g : f32
  } -> tensor<8x4xf32> loc("msigmoid")
  %mh = linalg.generic {indexing_maps = [#si2, #si2, #si2], iterator_types = ["parallel", "parallel"]}
      ins(%ms, %mm : tensor<8x4xf32>, tensor<8x4xf32>) outs(%em : tensor<8x4xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %m = arith.mulf %in, %in2 : f32
      linalg.yield %m : f32
  } -> tensor<8x4xf32> loc("mtimes")
  return %h, %mh : tensor<1x5x5x4xf32>, tensor<8x4xf32>
}

// -----

// A depthwise conv's bias comes after it in TOSA, through its channel view, added bias first:
// onednn's conv_bias_act takes the view, the bias and the ReLU (MobileNetV3's depthwise
// convs). It takes no residual: the conv kernel has none.
// CHECK-LABEL: func.func @depthwise_epilogue
// CHECK: loupe.fusion "kLibrary" on "onednn" attributes {id = 0 : i64, pattern = "conv_bias_act", {{.*}}takes the bias and ReLU after it as its epilogue; 4 ops fused"}
#dwb = affine_map<(d0, d1, d2, d3) -> (d3)>
#dwi = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @depthwise_epilogue(%x: tensor<1x7x7x8xf32>, %w: tensor<3x3x8x1xf32>, %bias: tensor<8xf32>) -> tensor<1x5x5x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e5 = tensor.empty() : tensor<1x5x5x8x1xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e5 : tensor<1x5x5x8x1xf32>) -> tensor<1x5x5x8x1xf32>
  %c = linalg.depthwise_conv_2d_nhwc_hwcm {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x7x7x8xf32>, tensor<3x3x8x1xf32>) outs(%z : tensor<1x5x5x8x1xf32>) -> tensor<1x5x5x8x1xf32> loc("dw")
  %v = tensor.collapse_shape %c [[0], [1], [2], [3, 4]] : tensor<1x5x5x8x1xf32> into tensor<1x5x5x8xf32>
  %e = tensor.empty() : tensor<1x5x5x8xf32>
  %b = linalg.generic {indexing_maps = [#dwb, #dwi, #dwi], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias, %v : tensor<8xf32>, tensor<1x5x5x8xf32>) outs(%e : tensor<1x5x5x8xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %s = arith.addf %in, %in2 : f32
      linalg.yield %s : f32
  } -> tensor<1x5x5x8xf32> loc("bias")
  %r = linalg.generic {indexing_maps = [#dwi, #dwi], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : tensor<1x5x5x8xf32>) outs(%e : tensor<1x5x5x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %m = arith.maximumf %in, %zero : f32
      linalg.yield %m : f32
  } -> tensor<1x5x5x8xf32> loc("relu")
  return %r : tensor<1x5x5x8xf32>
}
