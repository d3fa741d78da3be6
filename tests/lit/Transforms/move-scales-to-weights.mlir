// loupe-move-scales-to-weights: a per-channel scale of a fully connected layer's input
// becomes a scale of its weight's columns when the weight is a quarter of the input or less.
// RUN: loupe-opt --split-input-file --loupe-move-scales-to-weights --mlir-print-debuginfo --mlir-print-local-scope %s | FileCheck %s

// An SE block's end: x [1, 8, 8, 32] scaled per channel (the scale on either side of the
// multiply), then a 1x1 conv as fully_connected over 64 rows into 16 outputs (4 rows per
// output, the least that moves the product). The weight [16, 32] takes the scale as a
// [1, 32] row, under the product's location; the fully connected layer reads x's rows.
// CHECK-LABEL: func.func @se_block
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<1x8x8x32xf32> {{.*}}, %[[S:[a-z0-9]+]]: tensor<1x1x1x32xf32> {{.*}}, %[[W:[a-z0-9]+]]: tensor<16x32xf32> {{.*}}, %[[B:[a-z0-9]+]]: tensor<16xf32> {{.*}})
// CHECK: %[[ROW:.*]] = tosa.reshape %[[S]] {new_shape = array<i64: 1, 32>} {{.*}} -> tensor<1x32xf32> loc("se/Mul")
// CHECK: %[[WS:.*]] = tosa.mul %[[W]], %[[ROW]] {shift = 0 : i8} {{.*}} -> tensor<16x32xf32> loc("se/Mul")
// CHECK: %[[FLAT:.*]] = tosa.reshape %[[X]] {new_shape = array<i64: 64, 32>}
// CHECK: %[[FC:.*]] = tosa.fully_connected %[[FLAT]], %[[WS]], %[[B]]
// CHECK: return %[[FC]]
// CHECK-LABEL: func.func @scale_first
// CHECK: tosa.mul %arg2, %{{.*}} -> tensor<16x32xf32>
// CHECK: tosa.fully_connected
func.func @se_block(%x: tensor<1x8x8x32xf32>, %s: tensor<1x1x1x32xf32>, %w: tensor<16x32xf32>, %b: tensor<16xf32>) -> tensor<64x16xf32> {
  %m = tosa.mul %x, %s {shift = 0 : i8} : (tensor<1x8x8x32xf32>, tensor<1x1x1x32xf32>) -> tensor<1x8x8x32xf32> loc("se/Mul")
  %r = tosa.reshape %m {new_shape = array<i64: 64, 32>} : (tensor<1x8x8x32xf32>) -> tensor<64x32xf32>
  %y = tosa.fully_connected %r, %w, %b : (tensor<64x32xf32>, tensor<16x32xf32>, tensor<16xf32>) -> tensor<64x16xf32>
  return %y : tensor<64x16xf32>
}
func.func @scale_first(%x: tensor<1x8x8x32xf32>, %s: tensor<1x1x1x32xf32>, %w: tensor<16x32xf32>, %b: tensor<16xf32>) -> tensor<64x16xf32> {
  %m = tosa.mul %s, %x {shift = 0 : i8} : (tensor<1x1x1x32xf32>, tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  %r = tosa.reshape %m {new_shape = array<i64: 64, 32>} : (tensor<1x8x8x32xf32>) -> tensor<64x32xf32>
  %y = tosa.fully_connected %r, %w, %b : (tensor<64x32xf32>, tensor<16x32xf32>, tensor<16xf32>) -> tensor<64x16xf32>
  return %y : tensor<64x16xf32>
}

// -----

// Left alone: fewer than 4 input rows per output (64 rows into 17: the weight's transposed
// product would cost more than the input's); and, with 64 rows into 16 outputs, a product read
// twice (it must be computed anyway), a scale per row rather than per channel, and two full
// tensors multiplied.
// CHECK-LABEL: func.func @weight_too_large
// CHECK: tosa.mul %arg0, %arg1 {{.*}} -> tensor<1x8x8x32xf32>
// CHECK: tosa.fully_connected
func.func @weight_too_large(%x: tensor<1x8x8x32xf32>, %s: tensor<1x1x1x32xf32>, %w: tensor<17x32xf32>, %b: tensor<17xf32>) -> tensor<64x17xf32> {
  %m = tosa.mul %x, %s {shift = 0 : i8} : (tensor<1x8x8x32xf32>, tensor<1x1x1x32xf32>) -> tensor<1x8x8x32xf32>
  %r = tosa.reshape %m {new_shape = array<i64: 64, 32>} : (tensor<1x8x8x32xf32>) -> tensor<64x32xf32>
  %y = tosa.fully_connected %r, %w, %b : (tensor<64x32xf32>, tensor<17x32xf32>, tensor<17xf32>) -> tensor<64x17xf32>
  return %y : tensor<64x17xf32>
}

// CHECK-LABEL: func.func @not_a_channel_scale
// CHECK: tosa.mul %arg0, %arg1 {{.*}} -> tensor<1x8x8x32xf32>
// CHECK: tosa.mul %arg0, %arg2 {{.*}} -> tensor<1x8x8x32xf32>
// CHECK: tosa.mul %arg0, %arg0 {{.*}} -> tensor<1x8x8x32xf32>
// CHECK-NOT: tosa.mul
func.func @not_a_channel_scale(%x: tensor<1x8x8x32xf32>, %s: tensor<1x1x1x32xf32>, %t: tensor<1x8x8x1xf32>, %w: tensor<16x32xf32>, %b: tensor<16xf32>) -> (tensor<64x16xf32>, tensor<1x8x8x32xf32>, tensor<64x16xf32>, tensor<64x16xf32>) {
  %m = tosa.mul %x, %s {shift = 0 : i8} : (tensor<1x8x8x32xf32>, tensor<1x1x1x32xf32>) -> tensor<1x8x8x32xf32>
  %r = tosa.reshape %m {new_shape = array<i64: 64, 32>} : (tensor<1x8x8x32xf32>) -> tensor<64x32xf32>
  %y = tosa.fully_connected %r, %w, %b : (tensor<64x32xf32>, tensor<16x32xf32>, tensor<16xf32>) -> tensor<64x16xf32>
  %m2 = tosa.mul %x, %t {shift = 0 : i8} : (tensor<1x8x8x32xf32>, tensor<1x8x8x1xf32>) -> tensor<1x8x8x32xf32>
  %r2 = tosa.reshape %m2 {new_shape = array<i64: 64, 32>} : (tensor<1x8x8x32xf32>) -> tensor<64x32xf32>
  %y2 = tosa.fully_connected %r2, %w, %b : (tensor<64x32xf32>, tensor<16x32xf32>, tensor<16xf32>) -> tensor<64x16xf32>
  %m3 = tosa.mul %x, %x {shift = 0 : i8} : (tensor<1x8x8x32xf32>, tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  %r3 = tosa.reshape %m3 {new_shape = array<i64: 64, 32>} : (tensor<1x8x8x32xf32>) -> tensor<64x32xf32>
  %y3 = tosa.fully_connected %r3, %w, %b : (tensor<64x32xf32>, tensor<16x32xf32>, tensor<16xf32>) -> tensor<64x16xf32>
  return %y, %m, %y2, %y3 : tensor<64x16xf32>, tensor<1x8x8x32xf32>, tensor<64x16xf32>, tensor<64x16xf32>
}
