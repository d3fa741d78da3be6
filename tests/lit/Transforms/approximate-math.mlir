// RUN: loupe-opt --loupe-approximate-math %s | FileCheck %s
// RUN: loupe-opt --loupe-approximate-math="exact=true" %s | FileCheck %s --check-prefix=LIBM

// exp, tanh and erf become polynomials (arith ops and bit casts, no calls); sin stays with
// libm (its polynomial loses up to 1e-6 on range reduction); f64 is left alone. The module
// says which math its kernels run.

// CHECK: module attributes {loupe.math = "polynomial"}
// CHECK-LABEL: func.func @kernel
// CHECK-NOT: math.exp
// CHECK-NOT: math.tanh
// CHECK-NOT: math.erf
// CHECK: math.sin
// CHECK: math.exp %{{.*}} : f64
// LIBM: module attributes {loupe.math = "libm"}
// LIBM: math.exp %{{.*}} : f32
// LIBM: math.tanh
// LIBM: math.erf
func.func @kernel(%x: f32, %d: f64) -> (f32, f32, f32, f32, f64) {
  %e = math.exp %x : f32
  %t = math.tanh %x : f32
  %r = math.erf %x : f32
  %s = math.sin %x : f32
  %ed = math.exp %d : f64
  return %e, %t, %r, %s, %ed : f32, f32, f32, f32, f64
}
