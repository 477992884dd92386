// The lowering of tile ops to the LLVM and ROCDL dialects, for 64- and
// 32-lane wavefronts.
// RUN: tessera-opt %s -tile-assign-layouts=warp-size=64 -tile-amd-to-llvm=warp-size=64 -canonicalize -cse | FileCheck %s
// RUN: tessera-opt %s -tile-assign-layouts=warp-size=32 -tile-amd-to-llvm=warp-size=32 -canonicalize -cse | FileCheck %s --check-prefix=W32

// Kernels: the kernel calling convention and their exact block size
// (4 wavefronts of 64 lanes); program ids are workgroup ids, the grid's
// size comes from the code object's implicit arguments.
// CHECK-LABEL: llvm.func @ids(
// CHECK-SAME: rocdl.flat_work_group_size = "256,256", rocdl.kernel, rocdl.reqd_work_group_size = array<i32: 256, 1, 1>
// W32-LABEL: llvm.func @ids(
// W32-SAME: rocdl.flat_work_group_size = "128,128"
// CHECK-DAG: rocdl.workgroup.id.x
// CHECK-DAG: rocdl.workgroup.id.y
// CHECK-DAG: llvm.call_intrinsic "llvm.amdgcn.implicitarg.ptr"() : () -> !llvm.ptr<4>
func.func @ids(%out: !tile.ptr<i32>) {
  %x = tile.program_id x
  %y = tile.program_id y
  %n = tile.num_programs z
  %s = arith.addi %x, %y : i32
  %t = arith.addi %s, %n : i32
  tile.store %out, %t : !tile.ptr<i32>
  return
}

// Masked accesses: plain global loads and stores behind branches.
// CHECK-LABEL: llvm.func @masked_access(
// CHECK: llvm.cond_br
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
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

// Atomic scopes: agent (the GPU), workgroup (the block).
// CHECK-LABEL: llvm.func @atomics(
// CHECK: llvm.atomicrmw fadd {{.*}} syncscope("agent") acq_rel
// CHECK: llvm.cmpxchg {{.*}} syncscope("agent") acq_rel acquire
// CHECK: rocdl.barrier
// CHECK: llvm.atomicrmw max {{.*}} syncscope("workgroup") monotonic
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

// A reduction crosses all lanes of the wavefront with ds_bpermute: six
// butterfly steps for 64 lanes, five for 32; then warps meet in LDS.
// CHECK-LABEL: llvm.func @reduce_rows(
// CHECK-COUNT-6: rocdl.ds_bpermute
// CHECK-NOT: rocdl.ds_bpermute
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK: rocdl.barrier
// W32-LABEL: llvm.func @reduce_rows(
// W32-COUNT-5: rocdl.ds_bpermute
// W32-NOT: rocdl.ds_bpermute
// W32: rocdl.barrier
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

// A layout conversion goes through LDS (address space 3).
// CHECK-LABEL: llvm.func @transpose(
// CHECK: llvm.store %{{.*}} : vector<4xf32>, !llvm.ptr<3>
// CHECK: rocdl.barrier
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3>
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

// assert traps (AMD kernels have no printf for the message).
// CHECK-LABEL: llvm.func @check(
// CHECK: llvm.cond_br
// CHECK: llvm.intr.trap
func.func @check(%x: !tile.ptr<i32>) {
  %v = tile.load %x : !tile.ptr<i32>
  %c0 = arith.constant 0 : i32
  %ok = arith.cmpi sge, %v, %c0 : i32
  tile.assert %ok, "negative" : i1
  return
}
