// loupe-sink-transposes: the transposes an ONNX import puts around NHWC convolutions move
// below elementwise ops and reductions and cancel.
// RUN: loupe-opt --split-input-file --loupe-sink-transposes %s | FileCheck %s

// Between two convolutions: ReLU, an SE-style global sum and a per-channel scale run on the
// NHWC value; the pair of transposes around them folds away. The reduction's axis follows the
// permutation (NCHW H = 2 -> NHWC 1); the small reduced vector keeps its transpose, and the
// constant scale gets the inverse one (folded). The last multiply reads the ReLU twice, once
// through the scale: it takes the NHWC values once both have moved.
// CHECK-LABEL: func.func @between_convs
// CHECK-SAME: (%[[X:.*]]: tensor<1x16x16x32xf32>)
// CHECK: %[[C:.*]] = "tosa.const"() <{value = dense<2.000000e+00> : tensor<1x1x1x32xf32>}>
// CHECK: %[[R:.*]] = tosa.clamp %[[X]] {{.*}} -> tensor<1x16x16x32xf32>
// CHECK: %[[S:.*]] = tosa.reduce_sum %[[R]] {axis = 1 : i32} : (tensor<1x16x16x32xf32>) -> tensor<1x1x16x32xf32>
// CHECK: %[[ST:.*]] = tosa.transpose %[[S]], %{{.*}} -> tensor<1x32x1x16xf32>
// CHECK: %[[M:.*]] = tosa.mul %[[R]], %[[C]] {{.*}} -> tensor<1x16x16x32xf32>
// CHECK: %[[RM:.*]] = tosa.mul %[[R]], %[[M]] {{.*}} -> tensor<1x16x16x32xf32>
// CHECK-NOT: tosa.transpose
// CHECK: return %[[RM]], %[[ST]]
func.func @between_convs(%x: tensor<1x16x16x32xf32>) -> (tensor<1x16x16x32xf32>, tensor<1x32x1x16xf32>) {
  %to_nchw = "tosa.const"() {value = dense<[0, 3, 1, 2]> : tensor<4xi32>} : () -> tensor<4xi32>
  %to_nhwc = "tosa.const"() {value = dense<[0, 2, 3, 1]> : tensor<4xi32>} : () -> tensor<4xi32>
  %scale = "tosa.const"() {value = dense<2.0> : tensor<1x32x1x1xf32>} : () -> tensor<1x32x1x1xf32>
  %t = tosa.transpose %x, %to_nchw : (tensor<1x16x16x32xf32>, tensor<4xi32>) -> tensor<1x32x16x16xf32>
  %r = tosa.clamp %t {max_fp = 3.40282347E+38 : f32, max_int = 2147483647 : i64, min_fp = 0.0 : f32, min_int = 0 : i64} : (tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
  %s = tosa.reduce_sum %r {axis = 2 : i32} : (tensor<1x32x16x16xf32>) -> tensor<1x32x1x16xf32>
  %m = tosa.mul %r, %scale {shift = 0 : i8} : (tensor<1x32x16x16xf32>, tensor<1x32x1x1xf32>) -> tensor<1x32x16x16xf32>
  %rm = tosa.mul %r, %m {shift = 0 : i8} : (tensor<1x32x16x16xf32>, tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
  %back = tosa.transpose %rm, %to_nhwc : (tensor<1x32x16x16xf32>, tensor<4xi32>) -> tensor<1x16x16x32xf32>
  return %back, %s : tensor<1x16x16x32xf32>, tensor<1x32x1x16xf32>
}

// -----

// A reader that cannot take the NHWC value (a concat here) keeps the transpose where it is,
// for the ReLU beside it too: sinking never adds a transpose. A reshape of a transpose that
// only moves unit dims reads the input.
// CHECK-LABEL: func.func @blocked
// CHECK: %[[T:.*]] = tosa.transpose %arg0
// CHECK: tosa.concat %[[T]], %[[T]]
// CHECK: tosa.clamp %[[T]]
// CHECK-NOT: tosa.transpose
// CHECK: tosa.reshape %arg1 {new_shape = array<i64: 1, 8192>}
func.func @blocked(%x: tensor<1x16x16x32xf32>, %v: tensor<1x1x1x8192xf32>) -> (tensor<2x32x16x16xf32>, tensor<1x32x16x16xf32>, tensor<1x8192xf32>) {
  %to_nchw = "tosa.const"() {value = dense<[0, 3, 1, 2]> : tensor<4xi32>} : () -> tensor<4xi32>
  %t = tosa.transpose %x, %to_nchw : (tensor<1x16x16x32xf32>, tensor<4xi32>) -> tensor<1x32x16x16xf32>
  %c = tosa.concat %t, %t {axis = 0 : i32} : (tensor<1x32x16x16xf32>, tensor<1x32x16x16xf32>) -> tensor<2x32x16x16xf32>
  %r = tosa.clamp %t {max_fp = 3.40282347E+38 : f32, max_int = 2147483647 : i64, min_fp = 0.0 : f32, min_int = 0 : i64} : (tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
  %vt = tosa.transpose %v, %to_nchw : (tensor<1x1x1x8192xf32>, tensor<4xi32>) -> tensor<1x8192x1x1xf32>
  %flat = tosa.reshape %vt {new_shape = array<i64: 1, 8192>} : (tensor<1x8192x1x1xf32>) -> tensor<1x8192xf32>
  return %c, %r, %flat : tensor<2x32x16x16xf32>, tensor<1x32x16x16xf32>, tensor<1x8192xf32>
}

// -----

// A small tensor's transpose stays where it is (this bounds the rewriting).
// CHECK-LABEL: func.func @small
// CHECK: tosa.transpose
// CHECK-NEXT: tosa.clamp
func.func @small(%x: tensor<1x2x2x16xf32>) -> tensor<1x16x2x2xf32> {
  %to_nchw = "tosa.const"() {value = dense<[0, 3, 1, 2]> : tensor<4xi32>} : () -> tensor<4xi32>
  %t = tosa.transpose %x, %to_nchw : (tensor<1x2x2x16xf32>, tensor<4xi32>) -> tensor<1x16x2x2xf32>
  %r = tosa.clamp %t {max_fp = 3.40282347E+38 : f32, max_int = 2147483647 : i64, min_fp = 0.0 : f32, min_int = 0 : i64} : (tensor<1x16x2x2xf32>) -> tensor<1x16x2x2xf32>
  return %r : tensor<1x16x2x2xf32>
}
