// RUN: loupe-opt --ral-lower-to-library-call --split-input-file %s | FileCheck %s
// RUN: loupe-opt --ral-lower-to-library-call="backends=openblas,codegen" --split-input-file %s | FileCheck %s --check-prefix=BLAS
// RUN: loupe-opt --ral-lower-to-library-call="backends=codegen" --split-input-file %s | FileCheck %s --check-prefix=CODEGEN
// RUN: loupe-opt --ral-lower-to-library-call="device=gpu" --split-input-file %s | FileCheck %s --check-prefix=GPU
// RUN: loupe-opt --ral-lower-to-library-call="overrides=fc=openblas,conv=codegen" --split-input-file %s | FileCheck %s --check-prefix=OVERRIDE
// RUN: loupe-opt --ral-lower-to-library-call="backends=openblas,onednn" --split-input-file %s | FileCheck %s --check-prefix=ORDER
// RUN: loupe-opt --ral-lower-to-library-call="backends=auto tuned=matmul:4x8xf32:8x16xf32:4x16xf32=openblas" --split-input-file %s | FileCheck %s --check-prefix=TUNED
// RUN: loupe-opt --ral-lower-to-library-call="overrides=fc=codegen tuned=matmul:4x8xf32:8x16xf32:4x16xf32=openblas" --split-input-file %s | FileCheck %s --check-prefix=TUNED-OVERRIDE

// A zero-filled f32 matmul becomes one dispatch of the chosen backend's kernel; the fill goes
// away. Default: the highest plevel (onednn 15 > openblas 12 > codegen 10); --backends picks
// the first that runs the op; an override keyed by the op's loc wins over both. The other
// library backends' kernels, ranked the same way, are the dispatch's run-time fallbacks
// (none when --backends names no other library).

// CHECK-LABEL: func.func @main
// CHECK-NOT: linalg.fill
// CHECK: %[[F:.*]] = arith.constant false
// CHECK: ral.dispatch %{{.*}}, %{{.*}}, %{{.*}}, %[[C:.*]], %[[F]], %[[F]] {abi = "ral_gemm_onednn___cpu___pvoid_m2df32_m2df32_m2df32_i1_i1___void", callee = "ral_gemm_onednn", device = "cpu", has_side_effect, loupe.backend = "onednn", loupe.backend_reason = "highest plevel for matmul on cpu (onednn 15, openblas 12, codegen 10)", loupe.candidates = ["onednn", "openblas", "codegen"], loupe.fallbacks = ["ral_gemm_openblas"], loupe.plevel = 15 : i64, loupe.selected_loc = "fc", loupe.signature = "matmul:4x8xf32:8x16xf32:4x16xf32"}
// CHECK-NOT: linalg.matmul
// CHECK: ral.send_output %{{.*}}, 0, %[[C]]
// BLAS: callee = "ral_gemm_openblas"{{.*}}loupe.backend = "openblas", loupe.backend_reason = "first of --backends openblas,codegen that runs matmul{{[^"]*}}", loupe.candidates = {{.*}}, loupe.plevel
// CODEGEN-NOT: ral.dispatch
// CODEGEN: linalg.fill
// CODEGEN: linalg.matmul {loupe.backend = "codegen", loupe.backend_reason = "first of --backends codegen that runs matmul
// OVERRIDE: callee = "ral_gemm_openblas"{{.*}}loupe.backend_reason = "override for 'fc'", loupe.candidates = {{.*}}, loupe.fallbacks = ["ral_gemm_onednn"]
// ORDER: callee = "ral_gemm_openblas"{{.*}}loupe.fallbacks = ["ral_gemm_onednn"]
// The tuning table (`--backends auto`: loupe tune's winners by op signature) wins over the
// plevels and the preference list; an override by loc wins over it. Other signatures keep
// the default (the batched matmul below).
// TUNED: callee = "ral_gemm_openblas"{{.*}}loupe.backend_reason = "tuned: loupe tune measured openblas fastest for matmul:4x8xf32:8x16xf32:4x16xf32
// TUNED: callee = "ral_batch_gemm_onednn"
// TUNED-OVERRIDE: linalg.matmul {loupe.backend = "codegen", loupe.backend_reason = "override for 'fc'"
func.func @main(%ctx: !ral.context) {
  %a = ral.recv_input %ctx, 0 : memref<4x8xf32>
  %b = ral.recv_input %ctx, 1 : memref<8x16xf32>
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<4x16xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<4x16xf32>) loc("fc")
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>) loc("fc")
  ral.send_output %ctx, 0, %c : memref<4x16xf32>
  return
}

// -----

// Batched matmul goes to the backend's batched kernel.

// CHECK-LABEL: func.func @main
// CHECK: ral.dispatch {{.*}}callee = "ral_batch_gemm_onednn"{{.*}}loupe.fallbacks = ["ral_batch_gemm_openblas"]{{.*}} : (memref<2x4x8xf32>, memref<2x8x16xf32>, memref<2x4x16xf32>, i1, i1) -> ()
// BLAS: callee = "ral_batch_gemm_openblas"
func.func @main(%ctx: !ral.context, %a: memref<2x4x8xf32>, %b: memref<2x8x16xf32>, %c: memref<2x4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<2x4x16xf32>)
  linalg.batch_matmul ins(%a, %b : memref<2x4x8xf32>, memref<2x8x16xf32>) outs(%c : memref<2x4x16xf32>)
  return
}

// -----

// An int8 quantized_batch_matmul on a zero-filled i32 C becomes oneDNN's int8 matmul; the zero
// points are passed as they are. Codegen when --backends excludes oneDNN (OpenBLAS has no int8
// GEMM), and when an operand is not int8.

// CHECK-LABEL: func.func @quantized
// CHECK-NOT: linalg.fill
// CHECK: ral.dispatch %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %arg4, %arg5 {abi = "ral_qgemm_onednn___cpu___pvoid_m3di8_m3di8_m3di32_i32_i32___void", callee = "ral_qgemm_onednn", device = "cpu", has_side_effect, loupe.backend = "onednn", loupe.backend_reason = "highest plevel for quantized_batch_matmul on cpu (onednn 15, codegen 10)", loupe.candidates = ["onednn", "codegen"], loupe.plevel = 15 : i64, loupe.selected_loc = {{.*}}, loupe.signature = "quantized_batch_matmul:2x4x8xi8:2x8x16xi8:2x4x16xi32"}
// CHECK: linalg.quantized_batch_matmul {loupe.backend = "codegen", loupe.backend_reason = "onednn not used: operands are not static int8 (int32 result) row-major memrefs
// BLAS-LABEL: func.func @quantized
// BLAS-NOT: ral.dispatch
// BLAS: linalg.quantized_batch_matmul {loupe.backend = "codegen"
func.func @quantized(%ctx: !ral.context, %a: memref<2x4x8xi8>, %b: memref<2x8x16xi8>, %c: memref<2x4x16xi32>, %az: i32, %bz: i32, %wide: memref<2x4x8xi16>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<2x4x16xi32>)
  linalg.quantized_batch_matmul ins(%a, %b, %az, %bz : memref<2x4x8xi8>, memref<2x8x16xi8>, i32, i32) outs(%c : memref<2x4x16xi32>)
  linalg.fill ins(%zero : i32) outs(%c : memref<2x4x16xi32>)
  linalg.quantized_batch_matmul ins(%wide, %b, %az, %bz : memref<2x4x8xi16>, memref<2x8x16xi8>, i32, i32) outs(%c : memref<2x4x16xi32>)
  return
}

// -----

// Bufferization copies one shared zero-filled buffer into each matmul's output: a copy from a
// buffer that holds zeros counts as zero-filled. The copy goes away; the shared fill stays.

// CHECK-LABEL: func.func @shared_zeros
// CHECK: linalg.fill
// CHECK-NOT: memref.copy
// CHECK: callee = "ral_batch_gemm_onednn"
// CHECK-NOT: memref.copy
// CHECK: callee = "ral_batch_gemm_onednn"
func.func @shared_zeros(%ctx: !ral.context, %a: memref<1x4x8xf32>, %b: memref<1x8x16xf32>, %c1: memref<1x4x16xf32>, %c2: memref<1x4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %z = memref.alloc() : memref<1x4x16xf32>
  linalg.fill ins(%zero : f32) outs(%z : memref<1x4x16xf32>)
  memref.copy %z, %c1 : memref<1x4x16xf32> to memref<1x4x16xf32>
  linalg.batch_matmul ins(%a, %b : memref<1x4x8xf32>, memref<1x8x16xf32>) outs(%c1 : memref<1x4x16xf32>)
  memref.copy %z, %c2 : memref<1x4x16xf32> to memref<1x4x16xf32>
  linalg.batch_matmul ins(%a, %b : memref<1x4x8xf32>, memref<1x8x16xf32>) outs(%c2 : memref<1x4x16xf32>)
  return
}

// -----

// An NHWC convolution whose output holds a broadcast per-channel bias becomes ral_conv_onednn
// on NCHW/OIHW views of the same buffers (no copies), with the bias and a params global
// (stride 2x1, no padding, dilation 1x1, groups 1); the bias broadcast goes away. oneDNN is the
// only CPU library backend for conv, so --backends openblas,codegen leaves it to codegen.

// CHECK: memref.global "private" constant @__loupe_conv_params_2_1_0_0_0_0_1_1_1 : memref<9xi64> = dense<[2, 1, 0, 0, 0, 0, 1, 1, 1]>
// CHECK-LABEL: func.func @conv
// CHECK-SAME: (%[[CTX:.*]]: !ral.context, %[[IN:.*]]: memref<1x9x8x3xf32>, %[[W:.*]]: memref<4x3x3x3xf32>, %[[BIAS:.*]]: memref<4xf32>, %[[OUT:.*]]: memref<1x4x6x4xf32>)
// CHECK-NOT: linalg.generic
// CHECK-DAG: %[[P:.*]] = memref.get_global @__loupe_conv_params_2_1_0_0_0_0_1_1_1 : memref<9xi64> {ral.host_read}
// CHECK-DAG: %[[INT:.*]] = memref.transpose %[[IN]] (d0, d1, d2, d3) -> (d0, d3, d1, d2)
// CHECK-DAG: %[[WT:.*]] = memref.transpose %[[W]] (d0, d1, d2, d3) -> (d0, d3, d1, d2)
// CHECK-DAG: %[[OUTT:.*]] = memref.transpose %[[OUT]] (d0, d1, d2, d3) -> (d0, d3, d1, d2)
// CHECK: ral.dispatch %[[CTX]], %[[INT]], %[[WT]], %[[BIAS]], %[[OUTT]], %[[P]] {abi = "ral_conv_onednn___cpu___pvoid_m4df32_m4df32_m1df32_m4df32_m1di64___void", callee = "ral_conv_onednn"
// CHECK-NOT: loupe.fallbacks
// CHECK-NOT: linalg.conv_2d_nhwc_fhwc
// BLAS-LABEL: func.func @conv
// BLAS: linalg.conv_2d_nhwc_fhwc {{.*}}loupe.backend = "codegen"
// OVERRIDE-LABEL: func.func @conv
// OVERRIDE: linalg.conv_2d_nhwc_fhwc {{.*}}loupe.backend = "codegen", loupe.backend_reason = "override for 'conv'"
#bias = affine_map<(d0, d1, d2, d3) -> (d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @conv(%ctx: !ral.context, %in: memref<1x9x8x3xf32>, %w: memref<4x3x3x3xf32>, %bias: memref<4xf32>, %out: memref<1x4x6x4xf32>) {
  linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : memref<4xf32>) outs(%out : memref<1x4x6x4xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  }
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>}
      ins(%in, %w : memref<1x9x8x3xf32>, memref<4x3x3x3xf32>) outs(%out : memref<1x4x6x4xf32>) loc("conv")
  return
}

// -----

// An int8 conv_2d_nhwc_fhwc_q with a broadcast int32 bias and a weight zero point of 0 becomes
// ral_qconv_onednn with the input zero point last; a weight zero point other than 0 stays
// generated code, saying why.

// CHECK-LABEL: func.func @quantized_conv
// CHECK: ral.dispatch %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %arg5 {abi = "ral_qconv_onednn___cpu___pvoid_m4di8_m4di8_m1di32_m4di32_m1di64_i32___void", callee = "ral_qconv_onednn"
// CHECK: linalg.conv_2d_nhwc_fhwc_q {{.*}}loupe.backend = "codegen", loupe.backend_reason = "onednn not used: the weight zero point is not 0
#qbias = affine_map<(d0, d1, d2, d3) -> (d3)>
#qid = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @quantized_conv(%ctx: !ral.context, %in: memref<1x9x8x3xi8>, %w: memref<4x3x3x3xi8>, %bias: memref<4xi32>, %out: memref<1x7x6x4xi32>, %inZero: i32) {
  %c0 = arith.constant 0 : i32
  %c3 = arith.constant 3 : i32
  linalg.generic {indexing_maps = [#qbias, #qid], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : memref<4xi32>) outs(%out : memref<1x7x6x4xi32>) {
  ^bb0(%b: i32, %o: i32):
    linalg.yield %b : i32
  }
  linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w, %inZero, %c0 : memref<1x9x8x3xi8>, memref<4x3x3x3xi8>, i32, i32) outs(%out : memref<1x7x6x4xi32>)
  linalg.fill ins(%c0 : i32) outs(%out : memref<1x7x6x4xi32>)
  linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w, %inZero, %c3 : memref<1x9x8x3xi8>, memref<4x3x3x3xi8>, i32, i32) outs(%out : memref<1x7x6x4xi32>)
  return
}

// -----

// A zero-initialised conv output gets an empty bias.

// CHECK-LABEL: func.func @conv_no_bias
// CHECK: %[[EMPTY:.*]] = memref.alloca() : memref<0xf32>
// CHECK: ral.dispatch {{.*}}, %[[EMPTY]], {{.*}}callee = "ral_conv_onednn"
func.func @conv_no_bias(%ctx: !ral.context, %in: memref<1x5x5x2xf32>, %w: memref<2x3x3x2xf32>, %out: memref<1x3x3x2xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<1x3x3x2xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : memref<1x5x5x2xf32>, memref<2x3x3x2xf32>) outs(%out : memref<1x3x3x2xf32>)
  return
}

// -----

// A strided conv over a slice of its input (TOSA slices the rows a stride-2 1x1 window never
// reads: ResNet-50's downsample convs) still goes to oneDNN, which copies the slice dense.

// CHECK-LABEL: func.func @conv_strided_slice
// CHECK: %[[SLICE:.*]] = memref.subview
// CHECK: %[[INT:.*]] = memref.transpose %[[SLICE]]
// CHECK: ral.dispatch %{{.*}}, %[[INT]], {{.*}}callee = "ral_conv_onednn"
// CHECK-NOT: linalg.conv_2d_nhwc_fhwc
func.func @conv_strided_slice(%ctx: !ral.context, %in: memref<1x6x6x4xf32>, %w: memref<8x1x1x4xf32>, %out: memref<1x3x3x8xf32>) {
  %slice = memref.subview %in[0, 0, 0, 0] [1, 5, 5, 4] [1, 1, 1, 1] : memref<1x6x6x4xf32> to memref<1x5x5x4xf32, strided<[144, 24, 4, 1]>>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<1x3x3x8xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%slice, %w : memref<1x5x5x4xf32, strided<[144, 24, 4, 1]>>, memref<8x1x1x4xf32>) outs(%out : memref<1x3x3x8xf32>)
  return
}

// -----

// A zero-padded copy of the input (tensor.pad as bufferization leaves it: zero fill, source
// copied into the interior) becomes the kernel's padding (top 1, left 2, bottom 1, right 0):
// the fill, the copy and the padded buffer go, the conv reads the source.

// CHECK: memref.global "private" constant @__loupe_conv_params_1_1_1_2_1_0_1_1_1 : memref<9xi64> = dense<[1, 1, 1, 2, 1, 0, 1, 1, 1]>
// CHECK-LABEL: func.func @conv_padded
// CHECK-SAME: (%[[CTX:.*]]: !ral.context, %[[IN:[^:]*]]: memref<1x5x5x2xf32>
// CHECK-NOT: memref.copy
// CHECK-NOT: linalg.map
// CHECK: %[[INT:.*]] = memref.transpose %[[IN]]
// CHECK: ral.dispatch %[[CTX]], %[[INT]], {{.*}}callee = "ral_conv_onednn"
// CHECK-NOT: memref.alloc(
// CHECK: return
func.func @conv_padded(%ctx: !ral.context, %in: memref<1x5x5x2xf32>, %w: memref<2x3x3x2xf32>, %out: memref<1x5x5x2xf32>) {
  %zero = arith.constant 0.0 : f32
  %padded = memref.alloc() {alignment = 64 : i64} : memref<1x7x7x2xf32>
  linalg.map outs(%padded : memref<1x7x7x2xf32>)
    () {
      linalg.yield %zero : f32
    }
  %interior = memref.subview %padded[0, 1, 2, 0] [1, 5, 5, 2] [1, 1, 1, 1] : memref<1x7x7x2xf32> to memref<1x5x5x2xf32, strided<[98, 14, 2, 1], offset: 18>>
  memref.copy %in, %interior : memref<1x5x5x2xf32> to memref<1x5x5x2xf32, strided<[98, 14, 2, 1], offset: 18>>
  linalg.fill ins(%zero : f32) outs(%out : memref<1x5x5x2xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%padded, %w : memref<1x7x7x2xf32>, memref<2x3x3x2xf32>) outs(%out : memref<1x5x5x2xf32>)
  memref.dealloc %padded : memref<1x7x7x2xf32>
  return
}

// -----

// A depthwise conv (filter KH x KW x C x M, output N x OH x OW x C x M) is the oneDNN conv with
// C groups: the filter viewed as OIHW (C*M) x 1 x KH x KW, the output as N x (C*M) x OH x OW.

// CHECK: memref.global "private" constant @__loupe_conv_params_1_1_0_0_0_0_1_1_3 : memref<9xi64>
// CHECK-LABEL: func.func @depthwise
// CHECK-SAME: (%[[CTX:.*]]: !ral.context, %[[IN:.*]]: memref<1x5x5x3xf32>, %[[W:.*]]: memref<3x3x3x2xf32>, %[[OUT:.*]]: memref<1x3x3x3x2xf32>)
// CHECK: %[[WC:.*]] = memref.collapse_shape %[[W]] {{\[}}[0], [1], [2, 3]] : memref<3x3x3x2xf32> into memref<3x3x6xf32>
// CHECK: %[[WE:.*]] = memref.expand_shape %[[WC]] {{\[}}[0], [1], [2, 3]] {{.*}} into memref<3x3x1x6xf32>
// CHECK: %[[WT:.*]] = memref.transpose %[[WE]] (d0, d1, d2, d3) -> (d3, d2, d0, d1)
// CHECK: ral.dispatch %[[CTX]], %{{.*}}, %[[WT]], {{.*}}callee = "ral_conv_onednn"
// CHECK-NOT: linalg.depthwise_conv_2d_nhwc_hwcm
// CODEGEN-LABEL: func.func @depthwise
// CODEGEN: linalg.depthwise_conv_2d_nhwc_hwcm {{.*}}loupe.backend = "codegen"
func.func @depthwise(%ctx: !ral.context, %in: memref<1x5x5x3xf32>, %w: memref<3x3x3x2xf32>, %out: memref<1x3x3x3x2xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<1x3x3x3x2xf32>)
  linalg.depthwise_conv_2d_nhwc_hwcm {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : memref<1x5x5x3xf32>, memref<3x3x3x2xf32>) outs(%out : memref<1x3x3x3x2xf32>)
  return
}

// -----

// Max pooling (ResNet's stem pool): the copy padded with the lowest f32 becomes the kernel's
// padding (top 1, left 1), the output's fill goes, and oneDNN reads NCHW views of the NHWC
// buffers. A pool whose output starts from anything but the lowest f32 stays generated, and
// says why; so does the padded copy of a pool whose window fits in its padding.

// CHECK: memref.global "private" constant @__loupe_pool_params_3_3_2_2_1_1_0_0_1_1 : memref<10xi64> = dense<[3, 3, 2, 2, 1, 1, 0, 0, 1, 1]>
// CHECK-LABEL: func.func @max_pool
// CHECK-SAME: (%[[CTX:.*]]: !ral.context, %[[IN:[^:]*]]: memref<1x6x6x2xf32>, %[[OUT:[^:]*]]: memref<1x3x3x2xf32>
// CHECK-NOT: memref.copy
// CHECK-NOT: linalg.fill
// CHECK-DAG: %[[INT:.*]] = memref.transpose %[[IN]] (d0, d1, d2, d3) -> (d0, d3, d1, d2)
// CHECK-DAG: %[[OUTT:.*]] = memref.transpose %[[OUT]] (d0, d1, d2, d3) -> (d0, d3, d1, d2)
// CHECK-DAG: %[[PARAMS:.*]] = memref.get_global @__loupe_pool_params_3_3_2_2_1_1_0_0_1_1
// CHECK: ral.dispatch %[[CTX]], %[[INT]], %[[OUTT]], %[[PARAMS]] {{.*}}callee = "ral_max_pool_onednn"
// CHECK-NOT: linalg.pooling_nhwc_max
// CHECK: return
// CODEGEN-LABEL: func.func @max_pool
// CODEGEN: linalg.pooling_nhwc_max {{.*}}loupe.backend = "codegen"
func.func @max_pool(%ctx: !ral.context, %in: memref<1x6x6x2xf32>, %out: memref<1x3x3x2xf32>) {
  %lowest = arith.constant -3.40282347E+38 : f32
  %padded = memref.alloc() {alignment = 64 : i64} : memref<1x7x7x2xf32>
  linalg.map outs(%padded : memref<1x7x7x2xf32>)
    () {
      linalg.yield %lowest : f32
    }
  %interior = memref.subview %padded[0, 1, 1, 0] [1, 6, 6, 2] [1, 1, 1, 1] : memref<1x7x7x2xf32> to memref<1x6x6x2xf32, strided<[98, 14, 2, 1], offset: 16>>
  memref.copy %in, %interior : memref<1x6x6x2xf32> to memref<1x6x6x2xf32, strided<[98, 14, 2, 1], offset: 16>>
  %window = memref.alloc() : memref<3x3xf32>
  linalg.fill ins(%lowest : f32) outs(%out : memref<1x3x3x2xf32>)
  linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%padded, %window : memref<1x7x7x2xf32>, memref<3x3xf32>) outs(%out : memref<1x3x3x2xf32>)
  memref.dealloc %padded : memref<1x7x7x2xf32>
  return
}

// -----

// CHECK-LABEL: func.func @max_pool_from_zero
// CHECK: linalg.pooling_nhwc_max {{.*}}loupe.backend_reason = "onednn not used: the output is not initialised with the lowest f32
func.func @max_pool_from_zero(%ctx: !ral.context, %in: memref<1x6x6x2xf32>, %out: memref<1x2x2x2xf32>) {
  %zero = arith.constant 0.0 : f32
  %window = memref.alloc() : memref<3x3xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<1x2x2x2xf32>)
  linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%in, %window : memref<1x6x6x2xf32>, memref<3x3xf32>) outs(%out : memref<1x2x2x2xf32>)
  return
}

// -----

// CHECK: memref.global "private" constant @__loupe_pool_params_2_2_1_1_0_0_0_0_1_1
// CHECK-LABEL: func.func @max_pool_window_in_padding
// CHECK: memref.copy
// CHECK: ral.dispatch {{.*}}callee = "ral_max_pool_onednn"
func.func @max_pool_window_in_padding(%ctx: !ral.context, %in: memref<1x2x2x1xf32>, %out: memref<1x5x5x1xf32>) {
  %lowest = arith.constant 0xFF800000 : f32
  %padded = memref.alloc() {alignment = 64 : i64} : memref<1x6x6x1xf32>
  linalg.map outs(%padded : memref<1x6x6x1xf32>)
    () {
      linalg.yield %lowest : f32
    }
  %interior = memref.subview %padded[0, 2, 2, 0] [1, 2, 2, 1] [1, 1, 1, 1] : memref<1x6x6x1xf32> to memref<1x2x2x1xf32, strided<[36, 6, 1, 1], offset: 14>>
  memref.copy %in, %interior : memref<1x2x2x1xf32> to memref<1x2x2x1xf32, strided<[36, 6, 1, 1], offset: 14>>
  %window = memref.alloc() : memref<2x2xf32>
  linalg.fill ins(%lowest : f32) outs(%out : memref<1x5x5x1xf32>)
  linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%padded, %window : memref<1x6x6x1xf32>, memref<2x2xf32>) outs(%out : memref<1x5x5x1xf32>)
  memref.dealloc %padded : memref<1x6x6x1xf32>
  return
}

// -----

// Patterns that must not match stay with codegen, and the reason names the rule: accumulation
// into a non-zero output, an output read between the fill and the matmul, another element
// type; functions without a context are not touched at all.

// CHECK-LABEL: func.func @accumulate
// CHECK: linalg.matmul {loupe.backend = "codegen", loupe.backend_reason = "onednn not used: C is not zero-filled right before the matmul
// CHECK-LABEL: func.func @read_between
// CHECK: linalg.matmul {loupe.backend = "codegen"
// CHECK-LABEL: func.func @f64
// CHECK: linalg.matmul {loupe.backend = "codegen", loupe.backend_reason = "onednn not used: operands are not static f32 row-major memrefs
// CHECK-LABEL: func.func @no_context
// CHECK: linalg.matmul ins
// CHECK-NOT: ral.dispatch
func.func @accumulate(%ctx: !ral.context, %a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%c : memref<4x16xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}
func.func @read_between(%ctx: !ral.context, %a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>, %d: memref<4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x16xf32>)
  memref.copy %c, %d : memref<4x16xf32> to memref<4x16xf32>
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}
func.func @f64(%ctx: !ral.context, %a: memref<4x8xf64>, %b: memref<8x16xf64>, %c: memref<4x16xf64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%c : memref<4x16xf64>)
  linalg.matmul ins(%a, %b : memref<4x8xf64>, memref<8x16xf64>) outs(%c : memref<4x16xf64>)
  return
}
func.func @no_context(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x16xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// Pattern fusion: a backend that registers matmul_bias_act (onednn) takes the elementwise
// `max(C + bias, 0)` after a batch-1 matmul into one ral_gemm_epilogue_onednn on 2-D views,
// writing the elementwise op's output; the fill, matmul and elementwise op go away. openblas
// registers no such pattern: plain GEMM, the elementwise op stays for codegen. No other backend
// registers the pattern either, so the epilogue kernel has no fallback.

// CHECK-LABEL: func.func @matmul_bias_relu
// CHECK-SAME: (%[[CTX:.*]]: !ral.context, %[[A:.*]]: memref<1x8x64xf32>, %[[B:.*]]: memref<1x64x32xf32>, %[[BIAS:.*]]: memref<1x32xf32>, %[[D:.*]]: memref<8x32xf32>)
// CHECK-NOT: linalg.
// CHECK-DAG: %[[BIAS1:.*]] = memref.collapse_shape %[[BIAS]] {{\[\[}}0, 1]] : memref<1x32xf32> into memref<32xf32>
// CHECK-DAG: %[[RELU:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[A2:.*]] = memref.collapse_shape %[[A]] {{\[\[}}0, 1], [2]] : memref<1x8x64xf32> into memref<8x64xf32>
// CHECK-DAG: %[[B2:.*]] = memref.collapse_shape %[[B]] {{\[\[}}0, 1], [2]] : memref<1x64x32xf32> into memref<64x32xf32>
// CHECK-DAG: %[[NORES:.*]] = memref.alloca() : memref<0x0xf32>
// CHECK: ral.dispatch %[[CTX]], %[[A2]], %[[B2]], %[[BIAS1]], %[[NORES]], %[[D]], %{{.*}}, %{{.*}}, %[[RELU]] {abi = "ral_gemm_epilogue_onednn___cpu___pvoid_m2df32_m2df32_m1df32_m2df32_m2df32_i1_i1_i32___void", callee = "ral_gemm_epilogue_onednn"{{.*}}loupe.backend_reason = "highest plevel for batch_matmul on cpu (onednn 15, openblas 12, codegen 10); fused with the bias and ReLU after it (matmul_bias_act)", loupe.candidates = {{.*}}, loupe.plevel
// CHECK-NOT: linalg.
// CHECK: return
// BLAS-LABEL: func.func @matmul_bias_relu
// BLAS: callee = "ral_batch_gemm_openblas"
// BLAS: linalg.generic
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (0, d1)>
func.func @matmul_bias_relu(%ctx: !ral.context, %a: memref<1x8x64xf32>, %b: memref<1x64x32xf32>, %bias: memref<1x32xf32>, %d: memref<8x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<1x8x32xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<1x8x32xf32>)
  linalg.batch_matmul ins(%a, %b : memref<1x8x64xf32>, memref<1x64x32xf32>) outs(%c : memref<1x8x32xf32>)
  %c2 = memref.collapse_shape %c [[0, 1], [2]] : memref<1x8x32xf32> into memref<8x32xf32>
  linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c2, %bias : memref<8x32xf32>, memref<1x32xf32>) outs(%d : memref<8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  memref.dealloc %c : memref<1x8x32xf32>
  return
}

// -----

// The exact GELU after the bias, x * 0.5 * (1 + erf(x / sqrt(2))), is oneDNN's gelu_erf
// post-op (activation 3).

// CHECK-LABEL: func.func @matmul_bias_gelu
// CHECK-NOT: linalg.
// CHECK-DAG: %[[GELU:.*]] = arith.constant 3 : i32
// CHECK: ral.dispatch {{.*}}, %[[GELU]] {{{.*}}callee = "ral_gemm_epilogue_onednn"
// CHECK-NOT: linalg.
// CHECK: return
#id3 = affine_map<(d0, d1) -> (d0, d1)>
#row3 = affine_map<(d0, d1) -> (0, d1)>
func.func @matmul_bias_gelu(%ctx: !ral.context, %a: memref<1x8x64xf32>, %b: memref<1x64x32xf32>, %bias: memref<1x32xf32>, %d: memref<8x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %half = arith.constant 0.5 : f32
  %rsqrt2 = arith.constant 0.707106769 : f32
  %c = memref.alloc() : memref<1x8x32xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<1x8x32xf32>)
  linalg.batch_matmul ins(%a, %b : memref<1x8x64xf32>, memref<1x64x32xf32>) outs(%c : memref<1x8x32xf32>)
  %c2 = memref.collapse_shape %c [[0, 1], [2]] : memref<1x8x32xf32> into memref<8x32xf32>
  linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel"]}
      ins(%c2, %bias : memref<8x32xf32>, memref<1x32xf32>) outs(%d : memref<8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %t = arith.mulf %s, %rsqrt2 : f32
    %e = math.erf %t : f32
    %p = arith.addf %e, %one : f32
    %m = arith.mulf %s, %p : f32
    %g = arith.mulf %m, %half : f32
    linalg.yield %g : f32
  }
  memref.dealloc %c : memref<1x8x32xf32>
  return
}

// -----

// A 1x1 convolution is a matmul on [H*W, C] whose result TOSA expands back to NHWC: the
// epilogue reads that view in place (the batch of 1 pinned to 0), with the bias along the
// last dim, and D is taken as a [H*W, N] matrix. Without a bias (a folded BatchNorm of zero
// shift), relu(C) alone is the epilogue, with an empty bias.

// CHECK-LABEL: func.func @conv1x1_bias_relu
// CHECK-SAME: (%[[CTX:.*]]: !ral.context, %[[A:.*]]: memref<64x16xf32>, %[[B:.*]]: memref<16x32xf32>, %[[BIAS:.*]]: memref<1x1x1x32xf32>, %[[D:.*]]: memref<1x8x8x32xf32>)
// CHECK-NOT: linalg.
// CHECK-DAG: %[[BIAS1:.*]] = memref.collapse_shape %[[BIAS]] {{\[\[}}0, 1, 2, 3]] : memref<1x1x1x32xf32> into memref<32xf32>
// CHECK-DAG: %[[D2:.*]] = memref.collapse_shape %[[D]] {{\[\[}}0, 1, 2], [3]] : memref<1x8x8x32xf32> into memref<64x32xf32>
// CHECK: ral.dispatch %[[CTX]], %[[A]], %[[B]], %[[BIAS1]], %{{.*}}, %[[D2]], {{.*}}callee = "ral_gemm_epilogue_onednn"
// CHECK-NOT: linalg.
// CHECK-LABEL: func.func @conv1x1_relu
// CHECK: %[[NONE:.*]] = memref.alloca() : memref<0xf32>
// CHECK: ral.dispatch {{.*}}, %[[NONE]], {{.*}}callee = "ral_gemm_epilogue_onednn"
// CHECK-NOT: linalg.
#nhwc = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#chan = affine_map<(d0, d1, d2, d3) -> (0, 0, 0, d3)>
func.func @conv1x1_bias_relu(%ctx: !ral.context, %a: memref<64x16xf32>, %b: memref<16x32xf32>, %bias: memref<1x1x1x32xf32>, %d: memref<1x8x8x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<64x32xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<64x32xf32>)
  linalg.matmul ins(%a, %b : memref<64x16xf32>, memref<16x32xf32>) outs(%c : memref<64x32xf32>)
  %v = memref.expand_shape %c [[0, 1, 2], [3]] output_shape [1, 8, 8, 32] : memref<64x32xf32> into memref<1x8x8x32xf32>
  linalg.generic {indexing_maps = [#nhwc, #chan, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%v, %bias : memref<1x8x8x32xf32>, memref<1x1x1x32xf32>) outs(%d : memref<1x8x8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  memref.dealloc %c : memref<64x32xf32>
  return
}
func.func @conv1x1_relu(%ctx: !ral.context, %a: memref<64x16xf32>, %b: memref<16x32xf32>, %d: memref<1x8x8x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<64x32xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<64x32xf32>)
  linalg.matmul ins(%a, %b : memref<64x16xf32>, memref<16x32xf32>) outs(%c : memref<64x32xf32>)
  %v = memref.expand_shape %c [[0, 1, 2], [3]] output_shape [1, 8, 8, 32] : memref<64x32xf32> into memref<1x8x8x32xf32>
  linalg.generic {indexing_maps = [#nhwc, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%v : memref<1x8x8x32xf32>) outs(%d : memref<1x8x8x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  }
  memref.dealloc %c : memref<64x32xf32>
  return
}

// -----

// Not fused: the elementwise op does more than bias + relu, and C has a second reader.

// CHECK-LABEL: func.func @not_an_epilogue
// CHECK: callee = "ral_gemm_onednn"
// CHECK: linalg.generic
// CHECK-LABEL: func.func @second_reader
// CHECK: callee = "ral_gemm_onednn"
// CHECK: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @not_an_epilogue(%ctx: !ral.context, %a: memref<8x64xf32>, %b: memref<64x32xf32>, %bias: memref<32xf32>, %d: memref<8x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<8x32xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<8x32xf32>)
  linalg.matmul ins(%a, %b : memref<8x64xf32>, memref<64x32xf32>) outs(%c : memref<8x32xf32>)
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : memref<8x32xf32>, memref<32xf32>) outs(%d : memref<8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.mulf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}
func.func @second_reader(%ctx: !ral.context, %a: memref<8x64xf32>, %b: memref<64x32xf32>, %bias: memref<32xf32>, %d: memref<8x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<8x32xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<8x32xf32>)
  linalg.matmul ins(%a, %b : memref<8x64xf32>, memref<64x32xf32>) outs(%c : memref<8x32xf32>)
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : memref<8x32xf32>, memref<32xf32>) outs(%d : memref<8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  ral.send_output %ctx, 0, %c : memref<8x32xf32>
  return
}

// -----

// Pattern fusion for convolutions: a backend that registers conv_bias_act (onednn) takes the
// ReLU reading the conv's NHWC output, in the conv's cluster, into the conv kernel (params[9] =
// 1, relu), which then writes the ReLU's buffer D (as an NCHW view); the bias broadcast, conv
// and ReLU go away. openblas runs no conv: codegen, the ReLU stays.

// CHECK: memref.global "private" constant @__loupe_conv_params_1_1_0_0_0_0_1_1_1_1 : memref<10xi64> = dense<[1, 1, 0, 0, 0, 0, 1, 1, 1, 1]>
// CHECK-LABEL: func.func @conv_bias_relu
// CHECK-SAME: (%[[CTX:.*]]: !ral.context, %[[IN:.*]]: memref<1x7x7x2xf32>, %[[W:.*]]: memref<4x3x3x2xf32>, %[[BIAS:.*]]: memref<4xf32>, %[[D:.*]]: memref<1x5x5x4xf32>)
// CHECK-NOT: linalg.
// CHECK-DAG: %[[P:.*]] = memref.get_global @__loupe_conv_params_1_1_0_0_0_0_1_1_1_1
// CHECK-DAG: %[[INT:.*]] = memref.transpose %[[IN]] (d0, d1, d2, d3) -> (d0, d3, d1, d2)
// CHECK-DAG: %[[WT:.*]] = memref.transpose %[[W]] (d0, d1, d2, d3) -> (d0, d3, d1, d2)
// CHECK-DAG: %[[DT:.*]] = memref.transpose %[[D]] (d0, d1, d2, d3) -> (d0, d3, d1, d2)
// CHECK: ral.dispatch %[[CTX]], %[[INT]], %[[WT]], %[[BIAS]], %[[DT]], %[[P]] {abi = "ral_conv_onednn___cpu___pvoid_m4df32_m4df32_m1df32_m4df32_m1di64___void", callee = "ral_conv_onednn", device = "cpu", has_side_effect, loupe.backend = "onednn", loupe.backend_reason = "highest plevel for conv2d on cpu (onednn 15, codegen 10); fused with the ReLU after it (conv_bias_act)", loupe.candidates = ["onednn", "codegen"], loupe.cluster = 3 : i64, loupe.plevel = 15 : i64, loupe.selected_loc = {{.*}}, loupe.signature = "conv2d:{{.*}}"}
// CHECK-NOT: linalg.
// CHECK: return
// BLAS-LABEL: func.func @conv_bias_relu
// BLAS: linalg.conv_2d_nhwc_fhwc {{.*}}loupe.backend = "codegen"
// BLAS: linalg.generic
#bias = affine_map<(d0, d1, d2, d3) -> (d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#batch1 = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
func.func @conv_bias_relu(%ctx: !ral.context, %in: memref<1x7x7x2xf32>, %w: memref<4x3x3x2xf32>, %bias: memref<4xf32>, %d: memref<1x5x5x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %out = memref.alloc() : memref<1x5x5x4xf32>
  linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : memref<4xf32>) outs(%out : memref<1x5x5x4xf32>) attrs = {loupe.cluster = 3 : i64} {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  }
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, loupe.cluster = 3 : i64, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : memref<1x7x7x2xf32>, memref<4x3x3x2xf32>) outs(%out : memref<1x5x5x4xf32>)
  linalg.generic {indexing_maps = [#batch1, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%out : memref<1x5x5x4xf32>) outs(%d : memref<1x5x5x4xf32>) attrs = {loupe.cluster = 3 : i64} {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  }
  memref.dealloc %out : memref<1x5x5x4xf32>
  return
}

// -----

// Hardswish, x * clamp(x * 1/6 + 1/2, 0, 1) (ONNX's HardSwish as the importer lowers it, one
// generic after fusion), is oneDNN's eltwise_hardswish post-op (activation 4) where the fuse
// pattern lists it: after a 1x1 convolution's bias (the GEMM epilogue) and on a conv's NHWC
// result (params[9] = 4, the clamp here max then min). A gate of x * 1/5 is not hardswish:
// that conv takes nothing.

// CHECK: memref.global "private" constant @__loupe_conv_params_1_1_0_0_0_0_1_1_1_4 : memref<10xi64> = dense<[1, 1, 0, 0, 0, 0, 1, 1, 1, 4]>
// CHECK-LABEL: func.func @conv1x1_bias_hardswish
// CHECK-NOT: linalg.
// CHECK-DAG: %[[HS:.*]] = arith.constant 4 : i32
// CHECK: ral.dispatch {{.*}}, %[[HS]] {{{.*}}callee = "ral_gemm_epilogue_onednn"{{.*}}fused with the bias and hardswish after it (matmul_bias_act)
// CHECK-NOT: linalg.
// CHECK-LABEL: func.func @conv_hardswish
// CHECK-NOT: linalg.
// CHECK: ral.dispatch {{.*}}callee = "ral_conv_onednn"{{.*}}fused with the hardswish after it (conv_bias_act)
// CHECK-NOT: linalg.
// CHECK-LABEL: func.func @conv_not_hardswish
// CHECK: ral.dispatch {{.*}}callee = "ral_conv_onednn"
// CHECK-NOT: fused with
// CHECK: linalg.generic
// cuDNN's conv_bias_act covers the ReLU only: on the GPU the hardswish stays a generic, even
// where no cluster phase ran to keep it apart.
// GPU-LABEL: func.func @conv_hardswish
// GPU: ral.dispatch {{.*}}callee = "ral_conv_cudnn"
// GPU-NOT: fused with
// GPU: linalg.generic
#hsa = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
#hsi = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#hsc = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @conv1x1_bias_hardswish(%ctx: !ral.context, %a: memref<64x16xf32>, %b: memref<16x32xf32>, %bias: memref<32xf32>, %d: memref<1x8x8x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %half = arith.constant 0.5 : f32
  %sixth = arith.constant 0.166666672 : f32
  %c = memref.alloc() : memref<64x32xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<64x32xf32>)
  linalg.matmul ins(%a, %b : memref<64x16xf32>, memref<16x32xf32>) outs(%c : memref<64x32xf32>)
  %v = memref.expand_shape %c [[0, 1, 2], [3]] output_shape [1, 8, 8, 32] : memref<64x32xf32> into memref<1x8x8x32xf32>
  linalg.generic {indexing_maps = [#hsa, #hsc, #hsi], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%v, %bias : memref<1x8x8x32xf32>, memref<32xf32>) outs(%d : memref<1x8x8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %t = arith.mulf %s, %sixth : f32
    %p = arith.addf %t, %half : f32
    %lo = arith.minimumf %p, %one : f32
    %g = arith.maximumf %lo, %zero : f32
    %h = arith.mulf %s, %g : f32
    linalg.yield %h : f32
  }
  memref.dealloc %c : memref<64x32xf32>
  return
}
func.func @conv_hardswish(%ctx: !ral.context, %in: memref<1x7x7x2xf32>, %w: memref<4x3x3x2xf32>, %d: memref<1x5x5x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %half = arith.constant 0.5 : f32
  %sixth = arith.constant 0.166666672 : f32
  %out = memref.alloc() : memref<1x5x5x4xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<1x5x5x4xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : memref<1x7x7x2xf32>, memref<4x3x3x2xf32>) outs(%out : memref<1x5x5x4xf32>)
  linalg.generic {indexing_maps = [#hsa, #hsi], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%out : memref<1x5x5x4xf32>) outs(%d : memref<1x5x5x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %t = arith.mulf %sixth, %x : f32
    %p = arith.addf %half, %t : f32
    %hi = arith.maximumf %p, %zero : f32
    %g = arith.minimumf %hi, %one : f32
    %h = arith.mulf %g, %x : f32
    linalg.yield %h : f32
  }
  memref.dealloc %out : memref<1x5x5x4xf32>
  return
}
func.func @conv_not_hardswish(%ctx: !ral.context, %in: memref<1x7x7x2xf32>, %w: memref<4x3x3x2xf32>, %d: memref<1x5x5x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %half = arith.constant 0.5 : f32
  %fifth = arith.constant 0.2 : f32
  %out = memref.alloc() : memref<1x5x5x4xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<1x5x5x4xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : memref<1x7x7x2xf32>, memref<4x3x3x2xf32>) outs(%out : memref<1x5x5x4xf32>)
  linalg.generic {indexing_maps = [#hsa, #hsi], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%out : memref<1x5x5x4xf32>) outs(%d : memref<1x5x5x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %t = arith.mulf %x, %fifth : f32
    %p = arith.addf %t, %half : f32
    %lo = arith.minimumf %p, %one : f32
    %g = arith.maximumf %lo, %zero : f32
    %h = arith.mulf %x, %g : f32
    linalg.yield %h : f32
  }
  memref.dealloc %out : memref<1x5x5x4xf32>
  return
}

// -----

// A trained ResNet's relu(conv3 + bias + shortcut): the bias and the residual in one epilogue,
// in either order (here the residual read first).

// CHECK-LABEL: func.func @conv1x1_bias_residual_relu
// CHECK-SAME: (%[[CTX:.*]]: !ral.context, %[[A:.*]]: memref<64x16xf32>, %[[B:.*]]: memref<16x32xf32>, %[[BIAS:.*]]: memref<32xf32>, %[[R:.*]]: memref<1x8x8x32xf32>, %[[D:.*]]: memref<1x8x8x32xf32>)
// CHECK-NOT: linalg.
// CHECK-DAG: %[[R2:.*]] = memref.collapse_shape %[[R]] {{\[\[}}0, 1, 2], [3]] : memref<1x8x8x32xf32> into memref<64x32xf32>
// CHECK-DAG: %[[RELU:.*]] = arith.constant 1 : i32
// CHECK: ral.dispatch %[[CTX]], %[[A]], %[[B]], %[[BIAS]], %[[R2]], %{{.*}}, %[[RELU]] {{{.*}}callee = "ral_gemm_epilogue_onednn"
// CHECK-NOT: linalg.
#bri = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#brc = affine_map<(d0, d1, d2, d3) -> (d3)>
#bra = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
func.func @conv1x1_bias_residual_relu(%ctx: !ral.context, %a: memref<64x16xf32>, %b: memref<16x32xf32>, %bias: memref<32xf32>, %r: memref<1x8x8x32xf32>, %d: memref<1x8x8x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<64x32xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<64x32xf32>)
  linalg.matmul ins(%a, %b : memref<64x16xf32>, memref<16x32xf32>) outs(%c : memref<64x32xf32>)
  %v = memref.expand_shape %c [[0, 1, 2], [3]] output_shape [1, 8, 8, 32] : memref<64x32xf32> into memref<1x8x8x32xf32>
  linalg.generic {indexing_maps = [#bri, #bra, #brc, #bri], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r, %v, %bias : memref<1x8x8x32xf32>, memref<1x8x8x32xf32>, memref<32xf32>) outs(%d : memref<1x8x8x32xf32>) {
  ^bb0(%sc: f32, %x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %t = arith.addf %sc, %s : f32
    %m = arith.maximumf %t, %zero : f32
    linalg.yield %m : f32
  }
  memref.dealloc %c : memref<64x32xf32>
  return
}

// -----

// TOSA's clamp to [0, max f32] after a zero-initialised conv: an empty bias.

// CHECK-LABEL: func.func @conv_clamp_nhwc
// CHECK-SAME: (%[[CTX:.*]]: !ral.context, %[[IN:[^:]*]]: memref<1x5x5x2xf32>, %[[W:.*]]: memref<2x3x3x2xf32>, %[[D:.*]]: memref<1x3x3x2xf32>)
// CHECK-NOT: linalg.
// CHECK-DAG: %[[EMPTY:.*]] = memref.alloca() : memref<0xf32>
// CHECK-DAG: %[[DT:.*]] = memref.transpose %[[D]] (d0, d1, d2, d3) -> (d0, d3, d1, d2)
// CHECK: ral.dispatch %[[CTX]], %{{.*}}, %{{.*}}, %[[EMPTY]], %[[DT]], %{{.*}} {{{.*}}callee = "ral_conv_onednn"{{.*}}fused with the ReLU after it (conv_bias_act)
// CHECK-NOT: linalg.
// CHECK: return
#id2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @conv_clamp_nhwc(%ctx: !ral.context, %in: memref<1x5x5x2xf32>, %w: memref<2x3x3x2xf32>, %d: memref<1x3x3x2xf32>) {
  %zero = arith.constant 0.0 : f32
  %max = arith.constant 3.40282347E+38 : f32
  %out = memref.alloc() : memref<1x3x3x2xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<1x3x3x2xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : memref<1x5x5x2xf32>, memref<2x3x3x2xf32>) outs(%out : memref<1x3x3x2xf32>)
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%out : memref<1x3x3x2xf32>) outs(%d : memref<1x3x3x2xf32>) {
  ^bb0(%x: f32, %o: f32):
    %lo = arith.minimumf %x, %max : f32
    %hi = arith.maximumf %lo, %zero : f32
    linalg.yield %hi : f32
  }
  memref.dealloc %out : memref<1x3x3x2xf32>
  return
}

// -----

// The ReLU in place on the conv's buffer (what bufferization makes of the ReLU the cluster
// phase moved before TOSA's transpose): the kernel writes the buffer, later readers see the
// ReLU.

// CHECK-LABEL: func.func @conv_relu_in_place
// CHECK-SAME: (%[[CTX:.*]]: !ral.context, %[[IN:[^:]*]]: memref<1x5x5x2xf32>, %[[W:.*]]: memref<2x3x3x2xf32>, %[[D:.*]]: memref<1x3x3x2xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<1x3x3x2xf32>
// CHECK-DAG: %[[OUTT:.*]] = memref.transpose %[[OUT]] (d0, d1, d2, d3) -> (d0, d3, d1, d2)
// CHECK: ral.dispatch %[[CTX]], %{{.*}}, %{{.*}}, %{{.*}}, %[[OUTT]], %{{.*}} {{{.*}}callee = "ral_conv_onednn"{{.*}}fused with the ReLU after it (conv_bias_act)
// CHECK-NOT: linalg.
// CHECK: memref.copy %[[OUT]], %[[D]]
#id5 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @conv_relu_in_place(%ctx: !ral.context, %in: memref<1x5x5x2xf32>, %w: memref<2x3x3x2xf32>, %d: memref<1x3x3x2xf32>) {
  %zero = arith.constant 0.0 : f32
  %out = memref.alloc() : memref<1x3x3x2xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<1x3x3x2xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : memref<1x5x5x2xf32>, memref<2x3x3x2xf32>) outs(%out : memref<1x3x3x2xf32>)
  linalg.generic {indexing_maps = [#id5, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%out : memref<1x3x3x2xf32>) outs(%out : memref<1x3x3x2xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  }
  memref.copy %out, %d : memref<1x3x3x2xf32> to memref<1x3x3x2xf32>
  memref.dealloc %out : memref<1x3x3x2xf32>
  return
}

// -----

// Not fused: a clamp to [0, 6] is not a ReLU; the ReLU is in another cluster (what --fusion off
// gives); the conv's output has a second reader; the ReLU reads it transposed (the cluster
// phase moves a ReLU before TOSA's transpose instead). Each conv is a plain ral_conv_onednn
// with nine params and the elementwise op stays.

// CHECK-LABEL: func.func @conv_relu6
// CHECK: memref.get_global @__loupe_conv_params_1_1_0_0_0_0_1_1_1 : memref<9xi64>
// CHECK: callee = "ral_conv_onednn"
// CHECK-NOT: fused with
// CHECK: linalg.generic
// CHECK-LABEL: func.func @conv_relu_other_cluster
// CHECK: callee = "ral_conv_onednn"
// CHECK-NOT: fused with
// CHECK: linalg.generic
// CHECK-LABEL: func.func @conv_relu_second_reader
// CHECK: callee = "ral_conv_onednn"
// CHECK-NOT: fused with
// CHECK: linalg.generic
// CHECK-LABEL: func.func @conv_relu_transposed
// CHECK: callee = "ral_conv_onednn"
// CHECK-NOT: fused with
// CHECK: linalg.generic
#id3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @conv_relu6(%ctx: !ral.context, %in: memref<1x5x5x2xf32>, %w: memref<2x3x3x2xf32>, %d: memref<1x3x3x2xf32>) {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %out = memref.alloc() : memref<1x3x3x2xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<1x3x3x2xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : memref<1x5x5x2xf32>, memref<2x3x3x2xf32>) outs(%out : memref<1x3x3x2xf32>)
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%out : memref<1x3x3x2xf32>) outs(%d : memref<1x3x3x2xf32>) {
  ^bb0(%x: f32, %o: f32):
    %lo = arith.minimumf %x, %six : f32
    %hi = arith.maximumf %lo, %zero : f32
    linalg.yield %hi : f32
  }
  memref.dealloc %out : memref<1x3x3x2xf32>
  return
}
func.func @conv_relu_other_cluster(%ctx: !ral.context, %in: memref<1x5x5x2xf32>, %w: memref<2x3x3x2xf32>, %d: memref<1x3x3x2xf32>) {
  %zero = arith.constant 0.0 : f32
  %out = memref.alloc() : memref<1x3x3x2xf32>
  linalg.fill {loupe.cluster = 0 : i64} ins(%zero : f32) outs(%out : memref<1x3x3x2xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, loupe.cluster = 0 : i64, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : memref<1x5x5x2xf32>, memref<2x3x3x2xf32>) outs(%out : memref<1x3x3x2xf32>)
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%out : memref<1x3x3x2xf32>) outs(%d : memref<1x3x3x2xf32>) attrs = {loupe.cluster = 1 : i64} {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  }
  memref.dealloc %out : memref<1x3x3x2xf32>
  return
}
func.func @conv_relu_second_reader(%ctx: !ral.context, %in: memref<1x5x5x2xf32>, %w: memref<2x3x3x2xf32>, %d: memref<1x3x3x2xf32>) {
  %zero = arith.constant 0.0 : f32
  %out = memref.alloc() : memref<1x3x3x2xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<1x3x3x2xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : memref<1x5x5x2xf32>, memref<2x3x3x2xf32>) outs(%out : memref<1x3x3x2xf32>)
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%out : memref<1x3x3x2xf32>) outs(%d : memref<1x3x3x2xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  }
  ral.send_output %ctx, 0, %out : memref<1x3x3x2xf32>
  return
}
#nchw = affine_map<(d0, d1, d2, d3) -> (0, d2, d3, d1)>
func.func @conv_relu_transposed(%ctx: !ral.context, %in: memref<1x5x5x2xf32>, %w: memref<2x3x3x2xf32>, %d: memref<1x2x3x3xf32>) {
  %zero = arith.constant 0.0 : f32
  %out = memref.alloc() : memref<1x3x3x2xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<1x3x3x2xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : memref<1x5x5x2xf32>, memref<2x3x3x2xf32>) outs(%out : memref<1x3x3x2xf32>)
  linalg.generic {indexing_maps = [#nchw, #id3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%out : memref<1x3x3x2xf32>) outs(%d : memref<1x2x3x3xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  }
  memref.dealloc %out : memref<1x3x3x2xf32>
  return
}

// -----

// ResNet's `relu(conv3 + shortcut)`: the 1x1 conv's matmul, seen NHWC, plus a residual of the
// output's shape read in place (batch pinned to 0 as TOSA reads it): the residual is the
// kernel's, with no bias. Bufferized in place (D is the residual's buffer; here also read
// first, `shortcut + C`), the kernel gets D as both. A residual read through a broadcast is
// not one: that generic stays.

// CHECK-LABEL: func.func @conv1x1_residual_relu
// CHECK-SAME: (%[[CTX:.*]]: !ral.context, %[[A:.*]]: memref<64x16xf32>, %[[B:.*]]: memref<16x32xf32>, %[[R:.*]]: memref<1x8x8x32xf32>, %[[D:.*]]: memref<1x8x8x32xf32>)
// CHECK-NOT: linalg.
// CHECK-DAG: %[[NOBIAS:.*]] = memref.alloca() : memref<0xf32>
// CHECK-DAG: %[[R2:.*]] = memref.collapse_shape %[[R]] {{\[\[}}0, 1, 2], [3]] : memref<1x8x8x32xf32> into memref<64x32xf32>
// CHECK-DAG: %[[D2:.*]] = memref.collapse_shape %[[D]] {{\[\[}}0, 1, 2], [3]] : memref<1x8x8x32xf32> into memref<64x32xf32>
// CHECK-DAG: %[[RELU:.*]] = arith.constant 1 : i32
// CHECK: ral.dispatch %[[CTX]], %[[A]], %[[B]], %[[NOBIAS]], %[[R2]], %[[D2]], %{{.*}}, %{{.*}}, %[[RELU]] {{{.*}}callee = "ral_gemm_epilogue_onednn"{{.*}}fused with the residual add and ReLU after it (matmul_bias_act)
// CHECK-NOT: linalg.
// CHECK-LABEL: func.func @conv1x1_residual_in_place
// CHECK-SAME: %[[R:[^:]*]]: memref<1x8x8x32xf32>)
// CHECK: %[[R2:.*]] = memref.collapse_shape %[[R]]
// CHECK: %[[D2:.*]] = memref.collapse_shape %[[R]]
// CHECK: ral.dispatch {{.*}}, %[[R2]], %[[D2]], {{.*}}callee = "ral_gemm_epilogue_onednn"
// CHECK-LABEL: func.func @conv1x1_broadcast_is_no_residual
// CHECK: callee = "ral_gemm_onednn"
// CHECK: linalg.generic
#nhwc_r = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
#id4_r = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row_r = affine_map<(d0, d1, d2, d3) -> (0, 0, d2, d3)>
func.func @conv1x1_residual_relu(%ctx: !ral.context, %a: memref<64x16xf32>, %b: memref<16x32xf32>, %r: memref<1x8x8x32xf32>, %d: memref<1x8x8x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<64x32xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<64x32xf32>)
  linalg.matmul ins(%a, %b : memref<64x16xf32>, memref<16x32xf32>) outs(%c : memref<64x32xf32>)
  %v = memref.expand_shape %c [[0, 1, 2], [3]] output_shape [1, 8, 8, 32] : memref<64x32xf32> into memref<1x8x8x32xf32>
  linalg.generic {indexing_maps = [#nhwc_r, #nhwc_r, #id4_r], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%v, %r : memref<1x8x8x32xf32>, memref<1x8x8x32xf32>) outs(%d : memref<1x8x8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  }
  memref.dealloc %c : memref<64x32xf32>
  return
}
func.func @conv1x1_residual_in_place(%ctx: !ral.context, %a: memref<64x16xf32>, %b: memref<16x32xf32>, %r: memref<1x8x8x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<64x32xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<64x32xf32>)
  linalg.matmul ins(%a, %b : memref<64x16xf32>, memref<16x32xf32>) outs(%c : memref<64x32xf32>)
  %v = memref.expand_shape %c [[0, 1, 2], [3]] output_shape [1, 8, 8, 32] : memref<64x32xf32> into memref<1x8x8x32xf32>
  linalg.generic {indexing_maps = [#nhwc_r, #nhwc_r, #id4_r], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r, %v : memref<1x8x8x32xf32>, memref<1x8x8x32xf32>) outs(%r : memref<1x8x8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  memref.dealloc %c : memref<64x32xf32>
  return
}
func.func @conv1x1_broadcast_is_no_residual(%ctx: !ral.context, %a: memref<64x16xf32>, %b: memref<16x32xf32>, %r: memref<1x8x8x32xf32>, %d: memref<1x8x8x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<64x32xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<64x32xf32>)
  linalg.matmul ins(%a, %b : memref<64x16xf32>, memref<16x32xf32>) outs(%c : memref<64x32xf32>)
  %v = memref.expand_shape %c [[0, 1, 2], [3]] output_shape [1, 8, 8, 32] : memref<64x32xf32> into memref<1x8x8x32xf32>
  linalg.generic {indexing_maps = [#nhwc_r, #row_r, #id4_r], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%v, %r : memref<1x8x8x32xf32>, memref<1x8x8x32xf32>) outs(%d : memref<1x8x8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  memref.dealloc %c : memref<64x32xf32>
  return
}

// -----

// SiLU, x * sigmoid(x) with TOSA's sigmoid 1 / (1 + exp(-x)) (torch's SiLU exported as Sigmoid
// and Mul, one generic after fusion), is oneDNN's eltwise_swish post-op (activation 5): after a
// 1x1 convolution's bias (EfficientNet's expansion convs) and on a conv's NHWC result (its
// stem). x * sigmoid(2x) is not SiLU: that conv takes nothing.

// CHECK: memref.global "private" constant @__loupe_conv_params_1_1_0_0_0_0_1_1_1_5 : memref<10xi64> = dense<[1, 1, 0, 0, 0, 0, 1, 1, 1, 5]>
// CHECK-LABEL: func.func @conv1x1_bias_silu
// CHECK-NOT: linalg.
// CHECK-DAG: %[[SILU:.*]] = arith.constant 5 : i32
// CHECK: ral.dispatch {{.*}}, %[[SILU]] {{{.*}}callee = "ral_gemm_epilogue_onednn"{{.*}}fused with the bias and SiLU after it (matmul_bias_act)
// CHECK-NOT: linalg.
// CHECK-LABEL: func.func @conv_silu
// CHECK-NOT: linalg.
// CHECK: ral.dispatch {{.*}}callee = "ral_conv_onednn"{{.*}}fused with the SiLU after it (conv_bias_act)
// CHECK-NOT: linalg.
// CHECK-LABEL: func.func @conv_not_silu
// CHECK: ral.dispatch {{.*}}callee = "ral_conv_onednn"
// CHECK-NOT: fused with
// CHECK: linalg.generic
#sia = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
#sii = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#sic = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @conv1x1_bias_silu(%ctx: !ral.context, %a: memref<64x16xf32>, %b: memref<16x32xf32>, %bias: memref<32xf32>, %d: memref<1x8x8x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %c = memref.alloc() : memref<64x32xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<64x32xf32>)
  linalg.matmul ins(%a, %b : memref<64x16xf32>, memref<16x32xf32>) outs(%c : memref<64x32xf32>)
  %v = memref.expand_shape %c [[0, 1, 2], [3]] output_shape [1, 8, 8, 32] : memref<64x32xf32> into memref<1x8x8x32xf32>
  linalg.generic {indexing_maps = [#sia, #sic, #sii], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%v, %bias : memref<1x8x8x32xf32>, memref<32xf32>) outs(%d : memref<1x8x8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %n = arith.negf %s : f32
    %e = math.exp %n : f32
    %p = arith.addf %e, %one : f32
    %g = arith.divf %one, %p : f32
    %h = arith.mulf %s, %g : f32
    linalg.yield %h : f32
  }
  memref.dealloc %c : memref<64x32xf32>
  return
}
func.func @conv_silu(%ctx: !ral.context, %in: memref<1x7x7x2xf32>, %w: memref<4x3x3x2xf32>, %d: memref<1x5x5x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %out = memref.alloc() : memref<1x5x5x4xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<1x5x5x4xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : memref<1x7x7x2xf32>, memref<4x3x3x2xf32>) outs(%out : memref<1x5x5x4xf32>)
  linalg.generic {indexing_maps = [#sia, #sii], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%out : memref<1x5x5x4xf32>) outs(%d : memref<1x5x5x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    %e = math.exp %n : f32
    %p = arith.addf %one, %e : f32
    %g = arith.divf %one, %p : f32
    %h = arith.mulf %g, %x : f32
    linalg.yield %h : f32
  }
  memref.dealloc %out : memref<1x5x5x4xf32>
  return
}
func.func @conv_not_silu(%ctx: !ral.context, %in: memref<1x7x7x2xf32>, %w: memref<4x3x3x2xf32>, %d: memref<1x5x5x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %out = memref.alloc() : memref<1x5x5x4xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<1x5x5x4xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : memref<1x7x7x2xf32>, memref<4x3x3x2xf32>) outs(%out : memref<1x5x5x4xf32>)
  linalg.generic {indexing_maps = [#sia, #sii], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%out : memref<1x5x5x4xf32>) outs(%d : memref<1x5x5x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %x2 = arith.addf %x, %x : f32
    %n = arith.negf %x2 : f32
    %e = math.exp %n : f32
    %p = arith.addf %e, %one : f32
    %g = arith.divf %one, %p : f32
    %h = arith.mulf %x, %g : f32
    linalg.yield %h : f32
  }
  memref.dealloc %out : memref<1x5x5x4xf32>
  return
}

// -----

// A depthwise conv's epilogue reads its [N, OH, OW, C, 1] output through the channel view: the
// bias TOSA adds there becomes the kernel's bias and the activation its post-op, writing the
// generic's NHWC buffer. A zero bias folded into the body (`x + 0.0`) is no bias.

// CHECK-DAG: memref.global "private" constant @__loupe_conv_params_1_1_0_0_0_0_1_1_8_1 : memref<10xi64> = dense<[1, 1, 0, 0, 0, 0, 1, 1, 8, 1]>
// CHECK-DAG: memref.global "private" constant @__loupe_conv_params_1_1_0_0_0_0_1_1_8_4 : memref<10xi64> = dense<[1, 1, 0, 0, 0, 0, 1, 1, 8, 4]>
// CHECK-LABEL: func.func @depthwise_bias_relu
// CHECK-SAME: %[[BIAS:[a-z0-9]+]]: memref<8xf32>
// CHECK-NOT: linalg.
// CHECK: ral.dispatch %{{.*}}, %{{.*}}, %{{.*}}, %[[BIAS]], %{{.*}}, %{{.*}} {{{.*}}callee = "ral_conv_onednn"{{.*}}fused with the bias and ReLU after it (conv_bias_act)
// CHECK-NOT: linalg.
// CHECK-LABEL: func.func @depthwise_zero_bias_hardswish
// CHECK-NOT: linalg.
// CHECK: %[[NOBIAS:.*]] = memref.alloca() : memref<0xf32>
// CHECK: ral.dispatch %{{.*}}, %{{.*}}, %{{.*}}, %[[NOBIAS]], {{.*}}callee = "ral_conv_onednn"{{.*}}fused with the hardswish after it (conv_bias_act)
// CHECK-NOT: linalg.
#dwv = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
#dwi = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#dwc = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @depthwise_bias_relu(%ctx: !ral.context, %in: memref<1x7x7x8xf32>, %w: memref<3x3x8x1xf32>, %bias: memref<8xf32>, %d: memref<1x5x5x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %out = memref.alloc() : memref<1x5x5x8x1xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<1x5x5x8x1xf32>)
  linalg.depthwise_conv_2d_nhwc_hwcm {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : memref<1x7x7x8xf32>, memref<3x3x8x1xf32>) outs(%out : memref<1x5x5x8x1xf32>)
  %v = memref.collapse_shape %out [[0], [1], [2], [3, 4]] : memref<1x5x5x8x1xf32> into memref<1x5x5x8xf32>
  linalg.generic {indexing_maps = [#dwc, #dwv, #dwi], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias, %v : memref<8xf32>, memref<1x5x5x8xf32>) outs(%d : memref<1x5x5x8xf32>) {
  ^bb0(%b: f32, %x: f32, %o: f32):
    %s = arith.addf %b, %x : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  memref.dealloc %out : memref<1x5x5x8x1xf32>
  return
}
func.func @depthwise_zero_bias_hardswish(%ctx: !ral.context, %in: memref<1x7x7x8xf32>, %w: memref<3x3x8x1xf32>, %d: memref<1x5x5x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %half = arith.constant 0.5 : f32
  %sixth = arith.constant 0.166666672 : f32
  %out = memref.alloc() : memref<1x5x5x8x1xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<1x5x5x8x1xf32>)
  linalg.depthwise_conv_2d_nhwc_hwcm {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : memref<1x7x7x8xf32>, memref<3x3x8x1xf32>) outs(%out : memref<1x5x5x8x1xf32>)
  %v = memref.collapse_shape %out [[0], [1], [2], [3, 4]] : memref<1x5x5x8x1xf32> into memref<1x5x5x8xf32>
  linalg.generic {indexing_maps = [#dwv, #dwi], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%v : memref<1x5x5x8xf32>) outs(%d : memref<1x5x5x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %zero : f32
    %t = arith.mulf %s, %sixth : f32
    %p = arith.addf %t, %half : f32
    %lo = arith.minimumf %p, %one : f32
    %g = arith.maximumf %lo, %zero : f32
    %h = arith.mulf %s, %g : f32
    linalg.yield %h : f32
  }
  memref.dealloc %out : memref<1x5x5x8x1xf32>
  return
}
