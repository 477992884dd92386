// A descriptor store on sm_90a is a TMA store: the block goes to a buffer
// in the NVMMA layout of its rows' bytes, fenced for the async proxy, is
// copied out by one thread in boxes at most 128 bytes wide (a 64-column
// fp32 block: two) and committed, and the buffer is released once the
// copy has read it.
// RUN: tessera-opt %s -tile-nvidia-select-bulk-copies="compute-capability=90 num-warps=4" -tile-lower-descriptors -tile-assign-layouts -tile-nvidia-lower-bulk-copies | FileCheck %s
// RUN: tessera-opt %s -tile-nvidia-select-bulk-copies="compute-capability=90 num-warps=4" -tile-lower-descriptors -tile-assign-layouts -tile-nvidia-lower-bulk-copies -tile-nvidia-to-llvm | FileCheck %s --check-prefix=LLVM
// RUN: tessera-opt %s -tile-nvidia-select-bulk-copies="compute-capability=80 num-warps=4" -tile-lower-descriptors | FileCheck %s --check-prefix=SM80

// CHECK-LABEL: func.func @store
// CHECK-SAME: %[[MAP:[a-z0-9]+]]: !tile.ptr<i8, 0> {tile.tensor_map = {base = 0 : i64, box = array<i64: 32, 32>, dtype = "fp32"
// CHECK: %[[BUF:.*]] = tile.local_alloc %{{.*}} : (tensor<32x64xf32, #{{.*}}>) -> !tile.memdesc<32x64xf32, #{{.*}}>
// CHECK-NEXT: tile_nvidia.fence_async_shared
// CHECK-NEXT: tile_nvidia.async_tma_copy_local_to_global %[[MAP]][%{{.*}}, %{{.*}}] %[[BUF]]
// CHECK-NEXT: tile_nvidia.async_tma_store_wait {pendings = 0 : i32}
// CHECK-NEXT: tile.local_dealloc %[[BUF]]
// CHECK-NOT: tile.make_tensor_descriptor

// LLVM-LABEL: llvm.func @store
// LLVM: fence.proxy.async.shared_cta
// LLVM: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [$2, {$4, $3}], [$1]
// LLVM: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [$2, {$4, $3}], [$1]
// LLVM: cp.async.bulk.commit_group
// LLVM: cp.async.bulk.wait_group.read 0

// SM80-LABEL: func.func @store
// SM80: tile.store
module attributes {tile.num_warps = 4 : i32} {
  func.func @store(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                   %m: i32, %n: i32, %ld: i64 {tile.divisibility = 16 : i32},
                   %i: i32, %j: i32) {
    %one = arith.constant 1 : i64
    %d = tile.make_tensor_descriptor %p, [%m, %n], [%ld, %one] : !tile.ptr<f32> -> !tile.tensordesc<tensor<32x64xf32>>
    %v = arith.constant dense<2.0> : tensor<32x64xf32>
    tile.descriptor_store %d[%i, %j], %v : !tile.tensordesc<tensor<32x64xf32>>, tensor<32x64xf32>
    return
  }
}
