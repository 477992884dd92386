// RUN: tessera-opt %s | tessera-opt | FileCheck %s
// RUN: tessera-opt %s --mlir-print-op-generic | tessera-opt | FileCheck %s
// RUN: tessera-opt %s --emit-bytecode | tessera-opt | FileCheck %s

// Every tile op, printed and parsed back, in its custom, generic and bytecode forms.

// CHECK-LABEL: func.func @pointer_types
// CHECK-SAME: (%{{.*}}: !tile.ptr<f32>, %{{.*}}: !tile.ptr<f16, 3>, %{{.*}}: !tile.ptr<!tile.ptr<i8>>, %{{.*}}: tensor<4x!tile.ptr<bf16>>)
func.func @pointer_types(%a: !tile.ptr<f32, 1>, %b: !tile.ptr<f16, 3>,
                         %c: !tile.ptr<!tile.ptr<i8>>, %d: tensor<4x!tile.ptr<bf16>>) {
  return
}

// CHECK-LABEL: func.func @program_identity
func.func @program_identity() -> (i32, i32, i32, i32) {
  // CHECK: tile.program_id x
  // CHECK: tile.program_id y
  // CHECK: tile.program_id z
  // CHECK: tile.num_programs x
  %0 = tile.program_id x
  %1 = tile.program_id y
  %2 = tile.program_id z
  %3 = tile.num_programs x
  return %0, %1, %2, %3 : i32, i32, i32, i32
}

// CHECK-LABEL: func.func @construction
func.func @construction(%x: f32, %t: tensor<1x32xf32>, %v: tensor<32xf32>)
    -> (tensor<16xi32>, tensor<8x32xf32>, tensor<64x32xf32>, tensor<32x1xf32>) {
  // CHECK: tile.make_range 16, 32 : tensor<16xi32>
  %r = tile.make_range 16, 32 : tensor<16xi32>
  // CHECK: tile.splat %{{.*}} : tensor<8x32xf32>
  %s = tile.splat %x : tensor<8x32xf32>
  // CHECK: tile.broadcast %{{.*}} : tensor<1x32xf32> -> tensor<64x32xf32>
  %b = tile.broadcast %t : tensor<1x32xf32> -> tensor<64x32xf32>
  // CHECK: tile.expand_dims %{{.*}} {axis = 1 : i32} : tensor<32xf32> -> tensor<32x1xf32>
  %e = tile.expand_dims %v {axis = 1 : i32} : tensor<32xf32> -> tensor<32x1xf32>
  return %r, %s, %b, %e : tensor<16xi32>, tensor<8x32xf32>, tensor<64x32xf32>, tensor<32x1xf32>
}

// CHECK-LABEL: func.func @shapes
func.func @shapes(%t: tensor<4x32xf16>, %u: tensor<16x32xf16>)
    -> (tensor<128xf16>, tensor<128xf16>, tensor<32x16xf16>, tensor<32x32xf16>) {
  // CHECK: tile.reshape %{{.*}} : tensor<4x32xf16> -> tensor<128xf16>
  %r = tile.reshape %t : tensor<4x32xf16> -> tensor<128xf16>
  // CHECK: tile.reshape %{{.*}} allow_reorder : tensor<4x32xf16> -> tensor<128xf16>
  %o = tile.reshape %t allow_reorder : tensor<4x32xf16> -> tensor<128xf16>
  // CHECK: tile.trans %{{.*}} {order = array<i32: 1, 0>} : tensor<16x32xf16> -> tensor<32x16xf16>
  %p = tile.trans %u {order = array<i32: 1, 0>} : tensor<16x32xf16> -> tensor<32x16xf16>
  // CHECK: tile.cat %{{.*}}, %{{.*}} : tensor<16x32xf16> -> tensor<32x32xf16>
  %c = tile.cat %u, %u : tensor<16x32xf16> -> tensor<32x32xf16>
  return %r, %o, %p, %c : tensor<128xf16>, tensor<128xf16>, tensor<32x16xf16>, tensor<32x32xf16>
}

// CHECK-LABEL: func.func @join_split
func.func @join_split(%a: tensor<32xf32>, %s: i32) -> (tensor<32xf32>, i32) {
  // CHECK: %[[J:.*]] = tile.join %{{.*}}, %{{.*}} : tensor<32xf32> -> tensor<32x2xf32>
  // CHECK: tile.split %[[J]] : tensor<32x2xf32> -> tensor<32xf32>
  %j = tile.join %a, %a : tensor<32xf32> -> tensor<32x2xf32>
  %lo, %hi = tile.split %j : tensor<32x2xf32> -> tensor<32xf32>
  // CHECK: %[[JS:.*]] = tile.join %{{.*}}, %{{.*}} : i32 -> tensor<2xi32>
  // CHECK: tile.split %[[JS]] : tensor<2xi32> -> i32
  %js = tile.join %s, %s : i32 -> tensor<2xi32>
  %x, %y = tile.split %js : tensor<2xi32> -> i32
  return %hi, %y : tensor<32xf32>, i32
}

// CHECK-LABEL: func.func @memory
func.func @memory(%p: tensor<128x!tile.ptr<f32>>, %offs: tensor<128xi32>,
                  %m: tensor<128xi1>, %o: tensor<128xf32>, %s: !tile.ptr<i64>, %i: i64) {
  // CHECK: %[[Q:.*]] = tile.addptr %{{.*}}, %{{.*}} : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %q = tile.addptr %p, %offs : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  // CHECK: tile.addptr %{{.*}}, %{{.*}} : !tile.ptr<i64>, i64
  %sq = tile.addptr %s, %i : !tile.ptr<i64>, i64
  // CHECK: %[[A:.*]] = tile.ptr_to_int %[[Q]] : tensor<128x!tile.ptr<f32>> -> tensor<128xi64>
  // CHECK: tile.int_to_ptr %[[A]] : tensor<128xi64> -> tensor<128x!tile.ptr<f16>>
  // CHECK: tile.int_to_ptr %{{.*}} : i64 -> !tile.ptr<f32>
  %addrs = tile.ptr_to_int %q : tensor<128x!tile.ptr<f32>> -> tensor<128xi64>
  %halves = tile.int_to_ptr %addrs : tensor<128xi64> -> tensor<128x!tile.ptr<f16>>
  %one = tile.int_to_ptr %i : i64 -> !tile.ptr<f32>
  // CHECK: tile.load %[[Q]] : tensor<128x!tile.ptr<f32>>
  %a = tile.load %q : tensor<128x!tile.ptr<f32>>
  // CHECK: tile.load %[[Q]], %{{.*}}, %{{.*}} cache = cg evict = evict_last volatile : tensor<128x!tile.ptr<f32>>
  %b = tile.load %q, %m, %o cache = cg evict = evict_last volatile : tensor<128x!tile.ptr<f32>>
  // CHECK: tile.load %{{.*}} cache = ca : !tile.ptr<i64>
  %c = tile.load %sq cache = ca : !tile.ptr<i64>
  // CHECK: tile.store %[[Q]], %{{.*}}, %{{.*}} cache = wt evict = evict_first : tensor<128x!tile.ptr<f32>>
  tile.store %q, %a, %m cache = wt evict = evict_first : tensor<128x!tile.ptr<f32>>
  // CHECK: tile.store %{{.*}}, %{{.*}} : !tile.ptr<i64>
  tile.store %sq, %c : !tile.ptr<i64>
  return
}

// CHECK-LABEL: func.func @atomics
func.func @atomics(%p: tensor<64x!tile.ptr<f32>>, %v: tensor<64xf32>, %m: tensor<64xi1>,
                   %ip: !tile.ptr<i32>, %i: i32) {
  // CHECK: tile.atomic_rmw fadd, acq_rel, gpu, %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x!tile.ptr<f32>>
  %0 = tile.atomic_rmw fadd, acq_rel, gpu, %p, %v, %m : tensor<64x!tile.ptr<f32>>
  // CHECK: tile.atomic_rmw max, relaxed, cta, %{{.*}}, %{{.*}} : tensor<64x!tile.ptr<f32>>
  %1 = tile.atomic_rmw max, relaxed, cta, %p, %v : tensor<64x!tile.ptr<f32>>
  // CHECK: tile.atomic_rmw add, acquire, sys
  // CHECK: tile.atomic_rmw min, release, gpu
  // CHECK: tile.atomic_rmw umax, acq_rel, gpu
  // CHECK: tile.atomic_rmw umin, acq_rel, gpu
  // CHECK: tile.atomic_rmw and, acq_rel, gpu
  // CHECK: tile.atomic_rmw or, acq_rel, gpu
  // CHECK: tile.atomic_rmw xor, acq_rel, gpu
  // CHECK: tile.atomic_rmw xchg, acq_rel, gpu
  %2 = tile.atomic_rmw add, acquire, sys, %ip, %i : !tile.ptr<i32>
  %3 = tile.atomic_rmw min, release, gpu, %ip, %i : !tile.ptr<i32>
  %4 = tile.atomic_rmw umax, acq_rel, gpu, %ip, %i : !tile.ptr<i32>
  %5 = tile.atomic_rmw umin, acq_rel, gpu, %ip, %i : !tile.ptr<i32>
  %6 = tile.atomic_rmw and, acq_rel, gpu, %ip, %i : !tile.ptr<i32>
  %7 = tile.atomic_rmw or, acq_rel, gpu, %ip, %i : !tile.ptr<i32>
  %8 = tile.atomic_rmw xor, acq_rel, gpu, %ip, %i : !tile.ptr<i32>
  %9 = tile.atomic_rmw xchg, acq_rel, gpu, %ip, %i : !tile.ptr<i32>
  // CHECK: tile.atomic_cas acq_rel, gpu, %{{.*}}, %{{.*}}, %{{.*}} : !tile.ptr<i32>
  %10 = tile.atomic_cas acq_rel, gpu, %ip, %i, %i : !tile.ptr<i32>
  return
}

// CHECK-LABEL: func.func @dots
func.func @dots(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %c: tensor<64x64xf32>,
                %fa: tensor<16x16xf32>, %fc: tensor<16x16xf32>,
                %ba: tensor<2x16x32xi8>, %bb: tensor<2x32x16xi8>, %bc: tensor<2x16x16xi32>,
                %e4: tensor<16x32xf8E4M3FN>, %e5: tensor<32x16xf8E5M2>)
    -> (tensor<64x64xf32>, tensor<16x16xf32>, tensor<2x16x16xi32>, tensor<16x16xf32>) {
  // CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
  %0 = tile.dot %a, %b, %c : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
  // CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} precision = tf32x3 : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
  %1 = tile.dot %fa, %fa, %fc precision = tf32x3 : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
  // CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x16x32xi8> * tensor<2x32x16xi8> -> tensor<2x16x16xi32>
  %2 = tile.dot %ba, %bb, %bc : tensor<2x16x32xi8> * tensor<2x32x16xi8> -> tensor<2x16x16xi32>
  // CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} precision = tf32 {maxNumImpreciseAcc = 32 : i32} : tensor<16x32xf8E4M3FN> * tensor<32x16xf8E5M2> -> tensor<16x16xf32>
  %3 = tile.dot %e4, %e5, %fc precision = tf32 {maxNumImpreciseAcc = 32 : i32} : tensor<16x32xf8E4M3FN> * tensor<32x16xf8E5M2> -> tensor<16x16xf32>
  return %0, %1, %2, %3 : tensor<64x64xf32>, tensor<16x16xf32>, tensor<2x16x16xi32>, tensor<16x16xf32>
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<8x128xf32>, %i: tensor<8x128xi32>)
    -> (tensor<8xf32>, tensor<128xf32>, tensor<128xi32>, tensor<8x128xi32>) {
  // CHECK: tile.reduce(%{{.*}}) axis = 1 : (tensor<8x128xf32>) -> tensor<8xf32> {
  // CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32):
  // CHECK-NEXT:   %[[S:.*]] = arith.addf %[[A]], %[[B]] : f32
  // CHECK-NEXT:   tile.reduce.return %[[S]] : f32
  %s = tile.reduce(%x) axis = 1 : (tensor<8x128xf32>) -> tensor<8xf32> {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    tile.reduce.return %r : f32
  }
  // An argmax: two operands reduced together.
  // CHECK: tile.reduce(%{{.*}}, %{{.*}}) axis = 0 : (tensor<8x128xf32>, tensor<8x128xi32>) -> (tensor<128xf32>, tensor<128xi32>)
  // CHECK: tile.reduce.return %{{.*}}, %{{.*}} : f32, i32
  %m:2 = tile.reduce(%x, %i) axis = 0 : (tensor<8x128xf32>, tensor<8x128xi32>) -> (tensor<128xf32>, tensor<128xi32>) {
  ^bb0(%va: f32, %ia: i32, %vb: f32, %ib: i32):
    %gt = arith.cmpf ogt, %va, %vb : f32
    %v = arith.select %gt, %va, %vb : f32
    %j = arith.select %gt, %ia, %ib : i32
    tile.reduce.return %v, %j : f32, i32
  }
  // CHECK: tile.scan(%{{.*}}) axis = 1 reverse : (tensor<8x128xi32>) -> tensor<8x128xi32> {
  // CHECK: tile.scan.return %{{.*}} : i32
  %c = tile.scan(%i) axis = 1 reverse : (tensor<8x128xi32>) -> tensor<8x128xi32> {
  ^bb0(%a: i32, %b: i32):
    %r = arith.addi %a, %b : i32
    tile.scan.return %r : i32
  }
  return %s, %m#0, %m#1, %c : tensor<8xf32>, tensor<128xf32>, tensor<128xi32>, tensor<8x128xi32>
}

// CHECK-LABEL: func.func @reduce_to_scalar
func.func @reduce_to_scalar(%x: tensor<128xi32>) -> i32 {
  // CHECK: tile.reduce(%{{.*}}) axis = 0 : (tensor<128xi32>) -> i32
  %s = tile.reduce(%x) axis = 0 : (tensor<128xi32>) -> i32 {
  ^bb0(%a: i32, %b: i32):
    %r = arith.maxsi %a, %b : i32
    tile.reduce.return %r : i32
  }
  return %s : i32
}

// CHECK-LABEL: func.func @extern_and_debug
func.func @extern_and_debug(%x: tensor<128xf32>, %i: tensor<16xi32>, %ok: tensor<16xi1>, %s: f32) -> tensor<128xf32> {
  // CHECK: tile.extern_elementwise %{{.*}} {libname = "libdevice", libpath = "", pure, symbol = "__nv_erff"} : (tensor<128xf32>) -> tensor<128xf32>
  %y = tile.extern_elementwise %x {libname = "libdevice", libpath = "", symbol = "__nv_erff", pure} : (tensor<128xf32>) -> tensor<128xf32>
  // CHECK: tile.histogram %{{.*}} : tensor<16xi32> -> tensor<8xi32>
  %h = tile.histogram %i : tensor<16xi32> -> tensor<8xi32>
  // CHECK: tile.histogram %{{.*}}, %{{.*}} : tensor<16xi32>, tensor<16xi1> -> tensor<8xi32>
  %hm = tile.histogram %i, %ok : tensor<16xi32>, tensor<16xi1> -> tensor<8xi32>
  // CHECK: tile.gather %{{.*}}[%{{.*}}] {axis = 0 : i32} : (tensor<128xf32>, tensor<16xi32>) -> tensor<16xf32>
  %g = tile.gather %x[%i] {axis = 0 : i32} : (tensor<128xf32>, tensor<16xi32>) -> tensor<16xf32>
  // CHECK: tile.inline_asm %{{.*}}, %{{.*}} {asm_string = "mov.b32 $0, $2; mov.b32 $1, $3;", constraints = "=r,=r,r,r", packed_element = 1 : i32} : (tensor<16xi32>, tensor<16xi32>) -> (tensor<16xi32>, tensor<16xi32>)
  %a, %b = tile.inline_asm %i, %i {asm_string = "mov.b32 $0, $2; mov.b32 $1, $3;", constraints = "=r,=r,r,r", packed_element = 1 : i32} : (tensor<16xi32>, tensor<16xi32>) -> (tensor<16xi32>, tensor<16xi32>)
  // CHECK: tile.inline_asm {asm_string = "mov.u64 $0, %globaltimer;", constraints = "=l", packed_element = 1 : i32} : () -> i64
  %t = tile.inline_asm {asm_string = "mov.u64 $0, %globaltimer;", constraints = "=l", packed_element = 1 : i32} : () -> i64
  // CHECK: tile.print " x: " %{{.*}}, %{{.*}} : tensor<16xi32>, f32 {isSigned = array<i1: true, false>}
  tile.print " x: " %i, %s : tensor<16xi32>, f32 {isSigned = array<i1: true, false>}
  // CHECK: tile.print "hex" hex %{{.*}} : tensor<16xi32>
  tile.print "hex" hex %i : tensor<16xi32>
  // CHECK: tile.print "only a message"
  tile.print "only a message"
  // CHECK: tile.assert %{{.*}}, "index out of bounds" : tensor<16xi1>
  tile.assert %ok, "index out of bounds" : tensor<16xi1>
  return %y : tensor<128xf32>
}

// Kernels call helpers through the func dialect.
// CHECK-LABEL: func.func private @helper
// CHECK-LABEL: func.func @caller
// CHECK: call @helper(%{{.*}}) : (i32) -> i32
func.func private @helper(%x: i32) -> i32 {
  return %x : i32
}
func.func @caller(%x: i32) -> i32 {
  %0 = func.call @helper(%x) : (i32) -> i32
  return %0 : i32
}

// CHECK-LABEL: func.func @scope_records
func.func @scope_records(%buffer: !tile.ptr<i64>) {
  // CHECK: tile.scope_record %{{.*}} {scope = 0 : i32, slots = 64 : i32, warps = 4 : i32} : !tile.ptr<i64>
  tile.scope_record %buffer {scope = 0 : i32, slots = 64 : i32, warps = 4 : i32} : !tile.ptr<i64>
  // CHECK: tile.scope_record %{{.*}} {end, scope = 0 : i32, slots = 64 : i32, warps = 4 : i32} : !tile.ptr<i64>
  tile.scope_record %buffer {end, scope = 0 : i32, slots = 64 : i32, warps = 4 : i32} : !tile.ptr<i64>
  return
}
