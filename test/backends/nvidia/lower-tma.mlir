// mbarriers and TMA copies print and parse back, and lower to PTX: set-up,
// expect-tx and copies issued by one thread (a predicate in the
// instruction), waits by every thread in a try_wait loop, coordinates
// innermost first, and a TMA store committed to a bulk group and waited
// for by its thread while the others wait at a barrier.
// RUN: tessera-opt %s | tessera-opt | FileCheck %s --check-prefix=ROUND
// RUN: tessera-opt %s -tile-nvidia-to-llvm | FileCheck %s

#bar = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#nvmma = #tile.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>

// ROUND-LABEL: func.func @tma
// ROUND: tile_nvidia.init_barrier %{{.*}}, 1 : !tile.memdesc<1xi64, #{{.*}}, mutable>
// ROUND: tile_nvidia.barrier_expect %{{.*}}, 16384, %{{.*}} : !tile.memdesc
// ROUND: tile_nvidia.async_tma_copy_global_to_local %{{.*}}[%{{.*}}, %{{.*}}] %{{.*}}, %{{.*}}, %{{.*}} : !tile.ptr<i8>, !tile.memdesc<128x64xf16
// ROUND: tile_nvidia.wait_barrier %{{.*}}, %{{.*}} : !tile.memdesc
// ROUND: tile_nvidia.arrive_barrier %{{.*}}, 2, %{{.*}} : !tile.memdesc
// ROUND: tile_nvidia.async_tma_copy_local_to_global %{{.*}}[%{{.*}}, %{{.*}}] %{{.*}} : !tile.ptr<i8>, !tile.memdesc<128x64xf16
// ROUND: tile_nvidia.async_tma_store_wait {pendings = 0 : i32}
// ROUND: tile_nvidia.inval_barrier

// CHECK-LABEL: llvm.func @tma
// CHECK: nvvm.barrier0
// CHECK: @p mbarrier.init.shared::cta.b64 [$1], 1;
// CHECK: nvvm.barrier0
// CHECK: @p mbarrier.arrive.expect_tx.shared::cta.b64 _, [$1], 16384;
// CHECK: @p cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [$1], [$2, {$5, $4}], [$3];
// CHECK-SAME: "r,r,l,r,r,r"
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 done, [$0], $1;
// CHECK: @p mbarrier.arrive.shared::cta.b64 _, [$1], 2;
// CHECK: @p cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [$2, {$4, $3}], [$1];
// CHECK: cp.async.bulk.wait_group.read 0;
// CHECK-NEXT: nvvm.barrier0
// CHECK: mbarrier.inval.shared::cta.b64
module attributes {tile.num_warps = 4 : i32, tile.warp_size = 32 : i32} {
  func.func @tma(%map: !tile.ptr<i8>, %i: i32, %j: i32, %phase: i32, %pred: i1) {
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #bar, mutable>
    %buf = tile.local_alloc : () -> !tile.memdesc<128x64xf16, #nvmma, mutable>
    tile_nvidia.init_barrier %bar, 1 : !tile.memdesc<1xi64, #bar, mutable>
    tile_nvidia.barrier_expect %bar, 16384, %pred : !tile.memdesc<1xi64, #bar, mutable>
    tile_nvidia.async_tma_copy_global_to_local %map[%i, %j] %buf, %bar, %pred : !tile.ptr<i8>, !tile.memdesc<128x64xf16, #nvmma, mutable>, !tile.memdesc<1xi64, #bar, mutable>
    tile_nvidia.wait_barrier %bar, %phase : !tile.memdesc<1xi64, #bar, mutable>
    tile_nvidia.arrive_barrier %bar, 2, %pred : !tile.memdesc<1xi64, #bar, mutable>
    tile_nvidia.async_tma_copy_local_to_global %map[%i, %j] %buf : !tile.ptr<i8>, !tile.memdesc<128x64xf16, #nvmma, mutable>
    tile_nvidia.async_tma_store_wait {pendings = 0 : i32}
    tile_nvidia.inval_barrier %bar : !tile.memdesc<1xi64, #bar, mutable>
    return
  }
}
