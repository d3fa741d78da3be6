//===- LoupeOps.td - The loupe dialect: dispatch regions ---*- tablegen -*-===//
#ifndef LOUPE_DIALECT_LOUPE_LOUPEOPS
#define LOUPE_DIALECT_LOUPE_LOUPEOPS

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Loupe_Dialect : Dialect {
  let name = "loupe";
  let cppNamespace = "::loupe::loupeir";
  let summary = "Loupe's compiler decisions made visible in the IR";
  let description = [{
    The `loupe` dialect holds what the `cluster` phase decides: which ops form one
    fusion (a dispatch region, after IREE's `flow.dispatch.region`, seed 001), which
    backend runs it (RAF's op dialects, seed 004) and why. Its ops exist between the
    `cluster` and `lower` phases; `loupe-inline-clusters` dissolves them.
  }];
}

class Loupe_Op<string mnemonic, list<Trait> traits = []>
    : Op<Loupe_Dialect, mnemonic, traits>;

def Loupe_FusionOp : Loupe_Op<"fusion", [
    RecursiveMemoryEffects, SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "A cluster of ops compiled as one fusion by one backend";
  let description = [{
    The ops of the region form one cluster: they are fused into as few kernels as
    their backend allows and run by `backend`. The region is not isolated from
    above: it reads values defined before it (weights, other clusters' results);
    the values it yields are the cluster's outputs.

    - `id`: the cluster number (program order), kept on every op as `loupe.cluster`
      after the region is dissolved, so kernels and timings trace back to it;
    - `kind`: BladeDISC's fusion kind: kLoop (parallel loops only), kRowReduction /
      kColReduction (a reduction along the innermost / an outer dimension, with
      the elementwise ops feeding it), kInput (a windowed reduction such as
      pooling), kLibrary (a vendor kernel);
    - `backend`, `plevel`: the backend and its priority (loupe/Backends);
    - `pattern`: the library fuse pattern (`matmul_bias_act`, `conv_bias_act`) or
      the TVM/RAF op pattern of its heaviest op (elemwise, broadcast, injective,
      reduce, out_elemwise_fusable, opaque);
    - `reason`: why this backend and these ops, in words.

    ```mlir
    %0 = loupe.fusion "kLoop" on "codegen" attributes {id = 2 : i64, pattern = "broadcast",
                      plevel = 10 : i64, reason = "..."} -> tensor<8x128xf32> {
      %1 = linalg.generic ... loc("Add_1")
      %2 = linalg.generic ... loc("Relu_2")
      loupe.yield %2 : tensor<8x128xf32>
    }
    ```
  }];
  let arguments = (ins StrAttr:$kind, StrAttr:$backend, I64Attr:$id, StrAttr:$pattern,
                       I64Attr:$plevel, StrAttr:$reason);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $kind `on` $backend attr-dict-with-keyword (`->` type($results)^)? $body
  }];
  let hasVerifier = 1;
}

def Loupe_YieldOp : Loupe_Op<"yield", [Pure, ReturnLike, Terminator,
                                      HasParent<"FusionOp">]> {
  let summary = "The outputs of a loupe.fusion";
  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{ /* nothing to yield */ }]>];
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

#endif // LOUPE_DIALECT_LOUPE_LOUPEOPS
