// RUN: loupe-opt --loupe-dedup-executables --split-input-file %s | FileCheck %s
// Idempotent: a second run changes nothing, the record included.
// RUN: loupe-opt --loupe-dedup-executables --loupe-dedup-executables --split-input-file %s | FileCheck %s

// Three copies of one ReLU kernel, differing only in SSA names and locations, become one: the
// kernel of the first launch is kept (not the first in the module) and every launch uses it.
// A copy that a func.call also references and a public copy are left alone.

// CHECK: module attributes {loupe.dedup = {kernels = 3 : i64, unique = 1 : i64}}
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[CTX:.*]]: !ral.context)
// CHECK: %[[A:.*]] = ral.recv_input
// CHECK: %[[B:.*]] = memref.alloc
// CHECK: %[[C:.*]] = memref.alloc
// CHECK: %[[D:.*]] = memref.alloc
// CHECK: ral.cpu_launch %[[CTX]], @relu_a, %{{.*}}, %{{.*}}, %[[A]], %[[B]]
// CHECK-NEXT: ral.cpu_launch %[[CTX]], @relu_a, %{{.*}}, %{{.*}}, %[[B]], %[[C]]
// CHECK-NEXT: ral.cpu_launch %[[CTX]], @relu_a, %{{.*}}, %{{.*}}, %[[C]], %[[D]]
// CHECK-NEXT: ral.cpu_launch %[[CTX]], @relu_public,
// CHECK-NEXT: ral.cpu_launch %[[CTX]], @relu_called,
// CHECK-LABEL: func.func @caller
// CHECK: call @relu_called
// CHECK-NOT: @relu_c(
// CHECK-NOT: @relu_b(
// CHECK: func.func private @relu_a(
// CHECK: func.func private @relu_called(
// CHECK: func.func @relu_public(
func.func @main(%ctx: !ral.context) {
  %c16 = arith.constant 16 : index
  %a = ral.recv_input %ctx, 0 : memref<16xf32>
  %b = memref.alloc() : memref<16xf32>
  %c = memref.alloc() : memref<16xf32>
  %d = memref.alloc() : memref<16xf32>
  ral.cpu_launch %ctx, @relu_a, %c16, %c16, %a, %b : memref<16xf32>, memref<16xf32>
  ral.cpu_launch %ctx, @relu_b, %c16, %c16, %b, %c : memref<16xf32>, memref<16xf32>
  ral.cpu_launch %ctx, @relu_c, %c16, %c16, %c, %d : memref<16xf32>, memref<16xf32>
  ral.cpu_launch %ctx, @relu_public, %c16, %c16, %d, %a : memref<16xf32>, memref<16xf32>
  ral.cpu_launch %ctx, @relu_called, %c16, %c16, %d, %b : memref<16xf32>, memref<16xf32>
  ral.send_output %ctx, 0, %d : memref<16xf32>
  return
}
func.func @caller(%ctx: !ral.context, %x: memref<16xf32>, %y: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  call @relu_called(%ctx, %c0, %c16, %x, %y) : (!ral.context, index, index, memref<16xf32>, memref<16xf32>) -> ()
  return
}
func.func private @relu_c(%ctx: !ral.context, %begin: index, %end: index,
                          %x: memref<16xf32> {ral.noalias}, %y: memref<16xf32> {ral.noalias})
    attributes {ral.cpu_kernel} {
  %c1 = arith.constant 1 : index loc("layer3")
  %zero = arith.constant 0.0 : f32 loc("layer3")
  scf.for %i = %begin to %end step %c1 {
    %v = memref.load %x[%i] : memref<16xf32> loc("layer3")
    %r = arith.maximumf %v, %zero : f32 loc("layer3")
    memref.store %r, %y[%i] : memref<16xf32> loc("layer3")
  } loc("layer3")
  return
}
func.func private @relu_b(%context: !ral.context, %lo: index, %hi: index,
                          %in: memref<16xf32> {ral.noalias}, %out: memref<16xf32> {ral.noalias})
    attributes {ral.cpu_kernel} {
  %one = arith.constant 1 : index loc("layer2")
  %cst = arith.constant 0.0 : f32 loc("layer2")
  scf.for %j = %lo to %hi step %one {
    %x = memref.load %in[%j] : memref<16xf32> loc("layer2")
    %m = arith.maximumf %x, %cst : f32 loc("layer2")
    memref.store %m, %out[%j] : memref<16xf32> loc("layer2")
  } loc("layer2")
  return
}
func.func private @relu_a(%ctx: !ral.context, %begin: index, %end: index,
                          %x: memref<16xf32> {ral.noalias}, %y: memref<16xf32> {ral.noalias})
    attributes {ral.cpu_kernel} {
  %c1 = arith.constant 1 : index loc("layer1")
  %zero = arith.constant 0.0 : f32 loc("layer1")
  scf.for %i = %begin to %end step %c1 {
    %v = memref.load %x[%i] : memref<16xf32> loc("layer1")
    %r = arith.maximumf %v, %zero : f32 loc("layer1")
    memref.store %r, %y[%i] : memref<16xf32> loc("layer1")
  } loc("layer1")
  return
}
func.func private @relu_called(%ctx: !ral.context, %begin: index, %end: index,
                               %x: memref<16xf32> {ral.noalias}, %y: memref<16xf32> {ral.noalias})
    attributes {ral.cpu_kernel} {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %begin to %end step %c1 {
    %v = memref.load %x[%i] : memref<16xf32>
    %r = arith.maximumf %v, %zero : f32
    memref.store %r, %y[%i] : memref<16xf32>
  }
  return
}
func.func @relu_public(%ctx: !ral.context, %begin: index, %end: index,
                       %x: memref<16xf32> {ral.noalias}, %y: memref<16xf32> {ral.noalias})
    attributes {ral.cpu_kernel} {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %begin to %end step %c1 {
    %v = memref.load %x[%i] : memref<16xf32>
    %r = arith.maximumf %v, %zero : f32
    memref.store %r, %y[%i] : memref<16xf32>
  }
  return
}

// -----

// Kernels that differ from @base in one constant, one op, the element type, the shape, an
// argument attribute, or only in which argument is loaded and which stored (same structural
// hash, since the hash leaves operands out; the equivalence check tells them apart) all stay.

// CHECK: module attributes {loupe.dedup = {kernels = 7 : i64, unique = 7 : i64}}
// CHECK-LABEL: func.func @main
// CHECK: ral.cpu_launch %{{.*}}, @base,
// CHECK-NEXT: ral.cpu_launch %{{.*}}, @constant,
// CHECK-NEXT: ral.cpu_launch %{{.*}}, @op,
// CHECK-NEXT: ral.cpu_launch %{{.*}}, @element_type,
// CHECK-NEXT: ral.cpu_launch %{{.*}}, @shape,
// CHECK-NEXT: ral.cpu_launch %{{.*}}, @aliasing,
// CHECK-NEXT: ral.cpu_launch %{{.*}}, @swapped,
// CHECK-DAG: func.func private @base(
// CHECK-DAG: func.func private @constant(
// CHECK-DAG: func.func private @op(
// CHECK-DAG: func.func private @element_type(
// CHECK-DAG: func.func private @shape(
// CHECK-DAG: func.func private @aliasing(
// CHECK-DAG: func.func private @swapped(
func.func @main(%ctx: !ral.context) {
  %c16 = arith.constant 16 : index
  %a = memref.alloc() : memref<16xf32>
  %b = memref.alloc() : memref<16xf32>
  %h = memref.alloc() : memref<16xf16>
  %w = memref.alloc() : memref<32xf32>
  ral.cpu_launch %ctx, @base, %c16, %c16, %a, %b : memref<16xf32>, memref<16xf32>
  ral.cpu_launch %ctx, @constant, %c16, %c16, %a, %b : memref<16xf32>, memref<16xf32>
  ral.cpu_launch %ctx, @op, %c16, %c16, %a, %b : memref<16xf32>, memref<16xf32>
  ral.cpu_launch %ctx, @element_type, %c16, %c16, %h, %h : memref<16xf16>, memref<16xf16>
  ral.cpu_launch %ctx, @shape, %c16, %c16, %w, %w : memref<32xf32>, memref<32xf32>
  ral.cpu_launch %ctx, @aliasing, %c16, %c16, %a, %a : memref<16xf32>, memref<16xf32>
  ral.cpu_launch %ctx, @swapped, %c16, %c16, %b, %a : memref<16xf32>, memref<16xf32>
  return
}
func.func private @base(%ctx: !ral.context, %begin: index, %end: index,
                        %x: memref<16xf32> {ral.noalias}, %y: memref<16xf32> {ral.noalias})
    attributes {ral.cpu_kernel} {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %begin to %end step %c1 {
    %v = memref.load %x[%i] : memref<16xf32>
    %r = arith.maximumf %v, %zero : f32
    memref.store %r, %y[%i] : memref<16xf32>
  }
  return
}
func.func private @constant(%ctx: !ral.context, %begin: index, %end: index,
                            %x: memref<16xf32> {ral.noalias}, %y: memref<16xf32> {ral.noalias})
    attributes {ral.cpu_kernel} {
  %c1 = arith.constant 1 : index
  %six = arith.constant 6.0 : f32
  scf.for %i = %begin to %end step %c1 {
    %v = memref.load %x[%i] : memref<16xf32>
    %r = arith.maximumf %v, %six : f32
    memref.store %r, %y[%i] : memref<16xf32>
  }
  return
}
func.func private @op(%ctx: !ral.context, %begin: index, %end: index,
                      %x: memref<16xf32> {ral.noalias}, %y: memref<16xf32> {ral.noalias})
    attributes {ral.cpu_kernel} {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %begin to %end step %c1 {
    %v = memref.load %x[%i] : memref<16xf32>
    %r = arith.minimumf %v, %zero : f32
    memref.store %r, %y[%i] : memref<16xf32>
  }
  return
}
func.func private @element_type(%ctx: !ral.context, %begin: index, %end: index,
                                %x: memref<16xf16> {ral.noalias}, %y: memref<16xf16> {ral.noalias})
    attributes {ral.cpu_kernel} {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f16
  scf.for %i = %begin to %end step %c1 {
    %v = memref.load %x[%i] : memref<16xf16>
    %r = arith.maximumf %v, %zero : f16
    memref.store %r, %y[%i] : memref<16xf16>
  }
  return
}
func.func private @shape(%ctx: !ral.context, %begin: index, %end: index,
                         %x: memref<32xf32> {ral.noalias}, %y: memref<32xf32> {ral.noalias})
    attributes {ral.cpu_kernel} {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %begin to %end step %c1 {
    %v = memref.load %x[%i] : memref<32xf32>
    %r = arith.maximumf %v, %zero : f32
    memref.store %r, %y[%i] : memref<32xf32>
  }
  return
}
func.func private @aliasing(%ctx: !ral.context, %begin: index, %end: index,
                            %x: memref<16xf32>, %y: memref<16xf32>)
    attributes {ral.cpu_kernel} {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %begin to %end step %c1 {
    %v = memref.load %x[%i] : memref<16xf32>
    %r = arith.maximumf %v, %zero : f32
    memref.store %r, %y[%i] : memref<16xf32>
  }
  return
}
func.func private @swapped(%ctx: !ral.context, %begin: index, %end: index,
                           %x: memref<16xf32> {ral.noalias}, %y: memref<16xf32> {ral.noalias})
    attributes {ral.cpu_kernel} {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %begin to %end step %c1 {
    %v = memref.load %y[%i] : memref<16xf32>
    %r = arith.maximumf %v, %zero : f32
    memref.store %r, %x[%i] : memref<16xf32>
  }
  return
}

// -----

// Nothing launched: the record says so.

// CHECK: module attributes {loupe.dedup = {kernels = 0 : i64, unique = 0 : i64}}
func.func @main(%ctx: !ral.context) {
  return
}

// -----

// GPU kernels (ral-outline-gpu-kernels: one gpu.module per dispatch, named after it): two
// identical ReLU kernels become one, the second launch runs the first's kernel and its
// dispatch row names it after the launch sizes (CUPTI reports that name). A kernel with other
// launch sizes (known_block_size differs) is kept.

// CHECK: module attributes {gpu.container_module, loupe.dedup = {kernels = 3 : i64, unique = 2 : i64}}
// CHECK-LABEL: func.func @gpu_main
// CHECK-SAME: {id = 0 : i64, launch = "grid 1x1x1 block 64x1x1", name = "dispatch_0_relu"}
// CHECK-SAME: {id = 1 : i64, launch = "grid 1x1x1 block 64x1x1, kernel dispatch_0_relu", name = "dispatch_1_relu"}
// CHECK-SAME: {id = 2 : i64, launch = "grid 2x1x1 block 32x1x1", name = "dispatch_2_relu"}
// CHECK: gpu.launch_func @dispatch_0_relu::@dispatch_0_relu {{.*}} {loupe.dispatch_id = 0 : i64}
// CHECK: gpu.launch_func @dispatch_0_relu::@dispatch_0_relu {{.*}} {loupe.dispatch_id = 1 : i64}
// CHECK: gpu.launch_func @dispatch_2_relu::@dispatch_2_relu {{.*}} {loupe.dispatch_id = 2 : i64}
// CHECK: gpu.module @dispatch_0_relu
// CHECK-NOT: gpu.module @dispatch_1_relu
// CHECK: gpu.module @dispatch_2_relu
module attributes {gpu.container_module} {
  func.func @gpu_main(%ctx: !ral.context) attributes {loupe.dispatches = [{id = 0 : i64, launch = "grid 1x1x1 block 64x1x1", name = "dispatch_0_relu"}, {id = 1 : i64, launch = "grid 1x1x1 block 64x1x1", name = "dispatch_1_relu"}, {id = 2 : i64, launch = "grid 2x1x1 block 32x1x1", name = "dispatch_2_relu"}]} {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %a = ral.recv_input %ctx, 0 : memref<64xf32>
    %b = memref.alloc() : memref<64xf32>
    %c = memref.alloc() : memref<64xf32>
    gpu.launch_func @dispatch_0_relu::@dispatch_0_relu blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%a : memref<64xf32>, %b : memref<64xf32>) {loupe.dispatch_id = 0 : i64}
    gpu.launch_func @dispatch_1_relu::@dispatch_1_relu blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%b : memref<64xf32>, %c : memref<64xf32>) {loupe.dispatch_id = 1 : i64}
    gpu.launch_func @dispatch_2_relu::@dispatch_2_relu blocks in (%c2, %c1, %c1) threads in (%c32, %c1, %c1) args(%c : memref<64xf32>, %b : memref<64xf32>) {loupe.dispatch_id = 2 : i64}
    ral.send_output %ctx, 0, %b : memref<64xf32>
    return
  }
  gpu.module @dispatch_0_relu {
    gpu.func @dispatch_0_relu(%x: memref<64xf32>, %y: memref<64xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
      %zero = arith.constant 0.0 : f32
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<64xf32>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %y[%i] : memref<64xf32>
      gpu.return
    }
  }
  gpu.module @dispatch_1_relu {
    gpu.func @dispatch_1_relu(%p: memref<64xf32>, %q: memref<64xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
      %z = arith.constant 0.0 : f32
      %t = gpu.thread_id x
      %v = memref.load %p[%t] : memref<64xf32>
      %r = arith.maximumf %v, %z : f32
      memref.store %r, %q[%t] : memref<64xf32>
      gpu.return
    }
  }
  gpu.module @dispatch_2_relu {
    gpu.func @dispatch_2_relu(%x: memref<64xf32>, %y: memref<64xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 2, 1, 1>} {
      %zero = arith.constant 0.0 : f32
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<64xf32>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %y[%i] : memref<64xf32>
      gpu.return
    }
  }
}
