// RUN: tessera-opt %s | tessera-opt | FileCheck %s

// Shared-memory buffers, views and asynchronous copies print and parse back.

// CHECK-DAG: #[[$PADDED:shared[0-9]*]] = #tile.padded_shared<[8:+2, 32:+4] {offset = {{\[}}[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]}>
// CHECK-DAG: #[[$PADDED_T:shared[0-9]*]] = #tile.padded_shared<[8:+2, 32:+4] {offset = {{\[}}[1, 0], [2, 0], [4, 0], [0, 1], [0, 2], [0, 4]]}>

#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#shared_t = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>
#nvmma = #tile.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>

// CHECK-LABEL: func.func @buffers
func.func @buffers(%x: tensor<64x64xf16, #blocked>, %ptrs: tensor<64x64x!tile.ptr<f16>, #blocked>,
                   %mask: tensor<64x64xi1, #blocked>, %i: i32) -> tensor<64x64xf16, #blocked> {
  // CHECK: %[[BUF:.*]] = tile.local_alloc : () -> !tile.memdesc<3x64x64xf16, #shared, mutable>
  %buf = tile.local_alloc : () -> !tile.memdesc<3x64x64xf16, #shared, mutable>
  // CHECK: %[[SLOT:.*]] = tile.memdesc_index %[[BUF]][%{{.*}}] : !tile.memdesc<3x64x64xf16, #shared, mutable> -> !tile.memdesc<64x64xf16, #shared, mutable, 3x64x64>
  %slot = tile.memdesc_index %buf[%i] : !tile.memdesc<3x64x64xf16, #shared, mutable> -> !tile.memdesc<64x64xf16, #shared, mutable, 3x64x64>
  // CHECK: tile.async_copy_global_to_local %{{.*}}, %[[SLOT]] mask %{{.*}} cache = cg : tensor<64x64x!tile.ptr<f16>, #blocked> -> !tile.memdesc<64x64xf16, #shared, mutable, 3x64x64>
  tile.async_copy_global_to_local %ptrs, %slot mask %mask cache = cg : tensor<64x64x!tile.ptr<f16>, #blocked> -> !tile.memdesc<64x64xf16, #shared, mutable, 3x64x64>
  // CHECK: tile.async_commit_group
  tile.async_commit_group
  // CHECK: tile.async_wait {num = 1 : i32}
  tile.async_wait {num = 1 : i32}
  // CHECK: tile.memdesc_subslice %[[SLOT]] [0, 32] : !tile.memdesc<64x64xf16, #shared, mutable, 3x64x64> -> !tile.memdesc<64x32xf16, #shared, mutable, 3x64x64>
  %half = tile.memdesc_subslice %slot [0, 32] : !tile.memdesc<64x64xf16, #shared, mutable, 3x64x64> -> !tile.memdesc<64x32xf16, #shared, mutable, 3x64x64>
  // CHECK: tile.memdesc_trans %{{.*}} {order = array<i32: 1, 0>} : !tile.memdesc<64x32xf16, #shared, mutable, 3x64x64> -> !tile.memdesc<32x64xf16, #shared1, mutable, 3x64x64>
  %t = tile.memdesc_trans %half {order = array<i32: 1, 0>} : !tile.memdesc<64x32xf16, #shared, mutable, 3x64x64> -> !tile.memdesc<32x64xf16, #shared_t, mutable, 3x64x64>
  // CHECK: tile.local_load %[[SLOT]] : !tile.memdesc<64x64xf16, #shared, mutable, 3x64x64> -> tensor<64x64xf16, #blocked>
  %y = tile.local_load %slot : !tile.memdesc<64x64xf16, #shared, mutable, 3x64x64> -> tensor<64x64xf16, #blocked>
  // CHECK: tile.local_store %{{.*}}, %[[SLOT]] : tensor<64x64xf16, #blocked> -> !tile.memdesc<64x64xf16, #shared, mutable, 3x64x64>
  tile.local_store %x, %slot : tensor<64x64xf16, #blocked> -> !tile.memdesc<64x64xf16, #shared, mutable, 3x64x64>
  // CHECK: tile.local_dealloc %[[BUF]] : !tile.memdesc<3x64x64xf16, #shared, mutable>
  tile.local_dealloc %buf : !tile.memdesc<3x64x64xf16, #shared, mutable>
  return %y : tensor<64x64xf16, #blocked>
}

// CHECK-LABEL: func.func @immutable
func.func @immutable(%x: tensor<64x64xf16, #blocked>) -> tensor<64x64xf16, #blocked> {
  // CHECK: tile.local_alloc %{{.*}} : (tensor<64x64xf16, #blocked>) -> !tile.memdesc<64x64xf16, #shared2>
  %a = tile.local_alloc %x : (tensor<64x64xf16, #blocked>) -> !tile.memdesc<64x64xf16, #nvmma>
  // CHECK: tile.memdesc_trans %{{.*}} {order = array<i32: 1, 0>} : !tile.memdesc<64x64xf16, #shared2> -> !tile.memdesc<64x64xf16, #shared3>
  %t = tile.memdesc_trans %a {order = array<i32: 1, 0>} : !tile.memdesc<64x64xf16, #nvmma> -> !tile.memdesc<64x64xf16, #tile.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16}>>
  %y = tile.local_load %t : !tile.memdesc<64x64xf16, #tile.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16}>> -> tensor<64x64xf16, #blocked>
  return %y : tensor<64x64xf16, #blocked>
}

#linear = #tile.shared_linear<{offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 4]], alignment = 16}>
#flat = #tile.shared_linear<{offset = [[1], [2], [4], [8], [16]], alignment = 16}>
#plain = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>

// A shared linear layout, and a buffer seen as another shape and type.
// CHECK-LABEL: func.func @reinterpret
func.func @reinterpret() {
  // CHECK: %[[BUF:.*]] = tile.local_alloc : () -> !tile.memdesc<4x8xf32, #[[LINEAR:shared[0-9]*]], mutable>
  %buf = tile.local_alloc : () -> !tile.memdesc<4x8xf32, #linear, mutable>
  // CHECK: tile.memdesc_reinterpret %[[BUF]] : !tile.memdesc<4x8xf32, #[[LINEAR]], mutable> -> !tile.memdesc<32xf32, #{{shared[0-9]*}}, mutable>
  %flat = tile.memdesc_reinterpret %buf : !tile.memdesc<4x8xf32, #linear, mutable> -> !tile.memdesc<32xf32, #flat, mutable>
  // CHECK: tile.memdesc_reinterpret %[[BUF]] : !tile.memdesc<4x8xf32, #[[LINEAR]], mutable> -> !tile.memdesc<8x8xi16, #{{shared[0-9]*}}, mutable>
  %bits = tile.memdesc_reinterpret %buf : !tile.memdesc<4x8xf32, #linear, mutable> -> !tile.memdesc<8x8xi16, #plain, mutable>
  return
}

// A padded layout, and its transpose (the same padding, bases permuted).
#padded = #tile.padded_shared<[8:+2, 32:+4] {offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]}>
// CHECK-LABEL: func.func @padded
func.func @padded(%x: tensor<8x8xf32, #blocked>) {
  // CHECK: tile.local_alloc %{{.*}} : (tensor<8x8xf32, #blocked>) -> !tile.memdesc<8x8xf32, #[[$PADDED]]>
  %a = tile.local_alloc %x : (tensor<8x8xf32, #blocked>) -> !tile.memdesc<8x8xf32, #padded>
  // CHECK: tile.memdesc_trans %{{.*}} {order = array<i32: 1, 0>} : !tile.memdesc<8x8xf32, #[[$PADDED]]> -> !tile.memdesc<8x8xf32, #[[$PADDED_T]]>
  %t = tile.memdesc_trans %a {order = array<i32: 1, 0>} : !tile.memdesc<8x8xf32, #padded> -> !tile.memdesc<8x8xf32, #tile.padded_shared<[8:+2, 32:+4] {offset = [[1, 0], [2, 0], [4, 0], [0, 1], [0, 2], [0, 4]]}>>
  return
}
