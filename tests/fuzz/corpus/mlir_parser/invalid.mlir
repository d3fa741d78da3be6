// RUN: loupe-opt %s -split-input-file -verify-diagnostics

func.func @negative_index(%ctx: !ral.context) {
  // expected-error @+1 {{input index must be >= 0}}
  %x = ral.recv_input %ctx, -1 : memref<4xf32>
  return
}

// -----

func.func @bad_element(%ctx: !ral.context, %v: memref<4xcomplex<f32>>) {
  // expected-error @+1 {{value type 'memref<4xcomplex<f32>>' has no RAL type code}}
  ral.send_output %ctx, 0, %v : memref<4xcomplex<f32>>
  return
}

// -----

func.func @abi_mismatch(%ctx: !ral.context, %m: memref<4xf32>) {
  // expected-error @+1 {{abi 'ral_sort___cpu___pvoid___void' does not match its types ('ral_sort___cpu___pvoid_m1df32___void')}}
  ral.dispatch %ctx, %m {callee = "ral_sort", device = "cpu", abi = "ral_sort___cpu___pvoid___void"} : (memref<4xf32>) -> ()
  return
}

// -----

func.func @separator(%ctx: !ral.context) {
  // expected-error @+1 {{callee and device must not contain the '___' separator}}
  ral.dispatch %ctx {callee = "a___b", device = "cpu"} : () -> ()
  return
}
