//===- RalOps.td - ral dialect operations ------------------*- tablegen -*-===//
#ifndef LOUPE_DIALECT_RAL_RALOPS
#define LOUPE_DIALECT_RAL_RALOPS

include "loupe/Dialect/Ral/IR/RalBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"

def Ral_RecvInputOp : Ral_Op<"recv_input", [MemoryEffects<[MemRead]>]> {
  let summary = "Receive one input of the entry function from the runtime";
  let description = [{
    Returns the buffer the caller bound as input `index`. The buffer belongs to the
    caller: compiled code only reads it. The runtime checks its dtype and shape
    against the result type and reports a mismatch as an error status.

    ```mlir
    %x = ral.recv_input %ctx, 0 : memref<8x64xf32>
    ```
  }];
  let arguments = (ins Ral_ContextType:$ctx, I64Attr:$index);
  let results = (outs AnyStaticShapeMemRef:$result);
  let assemblyFormat = "$ctx `,` $index attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Ral_RecvOutputOp : Ral_Op<"recv_output", [MemoryEffects<[MemRead]>]> {
  let summary = "The buffer output `index` is to be computed in";
  let description = [{
    Returns the buffer the caller bound as output `index` when its dtype and shape match
    the result type, else a fresh one the runtime owns and hands over as that output: the
    program computes the output in place, and `ral.send_output` of the same buffer copies
    nothing. The buffer is never freed by the program. CPU only (a GPU output lives in
    device memory until it is sent). At the ABI the shape follows the index as one i64 per
    dim (`ral_recv_output___cpu___pvoid_i64_i64_i64___m2df32`), so the runtime checks the
    caller's buffer against it before any code writes there.

    ```mlir
    %y = ral.recv_output %ctx, 0 : memref<8x10xf32>
    ```
  }];
  let arguments = (ins Ral_ContextType:$ctx, I64Attr:$index);
  let results = (outs AnyStaticShapeMemRef:$result);
  let assemblyFormat = "$ctx `,` $index attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Ral_SendOutputOp : Ral_Op<"send_output", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Hand one output of the entry function to the runtime";
  let description = [{
    Copies `value` into the output slot `index` of the execution context. It is
    placed right after the value is computed, so the runtime may release an output
    before the rest of the function has run.

    ```mlir
    ral.send_output %ctx, 0, %probs : memref<8x10xf32>
    ```
  }];
  let arguments = (ins Ral_ContextType:$ctx, I64Attr:$index, AnyStaticShapeMemRef:$value);
  let assemblyFormat = "$ctx `,` $index `,` $value attr-dict `:` type($value)";
  let hasVerifier = 1;
}

def Ral_DispatchOp : Ral_Op<"dispatch", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "A type-erased call of a runtime API (library kernel, driver call)";
  let description = [{
    Calls the runtime API `callee` on `device` with `args`. `ral-to-llvm` turns it
    into `ral_api_call(ctx, "<abi>", void** args)` where `abi` is the full encoded
    name `callee___device___in_types___out_types` computed from the operand and
    result types (type codes in docs/ral.md). `backend_config` is an opaque string
    handed to the kernel (e.g. a oneDNN post-op list). A dispatch may read and write
    any of its memref operands; `has_side_effect` marks calls whose effect is outside
    their operands (tracing, runtime state).

    ```mlir
    ral.dispatch %ctx, %a, %b, %c, %false, %false
        {callee = "ral_gemm", device = "cpu", backend_config = ""}
        : (memref<8x64xf32>, memref<64x128xf32>, memref<8x128xf32>, i1, i1) -> ()
    ```
  }];
  let arguments = (ins Ral_ContextType:$ctx, Variadic<AnyType>:$args,
                       StrAttr:$callee, StrAttr:$device,
                       DefaultValuedStrAttr<StrAttr, "">:$backend_config,
                       OptionalAttr<StrAttr>:$abi,
                       UnitAttr:$has_side_effect);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $ctx (`,` $args^)? attr-dict `:` functional-type($args, $results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The full API name `callee___device___ins___outs` for the current types.
    std::string encodedName();
  }];
}

def Ral_CpuLaunchOp : Ral_Op<"cpu_launch", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Run a kernel function over an iteration space on the CPU driver";
  let description = [{
    Launches `kernel` once per workgroup over the 1-D iteration space
    `[0, size)` split into workgroups of `block` iterations each; the CPU driver
    runs workgroups on its thread pool (GPU-like CPU scheduling, seed documents
    000 and 001). The kernel receives `(ctx, begin, end, args...)`.

    ```mlir
    ral.cpu_launch %ctx, @fused_kernel_0, %size, %block, %a, %b : memref<4096xf32>, memref<4096xf32>
    ```
  }];
  let arguments = (ins Ral_ContextType:$ctx, FlatSymbolRefAttr:$kernel, Index:$size,
                       Index:$block, Variadic<AnyType>:$args);
  let assemblyFormat = [{
    $ctx `,` $kernel `,` $size `,` $block (`,` $args^ `:` type($args))? attr-dict
  }];
}

def Ral_ConstantOp : Ral_Op<"constant", [Pure]> {
  let summary = "A constant (weight) of the artifact's weight blob";
  let description = [{
    Returns the host buffer of the constant stored at byte `offset` of the
    artifact's weight blob (seed document 000, "Constant Loading"): the runtime
    maps the blob once per loaded artifact and every execution reads the same
    bytes; compiled code never writes them. `ral-externalize-constants` makes
    these ops from the large constant globals, so LLVM never sees the weights.
    The result has a static shape and identity layout; its byte size and
    `offset` must lie inside the blob (the runtime checks it).

    ```mlir
    %w = ral.constant %ctx, 4096 : memref<64x3x7x7xf32>
    ```
  }];
  let arguments = (ins Ral_ContextType:$ctx, I64Attr:$offset);
  let results = (outs AnyStaticShapeMemRef:$result);
  let assemblyFormat = "$ctx `,` $offset attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Ral_CheckOp : Ral_Op<"check", [MemoryEffects<[MemWrite]>]> {
  let summary = "A run-time condition: the execution fails with `message` unless it holds";
  let description = [{
    When `condition` is false, the runtime records an invalid-argument error
    carrying `message` for the execution (the run fails with exit code 2, as for a
    bad input); the artifact's code goes on, and its outputs are not used. ONNX ops
    whose output size depends on input values compute into the size the model
    declares and check with this op that the data produce that many
    (`ral-inject-execution-context` makes it from `cf.assert`).

    ```mlir
    ral.check %ctx, %ok, "NonZero found 5 elements, the model declares 3"
    ```
  }];
  let arguments = (ins Ral_ContextType:$ctx, I1:$condition, StrAttr:$message);
  let assemblyFormat = "$ctx `,` $condition `,` $message attr-dict";
}

def Ral_DeviceConstantOp : Ral_Op<"device_constant", [Pure, AllTypesMatch<["host", "result"]>]> {
  let summary = "A device copy of a host constant, uploaded once per context";
  let description = [{
    Returns a device buffer holding the contents of `host` (a constant: a
    `ral.constant` of the weight blob, or a small `memref.get_global`). The runtime copies it to the GPU on
    the first call and returns the same buffer on every later execution of the
    context (seed document 000, "Constant Loading"); the buffer is freed with
    the context. `host` must have a static shape and identity layout.

    ```mlir
    %w = ral.constant %ctx, 0 : memref<128x64xf32>
    %dw = ral.device_constant %ctx, %w : memref<128x64xf32>
    ```
  }];
  let arguments = (ins Ral_ContextType:$ctx, AnyStaticShapeMemRef:$host);
  let results = (outs AnyStaticShapeMemRef:$result);
  let assemblyFormat = "$ctx `,` $host attr-dict `:` type($result)";
  let hasVerifier = 1;
}

#endif // LOUPE_DIALECT_RAL_RALOPS
