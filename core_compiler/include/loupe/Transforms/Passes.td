//===- Passes.td - Loupe's own compiler passes -------------*- tablegen -*-===//
//
// Every pass Loupe adds to the upstream MLIR pipeline is declared here.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_TRANSFORMS_PASSES
#define LOUPE_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def InstrumentDispatches : Pass<"loupe-instrument-dispatches", "mlir::ModuleOp"> {
  let summary = "Number every kernel of the entry function and trace it through the RAL";
  let description = [{
    Runs after ral-inject-execution-context. Every top-level kernel of the entry
    function (a `linalg` op, a `memref.copy`, or a library `ral.dispatch`) becomes
    a dispatch: numbered in program order, tagged `loupe.dispatch_id`, and
    bracketed by the runtime's tracing APIs

    ```mlir
    ral.dispatch %ctx, %id, %name, %backend, %loc {callee = "ral_dispatch_begin", ...}
    linalg.matmul {loupe.dispatch_id = 3 : i64} ins(...) outs(...)
    ral.dispatch %ctx, %id {callee = "ral_dispatch_end", ...}
    ```

    where the strings are the dispatch's name, its backend (`codegen` or `library`)
    and its source ops. The entry also gets a `loupe.dispatches` array attribute
    (`id`, `name`, `op`, `loc`, `backend`), which becomes the artifact manifest's
    dispatch table, so the profiler can trace every kernel back to its source op.
    With `device=gpu` the tracing APIs are the GPU ones, which also push the
    dispatch id as a CUPTI external correlation id.
    A code-generated dispatch with transcendental math gets a `math` entry naming its ops
    and what computes them: "exp, tanh: polynomial; sin: libm" (loupe-approximate-math).
  }];
  let options = [
    Option<"device", "device", "std::string", /*default=*/"\"cpu\"",
           "Device of the tracing APIs (cpu, gpu)">,
    Option<"exactMath", "exact-math", "bool", /*default=*/"false",
           "The compile keeps libm math (a dispatch's `math` entry says so)">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::LLVM::LLVMDialect",
                           "loupe::ralir::RalDialect"];
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
    - on the CPU, a returned buffer the entry allocates (`memref.alloc`, static
      shape, identity layout) becomes `ral.recv_output %ctx, j`: the output is
      computed straight into the caller's buffer and its send copies nothing;
    - the function returns nothing;
    - every `cf.assert` (a run-time condition of the importer) becomes
      `ral.check %ctx, %cond, "message"`: a failed condition fails the execution
      with the message instead of aborting the process.

    Runs after one-shot bufferization and before buffer deallocation, which then
    frees the sent buffers after `ral.send_output` has read them. The original
    signature is kept in `ral.inputs` / `ral.outputs` type-array attributes.
  }];
  let options = [
    Option<"device", "device", "std::string", /*default=*/"\"cpu\"",
           "Device of the entry's buffers (cpu: outputs in place; gpu: sent by copy)">,
  ];
  let dependentDialects = ["loupe::ralir::RalDialect"];
}

def RalExternalizeConstants : Pass<"ral-externalize-constants", "mlir::ModuleOp"> {
  let summary = "Move large constants out of the code into the artifact's weight blob";
  let description = [{
    Runs after `ral-inject-execution-context`. Every constant `memref.global`
    whose initial value is a `dense_resource` blob (the ONNX importer makes one of
    every initializer of at least `min-bytes` bytes) or a dense value of at least
    `min-bytes` bytes, or of any size when a contraction or convolution reads it
    (directly or through a reshape or transpose view: a library kernel's weights, which
    the runtime packs into the kernel's layout once only when they come from the
    blob), gets a 64-byte aligned slot in the weight blob, and each
    `memref.get_global` of it in the entry becomes

    ```mlir
    %w = ral.constant %ctx, <offset> : memref<...>
    ```

    The globals are erased; the module keeps the blob's table as the dictionary
    `ral.weights` (`bytes`: the total; `constants`: one `{name, offset, value}`
    dictionary per slot), which the artifact
    emitter writes as one binary section of the shared object and the runtime maps
    at load (seed document 000, "Constant Loading"). So weights are never turned
    into LLVM constants, whatever their size.
  }];
  let options = [
    Option<"minBytes", "min-bytes", "int64_t", /*default=*/"1024",
           "Dense constants of at least this many bytes move to the blob">,
  ];
  let dependentDialects = ["loupe::ralir::RalDialect"];
}

def RalLowerToLibraryCall : Pass<"ral-lower-to-library-call", "mlir::ModuleOp"> {
  let summary = "Choose a backend for every library-capable op; library ops become ral.dispatch";
  let description = [{
    In a function that takes a `!ral.context`, every `linalg.matmul`,
    `linalg.batch_matmul` and `linalg.conv_2d_nhwc_fhwc` on static f32 memrefs gets
    a backend from the backend registry (loupe/Backends/BackendRegistry.h, RAF's op
    dialects, seed 004): a per-op override keyed by its `loc`, else the first of
    `backends` that runs it, else the highest plevel on `device`.

    A library backend replaces the op by one `ral.dispatch` of its kernel:
    - matmul / batch_matmul on a zero-filled C (the `linalg.fill` of 0 that TOSA
      lowering puts before them) -> `ral_gemm_<backend>` / `ral_batch_gemm_<backend>`
      (C = A * B, overwriting C; the fill is dropped);
    - conv on an output initialised with zeros or with a broadcast per-channel
      bias -> `ral_conv_<backend>(input, filter, bias, output, params)` on NCHW /
      OIHW views (`memref.transpose` of the NHWC / FHWC buffers, so no copy),
      params = strides, zero padding (TOSA pads the input first), dilations, groups 1.
    - pattern fusion, when the backend registers `matmul_bias_act`: a batch-1 matmul
      whose only reader is an elementwise `C + bias[j]`, `max(C + bias[j], 0)` or the
      exact GELU of `C + bias[j]` into another buffer, in the matmul's cluster -> one
      epilogue kernel (`ral_gemm_epilogue_onednn`) at that op; when it registers
      `conv_bias_act`: a conv whose first reader is the elementwise ReLU (`max(x, 0)`
      or a clamp to [0, max f32]) of its NHWC output, in place or into another NHWC
      buffer, in the conv's cluster -> the conv kernel at that op, writing the ReLU's
      buffer, with params[kConvActivation] = 1 (relu).
    The dispatch's `abi` attribute is filled in with the encoded name while the types
    are known. Every op considered gets `loupe.backend`, `loupe.plevel`,
    `loupe.backend_reason`, `loupe.signature` (the tuning table's key),
    `loupe.candidates` (every backend that runs it on `device`) and
    `loupe.selected_loc` (its own source: what an override of it names), kept on the op when
    it stays with codegen or reference;
    `loupe-instrument-dispatches` copies them into the dispatch table. A library
    dispatch whose op other library backends also run on `device` gets
    `loupe.fallbacks`: their kernels (same ABI), ranked as the choice was made
    (`BackendRegistry::fallbacks`), e.g. `["ral_gemm_openblas"]` after
    `ral_gemm_onednn`; the runtime calls them in order when the kernel fails, and the
    artifact's manifest lists them per dispatch.
  }];
  let options = [
    ListOption<"backendOrder", "backends", "std::string",
               "Ordered backend preference (empty: highest plevel)">,
    ListOption<"backendOverrides", "overrides", "std::string",
               "Per-op backends as loc=backend (an ONNX node name or file:line)">,
    ListOption<"tunedBackends", "tuned", "std::string",
               "Tuned backends as signature=backend (loupe tune's table, --backends auto)">,
    Option<"device", "device", "std::string", /*default=*/"\"cpu\"", "Target device">,
  ];
  let dependentDialects = ["loupe::ralir::RalDialect", "mlir::memref::MemRefDialect"];
}

def RalOutlineCpuKernels : Pass<"ral-outline-cpu-kernels", "mlir::ModuleOp"> {
  let summary = "Outline parallel loops into CPU kernels launched with ral.cpu_launch";
  let description = [{
    In every function that takes a `!ral.context`, each outermost `scf.parallel`
    without reductions (what `convert-linalg-to-parallel-loops` makes of a
    code-generated linalg op) becomes a private kernel function and one
    `ral.cpu_launch`, so the CPU driver runs it as workgroups on its thread pool
    (GPU-like CPU scheduling: seed documents 000 and 001, IREE's CPU HAL).

    The kernel iterates a 1-D range `[begin, end)` of the linearised leading
    parallel dimensions: the fewest leading dimensions whose static trip counts
    reach 64 (all of them if none does); the remaining dimensions stay an inner
    `scf.parallel` that runs serially inside one iteration, so the innermost loop
    keeps unit-stride accesses. Constants, globals and other operand-free pure
    values are cloned into the kernel; every other value it uses is passed. A
    memref parameter whose buffer (after following views) no other parameter
    views gets `ral.noalias`, which ral-to-llvm turns into LLVM `noalias`.

    ```mlir
    ral.cpu_launch %ctx, @main_kernel_0, %size, %block, %a, %b : memref<8x128xf32>, memref<8x128xf32>
    func.func private @main_kernel_0(%ctx: !ral.context, %begin: index, %end: index,
                                     %a: memref<8x128xf32>, %b: memref<8x128xf32>)
    ```

    A small scratch buffer that one iteration allocates and frees (a kStitch row's
    reduction result, at most 64 KiB) becomes a `memref.alloca` at the kernel's entry,
    reused by the iterations of one call in turn: no malloc per row.

    `block` (iterations per workgroup) is chosen so that a workgroup does about
    `min-workgroup-work` units of work (one unit per op of the loop body, a vector op one
    per 16 lanes, times the trip counts of the loops inside it; 16 for a dynamic trip
    count): small loops become one workgroup that the runtime runs inline on the calling
    thread. A loop whose iterations each stream a row through a serial loop of 256 or more
    elements (row reductions, kStitch rows) gets 32 times that, so each thread reads
    runs of consecutive rows and the hardware prefetcher keeps its stream. A 1-D loop of
    scalar code (every dimension distributed: the kernel's own loop is the one LLVM
    vectorises) gets 16 times it too, one f32 AVX-512 vector's worth per unit. A loop with
    8 times `min-workgroup-work` in all is split into at least 8 workgroups, so the
    threads end together.
  }];
  let options = [
    Option<"minWorkgroupWork", "min-workgroup-work", "int64_t", /*default=*/"8192",
           "Estimated work units (body ops x inner trip counts) per workgroup">,
  ];
  let dependentDialects = ["loupe::ralir::RalDialect", "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect"];
}

def RalStreamOutputStores : Pass<"ral-stream-output-stores", "mlir::ModuleOp"> {
  let summary = "Non-temporal vector stores into large outputs of the entry (CPU kernels)";
  let description = [{
    An ordinary store to a line that is not in the cache first reads the line (read
    for ownership): a kernel writing a 64 MiB output moves 128 MiB for it. A
    non-temporal store writes whole lines without reading them or filling the caches;
    it pays when nothing reads the data soon and the data would not stay in the caches
    anyway: an output of the entry (read by the caller, after the execution) of at least
    `kMinStreamedOutputBytes` (64 MiB, CpuMemory.h: measured; smaller outputs stayed in
    the shared L3 between executions).

    For every `ral.cpu_launch` (after `ral-outline-cpu-kernels`, before
    `loupe-dedup-executables`) whose memref argument views such a `ral.recv_output`
    buffer that nothing but `ral.send_output` uses afterwards, and whose kernel
    parameter is only stored to (through views; vector and scalar stores, no loads),
    the kernel's `vector.store`s into it become `nontemporal`, its entry asserts the
    buffer's 64-byte alignment (`memref.assume_alignment`: every runtime tensor has
    it, `kTensorAlignment`; LLVM then emits aligned streaming stores, `vmovntps`),
    and it ends with a fence (`llvm.fence seq_cst`, `mfence` on x86): the weakly
    ordered streaming stores are visible before the launch returns. The dispatch's
    `schedule` says so ("non-temporal stores into output 0 (64 MiB)").
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def RalOutlineGpuKernels : Pass<"ral-outline-gpu-kernels", "mlir::ModuleOp"> {
  let summary = "Map code-generated kernels to GPU threads and outline them (cuda target)";
  let description = [{
    The GPU counterpart of `ral-outline-cpu-kernels`, for the `cuda` target. In the
    entry function (after `ral-inject-execution-context`, `ral-lower-to-library-call`
    and `loupe-instrument-dispatches`):

    - every weight (`ral.constant` of the weight blob, or a small
      `memref.get_global`) is read through `ral.device_constant`, a device copy the
      runtime uploads once per context;
    - every remaining linalg op and `memref.copy` (a code-generated kernel) is
      generalised, its loops ordered parallel-then-reduction, and given a schedule
      (GpuSchedules.h):
      - `warp-row-reduction` / `block-row-reduction`: a reduction into one 32-bit
        output through one commutative arith op, whose innermost loop walks
        contiguous memory and has at least 32 iterations: one warp per row (rows
        of up to `warp-row-max` elements, 4 rows per block) or one block of
        `threads-per-block` per row; strided per-thread partials, `gpu.shuffle xor`
        butterflies, warp partials through workgroup memory;
      - `thread-per-vector4`: an elementwise op (no reduction loop) whose
        innermost extent is a multiple of 4 and whose 32-bit operands are either
        contiguous rows with 16-byte aligned starts or broadcast along the
        innermost loop: each thread computes 4 consecutive elements on
        `vector<4xT>` values between `vector.load` and `vector.store`, with
        `memref.assume_alignment` so that NVPTX emits 128-bit accesses;
      - `thread-per-element`: one thread per iteration of the parallel loops,
        linearised innermost-fastest so that consecutive threads touch consecutive
        elements, in blocks of `threads-per-block`; reduction loops (column
        reductions, short rows) run inside the thread;
      - `single-thread`: an op without parallel loops.
    - each `gpu.launch` is outlined into `gpu.module @<dispatch name>` holding
      `gpu.func @<dispatch name>` (so CUPTI reports the dispatch's name) and
      launched with `gpu.launch_func`; constants are cloned into the kernel.

    Grid and block sizes are static. The schedule and launch sizes are added to
    the entry's `loupe.dispatches` rows (`schedule`, `launch`). Host code that
    still loads or stores a buffer is an error: every buffer is device memory.
  }];
  let options = [
    Option<"threadsPerBlock", "threads-per-block", "int64_t", /*default=*/"256",
           "Threads per block of elementwise kernels and block-per-row reductions">,
    Option<"warpRowMax", "warp-row-max", "int64_t", /*default=*/"1024",
           "Longest row reduced by one warp; longer rows get a block">,
  ];
  let dependentDialects = ["loupe::ralir::RalDialect", "mlir::gpu::GPUDialect",
                           "mlir::scf::SCFDialect", "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect", "mlir::affine::AffineDialect",
                           "mlir::vector::VectorDialect"];
}

def DedupExecutables : Pass<"loupe-dedup-executables", "mlir::ModuleOp"> {
  let summary = "Merge structurally identical kernels into one executable";
  let description = [{
    Runs after ral-outline-cpu-kernels, which outlines one private kernel per
    `scf.parallel`, and after ral-outline-gpu-kernels, which outlines one
    `gpu.module` per kernel, so a model that applies the same elementwise op to
    the same shapes in every layer gets many copies of one kernel. As IREE
    deduplicates identical executables, the kernels only launches reference (the
    private functions of `ral.cpu_launch`; the `gpu.func` of a `gpu.module`
    holding nothing else, for `gpu.launch_func`) are grouped into equivalence
    classes; in each class the kernel launched first (in program order) is kept,
    every launch of the others is pointed at it and the others (with their
    `gpu.module`) are erased. Other functions are left alone. A GPU dispatch
    that now launches another dispatch's kernel gets `, kernel <name>` after the
    launch sizes in its `loupe.dispatches` row, the name CUPTI will report.

    Two kernels are equivalent when their attributes other than the symbol name
    (function type, `ral.noalias` argument attributes, ...) are equal and their
    bodies hold the same ops (names, attributes, properties, types) in the same
    order with the same use-def structure; locations are ignored. Candidates are grouped
    by a structural hash (the attributes, and upstream
    `OperationEquivalence::computeHash` of every body op, ignoring locations and
    operands), then every candidate is confirmed with
    `OperationEquivalence::isRegionEquivalentTo` (mlir/IR/OperationSupport.h), so
    a hash collision never merges kernels that differ.

    ```mlir
    ral.cpu_launch %ctx, @main_kernel_0, %c8, %c32, %a, %b : memref<8x128xf32>, memref<8x128xf32>
    ral.cpu_launch %ctx, @main_kernel_0, %c8, %c32, %b, %c : memref<8x128xf32>, memref<8x128xf32>
    // @main_kernel_1, identical to @main_kernel_0, is gone.
    ```

    The outcome is recorded on the module as
    `loupe.dedup = {kernels = <before> : i64, unique = <after> : i64}`: the
    launched kernels before deduplication (counting those merged by earlier
    runs of the pass, so running it twice records the same) and after it.
  }];
}

def RalToLLVM : Pass<"ral-to-llvm", "mlir::ModuleOp"> {
  let summary = "Lower ral ops to type-erased ral_api_call(ctx, name, args) calls";
  let description = [{
    Every `ral.recv_input`, `ral.send_output` and `ral.dispatch` becomes one call
    `ral_api_call(ctx, "<encoded name>", void **args)` (seed document 000, "Uniformed
    type-erased external function call ABI"): each argument gets one slot pointing to
    its value, a rank-N memref 3+2N slots (allocated, aligned, offset, sizes,
    strides), each result one slot pointing to storage for the whole value, which is
    loaded back after the call. Names are encoded from the ral-level types, before
    they become opaque LLVM pointers. `!ral.context` becomes `!llvm.ptr` in function
    signatures. In a function that takes the context and allocates only statically
    shaped buffers, allocations go to the runtime too: `ral_alloc(ctx, bytes)` /
    `ral_dealloc(ctx, ptr)`. The argument storage of every call is allocated in the
    function's entry block.

    `ral.cpu_launch` becomes `ral_cpu_launch_1d(ctx, kernel name, size, block,
    &<kernel>_abi, void **params)`, params[i] pointing to a copy of argument i: the
    aligned pointer of a memref with a static layout, else the whole value. The
    private `<kernel>_abi(ctx, begin, end, params)` unpacks them and calls the
    kernel, whose static memref arguments become `!llvm.ptr` (`noalias` where
    `ral.noalias` was set) so that, once LLVM inlines it, loops vectorise without
    run-time alias checks. Runs before `finalize-memref-to-llvm` and
    `convert-func-to-llvm`.

    With `device=gpu` (the cuda target) the inputs, outputs and allocations are
    the GPU APIs' (device memory), `ral.device_constant` becomes
    `ral_constant(ctx, host pointer, bytes)`, and every `gpu.launch_func` becomes
    `ral_kernel_launch(ctx, blob, blob size, kernel name, grid, block, shared
    memory bytes, void **params)`: the blob is the PTX of the kernel's
    `gpu.binary` (from `gpu-module-to-binary`), a NUL-terminated global, and
    params[i] points to a copy of the aligned pointer of a memref argument (the
    kernels use the bare-pointer calling convention) or of a scalar. The
    `gpu.binary` ops are erased afterwards.
  }];
  let options = [
    Option<"device", "device", "std::string", /*default=*/"\"cpu\"",
           "Device of the inputs, outputs and allocations (cpu, gpu)">,
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def FormClusters : Pass<"loupe-form-clusters", "mlir::ModuleOp"> {
  let summary = "Cluster the entry's linalg-on-tensors ops into loupe.fusion dispatch regions";
  let description = [{
    Decides, for every op of the entry function, which backend runs it and which
    ops are fused into one kernel, and writes the decision into the IR as
    `loupe.fusion` regions (one per cluster, also for single ops).

    - Backends (RAF's op dialects, seed 004): every library-capable op (matmul,
      batch_matmul, conv_2d_nhwc_fhwc) gets a backend from the registry (a per-op
      override keyed by `loc`, else the first of `backends` that runs it, else the
      highest plevel on `device`); a library backend needs static f32 operands.
    - Op patterns (TVM/RAF FuseOps): elemwise < broadcast < injective < reduce <
      out_elemwise_fusable < opaque.
    - Clustering (OneFlow XRT, seed 002): union-find over producer -> consumer edges
      in program order; every merge is checked against the rules below, then
      against a cycle check on the cluster graph. A refused merge is recorded with
      its rule in the entry's `loupe.refused_merges` array (producer, consumer,
      their clusters, rule): the fusion explainer's data.
    - Rules (DISC's fusion kinds kLoop / kRowReduction / kColReduction / kInput /
      kLibrary, kStitch, seed 003): no merge with fusion off; opaque ops and tensor.pad
      stay alone; a reduction's result is read inside its own fusion only as a kStitch
      fusion (CPU only): every reduction of it reduces the trailing loops of the same
      rows (more than one), and every op reads and writes whole rows in place (a value
      of the fusion is read at the row written; a broadcast input such as a scale may
      be read by every row); no row/column reduction mix; at
      most `max-operands` kernel arguments and `max-ops` ops (linalg's elementwise
      fusion copies the fused body at every step, so one cluster costs the square
      of its size to fuse: the cap keeps compile time linear in the op count, as
      XLA and DISC cap fusion size); a producer is fused only into a
      consumer's inputs; a code-generated contraction is not fused (linalg's
      elementwise fusion cannot); a library op takes only the ops one of its
      backend's fuse patterns covers (matmul_bias_act: a result view, `C + bias`,
      then ReLU or the exact GELU; conv_bias_act: the ReLU of the NHWC result, its
      bias being the broadcast the result starts from). A ReLU after TOSA's NCHW
      transpose of such a conv's result is first moved before the transpose (they
      commute), so the conv takes it and the transpose joins the readers' cluster.
    - Rematerialisation (IREE): cheap producers (tensor.empty, fills of constants,
      broadcasts of constants) are not clustered but cloned into every region that
      uses them.
  }];
  let options = [
    ListOption<"backendOrder", "backends", "std::string",
               "Ordered backend preference (empty: highest plevel)">,
    ListOption<"backendOverrides", "overrides", "std::string",
               "Per-op backends as loc=backend (an ONNX node name or file:line)">,
    ListOption<"tunedBackends", "tuned", "std::string",
               "Tuned backends as signature=backend (loupe tune's table, --backends auto)">,
    Option<"device", "device", "std::string", /*default=*/"\"cpu\"", "Target device">,
    Option<"fusion", "fusion", "bool", /*default=*/"true", "Merge ops (off: one op per cluster)">,
    Option<"maxOperands", "max-operands", "int64_t", /*default=*/"64",
           "Most kernel arguments (inputs + outputs) of one cluster">,
    Option<"maxOps", "max-ops", "int64_t", /*default=*/"64",
           "Most ops of one cluster">,
  ];
  let dependentDialects = ["loupe::loupeir::LoupeDialect"];
}

def ApproximateMath : Pass<"loupe-approximate-math", "mlir::ModuleOp"> {
  let summary = "Transcendental math as polynomial approximations that vectorise";
  let description = [{
    f32 `math.exp`, `expm1`, `log`, `log1p`, `log2`, `tanh` and `erf` (scalars and vectors)
    become MLIR's polynomial approximations (upstream `PolynomialApproximation.cpp`): range
    reduction, a polynomial and bit casts, all arith ops, on loupe-vectorize-cpu's vectors
    (or in scalar loops LLVM's loop vectorizer takes), so a kernel runs AVX-512/AVX2 code
    instead of calling libm per element (`convert-math-to-libm` lowers
    `tanh` and `erf` to calls; `llvm.exp` is a call to `expf` without a vector library).
    Measured against glibc on a dense sweep (docs/pipeline.md, "Math"): within 1-5 ulps.
    sin, cos, atan, cbrt, asin and acos stay with libm: their approximations lose up to
    1e-6 absolute, 40 ulps, 12 ulps and 0.04. Sigmoid and exact GELU reach here as `exp`
    and `erf`. The module gets `loupe.math` = "polynomial", or
    "libm" with `exact` (`--math libm`), which leaves the ops to libm.
  }];
  let options = [
    Option<"exact", "exact", "bool", /*default=*/"false",
           "Keep libm's correctly rounded math (--math libm)">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::math::MathDialect",
                           "mlir::vector::VectorDialect"];
}

def ReassociateReductions : Pass<"loupe-reassociate-reductions", "mlir::func::FuncOp"> {
  let summary = "Let code-generated float reductions be reordered, so they vectorise";
  let description = [{
    In every `linalg.generic` with a reduction iterator, the float op that combines the
    accumulator (the `outs` block argument) with a new value (`arith.addf`, `mulf`,
    `maximumf`, `minimumf`, `maxnumf`, `minnumf`) gets the `reassoc` fast-math flag. LLVM's
    loop vectorizer then sums a row in several vector lanes and adds the lanes at the end,
    instead of one element after another (a strict order it may not change): the same sum
    up to rounding, in another order. Nothing else is relaxed (no `fast`, no `nnan`).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def VectorizeCpu : Pass<"loupe-vectorize-cpu", "mlir::func::FuncOp"> {
  let summary = "Tile code-generated CPU kernels to vectors and vectorise them (vector dialect)";
  let description = [{
    After IREE's LLVMCPU pipeline. Every linalg op on static buffers is tiled so that one
    tile is one vector along a loop every operand reads with unit stride (the last
    parallel loop: elementwise ops, broadcasts, column reductions, matrix-vector loops): tile
    is at most 64 elements (`vector<64xf32>`: four AVX-512 registers, eight AVX2 ones): an
    elementwise op's the whole dim or the largest multiple of 8 dividing it (1000 -> 40); an
    accumulating op's (contraction, reduction) a power of two (LLVM widens other lengths,
    with element inserts in a loop-carried accumulator); a dim no width fits is first split
    into ops over subviews (elementwise 197 -> 192 + 5, accumulating 1000 -> 960 + 32 + 8). Parallel tile loops are `scf.parallel` (ral-outline-cpu-kernels
    spreads them over the cores), reduction tile loops `scf.for` innermost, so the
    accumulator tile is read once, kept in registers and written once
    (`linalg::hoistRedundantVectorTransfers`). A row reduction (its innermost loop is its
    one reduction, read contiguously: softmax's max and sum, LayerNorm's mean) becomes a
    fill of up to 64 partial results, an elementwise update of them per tile of the row and
    a final tree combine of the lanes (split reduction on a small scratch buffer): four
    independent vector chains, float sums reordered as `reassoc` allows. Tiles are
    vectorised by upstream `linalg::vectorize` and lowered to 1-D vector ops (multi-reductions
    as inner reductions, transfers as loads and stores; a contraction tile's unit k dim
    dropped first, so a matmul's k step is a broadcast, a row load and a multiply-add). In
    a kStitch row loop every vector load of a 2-D buffer's row also prefetches the same
    lines of the next row into L1 (`memref.prefetch`): its memory reads then run under this
    row's computation. A streaming elementwise loop over a 1-D buffer of 1 MiB or more
    prefetches each load's lines 4 KiB ahead.

    An op that does not fit stays scalar loops for LLVM, and the dispatch's `schedule` in
    `loupe.dispatches` (a GPU kernel's thread mapping on the cuda target) says why
    ("scalar loops for linalg.transpose: operand 0 is not read along its rows by loop 3");
    a vectorised dispatch's schedule names its tiles ("vectorised: vector<64xf32>, row
    reduction into vector<64xf32> partial results; next row prefetched into L1",
    "vectorised: vector<64xf32>; loads prefetched 4 KiB ahead").
  }];
  let dependentDialects = ["mlir::vector::VectorDialect", "mlir::scf::SCFDialect",
                           "mlir::affine::AffineDialect", "mlir::memref::MemRefDialect"];
}

def LinearizeElementwise : Pass<"loupe-linearize-elementwise", "mlir::func::FuncOp"> {
  let summary = "Collapse the loops of contiguous elementwise kernels into one";
  let description = [{
    Every all-parallel `linalg.generic` on buffers whose operands are all static row-major
    memrefs read and written at the same index (identity maps) becomes a 1-D generic over
    `memref.collapse_shape` views (upstream `populateCollapseDimensions`). Its one loop is
    then both distributed over the cores and vectorised with unit stride. Left as a loop
    nest, a kernel with a short innermost dim (16 channels of NHWC) had LLVM unroll the
    innermost loop and vectorise the outer one with gathers: MobileNetV3's first hardswish
    took 291 us on one core for 200K elements.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def FoldConstantTransposes : Pass<"loupe-fold-constant-transposes", "mlir::func::FuncOp"> {
  let summary = "Transpose constant weights at compile time instead of on every call";
  let description = [{
    Every `linalg.transpose` whose input is a constant (through `tensor.collapse_shape` /
    `tensor.expand_shape`, which keep row-major bytes as they are) becomes an
    `arith.constant` of the permuted bytes: a `dense_resource` blob named
    `<weight>.T` from 1 KiB on, else a dense value. TOSA's lowering of
    `fully_connected` (each 1x1 convolution after `tosa-optional-decompositions`)
    transposes its weight this way; without this pass that transpose is a kernel
    run on every call (37 of them in ResNet-50). Constants nothing else reads go.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def PackGemvWeights : Pass<"loupe-pack-gemv-weights", "mlir::ModuleOp"> {
  let summary = "Pack the weight of every code-generated GEMV into 64-column panels";
  let description = [{
    A code-generated GEMV (`linalg.matmul`, or `linalg.batch_matmul` of batch 1, of one
    row: `C[1, N] += A[1, K] * B[K, N]`, f32, static) whose B is a weight of the blob
    (`ral.constant`) and whose N is a multiple of 64 (and more than 64) reads B in
    panels: the blob gets B as `[N / 64, K, 64]` (a slot `<weight>.panels`, made once per
    weight however many GEMVs read it) and the op becomes a `linalg.generic` over
    `(panel, k, lane)` on 1-D views of A and C. loupe-vectorize-cpu then gives every
    workgroup one 64-float accumulator and one contiguous panel of K * 256 bytes, where
    the row-major B gave it K pieces of 256 bytes N * 4 bytes apart (4 KiB for N = 1024:
    the same cache sets, row after row). A weight nothing else reads leaves the blob, whose
    other slots move up. Runs after loupe-instrument-dispatches: the dispatch keeps its
    name and row, whose `schedule` says "B packed at compile time into 16 panels of
    256x64". The layout GEMM libraries pack B into (Goto and van de Geijn, "Anatomy of
    high-performance matrix multiplication", ACM TOMS 2008).
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect", "mlir::linalg::LinalgDialect"];
}

def FuseClusters : Pass<"loupe-fuse-clusters", "mlir::ModuleOp"> {
  let summary = "Fuse the ops of every loupe.fusion region into as few linalg.generic as possible";
  let description = [{
    Inside each multi-op `loupe.fusion` region, named elementwise, transpose,
    reduction and pooling ops are generalised to `linalg.generic`, then linalg's
    elementwise fusion and reshape propagation (upstream
    `populateElementwiseOpsFusionPatterns`, `populateFoldReshapeOpsByExpansionPatterns`)
    fuse a producer into a consumer only when both are in the same region; a producer
    that is also an output of the region fuses only into an elementwise consumer, as
    one generic yielding both results (computed once). A reshape never folds into a
    library contraction (it would turn the named matmul into a generic that no
    library runs). Region boundaries are fusion boundaries, so the clusters of
    loupe-form-clusters decide what is fused.

    A kStitch region first becomes one loop over rows (StitchFusion.h): unit dims are
    folded (upstream `populateFoldUnitExtentDimsPatterns`), then its last result is
    tiled one row per iteration of an `scf.forall` and the region's ops it reads are
    fused into the loop (upstream `scf::tileConsumerAndFuseProducersUsingSCF`), except
    those whose result also leaves the region; duplicated producers are CSE'd. Inside
    the loop a value two ops read is not fused into both: it is computed once into a
    scratch row of its own (softmax's exp; bufferized as a stack buffer of the kernel),
    so the output row is only written, by the last op. When the region's last result is no row-aligned linalg op,
    the region stays separate kernels and its reason says "not stitched".
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::affine::AffineDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::bufferization::BufferizationDialect"];
}

def InlineClusters : Pass<"loupe-inline-clusters", "mlir::ModuleOp"> {
  let summary = "Dissolve loupe.fusion regions; their ops keep the cluster id";
  let description = [{
    Moves the ops of every `loupe.fusion` in front of it, replaces its results by
    the values it yields and erases it. Each moved op gets `loupe.cluster = <id>`
    (bufferization keeps it on destination-style ops); an op bufferization rebuilds
    (tensor.pad) also gets the id as its location's metadata,
    `loc(fused<3 : i64>["Pad_1"])`, which the new ops inherit. So
    `loupe-instrument-dispatches` can name the cluster of every kernel. Runs before
    bufferization.
  }];
}

def RalPlanBuffers : Pass<"ral-plan-buffers", "mlir::ModuleOp"> {
  let summary = "Place an execution's transient buffers in one arena planned at compile time";
  let description = [{
    Static buffer planning (seed document 001, "transient buffers"). In the entry
    (the function `ral-inject-execution-context` made), each statically shaped `memref.alloc` of the entry
    block whose only deallocation is a `memref.dealloc` of the same block lives from
    the alloc to the last top-level op that uses it or a view of it (any op taking it
    and returning a memref counts as a view, so an alias never outlives its buffer).
    `buffer-deallocation-pipeline` frees every buffer at the end of the function, so
    without this pass an execution holds all its buffers at once.

    The buffers get 64-byte aligned offsets in one arena by greedy-by-size placement
    (Pisarchyk and Lee, "Efficient Memory Management for Deep Neural Net Inference",
    2020; TensorFlow Lite's arena planner): largest first, each in the smallest gap
    left by the placed buffers whose lifetimes overlap its own. The arena is one
    `memref.alloc` of i8 at the top of the function (one `ral_alloc` per execution,
    served by the CPU driver's caching allocator), each buffer a `memref.view` of it,
    and one `memref.dealloc` of the arena replaces the buffers' deallocations.

    The entry gets `loupe.buffer_plan = {arena_bytes, planned_buffers,
    planned_bytes, unplanned_buffers, unplanned_bytes}`: the arena against the sum of
    the buffers it holds, and the allocations left alone (dynamic shapes, allocs in
    nested regions, buffers freed elsewhere). The artifact's manifest carries it.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::memref::MemRefDialect"];
}

def SinkTransposes : Pass<"loupe-sink-transposes", "mlir::func::FuncOp"> {
  let summary = "Move TOSA transposes below elementwise ops and reductions so pairs cancel";
  let description = [{
    ONNX convolutions are NCHW and TOSA's are NHWC, so the importer wraps each one in
    transposes; what runs between two convolutions (activations, residual adds, an SE
    block's global mean and scale) runs in NCHW, on the transposed values. This pass moves
    every `tosa.transpose` of a large tensor (more than 4096 elements) below its readers
    when every reader can take the untransposed value (so sinking never adds a transpose):

    - an elementwise op (the TOSA ops with broadcastable results, and `tosa.cast`) whose
      other operands are transposes with the same permutation (their inputs are taken),
      small tensors (a bias, a per-channel scale), or values computed from the same
      transpose by elementwise ops (an SE block's `x * hardsigmoid(x)`); the last two take
      the inverse transpose, which cancels once the transpose has moved through them;
    - a reduction: `reduce(transpose(x), axis a)` is `transpose(reduce(x, axis perms[a]))`,
      since reductions keep the reduced dim;
    - a `tosa.reshape` when the transpose only moves dims of size 1 (the element order is
      the same).

    The transpose after a convolution thus reaches the one before the next, and TOSA's
    canonicalization (run in the same rewrite) folds the pair; ops between convolutions then
    run on NHWC tensors, and no transposing kernel is left around them. Small tensors (an SE
    block's pooled vector) keep their transposes, which bounds the rewriting.
  }];
  let dependentDialects = ["mlir::tosa::TosaDialect"];
}

def MoveScalesToWeights : Pass<"loupe-move-scales-to-weights", "mlir::func::FuncOp"> {
  let summary = "Scale a fully connected layer's weight instead of its input's channels";
  let description = [{
    A squeeze-and-excitation block ends with `x * s`, `s` one value per channel
    ([1, 1, 1, C] against NHWC `x`), read by the 1x1 convolution after it, which
    `tosa-optional-decompositions` made a `tosa.fully_connected` of `x`'s rows
    ([M, C] by a weight W of [N, C]). Since `(x * s) W^T = x (W * s)^T`, the product
    moves onto the weight: `fully_connected(reshape(x), W * reshape(s, [1, C]))`, when
    W is a quarter of x or less (4 N <= M: N x C products instead of M x C, and no pass
    over the activation; the weight's product is written transposed, by scalar loops).
    The product must be read by that reshape alone. The new `tosa.mul` keeps the
    product's location, so its kernel keeps the SE block's `Mul` name.
  }];
  let dependentDialects = ["mlir::tosa::TosaDialect"];
}

def InterchangeReductions : Pass<"loupe-interchange-reductions", "mlir::func::FuncOp"> {
  let summary = "Move a column reduction's outer row dims before its reduction loops";
  let description = [{
    `convert-linalg-to-parallel-loops` keeps a generic's loop order, and
    `ral-outline-cpu-kernels` distributes only the parallel loops before the first
    reduction. A global mean over NHWC, `[1, H, W, C] -> [1, 1, W, C]` (a reduction over H
    with W and C inside), was therefore one workgroup on one core: 941 us for workload f's
    12.8 MB. For a `[parallel*, reduction+, parallel+]` generic whose leading parallel dims
    give fewer than 64 iterations, the trailing parallel dims other than the innermost
    ones making one 16-float vector move before the reductions (upstream
    `linalg::interchangeGenericOp`): `[1, W, H, C]`, W distributed, C still the vectorised
    innermost loop of each row of the reduction.
  }];
}

#endif // LOUPE_TRANSFORMS_PASSES
