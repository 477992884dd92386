// A persistent matmul through tensor descriptors on sm_90a, its tile loop
// fused with its K loop: one pipelined loop over (tile, k). The
// accumulator restarting at each tile becomes the wgmma's scale-d (useC),
// so one dot stays in flight across iterations; the epilogue waits for it
// inside its branch, and stores by TMA. With 128x256x64 tiles the copies
// come after the dot (waited to one in flight) and a block barrier, so
// the S = 3 buffers need no spare.
// RUN: tessera-opt %s -tile-fuse-nested-loops -tile-nvidia-select-bulk-copies="compute-capability=90 num-warps=8" -tile-lower-descriptors -tile-assign-layouts -tile-nvidia-assign-mma=compute-capability=90 -tile-remove-conversions -canonicalize -cse -tile-nvidia-pipeline=num-stages=3 -canonicalize -cse -tile-nvidia-lower-bulk-copies -tile-nvidia-async-warpgroup-dots | FileCheck %s

// CHECK-LABEL: func.func @persistent
// CHECK-DAG:   tile.local_alloc : () -> !tile.memdesc<3x128x64xf16, #{{.*}}, mutable>
// CHECK-DAG:   tile.local_alloc : () -> !tile.memdesc<3x64x256xf16, #{{.*}}, mutable>
// CHECK:       scf.for {{.*}} iter_args(%[[ACC:[a-z0-9]+]] = %{{.*}},
// CHECK:         tile_nvidia.wait_barrier
// CHECK:         %[[USE:.*]] = arith.xori %{{.*}}, %{{.*}} : i1
// CHECK:         %[[D:.*]] = tile_nvidia.warpgroup_dot %{{.*}}, %{{.*}}, %[[ACC]] useC %[[USE]] {{.*}}{isAsync}
// CHECK-NEXT:    %[[W:.*]] = tile_nvidia.warpgroup_dot_wait %[[D]] {pendings = 1 : i32}
// CHECK-NEXT:    scf.if %{{.*}} {
// CHECK-NEXT:      %[[DONE:.*]] = tile_nvidia.warpgroup_dot_wait %[[W]] {pendings = 0 : i32}
// CHECK-NEXT:      %[[C:.*]] = arith.truncf %[[DONE]]
// CHECK-NEXT:      %[[BUF:.*]] = tile.local_alloc %[[C]]
// CHECK:           tile_nvidia.async_tma_copy_local_to_global %{{.*}} %[[BUF]]
// CHECK:         }
// CHECK:         tile.barrier
// CHECK:         tile_nvidia.barrier_expect %{{.*}}, 49152
// CHECK-COUNT-2: tile_nvidia.async_tma_copy_global_to_local
// CHECK:         scf.yield %[[W]],
// CHECK:       tile_nvidia.warpgroup_dot_wait %{{.*}} {pendings = 0 : i32}
module attributes {tile.num_warps = 8 : i32} {
  func.func @persistent(%pa: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                        %pb: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                        %pc: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                        %tiles: i32, %k: i32,
                        %ld: i64 {tile.divisibility = 16 : i32}) {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %c128 = arith.constant 128 : i32
    %c132 = arith.constant 132 : i32
    %one = arith.constant 1 : i64
    %da = tile.make_tensor_descriptor %pa, [%tiles, %k], [%ld, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<128x64xf16>>
    %db = tile.make_tensor_descriptor %pb, [%k, %k], [%ld, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x256xf16>>
    %dc = tile.make_tensor_descriptor %pc, [%tiles, %k], [%ld, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<128x256xf16>>
    %zero = arith.constant dense<0.0> : tensor<128x256xf32>
    %pid = tile.program_id x
    scf.for %tile = %pid to %tiles step %c132 : i32 {
      %row = arith.muli %tile, %c128 : i32
      %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%c = %zero) -> (tensor<128x256xf32>) : i32 {
        %a = tile.descriptor_load %da[%row, %kk] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16>
        %b = tile.descriptor_load %db[%kk, %c0] : !tile.tensordesc<tensor<64x256xf16>> -> tensor<64x256xf16>
        %d = tile.dot %a, %b, %c : tensor<128x64xf16> * tensor<64x256xf16> -> tensor<128x256xf32>
        scf.yield %d : tensor<128x256xf32>
      }
      %h = arith.truncf %acc : tensor<128x256xf32> to tensor<128x256xf16>
      tile.descriptor_store %dc[%row, %c0], %h : !tile.tensordesc<tensor<128x256xf16>>, tensor<128x256xf16>
    } {tile.flatten}
    return
  }
}
