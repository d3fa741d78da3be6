//===- RalBase.td - The ral dialect and its context type ---*- tablegen -*-===//
#ifndef LOUPE_DIALECT_RAL_RALBASE
#define LOUPE_DIALECT_RAL_RALBASE

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/OpBase.td"

def Ral_Dialect : Dialect {
  let name = "ral";
  let cppNamespace = "::loupe::ralir";
  let summary = "Loupe's runtime abstraction layer (after BladeDISC's RAL)";
  let description = [{
    The `ral` dialect models what compiled code asks of the runtime (seed document
    000, BladeDISC RAL). Every stateful operation goes through an opaque context
    passed as the entry function's only argument: inputs are received and outputs
    sent one by one (so partial execution and early outputs are possible), and
    library kernels, allocations and launches are uniform, type-erased dispatches
    that `ral-to-llvm` turns into `ral_api_call(ctx, name, args)`.
  }];
  let useDefaultTypePrinterParser = 1;
}

class Ral_Type<string name, string typeMnemonic> : TypeDef<Ral_Dialect, name> {
  let mnemonic = typeMnemonic;
}

def Ral_ContextType : Ral_Type<"Context", "context"> {
  let summary = "The runtime's execution context";
  let description = [{
    An opaque handle to the runtime's `ExecutionContext` of one call of the
    compiled entry function; lowered to `!llvm.ptr`. Every RAL API takes it as its
    first argument.
  }];
}

class Ral_Op<string mnemonic, list<Trait> traits = []>
    : Op<Ral_Dialect, mnemonic, traits>;

#endif // LOUPE_DIALECT_RAL_RALBASE
