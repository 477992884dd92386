// Shared-memory buffers, views and asynchronous copies lowered to the LLVM
// and NVVM dialects: a buffer is @tessera_shared plus its byte offset, a
// view its address and offsets; whole tiles are read and written through
// the layouts (vectors, ldmatrix), other views element by element; copies
// are cp.async where 16 bytes are contiguous; the module's tile.shared is
// the buffers plus the largest scratch.
// RUN: tessera-opt %s -split-input-file -tile-nvidia-to-llvm -canonicalize -cse | FileCheck %s

// A buffer without a source: the shared global's address and a barrier;
// local_store between barriers (its first one repeats the alloc's, with
// nothing between that touches memory: dropped), 16-byte vector stores to
// address space 3; local_load 16-byte vector loads of the same addresses;
// local_dealloc nothing. One 64x64xf16 buffer: 8192 bytes.
// CHECK: module attributes {{.*}}tile.shared = 8192 : i32
// CHECK: llvm.mlir.global external @tessera_shared() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: llvm.func @alloc_store_load
// CHECK: %[[BASE:.*]] = llvm.mlir.addressof @tessera_shared : !llvm.ptr<3>
// CHECK-NEXT: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK-NOT: llvm.load
// CHECK: %[[P0:.*]] = llvm.getelementptr %[[BASE]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
// CHECK: llvm.store %{{.*}}, %[[P0]] {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<3>
// CHECK-COUNT-3: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<3>
// CHECK-NOT: llvm.load
// CHECK: nvvm.barrier0
// CHECK-NEXT: llvm.load %[[P0]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xf16>
// CHECK-COUNT-3: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xf16>
// CHECK-NOT: nvvm.barrier0
// CHECK-NOT: llvm.store
// CHECK: llvm.return
#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.warp_size = 32 : i32} {
  func.func @alloc_store_load(%x: tensor<64x64xf16, #blocked>) -> tensor<64x64xf16, #blocked> {
    %a = tile.local_alloc : () -> !tile.memdesc<64x64xf16, #shared, mutable>
    tile.local_store %x, %a : tensor<64x64xf16, #blocked> -> !tile.memdesc<64x64xf16, #shared, mutable>
    %y = tile.local_load %a : !tile.memdesc<64x64xf16, #shared, mutable> -> tensor<64x64xf16, #blocked>
    tile.local_dealloc %a : !tile.memdesc<64x64xf16, #shared, mutable>
    return %y : tensor<64x64xf16, #blocked>
  }
}

// -----

// Buffers with a source: a barrier, the stores, a barrier (which serves
// the second's first too). Both live at once: the 2048-byte one at byte
// 8192; 10240 bytes in all.
// CHECK: module attributes {{.*}}tile.shared = 10240 : i32
// CHECK-LABEL: llvm.func @alloc_with_source
// CHECK: %[[BASE:.*]] = llvm.mlir.addressof @tessera_shared : !llvm.ptr<3>
// CHECK-NEXT: nvvm.barrier0
// CHECK-COUNT-4: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<3>
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: %[[B:.*]] = llvm.getelementptr %[[BASE]][8192] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.getelementptr %[[B]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
// CHECK-COUNT-2: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<3>
// CHECK-NEXT: nvvm.barrier0
// CHECK-COUNT-6: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xf16>
#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.warp_size = 32 : i32} {
  func.func @alloc_with_source(%x: tensor<64x64xf16, #blocked>, %y: tensor<32x32xf16, #blocked>)
      -> (tensor<64x64xf16, #blocked>, tensor<32x32xf16, #blocked>) {
    %a = tile.local_alloc %x : (tensor<64x64xf16, #blocked>) -> !tile.memdesc<64x64xf16, #shared>
    %b = tile.local_alloc %y : (tensor<32x32xf16, #blocked>) -> !tile.memdesc<32x32xf16, #shared>
    %u = tile.local_load %a : !tile.memdesc<64x64xf16, #shared> -> tensor<64x64xf16, #blocked>
    %v = tile.local_load %b : !tile.memdesc<32x32xf16, #shared> -> tensor<32x32xf16, #blocked>
    return %u, %v : tensor<64x64xf16, #blocked>, tensor<32x32xf16, #blocked>
  }
}

// -----

// memdesc_index: the buffer's address plus index * 4096 elements (one
// 64x64 tile), then the whole-tile path. A 2x64x64xf16 buffer: 16384 bytes.
// CHECK: module attributes {{.*}}tile.shared = 16384 : i32
// CHECK-LABEL: llvm.func @index
// CHECK-SAME: %[[I:arg[0-9]+]]: i32
// CHECK-DAG: %[[STRIDE:.*]] = llvm.mlir.constant(4096 : i32) : i32
// CHECK-DAG: %[[BASE:.*]] = llvm.mlir.addressof @tessera_shared : !llvm.ptr<3>
// CHECK: %[[ELEMENTS:.*]] = llvm.mul %[[I]], %[[STRIDE]] : i32
// CHECK: %[[SLOT:.*]] = llvm.getelementptr %[[BASE]][%[[ELEMENTS]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
// CHECK: %[[P0:.*]] = llvm.getelementptr %[[SLOT]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
// CHECK: llvm.store %{{.*}}, %[[P0]] {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load %[[P0]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xf16>
#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.warp_size = 32 : i32} {
  func.func @index(%x: tensor<64x64xf16, #blocked>, %i: i32) -> tensor<64x64xf16, #blocked> {
    %a = tile.local_alloc : () -> !tile.memdesc<2x64x64xf16, #shared, mutable>
    %s = tile.memdesc_index %a[%i] : !tile.memdesc<2x64x64xf16, #shared, mutable> -> !tile.memdesc<64x64xf16, #shared, mutable, 2x64x64>
    tile.local_store %x, %s : tensor<64x64xf16, #blocked> -> !tile.memdesc<64x64xf16, #shared, mutable, 2x64x64>
    %y = tile.local_load %s : !tile.memdesc<64x64xf16, #shared, mutable, 2x64x64> -> tensor<64x64xf16, #blocked>
    return %y : tensor<64x64xf16, #blocked>
  }
}

// -----

// memdesc_subslice [16, 32] then memdesc_trans: the general path. Each
// element's coordinates plus the view's offsets (32 along the transposed
// view's first dimension, 16 along its second), then the swizzled offset
// bit by bit (shift, and, multiply, xor), one scalar access per element:
// four f16 loads per thread for a 16x32 view, and scalar stores for a
// local_store into the subslice.
// CHECK: module attributes {{.*}}tile.shared = 8192 : i32
// CHECK-LABEL: llvm.func @views
// CHECK-DAG: %[[C16:.*]] = llvm.mlir.constant(16 : i32) : i32
// CHECK-DAG: %[[C32:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-DAG: %[[BASE:.*]] = llvm.mlir.addressof @tessera_shared : !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: %[[D0:.*]] = llvm.add %{{.*}}, %[[C32]] : i32
// CHECK: %[[BIT:.*]] = llvm.lshr %[[D0]], %{{.*}} : i32
// CHECK: llvm.and %[[BIT]], %{{.*}} : i32
// CHECK: llvm.xor
// CHECK: %[[D1:.*]] = llvm.add %{{.*}}, %[[C16]] : i32
// CHECK: llvm.lshr %[[D1]], %{{.*}} : i32
// CHECK: llvm.xor
// CHECK: %[[ADDR:.*]] = llvm.getelementptr %[[BASE]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
// CHECK: llvm.load %[[ADDR]] : !llvm.ptr<3> -> f16
// CHECK-COUNT-3: llvm.load %{{.*}} : !llvm.ptr<3> -> f16
// CHECK-NOT: llvm.load
// CHECK: nvvm.barrier0
// CHECK-COUNT-4: llvm.store %{{.*}}, %{{.*}} : f16, !llvm.ptr<3>
// CHECK-NEXT: nvvm.barrier0
// CHECK-NOT: llvm.store %{{.*}} !llvm.ptr<3>
// CHECK: llvm.return
#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked32 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#blocked16 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared_t = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>
module attributes {tile.num_warps = 4 : i32, tile.warp_size = 32 : i32} {
  func.func @views(%x: tensor<64x64xf16, #blocked>, %z: tensor<32x16xf16, #blocked16>) -> tensor<16x32xf16, #blocked32> {
    %a = tile.local_alloc : () -> !tile.memdesc<64x64xf16, #shared, mutable>
    tile.local_store %x, %a : tensor<64x64xf16, #blocked> -> !tile.memdesc<64x64xf16, #shared, mutable>
    %h = tile.memdesc_subslice %a [16, 32] : !tile.memdesc<64x64xf16, #shared, mutable> -> !tile.memdesc<32x16xf16, #shared, mutable, 64x64>
    %t = tile.memdesc_trans %h {order = array<i32: 1, 0>} : !tile.memdesc<32x16xf16, #shared, mutable, 64x64> -> !tile.memdesc<16x32xf16, #shared_t, mutable, 64x64>
    %y = tile.local_load %t : !tile.memdesc<16x32xf16, #shared_t, mutable, 64x64> -> tensor<16x32xf16, #blocked32>
    tile.local_store %z, %h : tensor<32x16xf16, #blocked16> -> !tile.memdesc<32x16xf16, #shared, mutable, 64x64>
    return %y : tensor<16x32xf16, #blocked32>
  }
}

// -----

// Loads into dot operand layouts from a swizzled buffer whose rows keep 16
// bytes together: ldmatrix.x4, plain for A (opIdx 0), transposed for B.
// CHECK: module attributes {{.*}}tile.shared = 2048 : i32
// CHECK-LABEL: llvm.func @ldmatrix
// CHECK-COUNT-2: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK-COUNT-2: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK-NOT: llvm.load
// CHECK: nvvm.mma.sync
#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tile_nvidia.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#shared = #tile.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>
#dot_a = #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>
#dot_b = #tile.dot_operand<{opIdx = 1, parent = #mma, kWidth = 2}>
module attributes {tile.num_warps = 4 : i32, tile.warp_size = 32 : i32} {
  func.func @ldmatrix(%x: tensor<32x32xf16, #blocked>) -> tensor<32x32xf32, #mma> {
    %a = tile.local_alloc %x : (tensor<32x32xf16, #blocked>) -> !tile.memdesc<32x32xf16, #shared>
    %u = tile.local_load %a : !tile.memdesc<32x32xf16, #shared> -> tensor<32x32xf16, #dot_a>
    %v = tile.local_load %a : !tile.memdesc<32x32xf16, #shared> -> tensor<32x32xf16, #dot_b>
    %z = arith.constant dense<0.0> : tensor<32x32xf32, #mma>
    %d = tile.dot %u, %v, %z : tensor<32x32xf16, #dot_a> * tensor<32x32xf16, #dot_b> -> tensor<32x32xf32, #mma>
    return %d : tensor<32x32xf32, #mma>
  }
}

// -----

// Attention's K^T operand, 128x64 from a 64x128 buffer swizzled over 128-byte
// lines: of the register bits that move an ldmatrix's address, the one that
// meets the lanes' swizzled bits XORs their offset once, and the others add
// to one of those two bases as immediates, so the 32 loads share two
// address registers. The count of XORs (7 for the store of the tile, 5 for
// the loads' lane offset and its one XOR) would grow by one for each
// register group made apart.
// RUN: tessera-opt %s -split-input-file -tile-nvidia-to-llvm -canonicalize -cse | FileCheck %s --check-prefix=BASES
// RUN: tessera-opt %s -split-input-file -tile-nvidia-to-llvm -canonicalize -cse | awk '/func @shared_bases/,/^  }$/' | grep -c "= llvm.xor" | FileCheck %s --check-prefix=XORS
// BASES-LABEL: llvm.func @shared_bases
// BASES-COUNT-32: nvvm.ldmatrix
// XORS: {{^}}12{{$}}
#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [1, 1], order = [1, 0]}>
#mma = #tile_nvidia.mma<{version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#shared_t = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>
#dot_b = #tile.dot_operand<{opIdx = 1, parent = #mma, kWidth = 2}>
module attributes {tile.num_warps = 1 : i32, tile.warp_size = 32 : i32} {
  func.func @shared_bases(%x: tensor<64x128xf16, #blocked>) -> tensor<128x64xf16, #dot_b> {
    %a = tile.local_alloc %x : (tensor<64x128xf16, #blocked>) -> !tile.memdesc<64x128xf16, #shared>
    %t = tile.memdesc_trans %a {order = array<i32: 1, 0>} : !tile.memdesc<64x128xf16, #shared> -> !tile.memdesc<128x64xf16, #shared_t>
    %v = tile.local_load %t : !tile.memdesc<128x64xf16, #shared_t> -> tensor<128x64xf16, #dot_b>
    return %v : tensor<128x64xf16, #dot_b>
  }
}

// -----

// 32-bit elements have no ldmatrix: a dot operand is loaded element by
// element (16 per thread for 32x32 on 4 warps).
// CHECK: module attributes {{.*}}tile.shared = 4096 : i32
// CHECK-LABEL: llvm.func @no_ldmatrix
// CHECK-NOT: nvvm.ldmatrix
// CHECK-COUNT-16: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: nvvm.ldmatrix
// CHECK: llvm.return
#blocked = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tile_nvidia.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#shared = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#dot_a = #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 1}>
module attributes {tile.num_warps = 4 : i32, tile.warp_size = 32 : i32} {
  func.func @no_ldmatrix(%x: tensor<32x32xf32, #blocked>) -> tensor<32x32xf32, #dot_a> {
    %a = tile.local_alloc %x : (tensor<32x32xf32, #blocked>) -> !tile.memdesc<32x32xf32, #shared>
    %u = tile.local_load %a : !tile.memdesc<32x32xf32, #shared> -> tensor<32x32xf32, #dot_a>
    return %u : tensor<32x32xf32, #dot_a>
  }
}

// -----

// An asynchronous copy of contiguous, 16-byte aligned f16 rows into buffer
// 1 of 2 (4096 elements in): cp.async of 16 bytes through L2 (.cg), the
// source size 16 where the mask holds and 0 (zeros) where it does not, as
// `other` is zero; commit a group; wait for all groups, then a barrier.
// CHECK: module attributes {{.*}}tile.shared = 16384 : i32
// CHECK-LABEL: llvm.func @async_copy
// CHECK-DAG: %[[C0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-DAG: %[[C16:.*]] = llvm.mlir.constant(16 : i32) : i32
// CHECK-DAG: %[[BASE:.*]] = llvm.mlir.addressof @tessera_shared : !llvm.ptr<3>
// CHECK: %[[SRC:.*]] = llvm.getelementptr %arg0[%{{.*}}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f16
// CHECK: %[[M:.*]] = llvm.icmp "slt" %{{.*}}, %arg1 : i32
// CHECK: nvvm.barrier0
// CHECK: %[[SLOT:.*]] = llvm.getelementptr %[[BASE]][4096] : (!llvm.ptr<3>) -> !llvm.ptr<3>, f16
// CHECK: %[[DST:.*]] = llvm.getelementptr %[[SLOT]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
// CHECK: %[[SIZE:.*]] = llvm.select %[[M]], %[[C16]], %[[C0]] : i1, i32
// CHECK: nvvm.cp.async.shared.global %[[DST]], %[[SRC]], 16, cache = cg, %[[SIZE]] : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK-COUNT-3: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK-NOT: nvvm.cp.async.shared.global
// CHECK-NOT: llvm.store
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: llvm.load %[[DST]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xf16>
#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#rows = #tile.slice<{dim = 1, parent = #blocked}>
#cols = #tile.slice<{dim = 0, parent = #blocked}>
module attributes {tile.num_warps = 4 : i32, tile.warp_size = 32 : i32} {
  func.func @async_copy(%base: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %n: i32) -> tensor<64x64xf16, #blocked> {
    %c1 = arith.constant 1 : i32
    // base + 64 * row + col, rows below n.
    %r = tile.make_range 0, 64 : tensor<64xi32, #rows>
    %c = tile.make_range 0, 64 : tensor<64xi32, #cols>
    %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32, #rows> -> tensor<64x1xi32, #blocked>
    %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<64xi32, #cols> -> tensor<1x64xi32, #blocked>
    %w = arith.constant dense<64> : tensor<64x1xi32, #blocked>
    %rw = arith.muli %r2, %w : tensor<64x1xi32, #blocked>
    %rb = tile.broadcast %rw : tensor<64x1xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %cb = tile.broadcast %c2 : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %off = arith.addi %rb, %cb : tensor<64x64xi32, #blocked>
    %bs = tile.splat %base : tensor<64x64x!tile.ptr<f16>, #blocked>
    %ptrs = tile.addptr %bs, %off : tensor<64x64x!tile.ptr<f16>, #blocked>, tensor<64x64xi32, #blocked>
    %ns = tile.splat %n : tensor<64x1xi32, #blocked>
    %m1 = arith.cmpi slt, %r2, %ns : tensor<64x1xi32, #blocked>
    %mask = tile.broadcast %m1 : tensor<64x1xi1, #blocked> -> tensor<64x64xi1, #blocked>
    %zero = arith.constant dense<0.0> : tensor<64x64xf16, #blocked>
    %buf = tile.local_alloc : () -> !tile.memdesc<2x64x64xf16, #shared, mutable>
    %slot = tile.memdesc_index %buf[%c1] : !tile.memdesc<2x64x64xf16, #shared, mutable> -> !tile.memdesc<64x64xf16, #shared, mutable, 2x64x64>
    tile.async_copy_global_to_local %ptrs, %slot mask %mask other %zero cache = cg : tensor<64x64x!tile.ptr<f16>, #blocked> -> !tile.memdesc<64x64xf16, #shared, mutable, 2x64x64>
    tile.async_commit_group
    tile.async_wait {num = 0 : i32}
    %v = tile.local_load %slot : !tile.memdesc<64x64xf16, #shared, mutable, 2x64x64> -> tensor<64x64xf16, #blocked>
    tile.local_dealloc %buf : !tile.memdesc<2x64x64xf16, #shared, mutable>
    return %v : tensor<64x64xf16, #blocked>
  }
}

// -----

// A non-zero `other` cannot be had from cp.async (which fills zeros): the
// copy is made at once, a predicated 16-byte global load (other's words
// where the mask is false) stored to the buffer; commit and wait are
// still emitted.
// CHECK: module attributes {{.*}}tile.shared = 8192 : i32
// CHECK-LABEL: llvm.func @async_copy_other
// CHECK-NOT: nvvm.cp.async.shared.global
// CHECK: %[[BASE:.*]] = llvm.mlir.addressof @tessera_shared : !llvm.ptr<3>
// CHECK-NOT: nvvm.cp.async.shared.global
// CHECK: %[[DST:.*]] = llvm.getelementptr %[[BASE]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
// CHECK: llvm.inline_asm has_side_effects {{.*}}ld.global.v4.b32
// CHECK: %[[V:.*]] = llvm.bitcast %{{.*}} : vector<4xi32> to vector<8xf16>
// CHECK-NEXT: llvm.store %[[V]], %[[DST]] {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<3>
// CHECK-COUNT-3: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<3>
// CHECK-NOT: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: nvvm.barrier0
// CHECK-NOT: nvvm.cp.async.shared.global
// CHECK: llvm.return
#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#rows = #tile.slice<{dim = 1, parent = #blocked}>
#cols = #tile.slice<{dim = 0, parent = #blocked}>
module attributes {tile.num_warps = 4 : i32, tile.warp_size = 32 : i32} {
  func.func @async_copy_other(%base: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %n: i32) -> tensor<64x64xf16, #blocked> {
    %r = tile.make_range 0, 64 : tensor<64xi32, #rows>
    %c = tile.make_range 0, 64 : tensor<64xi32, #cols>
    %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32, #rows> -> tensor<64x1xi32, #blocked>
    %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<64xi32, #cols> -> tensor<1x64xi32, #blocked>
    %w = arith.constant dense<64> : tensor<64x1xi32, #blocked>
    %rw = arith.muli %r2, %w : tensor<64x1xi32, #blocked>
    %rb = tile.broadcast %rw : tensor<64x1xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %cb = tile.broadcast %c2 : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %off = arith.addi %rb, %cb : tensor<64x64xi32, #blocked>
    %bs = tile.splat %base : tensor<64x64x!tile.ptr<f16>, #blocked>
    %ptrs = tile.addptr %bs, %off : tensor<64x64x!tile.ptr<f16>, #blocked>, tensor<64x64xi32, #blocked>
    %ns = tile.splat %n : tensor<64x1xi32, #blocked>
    %m1 = arith.cmpi slt, %r2, %ns : tensor<64x1xi32, #blocked>
    %mask = tile.broadcast %m1 : tensor<64x1xi1, #blocked> -> tensor<64x64xi1, #blocked>
    %one = arith.constant dense<1.0> : tensor<64x64xf16, #blocked>
    %buf = tile.local_alloc : () -> !tile.memdesc<64x64xf16, #shared, mutable>
    tile.async_copy_global_to_local %ptrs, %buf mask %mask other %one : tensor<64x64x!tile.ptr<f16>, #blocked> -> !tile.memdesc<64x64xf16, #shared, mutable>
    tile.async_commit_group
    tile.async_wait {num = 0 : i32}
    %v = tile.local_load %buf : !tile.memdesc<64x64xf16, #shared, mutable> -> tensor<64x64xf16, #blocked>
    return %v : tensor<64x64xf16, #blocked>
  }
}

// -----

// A layout conversion while a buffer is live: its scratch (64x64xf32,
// 16384 bytes) goes after the buffer (8192 bytes), 24576 in all.
// CHECK: module attributes {{.*}}tile.shared = 24576 : i32
// CHECK-LABEL: llvm.func @scratch_after_live_buffer
// CHECK: %[[BASE:.*]] = llvm.mlir.addressof @tessera_shared : !llvm.ptr<3>
// CHECK: llvm.getelementptr %[[BASE]][8192] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked_t = #tile.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.warp_size = 32 : i32} {
  func.func @scratch_after_live_buffer(%x: tensor<64x64xf16, #blocked>, %y: tensor<64x64xf32, #blocked>)
      -> (tensor<64x64xf32, #blocked_t>, tensor<64x64xf16, #blocked>) {
    %a = tile.local_alloc %x : (tensor<64x64xf16, #blocked>) -> !tile.memdesc<64x64xf16, #shared>
    %t = tile.convert_layout %y : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #blocked_t>
    %u = tile.local_load %a : !tile.memdesc<64x64xf16, #shared> -> tensor<64x64xf16, #blocked>
    return %t, %u : tensor<64x64xf32, #blocked_t>, tensor<64x64xf16, #blocked>
  }
}

// -----

// The same conversion after the buffer's last use: its scratch starts at
// 0, over the dead buffer, and the total is the larger of the two.
// CHECK: module attributes {{.*}}tile.shared = 16384 : i32
// CHECK-LABEL: llvm.func @scratch_over_dead_buffer
// CHECK-NOT: llvm.getelementptr %{{.*}}[8192]
// CHECK: llvm.return
#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked_t = #tile.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.warp_size = 32 : i32} {
  func.func @scratch_over_dead_buffer(%x: tensor<64x64xf16, #blocked>, %y: tensor<64x64xf32, #blocked>)
      -> (tensor<64x64xf32, #blocked_t>, tensor<64x64xf16, #blocked>) {
    %a = tile.local_alloc %x : (tensor<64x64xf16, #blocked>) -> !tile.memdesc<64x64xf16, #shared>
    %u = tile.local_load %a : !tile.memdesc<64x64xf16, #shared> -> tensor<64x64xf16, #blocked>
    %t = tile.convert_layout %y : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #blocked_t>
    return %t, %u : tensor<64x64xf32, #blocked_t>, tensor<64x64xf16, #blocked>
  }
}

// -----

// A pipelined matmul loop (what tile-pipeline makes of a 32x32 matmul with
// K steps of 32 and 3 stages, draining the copies after the loop): two
// prologue groups of cp.async, then in the loop a wait leaving one group
// in flight and a barrier, the copies two iterations ahead, a commit, and
// the operands read with ldmatrix. Two 3x32x32xf16 buffers: 12288 bytes;
// the accumulator's conversion after the loop reuses their bytes.
// CHECK: module attributes {{.*}}tile.shared = 12288 : i32
// CHECK-LABEL: llvm.func @pipelined
// CHECK-COUNT-2: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %{{.*}}
// CHECK-NEXT: nvvm.cp.async.commit.group
// CHECK-COUNT-2: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %{{.*}}
// CHECK-NEXT: nvvm.cp.async.commit.group
// CHECK: llvm.cond_br
// CHECK: nvvm.cp.async.wait.group 1
// CHECK-NEXT: nvvm.barrier0
// CHECK-COUNT-2: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %{{.*}}
// CHECK-NEXT: nvvm.cp.async.commit.group
// CHECK: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<col>, num = 4 : i32
// CHECK: nvvm.mma.sync
// CHECK: llvm.br
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: nvvm.barrier0
// CHECK-NOT: nvvm.cp.async
// CHECK: llvm.return
#blocked = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tile_nvidia.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#shared = #tile.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>
#dot_op = #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>
#dot_op1 = #tile.dot_operand<{opIdx = 1, parent = #mma, kWidth = 2}>
#slice = #tile.slice<{dim = 1, parent = #blocked1}>
#slice1 = #tile.slice<{dim = 0, parent = #blocked1}>
module attributes {tile.num_warps = 4 : i32, tile.warp_size = 32 : i32} {
  func.func @pipelined(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                       %c: tensor<32x32x!tile.ptr<f32>, #blocked>, %k: i32 {tile.divisibility = 16 : i32}) {
    %c64_i32 = arith.constant 64 : i32
    %c1_i32 = arith.constant 1 : i32
    %c3_i32 = arith.constant 3 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32, #mma>
    %astep = arith.constant dense<32> : tensor<32x32xi32, #blocked1>
    %c0_i32 = arith.constant 0 : i32
    %c32_i32 = arith.constant 32 : i32
    %0 = arith.muli %k, %c32_i32 : i32
    %1 = tile.splat %a : tensor<32x32x!tile.ptr<f16>, #blocked1>
    %2 = tile.make_range 0, 32 : tensor<32xi32, #slice>
    %3 = tile.expand_dims %2 {axis = 1 : i32} : tensor<32xi32, #slice> -> tensor<32x1xi32, #blocked1>
    %4 = tile.splat %k : tensor<32x1xi32, #blocked1>
    %5 = arith.muli %3, %4 : tensor<32x1xi32, #blocked1>
    %6 = tile.broadcast %5 : tensor<32x1xi32, #blocked1> -> tensor<32x32xi32, #blocked1>
    %7 = tile.make_range 0, 32 : tensor<32xi32, #slice1>
    %8 = tile.expand_dims %7 {axis = 0 : i32} : tensor<32xi32, #slice1> -> tensor<1x32xi32, #blocked1>
    %9 = tile.broadcast %8 : tensor<1x32xi32, #blocked1> -> tensor<32x32xi32, #blocked1>
    %10 = arith.addi %6, %9 : tensor<32x32xi32, #blocked1>
    %11 = tile.addptr %1, %10 : tensor<32x32x!tile.ptr<f16>, #blocked1>, tensor<32x32xi32, #blocked1>
    %12 = tile.splat %b : tensor<32x32x!tile.ptr<f16>, #blocked1>
    %13 = tile.addptr %12, %10 : tensor<32x32x!tile.ptr<f16>, #blocked1>, tensor<32x32xi32, #blocked1>
    %bufa = tile.local_alloc : () -> !tile.memdesc<3x32x32xf16, #shared, mutable>
    %bufb = tile.local_alloc : () -> !tile.memdesc<3x32x32xf16, #shared, mutable>
    // Prologue: iterations 0 and 1.
    %16 = arith.cmpi sgt, %k, %c0_i32 : i32
    %17 = tile.memdesc_index %bufa[%c0_i32] : !tile.memdesc<3x32x32xf16, #shared, mutable> -> !tile.memdesc<32x32xf16, #shared, mutable, 3x32x32>
    %18 = tile.splat %16 : tensor<32x32xi1, #blocked1>
    tile.async_copy_global_to_local %11, %17 mask %18 : tensor<32x32x!tile.ptr<f16>, #blocked1> -> !tile.memdesc<32x32xf16, #shared, mutable, 3x32x32>
    %19 = tile.memdesc_index %bufb[%c0_i32] : !tile.memdesc<3x32x32xf16, #shared, mutable> -> !tile.memdesc<32x32xf16, #shared, mutable, 3x32x32>
    tile.async_copy_global_to_local %13, %19 mask %18 : tensor<32x32x!tile.ptr<f16>, #blocked1> -> !tile.memdesc<32x32xf16, #shared, mutable, 3x32x32>
    tile.async_commit_group
    %20 = tile.addptr %11, %astep : tensor<32x32x!tile.ptr<f16>, #blocked1>, tensor<32x32xi32, #blocked1>
    %21 = tile.splat %0 : tensor<32x32xi32, #blocked1>
    %22 = tile.addptr %13, %21 : tensor<32x32x!tile.ptr<f16>, #blocked1>, tensor<32x32xi32, #blocked1>
    %23 = arith.cmpi sgt, %k, %c32_i32 : i32
    %24 = tile.memdesc_index %bufa[%c1_i32] : !tile.memdesc<3x32x32xf16, #shared, mutable> -> !tile.memdesc<32x32xf16, #shared, mutable, 3x32x32>
    %25 = tile.splat %23 : tensor<32x32xi1, #blocked1>
    tile.async_copy_global_to_local %20, %24 mask %25 : tensor<32x32x!tile.ptr<f16>, #blocked1> -> !tile.memdesc<32x32xf16, #shared, mutable, 3x32x32>
    %26 = tile.memdesc_index %bufb[%c1_i32] : !tile.memdesc<3x32x32xf16, #shared, mutable> -> !tile.memdesc<32x32xf16, #shared, mutable, 3x32x32>
    tile.async_copy_global_to_local %22, %26 mask %25 : tensor<32x32x!tile.ptr<f16>, #blocked1> -> !tile.memdesc<32x32xf16, #shared, mutable, 3x32x32>
    tile.async_commit_group
    %27 = tile.addptr %20, %astep : tensor<32x32x!tile.ptr<f16>, #blocked1>, tensor<32x32xi32, #blocked1>
    %28 = tile.addptr %22, %21 : tensor<32x32x!tile.ptr<f16>, #blocked1>, tensor<32x32xi32, #blocked1>
    %29:3 = scf.for %iv = %c0_i32 to %k step %c32_i32 iter_args(%acc = %zero, %ap = %27, %bp = %28) -> (tensor<32x32xf32, #mma>, tensor<32x32x!tile.ptr<f16>, #blocked1>, tensor<32x32x!tile.ptr<f16>, #blocked1>)  : i32 {
      %31 = arith.subi %k, %c64_i32 : i32
      %32 = arith.cmpi slt, %iv, %31 : i32
      tile.async_wait {num = 1 : i32}
      // Copies of iteration i + 2.
      %33 = arith.addi %iv, %c64_i32 : i32
      %34 = arith.divsi %33, %c32_i32 : i32
      %35 = arith.remsi %34, %c3_i32 : i32
      %36 = tile.memdesc_index %bufa[%35] : !tile.memdesc<3x32x32xf16, #shared, mutable> -> !tile.memdesc<32x32xf16, #shared, mutable, 3x32x32>
      %37 = tile.splat %32 : tensor<32x32xi1, #blocked1>
      tile.async_copy_global_to_local %ap, %36 mask %37 : tensor<32x32x!tile.ptr<f16>, #blocked1> -> !tile.memdesc<32x32xf16, #shared, mutable, 3x32x32>
      %38 = tile.memdesc_index %bufb[%35] : !tile.memdesc<3x32x32xf16, #shared, mutable> -> !tile.memdesc<32x32xf16, #shared, mutable, 3x32x32>
      tile.async_copy_global_to_local %bp, %38 mask %37 : tensor<32x32x!tile.ptr<f16>, #blocked1> -> !tile.memdesc<32x32xf16, #shared, mutable, 3x32x32>
      tile.async_commit_group
      %39 = tile.addptr %ap, %astep : tensor<32x32x!tile.ptr<f16>, #blocked1>, tensor<32x32xi32, #blocked1>
      %40 = tile.addptr %bp, %21 : tensor<32x32x!tile.ptr<f16>, #blocked1>, tensor<32x32xi32, #blocked1>
      // Reads of iteration i.
      %41 = arith.divsi %iv, %c32_i32 : i32
      %42 = arith.remsi %41, %c3_i32 : i32
      %43 = tile.memdesc_index %bufa[%42] : !tile.memdesc<3x32x32xf16, #shared, mutable> -> !tile.memdesc<32x32xf16, #shared, mutable, 3x32x32>
      %44 = tile.local_load %43 : !tile.memdesc<32x32xf16, #shared, mutable, 3x32x32> -> tensor<32x32xf16, #dot_op>
      %45 = tile.memdesc_index %bufb[%42] : !tile.memdesc<3x32x32xf16, #shared, mutable> -> !tile.memdesc<32x32xf16, #shared, mutable, 3x32x32>
      %46 = tile.local_load %45 : !tile.memdesc<32x32xf16, #shared, mutable, 3x32x32> -> tensor<32x32xf16, #dot_op1>
      %47 = tile.dot %44, %46, %acc : tensor<32x32xf16, #dot_op> * tensor<32x32xf16, #dot_op1> -> tensor<32x32xf32, #mma>
      scf.yield %47, %39, %40 : tensor<32x32xf32, #mma>, tensor<32x32x!tile.ptr<f16>, #blocked1>, tensor<32x32x!tile.ptr<f16>, #blocked1>
    }
    tile.async_wait {num = 0 : i32}
    tile.local_dealloc %bufb : !tile.memdesc<3x32x32xf16, #shared, mutable>
    tile.local_dealloc %bufa : !tile.memdesc<3x32x32xf16, #shared, mutable>
    %30 = tile.convert_layout %29#0 : tensor<32x32xf32, #mma> -> tensor<32x32xf32, #blocked>
    tile.store %c, %30 : tensor<32x32x!tile.ptr<f32>, #blocked>
    return
  }
}

// -----

// A padded buffer (4 halves after every 64): 4096 + 63 * 4 halves, 8696
// bytes, rounded up to 8704. Each element's offset o moves to
// o + (o >> 6 << 2); vectors stop at the padding's 4 elements (8 bytes), so
// that they stay contiguous and aligned.
// CHECK: module attributes {{.*}}tile.shared = 8704 : i32
// CHECK-LABEL: llvm.func @padded
// CHECK-DAG: %[[SIX:.*]] = llvm.mlir.constant(6 : i32) : i32
// CHECK-DAG: %[[TWO:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK: %[[ROWS:.*]] = llvm.lshr %[[OFFSET:.*]], %[[SIX]] : i32
// CHECK-NEXT: %[[PAD:.*]] = llvm.shl %[[ROWS]], %[[TWO]] : i32
// CHECK-NEXT: %[[PLACE:.*]] = llvm.add %[[OFFSET]], %[[PAD]] : i32
// CHECK-NEXT: %[[P:.*]] = llvm.getelementptr %{{.*}}[%[[PLACE]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
// CHECK: llvm.store %{{.*}}, %[[P]] {alignment = 8 : i64} : vector<4xf16>, !llvm.ptr<3>
// CHECK-NOT: vector<8xf16>
// CHECK: llvm.load %[[P]] {alignment = 8 : i64} : !llvm.ptr<3> -> vector<4xf16>
#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#pad = #tile.padded_shared<[64:+4] {offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0]]}>
module attributes {tile.num_warps = 4 : i32, tile.warp_size = 32 : i32} {
  func.func @padded(%x: tensor<64x64xf16, #blocked>) -> tensor<64x64xf16, #blocked> {
    %a = tile.local_alloc : () -> !tile.memdesc<64x64xf16, #pad, mutable>
    tile.local_store %x, %a : tensor<64x64xf16, #blocked> -> !tile.memdesc<64x64xf16, #pad, mutable>
    %y = tile.local_load %a : !tile.memdesc<64x64xf16, #pad, mutable> -> tensor<64x64xf16, #blocked>
    return %y : tensor<64x64xf16, #blocked>
  }
}
