// A loop that feeds a warpgroup dot from tensor descriptors on sm_90a: the
// descriptor loads become TMA copies into S + 1 buffers, one transaction
// barrier per buffer (initialised before the loop, invalidated after),
// each iteration's copies after a block barrier (two warpgroups read the
// buffers) and one expect-tx of both blocks' bytes, predicated off past
// the end; the dot waits on its buffer's barrier with parity (i / 4) & 1.
// Each descriptor's tensor map becomes a kernel argument; its boxes are at
// most 128 bytes wide, so B's 256-column block takes four. A load outside
// any loop is copied into a buffer of its own and waited for at once.
// RUN: tessera-opt %s -tile-nvidia-select-bulk-copies="compute-capability=90 num-warps=8" -tile-lower-descriptors -tile-assign-layouts -tile-nvidia-assign-mma=compute-capability=90 -tile-remove-conversions -canonicalize -cse -tile-nvidia-pipeline=num-stages=3 -canonicalize -cse -tile-nvidia-lower-bulk-copies | FileCheck %s
// RUN: tessera-opt %s -tile-nvidia-select-bulk-copies="compute-capability=90 num-warps=8" -tile-lower-descriptors -tile-assign-layouts -tile-nvidia-assign-mma=compute-capability=90 -tile-remove-conversions -canonicalize -cse -tile-nvidia-pipeline=num-stages=3 -canonicalize -cse -tile-nvidia-lower-bulk-copies -tile-nvidia-async-warpgroup-dots -tile-nvidia-fence-async-shared -tile-nvidia-to-llvm | FileCheck %s --check-prefix=LLVM

// CHECK-LABEL: func.func @matmul
// CHECK-SAME: %[[MA:[a-z0-9]+]]: !tile.ptr<i8, 0> {tile.tensor_map = {base = 0 : i64, box = array<i64: 128, 64>, dtype = "fp16", nan_padding = false, shape_values = array<i64: 0, 0>, shapes = array<i64: 3, 5>, stride_values = array<i64: 0>, strides = array<i64: 6>, swizzle = 128 : i64}}
// CHECK-SAME: %[[MB:[a-z0-9]+]]: !tile.ptr<i8, 0> {tile.tensor_map = {base = 1 : i64, box = array<i64: 64, 64>, dtype = "fp16", nan_padding = true, shape_values = array<i64: 0, 0>, shapes = array<i64: 5, 4>, stride_values = array<i64: 512>, strides = array<i64: -1>, swizzle = 128 : i64}}
// CHECK: %[[BARS:.*]] = tile.local_alloc : () -> !tile.memdesc<4x1xi64, #{{.*}}, mutable>
// CHECK-COUNT-4: tile_nvidia.init_barrier %{{.*}}, 1
// CHECK: tile.barrier
// CHECK: tile_nvidia.barrier_expect %{{.*}}, 49152, %{{.*}}
// CHECK: tile_nvidia.async_tma_copy_global_to_local %[[MA]][
// CHECK: tile_nvidia.async_tma_copy_global_to_local %[[MB]][
// CHECK: scf.for %[[I:[a-z0-9]+]] =
// CHECK: %[[LIVE:.*]] = arith.cmpi slt, %[[I]]
// CHECK: tile.barrier
// CHECK: tile_nvidia.barrier_expect %{{.*}}, 49152, %[[LIVE]]
// CHECK: tile_nvidia.async_tma_copy_global_to_local %[[MA]][{{.*}}] %{{.*}}, %{{.*}}, %[[LIVE]]
// CHECK: tile_nvidia.async_tma_copy_global_to_local %[[MB]][{{.*}}] %{{.*}}, %{{.*}}, %[[LIVE]]
// CHECK: %[[ITER:.*]] = arith.divsi %[[I]], %c64_i32
// CHECK: %[[SLOT:.*]] = arith.remsi %[[ITER]], %c4_i32
// CHECK: %[[ROUND:.*]] = arith.divsi %[[ITER]], %c4_i32
// CHECK: %[[PHASE:.*]] = arith.andi %[[ROUND]], %c1_i32
// CHECK: %[[BAR:.*]] = tile.memdesc_index %[[BARS]][%[[SLOT]]]
// CHECK: tile_nvidia.wait_barrier %[[BAR]], %[[PHASE]]
// CHECK: tile_nvidia.warpgroup_dot
// CHECK: scf.yield
// CHECK-COUNT-4: tile_nvidia.inval_barrier
// CHECK: tile.local_dealloc %[[BARS]]
// The load after the loop: its own buffer and barrier.
// CHECK: %[[BUF:.*]] = tile.local_alloc : () -> !tile.memdesc<128x64xf16, #{{.*}}, mutable>
// CHECK: %[[ONE:.*]] = tile.local_alloc : () -> !tile.memdesc<1xi64, #{{.*}}, mutable>
// CHECK: tile_nvidia.init_barrier %[[ONE]], 1
// CHECK: tile_nvidia.barrier_expect %[[ONE]], 16384
// CHECK: tile_nvidia.async_tma_copy_global_to_local %[[MA]][{{.*}}] %[[BUF]], %[[ONE]]
// CHECK: tile_nvidia.wait_barrier %[[ONE]], %c0_i32
// CHECK: tile.local_load %[[BUF]]
// CHECK: tile_nvidia.inval_barrier %[[ONE]]

// The tensor maps come by value as grid constants; B's copy is four boxes
// 64 columns (8 KiB) apart, from one thread where the iteration is live.
// LLVM-LABEL: llvm.func @matmul
// LLVM-SAME: %{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
// LLVM: mbarrier.arrive.expect_tx.shared::cta.b64 _, [$1], 49152
// LLVM: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// LLVM-COUNT-4: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// LLVM: mbarrier.try_wait.parity
module attributes {tile.num_warps = 8 : i32} {
  func.func @matmul(%pa: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                    %pb: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                    %pc: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                    %m: i32, %n: i32, %k: i32,
                    %lda: i64 {tile.divisibility = 16 : i32}) {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %one = arith.constant 1 : i64
    %ldb = arith.constant 512 : i64
    %da = tile.make_tensor_descriptor %pa, [%m, %k], [%lda, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<128x64xf16>>
    %db = tile.make_tensor_descriptor %pb, [%k, %n], [%ldb, %one] nan_padding : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x256xf16>>
    %zero = arith.constant dense<0.0> : tensor<128x256xf32>
    %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%c = %zero) -> (tensor<128x256xf32>) : i32 {
      %a = tile.descriptor_load %da[%c0, %kk] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16>
      %b = tile.descriptor_load %db[%kk, %c0] : !tile.tensordesc<tensor<64x256xf16>> -> tensor<64x256xf16>
      %d = tile.dot %a, %b, %c : tensor<128x64xf16> * tensor<64x256xf16> -> tensor<128x256xf32>
      scf.yield %d : tensor<128x256xf32>
    }
    %a2 = tile.descriptor_load %da[%c64, %c0] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16>
    %b2 = tile.descriptor_load %db[%c0, %c0] : !tile.tensordesc<tensor<64x256xf16>> -> tensor<64x256xf16>
    %last = tile.dot %a2, %b2, %acc : tensor<128x64xf16> * tensor<64x256xf16> -> tensor<128x256xf32>
    %rows = tile.make_range 0, 128 : tensor<128xi32>
    %cols = tile.make_range 0, 256 : tensor<256xi32>
    %r = tile.expand_dims %rows {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
    %q = tile.expand_dims %cols {axis = 0 : i32} : tensor<256xi32> -> tensor<1x256xi32>
    %nn = tile.splat %n : tensor<128x1xi32>
    %rn = arith.muli %r, %nn : tensor<128x1xi32>
    %rb = tile.broadcast %rn : tensor<128x1xi32> -> tensor<128x256xi32>
    %qb = tile.broadcast %q : tensor<1x256xi32> -> tensor<128x256xi32>
    %off = arith.addi %rb, %qb : tensor<128x256xi32>
    %base = tile.splat %pc : tensor<128x256x!tile.ptr<f32>>
    %ptrs = tile.addptr %base, %off : tensor<128x256x!tile.ptr<f32>>, tensor<128x256xi32>
    tile.store %ptrs, %last : tensor<128x256x!tile.ptr<f32>>
    return
  }
}
