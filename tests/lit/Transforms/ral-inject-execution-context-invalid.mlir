// RUN: loupe-opt --ral-inject-execution-context --split-input-file --verify-diagnostics %s

// expected-error @+1 {{inputs and results must be statically shaped, identity-layout memrefs of RAL element types; got 'tensor<4xf32>'}}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{got 'memref<?xf32>'}}
func.func @main(%x: memref<?xf32>) {
  return
}

// -----

// expected-error @+1 {{already takes a !ral.context}}
func.func @main(%ctx: !ral.context) {
  return
}
