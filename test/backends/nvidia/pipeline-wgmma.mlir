// Pipelining a loop that feeds warpgroup dots: the loads stored to shared
// memory for them become asynchronous copies into S + 1 buffers of the
// stores' NVMMA layouts, issued S - 1 iterations ahead, and the dots read
// the slots directly; the dot runs asynchronously, one in flight, waited
// for after the loop; no fence, since nothing is stored from registers.
// RUN: tessera-opt %s -split-input-file -tile-assign-layouts -tile-nvidia-assign-mma=compute-capability=90 -tile-remove-conversions -canonicalize -cse -tile-pipeline -canonicalize -cse -tile-nvidia-async-warpgroup-dots -tile-nvidia-fence-async-shared | FileCheck %s

// CHECK-DAG: #[[$SA:shared[0-9]*]] = #tile.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>
// CHECK-DAG: #[[$SB:shared[0-9]*]] = #tile.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
// CHECK-LABEL: func.func @matmul
// CHECK: %[[A:.*]] = tile.local_alloc : () -> !tile.memdesc<4x128x32xf16, #[[$SA]], mutable>
// CHECK: %[[B:.*]] = tile.local_alloc : () -> !tile.memdesc<4x32x128xf16, #[[$SB]], mutable>
// CHECK-COUNT-2: tile.async_commit_group
// CHECK: scf.for
// CHECK: tile.async_wait {num = 1 : i32}
// CHECK: tile.async_copy_global_to_local
// CHECK: tile.async_copy_global_to_local
// CHECK-NEXT: tile.async_commit_group
// CHECK: %[[X:.*]] = tile.memdesc_index %[[A]][%{{.*}}]
// CHECK-NEXT: %[[Y:.*]] = tile.memdesc_index %[[B]][%{{.*}}]
// CHECK-NEXT: %[[D:.*]] = tile_nvidia.warpgroup_dot %[[X]], %[[Y]], %{{.*}} {isAsync} : !tile.memdesc<128x32xf16, #[[$SA]], mutable, 4x128x32> * !tile.memdesc<32x128xf16, #[[$SB]], mutable, 4x32x128>
// CHECK-NEXT: %[[W:.*]] = tile_nvidia.warpgroup_dot_wait %[[D]] {pendings = 1 : i32}
// CHECK-NEXT: scf.yield %[[W]]
// CHECK: %[[R:.*]] = tile_nvidia.warpgroup_dot_wait %{{.*}} {pendings = 0 : i32}
// CHECK-NOT: fence_async_shared
// CHECK: tile.async_wait {num = 0 : i32}
// CHECK: tile.store %{{.*}}, %{{.*}}
func.func @matmul(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                  %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                  %c: tensor<128x128x!tile.ptr<f32>>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %ra = tile.make_range 0, 128 : tensor<128xi32>
  %ka = tile.make_range 0, 32 : tensor<32xi32>
  %rows = tile.expand_dims %ra {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
  %c32 = arith.constant dense<32> : tensor<128x1xi32>
  %roff = arith.muli %rows, %c32 : tensor<128x1xi32>
  %rb = tile.broadcast %roff : tensor<128x1xi32> -> tensor<128x32xi32>
  %cols = tile.expand_dims %ka {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %cb = tile.broadcast %cols : tensor<1x32xi32> -> tensor<128x32xi32>
  %offa = arith.addi %rb, %cb : tensor<128x32xi32>
  %pa0 = tile.splat %a : tensor<128x32x!tile.ptr<f16>>
  %pa = tile.addptr %pa0, %offa : tensor<128x32x!tile.ptr<f16>>, tensor<128x32xi32>
  %krows = tile.expand_dims %ka {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %c128 = arith.constant dense<128> : tensor<32x1xi32>
  %koff = arith.muli %krows, %c128 : tensor<32x1xi32>
  %kb = tile.broadcast %koff : tensor<32x1xi32> -> tensor<32x128xi32>
  %ncols = tile.expand_dims %ra {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %nb = tile.broadcast %ncols : tensor<1x128xi32> -> tensor<32x128xi32>
  %offb = arith.addi %kb, %nb : tensor<32x128xi32>
  %pb0 = tile.splat %b : tensor<32x128x!tile.ptr<f16>>
  %pb = tile.addptr %pb0, %offb : tensor<32x128x!tile.ptr<f16>>, tensor<32x128xi32>
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<128x128xf32>) : i32 {
    %x = tile.load %pa : tensor<128x32x!tile.ptr<f16>>
    %y = tile.load %pb : tensor<32x128x!tile.ptr<f16>>
    %d = tile.dot %x, %y, %acc_i : tensor<128x32xf16> * tensor<32x128xf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %c, %acc : tensor<128x128x!tile.ptr<f32>>
  return
}

// -----

// Where each warp's share of an iteration's dots is 2^18 multiply-adds
// (128x256x64 over 8 warps), the copies go after the dot: the wait for the
// last iteration's dot, then a barrier, then the copies into the buffer it
// read; so S buffers, with no spare.
// CHECK-LABEL: func.func @matmul_copies_late
// CHECK: %[[A:.*]] = tile.local_alloc : () -> !tile.memdesc<3x128x64xf16
// CHECK: %[[B:.*]] = tile.local_alloc : () -> !tile.memdesc<3x64x256xf16
// CHECK: scf.for
// CHECK: tile.async_wait {num = 1 : i32}
// CHECK-NOT: tile.async_copy_global_to_local
// CHECK: %[[D:.*]] = tile_nvidia.warpgroup_dot {{.*}} {isAsync}
// CHECK-NEXT: %[[W:.*]] = tile_nvidia.warpgroup_dot_wait %[[D]] {pendings = 1 : i32}
// CHECK-NOT: tile.async_copy_global_to_local
// CHECK: tile.barrier
// CHECK-NOT: tile_nvidia.warpgroup_dot
// CHECK: tile.async_copy_global_to_local
// CHECK: tile.async_copy_global_to_local
// CHECK-NEXT: tile.async_commit_group
// CHECK-NEXT: scf.yield %[[W]]
module attributes {"tile.num_warps" = 8 : i32} {
func.func @matmul_copies_late(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                              %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                              %c: tensor<128x256x!tile.ptr<f32>>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<128x256xf32>
  %rm = tile.make_range 0, 128 : tensor<128xi32>
  %rk = tile.make_range 0, 64 : tensor<64xi32>
  %rn = tile.make_range 0, 256 : tensor<256xi32>
  %rows = tile.expand_dims %rm {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
  %c64 = arith.constant dense<64> : tensor<128x1xi32>
  %roff = arith.muli %rows, %c64 : tensor<128x1xi32>
  %rb = tile.broadcast %roff : tensor<128x1xi32> -> tensor<128x64xi32>
  %cols = tile.expand_dims %rk {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %cb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<128x64xi32>
  %offa = arith.addi %rb, %cb : tensor<128x64xi32>
  %pa0 = tile.splat %a : tensor<128x64x!tile.ptr<f16>>
  %pa = tile.addptr %pa0, %offa : tensor<128x64x!tile.ptr<f16>>, tensor<128x64xi32>
  %krows = tile.expand_dims %rk {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %c256 = arith.constant dense<256> : tensor<64x1xi32>
  %koff = arith.muli %krows, %c256 : tensor<64x1xi32>
  %kb = tile.broadcast %koff : tensor<64x1xi32> -> tensor<64x256xi32>
  %ncols = tile.expand_dims %rn {axis = 0 : i32} : tensor<256xi32> -> tensor<1x256xi32>
  %nb = tile.broadcast %ncols : tensor<1x256xi32> -> tensor<64x256xi32>
  %offb = arith.addi %kb, %nb : tensor<64x256xi32>
  %pb0 = tile.splat %b : tensor<64x256x!tile.ptr<f16>>
  %pb = tile.addptr %pb0, %offb : tensor<64x256x!tile.ptr<f16>>, tensor<64x256xi32>
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<128x256xf32>) : i32 {
    %x = tile.load %pa : tensor<128x64x!tile.ptr<f16>>
    %y = tile.load %pb : tensor<64x256x!tile.ptr<f16>>
    %d = tile.dot %x, %y, %acc_i : tensor<128x64xf16> * tensor<64x256xf16> -> tensor<128x256xf32>
    scf.yield %d : tensor<128x256xf32>
  }
  tile.store %c, %acc : tensor<128x256x!tile.ptr<f32>>
  return
}
}

// -----

// Attention's loop: both dots start asynchronously; q kᵀ is waited for
// before the softmax reads it, p v (whose accumulator the loop rescales
// before the next one) before the loop goes round, with S buffers each.
// CHECK-LABEL: func.func @attention
// CHECK: %[[K:.*]] = tile.local_alloc : () -> !tile.memdesc<3x64x64xf16
// CHECK: %[[V:.*]] = tile.local_alloc : () -> !tile.memdesc<3x64x64xf16
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK: %[[S:.*]] = tile_nvidia.warpgroup_dot {{.*}} {isAsync}
// CHECK-NEXT: %[[SW:.*]] = tile_nvidia.warpgroup_dot_wait %[[S]] {pendings = 0 : i32}
// CHECK-NEXT: tile.reduce(%[[SW]])
// CHECK: arith.mulf %[[ACC]]
// CHECK: %[[O:.*]] = tile_nvidia.warpgroup_dot {{.*}} {isAsync}
// CHECK-NEXT: %[[OW:.*]] = tile_nvidia.warpgroup_dot_wait %[[O]] {pendings = 0 : i32}
// CHECK-NEXT: scf.yield %[[OW]]
// CHECK: tile_nvidia.warpgroup_dot_wait %{{.*}} {pendings = 0 : i32}
func.func @attention(%q: tensor<64x64x!tile.ptr<f16>>,
                     %k: tensor<64x64x!tile.ptr<f16>>,
                     %v: tensor<64x64x!tile.ptr<f16>>,
                     %o: tensor<64x64x!tile.ptr<f32>>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %half = arith.constant dense<0.5> : tensor<64x64xf32>
  %qv = tile.load %q : tensor<64x64x!tile.ptr<f16>>
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) : i32 {
    %kv = tile.load %k : tensor<64x64x!tile.ptr<f16>>
    %kt = tile.trans %kv {order = array<i32: 1, 0>} : tensor<64x64xf16> -> tensor<64x64xf16>
    %s = tile.dot %qv, %kt, %zero : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
    %m = tile.reduce(%s) axis = 1 : (tensor<64x64xf32>) -> tensor<64xf32> {
    ^bb0(%x: f32, %y: f32):
      %r = arith.maxnumf %x, %y : f32
      tile.reduce.return %r : f32
    }
    %m1 = tile.expand_dims %m {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
    %mb = tile.broadcast %m1 : tensor<64x1xf32> -> tensor<64x64xf32>
    %c = arith.subf %s, %mb : tensor<64x64xf32>
    %e = math.exp2 %c : tensor<64x64xf32>
    %p = arith.truncf %e : tensor<64x64xf32> to tensor<64x64xf16>
    %scaled = arith.mulf %acc_i, %half : tensor<64x64xf32>
    %vv = tile.load %v : tensor<64x64x!tile.ptr<f16>>
    %d = tile.dot %p, %vv, %scaled : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %o, %acc : tensor<64x64x!tile.ptr<f32>>
  return
}
