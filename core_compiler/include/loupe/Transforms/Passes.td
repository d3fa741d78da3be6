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

def RalInjectExecutionContext
    : Pass<"ral-inject-execution-context", "mlir::ModuleOp"> {
  let summary = "Make the entry function talk to the runtime only through its context";
  let description = [{
    Rewrites the (bufferized) entry function `(memref...) -> (memref...)` into
    `(!ral.context) -> ()`, as BladeDISC's RAL does (seed document 000):

    - every argument becomes `ral.recv_input %ctx, i` at the top of the body;
    - every returned buffer is handed over with `ral.send_output %ctx, j, %v`
      placed right after the last operation that may write the buffer or one of
      its aliases (views), so an output can leave before the rest has run;
    - the function returns nothing.

    Runs after one-shot bufferization and before buffer deallocation, which then
    frees the sent buffers after `ral.send_output` has read them. The original
    signature is kept in `ral.inputs` / `ral.outputs` type-array attributes.
  }];
  let dependentDialects = ["loupe::ralir::RalDialect"];
}

#endif // LOUPE_TRANSFORMS_PASSES
