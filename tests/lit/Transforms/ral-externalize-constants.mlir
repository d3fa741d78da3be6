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
