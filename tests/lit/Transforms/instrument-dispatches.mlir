// RUN: loupe-opt --loupe-instrument-dispatches --split-input-file %s | FileCheck %s

// Every top-level linalg op, memref.copy and library dispatch of the entry becomes a numbered
// dispatch, bracketed by the runtime's tracing APIs; the table names the source op by its loc
// and carries the backend (and why) that ral-lower-to-library-call recorded on the op, and its
// cluster: the op's loupe.cluster, else its location's metadata (ops bufferization rebuilt).
// bytes: each distinct memref read or written, once (the fill's 4x16xf32 output: 256; the
// matmul's A, B, C: 128 + 512 + 256; the copy's source and target); flops: the matmul's
// 2*M*N*K = 2*4*16*8, none for fills, copies and unknown library kernels.

// CHECK-DAG: llvm.mlir.global internal constant @__loupe_str_{{.*}}("dispatch_1_matmul\00")
// CHECK-DAG: llvm.mlir.global internal constant @__loupe_str_{{.*}}("codegen\00")
// CHECK-DAG: llvm.mlir.global internal constant @__loupe_str_{{.*}}("library\00")
// CHECK-DAG: llvm.mlir.global internal constant @__loupe_str_{{.*}}("Gemm_0\00")
// CHECK-LABEL: func.func @main
// CHECK-SAME: loupe.dispatches = [{backend = "codegen", bytes = 256 : i64, cluster = -1 : i64, flops = 0 : i64, id = 0 : i64, kind = "kLoop", loc = "fill_site", name = "dispatch_0_fill", op = "linalg.fill", reason = ""}, {backend = "openblas", bytes = 896 : i64, cluster = 4 : i64, flops = 1024 : i64, id = 1 : i64, kind = "kRowReduction", loc = "Gemm_0", name = "dispatch_1_matmul", op = "linalg.matmul", reason = "chosen by the test"}, {backend = "library", bytes = 256 : i64, cluster = -1 : i64, flops = 0 : i64, id = 2 : i64, kind = "kLibrary", loc = "sort", name = "dispatch_2_ral_sort", op = "ral.dispatch", reason = ""}, {backend = "codegen", bytes = 512 : i64, cluster = 5 : i64, flops = 0 : i64, id = 3 : i64, kind = "kLoop", loc = "out", name = "dispatch_3_copy", op = "memref.copy", reason = ""}]
// CHECK: %[[ID0:.*]] = arith.constant 0 : i64
// CHECK: ral.dispatch %[[CTX:.*]], %[[ID0]], %{{.*}}, %{{.*}}, %{{.*}} {abi = "ral_dispatch_begin___cpu___pvoid_i64_pvoid_pvoid_pvoid___void", callee = "ral_dispatch_begin", device = "cpu", has_side_effect}
// CHECK-NEXT: linalg.fill {loupe.dispatch_id = 0 : i64}
// CHECK-NEXT: ral.dispatch %[[CTX]], %[[ID0]] {abi = "ral_dispatch_end___cpu___pvoid_i64___void", callee = "ral_dispatch_end", device = "cpu", has_side_effect}
// CHECK: linalg.matmul {loupe.backend = "openblas", loupe.backend_reason = "chosen by the test", loupe.cluster = 4 : i64, loupe.dispatch_id = 1 : i64}
// CHECK: callee = "ral_sort"{{.*}}loupe.dispatch_id = 2 : i64
// CHECK: memref.copy {{.*}} {loupe.dispatch_id = 3 : i64}
func.func @main(%ctx: !ral.context) {
  %a = ral.recv_input %ctx, 0 : memref<4x8xf32>
  %b = ral.recv_input %ctx, 1 : memref<8x16xf32>
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<4x16xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<4x16xf32>) loc("fill_site")
  linalg.matmul {loupe.backend = "openblas", loupe.backend_reason = "chosen by the test", loupe.cluster = 4 : i64} ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%acc : memref<4x16xf32>) loc("Gemm_0")
  %true = arith.constant true
  ral.dispatch %ctx, %acc, %true {callee = "ral_sort", device = "cpu", has_side_effect} : (memref<4x16xf32>, i1) -> () loc("sort")
  %out = memref.alloc() : memref<4x16xf32>
  memref.copy %acc, %out : memref<4x16xf32> to memref<4x16xf32> loc(fused<5 : i64>["out"])
  ral.send_output %ctx, 0, %out : memref<4x16xf32>
  return
}

// -----

// Reductions along the input's contiguous dimension are row reductions, along an outer one
// column reductions. The table's loc lists the op's own loc, then those of the ops fused into
// its body (here `fused_add`).

// CHECK-LABEL: func.func @main
// CHECK-SAME: bytes = 144 : i64, cluster = -1 : i64, flops = 32 : i64, id = 0 : i64, kind = "kRowReduction", loc = "rows,fused_add,
// CHECK-SAME: bytes = 160 : i64, cluster = -1 : i64, flops = 32 : i64, id = 1 : i64, kind = "kColReduction", loc = "cols,
#in = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#colin = affine_map<(d0, d1) -> (d1, d0)>
func.func @main(%ctx: !ral.context) {
  %x = ral.recv_input %ctx, 0 : memref<4x8xf32>
  %r = memref.alloc() : memref<4xf32>
  linalg.generic {indexing_maps = [#in, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x8xf32>) outs(%r : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32 loc("fused_add")
    linalg.yield %s : f32
  } loc("rows")
  %c = memref.alloc() : memref<8xf32>
  linalg.generic {indexing_maps = [#colin, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x8xf32>) outs(%c : memref<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } loc("cols")
  ral.send_output %ctx, 0, %r : memref<4xf32>
  ral.send_output %ctx, 1, %c : memref<8xf32>
  return
}

// -----

// FLOPs: a generic's float ops (mulf, addf; not the constant) times its loop points; a
// batch_matmul's 2*B*M*N*K; library gemms and convolutions from their operand shapes: 2 *
// output elements * K, 2 * output elements * C/groups * KH * KW (the OIHW filter), plus one
// add per output element for a bias (the conv's: 7776 + 144) and the fused activation's ops
// (epilogue GEMM with bias and exact GELU: 1024 + 64 * (1 + 5); conv with the ReLU in its
// constant params[9]: 7776 + 144 * 1, no bias). Library bytes count every memref argument, the
// conv's i64 params included.

// CHECK-LABEL: func.func @main
// CHECK-SAME: bytes = 768 : i64, cluster = -1 : i64, flops = 128 : i64, id = 0 : i64, kind = "kLoop", loc = "axpb
// CHECK-SAME: bytes = 1792 : i64, cluster = -1 : i64, flops = 2048 : i64, id = 1 : i64, kind = "kRowReduction", loc = "bmm"
// CHECK-SAME: bytes = 896 : i64, cluster = -1 : i64, flops = 1024 : i64, id = 2 : i64, kind = "kLibrary", loc = "gemm"
// CHECK-SAME: bytes = 1824 : i64, cluster = -1 : i64, flops = 7920 : i64, id = 3 : i64, kind = "kLibrary", loc = "conv"
// CHECK-SAME: flops = 1408 : i64, id = 4 : i64, kind = "kLibrary", loc = "gemm_bias_gelu"
// CHECK-SAME: flops = 7920 : i64, id = 5 : i64, kind = "kLibrary", loc = "conv_relu"
#id = affine_map<(d0, d1) -> (d0, d1)>
memref.global "private" constant @relu_params : memref<10xi64> = dense<[1, 1, 0, 0, 0, 0, 1, 1, 1, 1]>
func.func @main(%ctx: !ral.context) {
  %x = ral.recv_input %ctx, 0 : memref<4x16xf32>
  %y = ral.recv_input %ctx, 1 : memref<4x16xf32>
  %two = arith.constant 2.0 : f32
  %z = memref.alloc() : memref<4x16xf32>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : memref<4x16xf32>, memref<4x16xf32>) outs(%z : memref<4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %m = arith.mulf %a, %two : f32
    %s = arith.addf %m, %b : f32
    linalg.yield %s : f32
  } loc("axpb")
  %ba = ral.recv_input %ctx, 2 : memref<2x4x8xf32>
  %bb = ral.recv_input %ctx, 3 : memref<2x8x16xf32>
  %bc = memref.alloc() : memref<2x4x16xf32>
  linalg.batch_matmul ins(%ba, %bb : memref<2x4x8xf32>, memref<2x8x16xf32>) outs(%bc : memref<2x4x16xf32>) loc("bmm")
  %a = ral.recv_input %ctx, 4 : memref<4x8xf32>
  %b = ral.recv_input %ctx, 5 : memref<8x16xf32>
  %c = memref.alloc() : memref<4x16xf32>
  %false = arith.constant false
  ral.dispatch %ctx, %a, %b, %c, %false, %false {callee = "ral_gemm_openblas", device = "cpu", has_side_effect} : (memref<4x8xf32>, memref<8x16xf32>, memref<4x16xf32>, i1, i1) -> () loc("gemm")
  %in = ral.recv_input %ctx, 6 : memref<1x3x8x8xf32>
  %w = ral.recv_input %ctx, 7 : memref<4x3x3x3xf32>
  %bias = ral.recv_input %ctx, 8 : memref<4xf32>
  %out = memref.alloc() : memref<1x4x6x6xf32>
  %params = memref.alloc() : memref<4xi64>
  ral.dispatch %ctx, %in, %w, %bias, %out, %params {callee = "ral_conv_onednn", device = "cpu", has_side_effect} : (memref<1x3x8x8xf32>, memref<4x3x3x3xf32>, memref<4xf32>, memref<1x4x6x6xf32>, memref<4xi64>) -> () loc("conv")
  %gb = ral.recv_input %ctx, 9 : memref<16xf32>
  %gc = memref.alloc() : memref<4x16xf32>
  %gelu = arith.constant 3 : i32
  %nores = memref.alloca() : memref<0x0xf32>
  ral.dispatch %ctx, %a, %b, %gb, %nores, %gc, %false, %false, %gelu {callee = "ral_gemm_epilogue_onednn", device = "cpu", has_side_effect} : (memref<4x8xf32>, memref<8x16xf32>, memref<16xf32>, memref<0x0xf32>, memref<4x16xf32>, i1, i1, i32) -> () loc("gemm_bias_gelu")
  %nobias = memref.alloca() : memref<0xf32>
  %rout = memref.alloc() : memref<1x4x6x6xf32>
  %rparams = memref.get_global @relu_params : memref<10xi64>
  ral.dispatch %ctx, %in, %w, %nobias, %rout, %rparams {callee = "ral_conv_onednn", device = "cpu", has_side_effect} : (memref<1x3x8x8xf32>, memref<4x3x3x3xf32>, memref<0xf32>, memref<1x4x6x6xf32>, memref<10xi64>) -> () loc("conv_relu")
  ral.send_output %ctx, 0, %z : memref<4x16xf32>
  ral.send_output %ctx, 1, %bc : memref<2x4x16xf32>
  ral.send_output %ctx, 2, %c : memref<4x16xf32>
  ral.send_output %ctx, 3, %out : memref<1x4x6x6xf32>
  ral.send_output %ctx, 4, %gc : memref<4x16xf32>
  ral.send_output %ctx, 5, %rout : memref<1x4x6x6xf32>
  return
}

// -----

// An entry without kernels is left alone.

// CHECK-LABEL: func.func @main
// CHECK-NOT: loupe.dispatches
// CHECK-NOT: ral_dispatch_begin
func.func @main(%ctx: !ral.context) {
  return
}
