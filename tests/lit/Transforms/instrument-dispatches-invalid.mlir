// RUN: loupe-opt --loupe-instrument-dispatches --split-input-file --verify-diagnostics %s

// Two public functions and no @main: the entry is ambiguous.
// expected-error @+1 {{no entry function: expected @main or a single public function}}
module {
  func.func @first() {
    return
  }
  func.func @second() {
    return
  }
}

// -----

// The entry must already talk to the runtime through a context.
// expected-error @+1 {{expected a !ral.context first argument (run ral-inject-execution-context first)}}
func.func @main(%m: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%m : memref<4xf32>)
  return
}
