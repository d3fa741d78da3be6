// ral-plan-buffers: an execution's buffers share one arena, placed by their lifetimes.
// RUN: loupe-opt --ral-plan-buffers %s | FileCheck %s

// %a dies at the first copy, so %c (2 KiB, placed first: largest first) and then %a share
// offset 0; %b lives to the last op through its view, so it sits after them: 3 KiB, not 4.
// CHECK-LABEL: func.func @main
// CHECK-SAME: loupe.buffer_plan = {arena_bytes = 3072 : i64, planned_buffers = 3 : i64, planned_bytes = 4096 : i64, unplanned_buffers = 2 : i64, unplanned_bytes = 64 : i64}
// CHECK: %[[ARENA:.*]] = memref.alloc() {alignment = 64 : i64} : memref<3072xi8>
// CHECK: %[[A:.*]] = memref.view %[[ARENA]][%c0{{.*}}][] : memref<3072xi8> to memref<256xf32>
// CHECK: %[[B:.*]] = memref.view %[[ARENA]][%c2048{{.*}}][] : memref<3072xi8> to memref<256xf32>
// CHECK: %[[C:.*]] = memref.view %[[ARENA]][%c0{{.*}}][] : memref<3072xi8> to memref<512xf32>
// The dynamic buffer and the one a nested region frees stay allocations of their own.
// CHECK: memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: scf.if
// CHECK-NEXT: memref.alloc() : memref<16xf32>
// CHECK-NOT: memref.dealloc %[[A]]
// CHECK-NOT: memref.dealloc %[[B]]
// CHECK-NOT: memref.dealloc %[[C]]
// CHECK: memref.dealloc %[[ARENA]] : memref<3072xi8>
// CHECK-NEXT: return
func.func @main(%ctx: !ral.context, %n: index, %flag: i1) attributes {ral.inputs = []} {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<256xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<256xf32>)
  %b = memref.alloc() : memref<256xf32>
  memref.copy %a, %b : memref<256xf32> to memref<256xf32>
  %c = memref.alloc() : memref<512xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<512xf32>)
  %d = memref.alloc(%n) : memref<?xf32>
  linalg.fill ins(%zero : f32) outs(%d : memref<?xf32>)
  scf.if %flag {
    %e = memref.alloc() : memref<16xf32>
    linalg.fill ins(%zero : f32) outs(%e : memref<16xf32>)
    memref.dealloc %e : memref<16xf32>
  }
  %view = memref.expand_shape %b [[0, 1]] output_shape [16, 16] : memref<256xf32> into memref<16x16xf32>
  ral.send_output %ctx, 0, %view : memref<16x16xf32>
  memref.dealloc %a : memref<256xf32>
  memref.dealloc %b : memref<256xf32>
  memref.dealloc %c : memref<512xf32>
  memref.dealloc %d : memref<?xf32>
  return
}

// A kernel takes the context too, but is not the entry: left alone.
// CHECK-LABEL: func.func private @main_kernel_0
// CHECK-NOT: loupe.buffer_plan
// CHECK: memref.alloc() : memref<8xf32>
func.func private @main_kernel_0(%ctx: !ral.context) {
  %s = memref.alloc() : memref<8xf32>
  memref.dealloc %s : memref<8xf32>
  return
}
