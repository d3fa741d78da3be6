// RUN: loupe-opt --ral-externalize-constants="min-bytes=16" --split-input-file \
// RUN:   --allow-unregistered-dialect --verify-diagnostics %s | FileCheck %s

// Constant globals holding a resource blob, or a dense value of at least min-bytes, get
// 64-byte aligned slots of the weight blob and are read through ral.constant; a small dense
// global, a splat and a mutable global stay globals. The module records the blob's table.

// CHECK: module attributes {ral.weights = {bytes = 80 : i64, constants = [{name = "w_blob", offset = 0 : i64, value = dense_resource<w_blob> : tensor<2x2xf32>}, {name = "d", offset = 64 : i64, value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>}]}}
// CHECK-NOT: memref.global "private" constant @w
// CHECK-NOT: memref.global "private" constant @d
// CHECK: memref.global "private" constant @small
// CHECK: memref.global "private" constant @splat
// CHECK: memref.global "private" @mutable
// CHECK: func.func @main(%[[CTX:.*]]: !ral.context)
// CHECK: ral.constant %[[CTX]], 0 : memref<2x2xf32>
// CHECK: ral.constant %[[CTX]], 64 : memref<4xf32>
// CHECK: ral.constant %[[CTX]], 0 : memref<2x2xf32>
// CHECK: memref.get_global @small
// CHECK: memref.get_global @splat
// CHECK: memref.get_global @mutable
memref.global "private" constant @w : memref<2x2xf32> = dense_resource<w_blob>
memref.global "private" constant @d : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
memref.global "private" constant @small : memref<2xf32> = dense<[1.0, 2.0]>
memref.global "private" constant @splat : memref<8xf32> = dense<1.0>
memref.global "private" @mutable : memref<8xf32> = dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]>
func.func @main(%ctx: !ral.context) {
  %0 = memref.get_global @w : memref<2x2xf32>
  %1 = memref.get_global @d : memref<4xf32>
  %2 = memref.get_global @w : memref<2x2xf32>
  %3 = memref.get_global @small : memref<2xf32>
  %4 = memref.get_global @splat : memref<8xf32>
  %5 = memref.get_global @mutable : memref<8xf32>
  "test.use"(%0, %1, %2, %3, %4, %5) : (memref<2x2xf32>, memref<4xf32>, memref<2x2xf32>, memref<2xf32>, memref<8xf32>, memref<8xf32>) -> ()
  return
}
{-#
  dialect_resources: {
    builtin: {
      w_blob: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// -----

// Nothing to move: the module stays as it was (no ral.weights).
// CHECK-LABEL: module {
// CHECK: memref.global "private" constant @small
func.func @main(%ctx: !ral.context) {
  %0 = memref.get_global @small : memref<2xf32>
  "test.use"(%0) : (memref<2xf32>) -> ()
  return
}
memref.global "private" constant @small : memref<2xf32> = dense<[1.0, 2.0]>

// -----

// A resource without bytes (an elided dump) cannot become weights: the error names the global.
// expected-error @+1 {{constant global @w holds resource 'gone' without its bytes}}
memref.global "private" constant @w : memref<2x2xf32> = dense_resource<gone>
func.func @main(%ctx: !ral.context) {
  %0 = memref.get_global @w : memref<2x2xf32>
  "test.use"(%0) : (memref<2x2xf32>) -> ()
  return
}

// -----

// A contraction's or convolution's constant operand gets a slot whatever its size (the
// runtime packs a library kernel's weights once only when they come from the blob), read
// directly or through a view; a small constant nothing contracts stays a global.
// CHECK: module attributes {ral.weights = {bytes = 72 : i64, constants = [{name = "filter", {{.*}}}, {name = "b", offset = 64 : i64, {{.*}}}]}}
// CHECK-NOT: memref.global "private" constant @filter
// CHECK-NOT: memref.global "private" constant @b
// CHECK: memref.global "private" constant @other
// CHECK: ral.constant %{{.*}}, 0 : memref<1x3x3x1xf32>
// CHECK: ral.constant %{{.*}}, 64 : memref<2x1xf32>
// CHECK: memref.get_global @other
memref.global "private" constant @filter : memref<1x3x3x1xf32> = dense<[[[[1.0], [2.0], [3.0]], [[4.0], [5.0], [6.0]], [[7.0], [8.0], [9.0]]]]>
memref.global "private" constant @b : memref<2x1xf32> = dense<[[1.0], [2.0]]>
memref.global "private" constant @other : memref<2xf32> = dense<[1.0, 2.0]>
func.func @main(%ctx: !ral.context, %x: memref<1x5x5x1xf32>, %y: memref<1x3x3x1xf32>, %a: memref<4x2xf32>, %c: memref<4x1xf32>) {
  %f = memref.get_global @filter : memref<1x3x3x1xf32>
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %f : memref<1x5x5x1xf32>, memref<1x3x3x1xf32>) outs(%y : memref<1x3x3x1xf32>)
  %b = memref.get_global @b : memref<2x1xf32>
  %bt = memref.transpose %b (d0, d1) -> (d1, d0) : memref<2x1xf32> to memref<1x2xf32, strided<[1, 1]>>
  %bv = memref.collapse_shape %b [[0, 1]] : memref<2x1xf32> into memref<2xf32>
  %bm = memref.expand_shape %bv [[0, 1]] output_shape [2, 1] : memref<2xf32> into memref<2x1xf32>
  linalg.matmul ins(%a, %bm : memref<4x2xf32>, memref<2x1xf32>) outs(%c : memref<4x1xf32>)
  %o = memref.get_global @other : memref<2xf32>
  "test.use"(%o, %bt) : (memref<2xf32>, memref<1x2xf32, strided<[1, 1]>>) -> ()
  return
}
