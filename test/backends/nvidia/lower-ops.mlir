// The lowering of each tile op to the LLVM and NVVM dialects.
// RUN: tessera-opt %s -tile-assign-layouts -tile-nvidia-to-llvm -canonicalize -cse | FileCheck %s

// Program ids and counts are special registers; a scalar store is made by
// thread 0 alone.
// CHECK-LABEL: llvm.func @ids(
// CHECK-SAME: nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>
// CHECK-DAG: nvvm.read.ptx.sreg.ctaid.x
// CHECK-DAG: nvvm.read.ptx.sreg.ctaid.y
// CHECK-DAG: nvvm.read.ptx.sreg.nctaid.z
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: %[[FIRST:.*]] = llvm.icmp "eq" %[[TID]]
// CHECK: "@$0 st.global.b32 [ $1 + 0 ], $2;", "b,l,r" %[[FIRST]]
func.func @ids(%out: !tile.ptr<i32>) {
  %x = tile.program_id x
  %y = tile.program_id y
  %n = tile.num_programs z
  %s = arith.addi %x, %y : i32
  %t = arith.addi %s, %n : i32
  tile.store %out, %t : !tile.ptr<i32>
  return
}

// A masked load is predicated, its `other` moved in first; cache hints
// become PTX qualifiers. (Without a divisible bound the mask varies per
// element, so the accesses are scalar.)
// CHECK-LABEL: llvm.func @masked_access(
// CHECK-SAME: llvm.align = 16
// CHECK: %[[M:.*]] = llvm.icmp "slt" %{{.*}}, %arg1
// CHECK: "mov.b32 $0, $3;\0A\09@$1 ld.global.cg.b32 $0, [ $2 + 0 ];", "=r,b,l,r" %[[M]]
// CHECK: "@$0 st.global.cs.b32 [ $1 + 0 ], $2;", "b,l,r" %[[M]]
func.func @masked_access(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) {
  %r = tile.make_range 0, 512 : tensor<512xi32>
  %ns = tile.splat %n : tensor<512xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<512xi32>
  %o = arith.constant dense<1.0> : tensor<512xf32>
  %p = tile.splat %x : tensor<512x!tile.ptr<f32>>
  %q = tile.addptr %p, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %v = tile.load %q, %m, %o cache = cg evict = evict_last : tensor<512x!tile.ptr<f32>>
  tile.store %q, %v, %m cache = cs : tensor<512x!tile.ptr<f32>>
  return
}

// Atomics are PTX's atom with the order and scope asked for, spelled as
// Triton spells them; a scalar atomic runs on one thread and its result
// reaches the others through shared memory.
// CHECK-LABEL: llvm.func @atomics(
// CHECK: llvm.inline_asm has_side_effects {{.*}}"atom.global.gpu.acq_rel.add.f32 $0, [$1], $2;", "=r,l,r,~{memory}"
// CHECK: llvm.inline_asm has_side_effects {{.*}}"atom.global.acq_rel.gpu.cas.b32 $0, [$1], $2, $3;", "=r,l,r,r,~{memory}" %arg1
// CHECK: nvvm.barrier0
// CHECK: llvm.store %{{.*}} : i32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK: llvm.inline_asm has_side_effects {{.*}}"atom.global.cta.relaxed.max.s32 $0, [$1], $2;", "=r,l,r,~{memory}" %arg1
func.func @atomics(%x: !tile.ptr<f32>, %i: !tile.ptr<i32>) {
  %r = tile.make_range 0, 128 : tensor<128xi32>
  %p = tile.splat %x : tensor<128x!tile.ptr<f32>>
  %q = tile.addptr %p, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %one = arith.constant dense<1.0> : tensor<128xf32>
  %old = tile.atomic_rmw fadd, acq_rel, gpu, %q, %one : tensor<128x!tile.ptr<f32>>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %prev = tile.atomic_cas acq_rel, gpu, %i, %c0, %c1 : !tile.ptr<i32>
  %mx = tile.atomic_rmw max, relaxed, cta, %i, %prev : !tile.ptr<i32>
  tile.store %q, %old : tensor<128x!tile.ptr<f32>>
  return
}

// A reduction: in each thread, across the warp by butterfly shuffles, then
// across warps through shared memory between barriers. Loads are 16-byte
// vectors.
// CHECK-LABEL: llvm.func @reduce_rows(
// CHECK: ld.global.v4.b32
// CHECK: llvm.intr.maxnum
// CHECK-COUNT-5: nvvm.shfl.sync bfly
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
func.func @reduce_rows(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32>) {
  %r = tile.make_range 0, 1024 : tensor<1024xi32>
  %p = tile.splat %x : tensor<1024x!tile.ptr<f32>>
  %q = tile.addptr %p, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %v = tile.load %q : tensor<1024x!tile.ptr<f32>>
  %s = tile.reduce(%v) axis = 0 : (tensor<1024xf32>) -> f32 {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maxnumf %a, %b : f32
    tile.reduce.return %m : f32
  }
  tile.store %out, %s : !tile.ptr<f32>
  return
}

// A scan: Hillis-Steele steps with indexed shuffles, warp totals through
// shared memory.
// CHECK-LABEL: llvm.func @cumsum(
// CHECK: nvvm.shfl.sync idx
// CHECK: llvm.store %{{.*}} : i32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
func.func @cumsum(%x: !tile.ptr<i32> {tile.divisibility = 16 : i32}) {
  %r = tile.make_range 0, 256 : tensor<256xi32>
  %p = tile.splat %x : tensor<256x!tile.ptr<i32>>
  %q = tile.addptr %p, %r : tensor<256x!tile.ptr<i32>>, tensor<256xi32>
  %v = tile.load %q : tensor<256x!tile.ptr<i32>>
  %c = tile.scan(%v) axis = 0 : (tensor<256xi32>) -> tensor<256xi32> {
  ^bb0(%a: i32, %b: i32):
    %s = arith.addi %a, %b : i32
    tile.scan.return %s : i32
  }
  tile.store %q, %c : tensor<256x!tile.ptr<i32>>
  return
}

// Loads coalesced along rows, stores along columns: the convert between
// them goes through shared memory with 16-byte accesses.
// CHECK-LABEL: llvm.func @transpose(
// CHECK: ld.global.v4.b32
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3>
// CHECK: st.global.v4.b32
func.func @transpose(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                     %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  %r = tile.make_range 0, 32 : tensor<32xi32>
  %c32 = arith.constant dense<32> : tensor<32x32xi32>
  %i = tile.expand_dims %r {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %j = tile.expand_dims %r {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %ib = tile.broadcast %i : tensor<32x1xi32> -> tensor<32x32xi32>
  %jb = tile.broadcast %j : tensor<1x32xi32> -> tensor<32x32xi32>
  %rows = arith.muli %ib, %c32 : tensor<32x32xi32>
  %cols = arith.muli %jb, %c32 : tensor<32x32xi32>
  %in = arith.addi %rows, %jb : tensor<32x32xi32>
  %out = arith.addi %cols, %ib : tensor<32x32xi32>
  %px = tile.splat %x : tensor<32x32x!tile.ptr<f32>>
  %py = tile.splat %y : tensor<32x32x!tile.ptr<f32>>
  %qx = tile.addptr %px, %in : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xi32>
  %qy = tile.addptr %py, %out : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xi32>
  %v = tile.load %qx : tensor<32x32x!tile.ptr<f32>>
  tile.store %qy, %v : tensor<32x32x!tile.ptr<f32>>
  return
}

// dot on CUDA cores: fused multiply-adds of the operands' elements.
// CHECK-LABEL: llvm.func @dot(
// CHECK: %[[A:.*]] = llvm.fpext %{{.*}} : f16 to f32
// CHECK-COUNT-16: llvm.intr.fma(%[[A]], %[[A]], %{{.*}}) : (f32, f32, f32) -> f32
func.func @dot(%a: !tile.ptr<f16>, %c: !tile.ptr<f32>) {
  %x = tile.load %a : !tile.ptr<f16>
  %xs = tile.splat %x : tensor<16x16xf16>
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  %d = tile.dot %xs, %xs, %z : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  %s = tile.reduce(%d) axis = 0 : (tensor<16x16xf32>) -> tensor<16xf32> {
  ^bb0(%p: f32, %q: f32):
    %m = arith.addf %p, %q : f32
    tile.reduce.return %m : f32
  }
  %t = tile.reduce(%s) axis = 0 : (tensor<16xf32>) -> f32 {
  ^bb0(%p: f32, %q: f32):
    %m = arith.addf %p, %q : f32
    tile.reduce.return %m : f32
  }
  tile.store %c, %t : !tile.ptr<f32>
  return
}

// print is vprintf with the block and thread ids; assert traps through
// __assertfail with the message and source location.
// CHECK-LABEL: llvm.func @debug(
// CHECK: llvm.call @vprintf(
// CHECK: llvm.call @__assertfail(
func.func @debug(%x: !tile.ptr<i32>) {
  %v = tile.load %x : !tile.ptr<i32>
  %c0 = arith.constant 0 : i32
  %ok = arith.cmpi sge, %v, %c0 : i32
  tile.print " v: " %v : i32 {isSigned = array<i1: true>}
  tile.assert %ok, "negative" : i1
  return
}

// CHECK-LABEL: llvm.func @extern(
// CHECK: llvm.call @__nv_erff(
func.func @extern(%x: !tile.ptr<f32>) {
  %v = tile.load %x : !tile.ptr<f32>
  %y = tile.extern_elementwise %v {libname = "libdevice", libpath = "", symbol = "__nv_erff", pure} : (f32) -> f32
  tile.store %x, %y : !tile.ptr<f32>
  return
}

// Inline assembly runs once per 4 elements: the i8 operand reaches it as
// one 32-bit register (a vector of four), its f32 one as four registers;
// the two results come back as a struct.
// CHECK-LABEL: llvm.func @inline_asm
// CHECK-COUNT-4: llvm.insertelement
// CHECK: llvm.inline_asm asm_dialect = att "shl.b32 $0, $5, 3;", "=r,=f,=f,=f,=f,r,f,f,f,f" %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (vector<4xi8>, f32, f32, f32, f32) -> !llvm.struct<(vector<4xi8>, f32, f32, f32, f32)>
// CHECK-COUNT-4: llvm.extractelement
// CHECK-NOT: shl.b32
func.func @inline_asm(%p: !tile.ptr<i8>, %q: !tile.ptr<f32>) {
  %offs = tile.make_range 0, 512 : tensor<512xi32>
  %ps = tile.splat %p : tensor<512x!tile.ptr<i8>>
  %pa = tile.addptr %ps, %offs : tensor<512x!tile.ptr<i8>>, tensor<512xi32>
  %qs = tile.splat %q : tensor<512x!tile.ptr<f32>>
  %qa = tile.addptr %qs, %offs : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %x = tile.load %pa : tensor<512x!tile.ptr<i8>>
  %f = tile.load %qa : tensor<512x!tile.ptr<f32>>
  %y, %g = tile.inline_asm %x, %f {asm_string = "shl.b32 $0, $5, 3;", constraints = "=r,=f,=f,=f,=f,r,f,f,f,f", packed_element = 4 : i32, pure} : (tensor<512xi8>, tensor<512xf32>) -> (tensor<512xi8>, tensor<512xf32>)
  tile.store %pa, %y : tensor<512x!tile.ptr<i8>>
  tile.store %qa, %g : tensor<512x!tile.ptr<f32>>
  return
}

// Inline assembly without operands (a special register) runs once a thread,
// with side effects unless pure; its scalar result is stored as any other.
// CHECK-LABEL: llvm.func @inline_asm_no_operands
// CHECK: %[[T:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "mov.u64 $0, %globaltimer;", "=l"  : () -> i64
// CHECK: st.global.b64 {{.*}} %arg0, %[[T]]
// CHECK-NOT: globaltimer
// CHECK: llvm.return
func.func @inline_asm_no_operands(%p: !tile.ptr<i64>) {
  %t = tile.inline_asm {asm_string = "mov.u64 $0, %globaltimer;", constraints = "=l", packed_element = 1 : i32} : () -> i64
  tile.store %p, %t : !tile.ptr<i64>
  return
}

// A gather stores its source to shared memory between two barriers, then
// reads each element of the result at the place its index names.
// CHECK-LABEL: llvm.func @gather
// CHECK: nvvm.barrier
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
func.func @gather(%p: !tile.ptr<f32>, %q: !tile.ptr<i32>) {
  %offs = tile.make_range 0, 512 : tensor<512xi32>
  %ps = tile.splat %p : tensor<512x!tile.ptr<f32>>
  %pa = tile.addptr %ps, %offs : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %qs = tile.splat %q : tensor<512x!tile.ptr<i32>>
  %qa = tile.addptr %qs, %offs : tensor<512x!tile.ptr<i32>>, tensor<512xi32>
  %x = tile.load %pa : tensor<512x!tile.ptr<f32>>
  %i = tile.load %qa : tensor<512x!tile.ptr<i32>>
  %g = tile.gather %x[%i] {axis = 0 : i32} : (tensor<512xf32>, tensor<512xi32>) -> tensor<512xf32>
  tile.store %pa, %g : tensor<512x!tile.ptr<f32>>
  return
}

// Two scalars joined into a tensor spread over lanes: each thread picks
// the scalar its element's index names.
// CHECK-LABEL: llvm.func @join_scalars
// CHECK: nvvm.read.ptx.sreg.tid.x
// CHECK: llvm.select
func.func @join_scalars(%p: !tile.ptr<i32>, %a: i32, %b: i32) {
  %j = tile.join %a, %b : i32 -> tensor<2xi32>
  %r = tile.make_range 0, 2 : tensor<2xi32>
  %ps = tile.splat %p : tensor<2x!tile.ptr<i32>>
  %pa = tile.addptr %ps, %r : tensor<2x!tile.ptr<i32>>, tensor<2xi32>
  tile.store %pa, %j : tensor<2x!tile.ptr<i32>>
  return
}

// A histogram zeroes its bins in shared memory, adds each element to its
// bin atomically (1, or 0 to bin 0 for values outside the bins), and reads
// the bins back.
// CHECK-LABEL: llvm.func @histogram
// CHECK: nvvm.barrier
// CHECK: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
// CHECK: nvvm.barrier
// CHECK: llvm.icmp "ult"
// CHECK: llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr<3>, i32
// CHECK: nvvm.barrier
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
func.func @histogram(%p: !tile.ptr<i32>) {
  %offs = tile.make_range 0, 512 : tensor<512xi32>
  %ps = tile.splat %p : tensor<512x!tile.ptr<i32>>
  %pa = tile.addptr %ps, %offs : tensor<512x!tile.ptr<i32>>, tensor<512xi32>
  %x = tile.load %pa : tensor<512x!tile.ptr<i32>>
  %h = tile.histogram %x : tensor<512xi32> -> tensor<64xi32>
  %bins = tile.make_range 0, 64 : tensor<64xi32>
  %bs = tile.splat %p : tensor<64x!tile.ptr<i32>>
  %ba = tile.addptr %bs, %bins : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
  tile.store %ba, %h : tensor<64x!tile.ptr<i32>>
  return
}

// join, trans, split, expand_dims, broadcast and reshape move registers;
// the layouts they leave are converted through shared memory.
// CHECK-LABEL: llvm.func @shapes(
// CHECK: nvvm.barrier0
// CHECK: st.global
func.func @shapes(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  %r = tile.make_range 0, 64 : tensor<64xi32>
  %p = tile.splat %x : tensor<64x!tile.ptr<f32>>
  %q = tile.addptr %p, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %v = tile.load %q : tensor<64x!tile.ptr<f32>>
  %j = tile.join %v, %v : tensor<64xf32> -> tensor<64x2xf32>
  %t = tile.trans %j {order = array<i32: 1, 0>} : tensor<64x2xf32> -> tensor<2x64xf32>
  %u = tile.trans %t {order = array<i32: 1, 0>} : tensor<2x64xf32> -> tensor<64x2xf32>
  %lo, %hi = tile.split %u : tensor<64x2xf32> -> tensor<64xf32>
  %s = arith.addf %lo, %hi : tensor<64xf32>
  %e = tile.expand_dims %s {axis = 0 : i32} : tensor<64xf32> -> tensor<1x64xf32>
  %b = tile.broadcast %e : tensor<1x64xf32> -> tensor<4x64xf32>
  %w = tile.reshape %b allow_reorder : tensor<4x64xf32> -> tensor<256xf32>
  %r3 = tile.make_range 0, 256 : tensor<256xi32>
  %p3 = tile.splat %x : tensor<256x!tile.ptr<f32>>
  %q3 = tile.addptr %p3, %r3 : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  tile.store %q3, %w : tensor<256x!tile.ptr<f32>>
  return
}

// cat keeps both operands' registers.
// CHECK-LABEL: llvm.func @concatenate(
// CHECK: ld.global.v4.b32
// CHECK: st.global
func.func @concatenate(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  %r = tile.make_range 0, 512 : tensor<512xi32>
  %p = tile.splat %x : tensor<512x!tile.ptr<f32>>
  %q = tile.addptr %p, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %v = tile.load %q : tensor<512x!tile.ptr<f32>>
  %k = tile.cat %v, %v : tensor<512xf32> -> tensor<1024xf32>
  %r2 = tile.make_range 0, 1024 : tensor<1024xi32>
  %p2 = tile.splat %x : tensor<1024x!tile.ptr<f32>>
  %q2 = tile.addptr %p2, %r2 : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  tile.store %q2, %k : tensor<1024x!tile.ptr<f32>>
  return
}

// An elementwise op is computed once for the registers the axis analysis
// proves equal: `r < n` with n a multiple of 16 is constant over aligned runs
// of 16, and each thread's 4 registers lie in one. With any n, each register
// compares on its own.
// CHECK-LABEL: llvm.func @equal_registers(
// CHECK: llvm.icmp "slt"
// CHECK-NEXT: llvm.zext
// CHECK-NOT: llvm.icmp
// CHECK-NOT: llvm.zext
// CHECK-LABEL: llvm.func @distinct_registers(
// CHECK-COUNT-4: llvm.icmp "slt"
// CHECK-COUNT-4: llvm.zext
func.func @equal_registers(%x: !tile.ptr<i32> {tile.divisibility = 16 : i32},
                           %n: i32 {tile.divisibility = 16 : i32}) {
  %r = tile.make_range 0, 512 : tensor<512xi32>
  %ns = tile.splat %n : tensor<512xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<512xi32>
  %v = arith.extui %m : tensor<512xi1> to tensor<512xi32>
  %p = tile.splat %x : tensor<512x!tile.ptr<i32>>
  %q = tile.addptr %p, %r : tensor<512x!tile.ptr<i32>>, tensor<512xi32>
  tile.store %q, %v : tensor<512x!tile.ptr<i32>>
  return
}
func.func @distinct_registers(%x: !tile.ptr<i32> {tile.divisibility = 16 : i32},
                              %n: i32) {
  %r = tile.make_range 0, 512 : tensor<512xi32>
  %ns = tile.splat %n : tensor<512xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<512xi32>
  %v = arith.extui %m : tensor<512xi1> to tensor<512xi32>
  %p = tile.splat %x : tensor<512x!tile.ptr<i32>>
  %q = tile.addptr %p, %r : tensor<512x!tile.ptr<i32>>, tensor<512xi32>
  tile.store %q, %v : tensor<512x!tile.ptr<i32>>
  return
}
