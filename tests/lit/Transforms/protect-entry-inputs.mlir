// RUN: loupe-opt --loupe-protect-entry-inputs %s | FileCheck %s
// RUN: loupe-opt --loupe-protect-entry-inputs --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" %s | FileCheck %s --check-prefix=BUF

// Tensor arguments of the entry become read-only; others are untouched.
// CHECK-LABEL: func.func @main
// CHECK-SAME: %{{.*}}: tensor<4xf32> {bufferization.writable = false}
// CHECK-SAME: %{{.*}}: i32)

// Bufferization must then copy instead of writing into the caller's buffer.
// BUF-LABEL: func.func @main
// BUF: memref.alloc
// BUF: memref.copy
func.func @main(%t: tensor<4xf32>, %n: i32) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %v = arith.constant 1.0 : f32
  %r = tensor.insert %v into %t[%c0] : tensor<4xf32>
  return %r : tensor<4xf32>
}
