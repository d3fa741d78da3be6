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
