//===- Passes.td - Loupe's own compiler passes -------------*- tablegen -*-===//
//
// Every pass Loupe adds to the upstream MLIR pipeline is declared here.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_TRANSFORMS_PASSES
#define LOUPE_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def InstrumentDispatches : Pass<"loupe-instrument-dispatches", "mlir::ModuleOp"> {
  let summary = "Number every kernel of the entry function and bracket it with runtime hooks";
  let description = [{
    Runs on bufferized IR. Every top-level structured op of the entry function (a
    `linalg` op or a `memref.copy`) becomes a dispatch: it is numbered in program order,
    tagged with `loupe.dispatch_id`, and bracketed by calls to the runtime's tracer hooks

    ```mlir
    func.call @loupe_ral_dispatch_begin(%id) : (i64) -> ()
    linalg.matmul {loupe.dispatch_id = 3 : i64} ins(...) outs(...)
    func.call @loupe_ral_dispatch_end(%id) : (i64) -> ()
    ```

    The entry function also receives a `loupe.dispatches` array attribute describing each
    dispatch (`id`, `name`, `op`, `loc`); the artifact emitter turns it into the artifact's
    manifest, so the profiler can name every kernel and trace it back to its source op.
    The entry function is `main` if it exists, else the only public function.
  }];
  let dependentDialects = ["mlir::func::FuncDialect", "mlir::arith::ArithDialect"];
}

def ProtectEntryInputs : Pass<"loupe-protect-entry-inputs", "mlir::ModuleOp"> {
  let summary = "Forbid bufferization from writing into the entry function's inputs";
  let description = [{
    Marks every tensor argument of the entry function `bufferization.writable = false`.
    The runtime binds caller-owned buffers to those arguments and reuses them across
    repetitions, so one-shot bufferization must copy instead of updating them in place.
  }];
}

#endif // LOUPE_TRANSFORMS_PASSES
