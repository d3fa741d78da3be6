// RUN: loupe-opt --ral-inject-execution-context --split-input-file %s | FileCheck %s --check-prefix=INJECT
// RUN: loupe-opt --ral-inject-execution-context --ral-to-llvm %s | FileCheck %s --check-prefix=LLVM

// A run-time condition of the importer (cf.assert) reports through the context instead of
// aborting: ral.check, then one ral_check(ctx, condition, message) call whose message names
// the op's location.

// INJECT-LABEL: func.func @main
// INJECT-SAME: (%[[CTX:.*]]: !ral.context)
// INJECT: %[[OK:.*]] = memref.load
// INJECT: ral.check %[[CTX]], %[[OK]], "Unique found another count"
// INJECT-NOT: cf.assert

// LLVM-DAG: llvm.mlir.global internal constant @{{.*}}("ral_check___cpu___pvoid_i8_pvoid___void\00")
// LLVM-DAG: llvm.mlir.global internal constant @{{.*}}("Unique found another count (at Unique_0)\00")
// LLVM: %[[BYTE:.*]] = llvm.zext %{{.*}} : i1 to i8
// LLVM: llvm.call @ral_api_call
func.func @main(%x: memref<1xi1>) {
  %c0 = arith.constant 0 : index
  %ok = memref.load %x[%c0] : memref<1xi1>
  cf.assert %ok, "Unique found another count" loc("Unique_0")
  return
}
