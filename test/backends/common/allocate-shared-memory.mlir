// Shared-memory buffers placed by liveness: buffers whose lives overlap get
// disjoint, 128-byte aligned offsets, the largest first at the lowest offset
// that fits; a buffer lives from its allocation to its last use (through the
// views made of it, for the whole of a loop it is used in) or to its
// local_dealloc.
// RUN: tessera-opt %s -split-input-file -tile-allocate-shared-memory | FileCheck %s

#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

// Two buffers live at once: the larger (64x64xf16, 8192 bytes) at 0 though
// allocated second, the smaller (2048 bytes) after it.
// CHECK-LABEL: func.func @overlap
// CHECK: tile.local_alloc {tile.buffer_offset = 8192 : i32} : () -> !tile.memdesc<32x32xf16
// CHECK: tile.local_alloc {tile.buffer_offset = 0 : i32} : () -> !tile.memdesc<64x64xf16
func.func @overlap() -> (tensor<32x32xf16, #blocked>, tensor<64x64xf16, #blocked>) {
  %a = tile.local_alloc : () -> !tile.memdesc<32x32xf16, #shared, mutable>
  %b = tile.local_alloc : () -> !tile.memdesc<64x64xf16, #shared, mutable>
  %x = tile.local_load %a : !tile.memdesc<32x32xf16, #shared, mutable> -> tensor<32x32xf16, #blocked>
  %y = tile.local_load %b : !tile.memdesc<64x64xf16, #shared, mutable> -> tensor<64x64xf16, #blocked>
  return %x, %y : tensor<32x32xf16, #blocked>, tensor<64x64xf16, #blocked>
}

// -----

#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

// Equal sizes keep program order; 64-byte buffers (2x16xf16) start on
// 128-byte boundaries: 0, 128, 256.
// CHECK-LABEL: func.func @aligned
// CHECK: tile.local_alloc {tile.buffer_offset = 0 : i32} : () -> !tile.memdesc<2x16xf16
// CHECK: tile.local_alloc {tile.buffer_offset = 128 : i32} : () -> !tile.memdesc<2x16xf16
// CHECK: tile.local_alloc {tile.buffer_offset = 256 : i32} : () -> !tile.memdesc<2x16xf16
func.func @aligned(%x: tensor<2x16xf16, #blocked>) {
  %a = tile.local_alloc : () -> !tile.memdesc<2x16xf16, #shared, mutable>
  %b = tile.local_alloc : () -> !tile.memdesc<2x16xf16, #shared, mutable>
  %c = tile.local_alloc : () -> !tile.memdesc<2x16xf16, #shared, mutable>
  tile.local_store %x, %a : tensor<2x16xf16, #blocked> -> !tile.memdesc<2x16xf16, #shared, mutable>
  tile.local_store %x, %b : tensor<2x16xf16, #blocked> -> !tile.memdesc<2x16xf16, #shared, mutable>
  tile.local_store %x, %c : tensor<2x16xf16, #blocked> -> !tile.memdesc<2x16xf16, #shared, mutable>
  return
}

// -----

#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

// The first buffer is freed before the second is allocated: both at 0.
// CHECK-LABEL: func.func @dealloc_then_alloc
// CHECK: tile.local_alloc {tile.buffer_offset = 0 : i32} : () -> !tile.memdesc<64x64xf16
// CHECK: tile.local_dealloc
// CHECK: tile.local_alloc {tile.buffer_offset = 0 : i32} : () -> !tile.memdesc<32x32xf16
func.func @dealloc_then_alloc(%x: tensor<64x64xf16, #blocked>, %y: tensor<32x32xf16, #blocked>)
    -> (tensor<64x64xf16, #blocked>, tensor<32x32xf16, #blocked>) {
  %a = tile.local_alloc : () -> !tile.memdesc<64x64xf16, #shared, mutable>
  tile.local_store %x, %a : tensor<64x64xf16, #blocked> -> !tile.memdesc<64x64xf16, #shared, mutable>
  %u = tile.local_load %a : !tile.memdesc<64x64xf16, #shared, mutable> -> tensor<64x64xf16, #blocked>
  tile.local_dealloc %a : !tile.memdesc<64x64xf16, #shared, mutable>
  %b = tile.local_alloc : () -> !tile.memdesc<32x32xf16, #shared, mutable>
  tile.local_store %y, %b : tensor<32x32xf16, #blocked> -> !tile.memdesc<32x32xf16, #shared, mutable>
  %v = tile.local_load %b : !tile.memdesc<32x32xf16, #shared, mutable> -> tensor<32x32xf16, #blocked>
  return %u, %v : tensor<64x64xf16, #blocked>, tensor<32x32xf16, #blocked>
}

// -----

#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

// Without a dealloc a buffer dies at its last use: a buffer with a source,
// read once, then a second allocated after that read reuse offset 0. A
// dealloc keeps the buffer alive until it: the third, allocated between
// the second's last use and its dealloc, goes after it.
// CHECK-LABEL: func.func @last_use
// CHECK: tile.local_alloc %{{.*}} {tile.buffer_offset = 0 : i32} : (tensor<32x32xf16, #{{.*}}>) -> !tile.memdesc<32x32xf16
// CHECK: tile.local_alloc {tile.buffer_offset = 0 : i32} : () -> !tile.memdesc<32x32xf16
// CHECK: tile.local_alloc {tile.buffer_offset = 2048 : i32} : () -> !tile.memdesc<32x32xf16
func.func @last_use(%x: tensor<32x32xf16, #blocked>)
    -> (tensor<32x32xf16, #blocked>, tensor<32x32xf16, #blocked>, tensor<32x32xf16, #blocked>) {
  %a = tile.local_alloc %x : (tensor<32x32xf16, #blocked>) -> !tile.memdesc<32x32xf16, #shared>
  %u = tile.local_load %a : !tile.memdesc<32x32xf16, #shared> -> tensor<32x32xf16, #blocked>
  %b = tile.local_alloc : () -> !tile.memdesc<32x32xf16, #shared, mutable>
  tile.local_store %x, %b : tensor<32x32xf16, #blocked> -> !tile.memdesc<32x32xf16, #shared, mutable>
  %v = tile.local_load %b : !tile.memdesc<32x32xf16, #shared, mutable> -> tensor<32x32xf16, #blocked>
  %c = tile.local_alloc : () -> !tile.memdesc<32x32xf16, #shared, mutable>
  tile.local_store %x, %c : tensor<32x32xf16, #blocked> -> !tile.memdesc<32x32xf16, #shared, mutable>
  %w = tile.local_load %c : !tile.memdesc<32x32xf16, #shared, mutable> -> tensor<32x32xf16, #blocked>
  tile.local_dealloc %b : !tile.memdesc<32x32xf16, #shared, mutable>
  return %u, %v, %w : tensor<32x32xf16, #blocked>, tensor<32x32xf16, #blocked>, tensor<32x32xf16, #blocked>
}

// -----

#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

// A buffer last used inside a loop dies after the loop: one allocated after
// the loop reuses its bytes.
// CHECK-LABEL: func.func @after_loop
// CHECK: tile.local_alloc {tile.buffer_offset = 0 : i32} : () -> !tile.memdesc<32x32xf16
// CHECK: scf.for
// CHECK: tile.local_load
// CHECK: scf.yield
// CHECK: tile.local_alloc {tile.buffer_offset = 0 : i32} : () -> !tile.memdesc<64x64xf16
func.func @after_loop(%x: tensor<32x32xf16, #blocked>, %y: tensor<64x64xf16, #blocked>, %n: i32)
    -> (tensor<32x32xf16, #blocked>, tensor<64x64xf16, #blocked>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %a = tile.local_alloc : () -> !tile.memdesc<32x32xf16, #shared, mutable>
  tile.local_store %x, %a : tensor<32x32xf16, #blocked> -> !tile.memdesc<32x32xf16, #shared, mutable>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<32x32xf16, #blocked>) : i32 {
    %u = tile.local_load %a : !tile.memdesc<32x32xf16, #shared, mutable> -> tensor<32x32xf16, #blocked>
    %s = arith.addf %acc, %u : tensor<32x32xf16, #blocked>
    scf.yield %s : tensor<32x32xf16, #blocked>
  }
  %b = tile.local_alloc : () -> !tile.memdesc<64x64xf16, #shared, mutable>
  tile.local_store %y, %b : tensor<64x64xf16, #blocked> -> !tile.memdesc<64x64xf16, #shared, mutable>
  %v = tile.local_load %b : !tile.memdesc<64x64xf16, #shared, mutable> -> tensor<64x64xf16, #blocked>
  return %r, %v : tensor<32x32xf16, #blocked>, tensor<64x64xf16, #blocked>
}

// -----

#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

// A buffer used inside a loop is live for the whole loop: the next
// iteration reads it again, so a buffer allocated in the body after that
// read (in program order, after its last use) still gets other bytes.
// CHECK-LABEL: func.func @across_loop
// CHECK: tile.local_alloc {tile.buffer_offset = 0 : i32} : () -> !tile.memdesc<64x64xf16
// CHECK: scf.for
// CHECK: tile.local_load
// CHECK: tile.local_alloc {tile.buffer_offset = 8192 : i32} : () -> !tile.memdesc<32x32xf16
func.func @across_loop(%x: tensor<64x64xf16, #blocked>, %y: tensor<32x32xf16, #blocked>, %n: i32)
    -> (tensor<64x64xf16, #blocked>, tensor<32x32xf16, #blocked>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %a = tile.local_alloc : () -> !tile.memdesc<64x64xf16, #shared, mutable>
  tile.local_store %x, %a : tensor<64x64xf16, #blocked> -> !tile.memdesc<64x64xf16, #shared, mutable>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x, %acc2 = %y)
      -> (tensor<64x64xf16, #blocked>, tensor<32x32xf16, #blocked>) : i32 {
    %u = tile.local_load %a : !tile.memdesc<64x64xf16, #shared, mutable> -> tensor<64x64xf16, #blocked>
    %s = arith.addf %acc, %u : tensor<64x64xf16, #blocked>
    %b = tile.local_alloc : () -> !tile.memdesc<32x32xf16, #shared, mutable>
    tile.local_store %acc2, %b : tensor<32x32xf16, #blocked> -> !tile.memdesc<32x32xf16, #shared, mutable>
    %v = tile.local_load %b : !tile.memdesc<32x32xf16, #shared, mutable> -> tensor<32x32xf16, #blocked>
    tile.local_dealloc %b : !tile.memdesc<32x32xf16, #shared, mutable>
    scf.yield %s, %v : tensor<64x64xf16, #blocked>, tensor<32x32xf16, #blocked>
  }
  return %r#0, %r#1 : tensor<64x64xf16, #blocked>, tensor<32x32xf16, #blocked>
}

// -----

#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

// Buffers allocated in a loop's body whose lives do not overlap share
// bytes, after the one live across the loop.
// CHECK-LABEL: func.func @in_loop
// CHECK: tile.local_alloc {tile.buffer_offset = 0 : i32} : () -> !tile.memdesc<64x64xf16
// CHECK: scf.for
// CHECK: tile.local_alloc %{{.*}} {tile.buffer_offset = 8192 : i32} : (tensor<32x32xf16, #{{.*}}>) -> !tile.memdesc<32x32xf16
// CHECK: tile.local_alloc %{{.*}} {tile.buffer_offset = 8192 : i32} : (tensor<32x32xf16, #{{.*}}>) -> !tile.memdesc<32x32xf16
func.func @in_loop(%x: tensor<64x64xf16, #blocked>, %y: tensor<32x32xf16, #blocked>, %n: i32)
    -> (tensor<64x64xf16, #blocked>, tensor<32x32xf16, #blocked>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %a = tile.local_alloc : () -> !tile.memdesc<64x64xf16, #shared, mutable>
  tile.local_store %x, %a : tensor<64x64xf16, #blocked> -> !tile.memdesc<64x64xf16, #shared, mutable>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %y) -> (tensor<32x32xf16, #blocked>) : i32 {
    %b = tile.local_alloc %acc : (tensor<32x32xf16, #blocked>) -> !tile.memdesc<32x32xf16, #shared>
    %v = tile.local_load %b : !tile.memdesc<32x32xf16, #shared> -> tensor<32x32xf16, #blocked>
    %c = tile.local_alloc %v : (tensor<32x32xf16, #blocked>) -> !tile.memdesc<32x32xf16, #shared>
    %w = tile.local_load %c : !tile.memdesc<32x32xf16, #shared> -> tensor<32x32xf16, #blocked>
    scf.yield %w : tensor<32x32xf16, #blocked>
  }
  %u = tile.local_load %a : !tile.memdesc<64x64xf16, #shared, mutable> -> tensor<64x64xf16, #blocked>
  return %u, %r : tensor<64x64xf16, #blocked>, tensor<32x32xf16, #blocked>
}

// -----

#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

// A view made by memdesc_index, read after a second buffer is allocated,
// keeps its buffer (2x32x32xf16, 4096 bytes) alive: disjoint offsets.
// CHECK-LABEL: func.func @index_view
// CHECK: tile.local_alloc {tile.buffer_offset = 0 : i32} : () -> !tile.memdesc<2x32x32xf16
// CHECK: tile.memdesc_index
// CHECK: tile.local_alloc {tile.buffer_offset = 4096 : i32} : () -> !tile.memdesc<32x32xf16
func.func @index_view(%x: tensor<32x32xf16, #blocked>, %i: i32)
    -> (tensor<32x32xf16, #blocked>, tensor<32x32xf16, #blocked>) {
  %a = tile.local_alloc : () -> !tile.memdesc<2x32x32xf16, #shared, mutable>
  %s = tile.memdesc_index %a[%i] : !tile.memdesc<2x32x32xf16, #shared, mutable> -> !tile.memdesc<32x32xf16, #shared, mutable, 2x32x32>
  %b = tile.local_alloc : () -> !tile.memdesc<32x32xf16, #shared, mutable>
  tile.local_store %x, %b : tensor<32x32xf16, #blocked> -> !tile.memdesc<32x32xf16, #shared, mutable>
  %v = tile.local_load %b : !tile.memdesc<32x32xf16, #shared, mutable> -> tensor<32x32xf16, #blocked>
  %u = tile.local_load %s : !tile.memdesc<32x32xf16, #shared, mutable, 2x32x32> -> tensor<32x32xf16, #blocked>
  return %u, %v : tensor<32x32xf16, #blocked>, tensor<32x32xf16, #blocked>
}

// -----

#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#shared_t = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>

// Views of views (memdesc_index, memdesc_subslice, memdesc_trans) keep the
// buffer alive to the last read of the last view; a view read before the
// next allocation does not.
// CHECK-LABEL: func.func @view_chain
// CHECK: tile.local_alloc {tile.buffer_offset = 0 : i32} : () -> !tile.memdesc<2x64x64xf16
// CHECK: tile.local_alloc {tile.buffer_offset = 16384 : i32} : () -> !tile.memdesc<32x32xf16
// CHECK: tile.local_alloc %{{.*}} {tile.buffer_offset = 0 : i32} : (tensor<64x64xf16, #{{.*}}>) -> !tile.memdesc<64x64xf16
func.func @view_chain(%x: tensor<32x32xf16, #blocked>, %y: tensor<64x64xf16, #blocked>, %i: i32)
    -> (tensor<32x32xf16, #blocked>, tensor<32x32xf16, #blocked>, tensor<64x64xf16, #blocked>) {
  %a = tile.local_alloc : () -> !tile.memdesc<2x64x64xf16, #shared, mutable>
  %s = tile.memdesc_index %a[%i] : !tile.memdesc<2x64x64xf16, #shared, mutable> -> !tile.memdesc<64x64xf16, #shared, mutable, 2x64x64>
  %h = tile.memdesc_subslice %s [0, 32] : !tile.memdesc<64x64xf16, #shared, mutable, 2x64x64> -> !tile.memdesc<64x32xf16, #shared, mutable, 2x64x64>
  %q = tile.memdesc_subslice %h [32, 0] : !tile.memdesc<64x32xf16, #shared, mutable, 2x64x64> -> !tile.memdesc<32x32xf16, #shared, mutable, 2x64x64>
  %t = tile.memdesc_trans %q {order = array<i32: 1, 0>} : !tile.memdesc<32x32xf16, #shared, mutable, 2x64x64> -> !tile.memdesc<32x32xf16, #shared_t, mutable, 2x64x64>
  %b = tile.local_alloc : () -> !tile.memdesc<32x32xf16, #shared, mutable>
  tile.local_store %x, %b : tensor<32x32xf16, #blocked> -> !tile.memdesc<32x32xf16, #shared, mutable>
  %v = tile.local_load %b : !tile.memdesc<32x32xf16, #shared, mutable> -> tensor<32x32xf16, #blocked>
  %u = tile.local_load %t : !tile.memdesc<32x32xf16, #shared_t, mutable, 2x64x64> -> tensor<32x32xf16, #blocked>
  // Both dead here: the 8192-byte buffer goes back to 0.
  %c = tile.local_alloc %y : (tensor<64x64xf16, #blocked>) -> !tile.memdesc<64x64xf16, #shared>
  %w = tile.local_load %c : !tile.memdesc<64x64xf16, #shared> -> tensor<64x64xf16, #blocked>
  return %u, %v, %w : tensor<32x32xf16, #blocked>, tensor<32x32xf16, #blocked>, tensor<64x64xf16, #blocked>
}

// -----

#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

// Largest first at the lowest offset clear of the buffers it overlaps: B
// (8192 bytes) overlaps A and C, which do not overlap each other; B goes
// to 0, then A and C both to 8192.
// CHECK-LABEL: func.func @first_fit
// CHECK: tile.local_alloc %{{.*}} {tile.buffer_offset = 8192 : i32} : (tensor<32x64xf16, #{{.*}}>) -> !tile.memdesc<32x64xf16
// CHECK: tile.local_alloc %{{.*}} {tile.buffer_offset = 0 : i32} : (tensor<64x64xf16, #{{.*}}>) -> !tile.memdesc<64x64xf16
// CHECK: tile.local_alloc %{{.*}} {tile.buffer_offset = 8192 : i32} : (tensor<32x64xf16, #{{.*}}>) -> !tile.memdesc<32x64xf16
func.func @first_fit(%x: tensor<32x64xf16, #blocked>, %y: tensor<64x64xf16, #blocked>)
    -> (tensor<32x64xf16, #blocked>, tensor<64x64xf16, #blocked>, tensor<32x64xf16, #blocked>) {
  %a = tile.local_alloc %x : (tensor<32x64xf16, #blocked>) -> !tile.memdesc<32x64xf16, #shared>
  %b = tile.local_alloc %y : (tensor<64x64xf16, #blocked>) -> !tile.memdesc<64x64xf16, #shared>
  %u = tile.local_load %a : !tile.memdesc<32x64xf16, #shared> -> tensor<32x64xf16, #blocked>
  %c = tile.local_alloc %x : (tensor<32x64xf16, #blocked>) -> !tile.memdesc<32x64xf16, #shared>
  %v = tile.local_load %b : !tile.memdesc<64x64xf16, #shared> -> tensor<64x64xf16, #blocked>
  %w = tile.local_load %c : !tile.memdesc<32x64xf16, #shared> -> tensor<32x64xf16, #blocked>
  return %u, %v, %w : tensor<32x64xf16, #blocked>, tensor<64x64xf16, #blocked>, tensor<32x64xf16, #blocked>
}

// -----

#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

// Each function is placed on its own, from 0.
// CHECK-LABEL: func.func @first
// CHECK: tile.local_alloc %{{.*}} {tile.buffer_offset = 0 : i32}
// CHECK-LABEL: func.func @second
// CHECK: tile.local_alloc %{{.*}} {tile.buffer_offset = 0 : i32}
func.func @first(%x: tensor<64x64xf16, #blocked>) -> tensor<64x64xf16, #blocked> {
  %a = tile.local_alloc %x : (tensor<64x64xf16, #blocked>) -> !tile.memdesc<64x64xf16, #shared>
  %u = tile.local_load %a : !tile.memdesc<64x64xf16, #shared> -> tensor<64x64xf16, #blocked>
  return %u : tensor<64x64xf16, #blocked>
}
func.func @second(%x: tensor<64x64xf16, #blocked>) -> tensor<64x64xf16, #blocked> {
  %a = tile.local_alloc %x : (tensor<64x64xf16, #blocked>) -> !tile.memdesc<64x64xf16, #shared>
  %u = tile.local_load %a : !tile.memdesc<64x64xf16, #shared> -> tensor<64x64xf16, #blocked>
  return %u : tensor<64x64xf16, #blocked>
}

// -----

#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

// A view carried out of a loop (an iter_arg and result of scf.for) and read
// after a second buffer is allocated keeps its buffer alive: the second
// buffer must not reuse its bytes.
// CHECK-LABEL: func.func @carried_view
// CHECK: tile.local_alloc {tile.buffer_offset = 0 : i32} : () -> !tile.memdesc<2x32x32xf16
// CHECK: scf.for
// CHECK: tile.local_alloc {tile.buffer_offset = 4096 : i32} : () -> !tile.memdesc<32x32xf16
func.func @carried_view(%x: tensor<32x32xf16, #blocked>, %n: i32)
    -> (tensor<32x32xf16, #blocked>, tensor<32x32xf16, #blocked>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %a = tile.local_alloc : () -> !tile.memdesc<2x32x32xf16, #shared, mutable>
  %s0 = tile.memdesc_index %a[%c0] : !tile.memdesc<2x32x32xf16, #shared, mutable> -> !tile.memdesc<32x32xf16, #shared, mutable, 2x32x32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%s = %s0) -> (!tile.memdesc<32x32xf16, #shared, mutable, 2x32x32>) : i32 {
    tile.local_store %x, %s : tensor<32x32xf16, #blocked> -> !tile.memdesc<32x32xf16, #shared, mutable, 2x32x32>
    %t = tile.memdesc_index %a[%i] : !tile.memdesc<2x32x32xf16, #shared, mutable> -> !tile.memdesc<32x32xf16, #shared, mutable, 2x32x32>
    scf.yield %t : !tile.memdesc<32x32xf16, #shared, mutable, 2x32x32>
  }
  %b = tile.local_alloc : () -> !tile.memdesc<32x32xf16, #shared, mutable>
  tile.local_store %x, %b : tensor<32x32xf16, #blocked> -> !tile.memdesc<32x32xf16, #shared, mutable>
  %v = tile.local_load %b : !tile.memdesc<32x32xf16, #shared, mutable> -> tensor<32x32xf16, #blocked>
  %u = tile.local_load %r : !tile.memdesc<32x32xf16, #shared, mutable, 2x32x32> -> tensor<32x32xf16, #blocked>
  return %u, %v : tensor<32x32xf16, #blocked>, tensor<32x32xf16, #blocked>
}
