// RUN: not loupe-opt --ral-lower-to-library-call="backends=mkl,codegen" %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not loupe-opt --ral-lower-to-library-call="overrides=fc" %s 2>&1 | FileCheck %s --check-prefix=MALFORMED

// UNKNOWN: error: unknown backend 'mkl' in --backends
// MALFORMED: error: backend override 'fc' is not loc=backend
func.func @main(%ctx: !ral.context) {
  return
}
