// RUN: tessera-opt %s -split-input-file -tile-fma-dots | FileCheck %s
// RUN: tessera-opt %s -split-input-file -tile-fma-dots -tile-nvidia-to-llvm -canonicalize -cse | FileCheck %s --check-prefix=LLVM
// RUN: tessera-opt %s -split-input-file -tile-fma-dots=shared-bytes=262144 | FileCheck %s --check-prefix=BIG

// A dot on the CUDA cores: A to a buffer with its rows contiguous (order
// [0, 1]), B to one with its columns contiguous, then one dot per K step on
// that step's column of A and row of B, accumulating in order. In the
// lowering, each step reads a thread's 4 rows of A and 4 columns of B as
// one 16-byte vector each, the step's place a constant distance from the
// buffer's start (A's step 1: 16 elements on), just before its 16 products.
// CHECK-DAG: #[[$A:shared[0-9]*]] = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
// CHECK-DAG: #[[$B:shared[0-9]*]] = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
// CHECK-LABEL: func.func @fma
// CHECK-NOT: tile.convert_layout
// CHECK: %[[ABUF:.*]] = tile.local_alloc %{{.*}} : (tensor<16x4xf32, #blocked>) -> !tile.memdesc<16x4xf32, #[[$A]]>
// CHECK: %[[BBUF:.*]] = tile.local_alloc %{{.*}} : (tensor<4x32xf32, #blocked1>) -> !tile.memdesc<4x32xf32, #[[$B]]>
// CHECK: %[[A0:.*]] = tile.memdesc_subslice %[[ABUF]] [0, 0] : {{.*}} -> !tile.memdesc<16x1xf32, #[[$A]], 16x4>
// CHECK: %[[X0:.*]] = tile.local_load %[[A0]] : {{.*}} -> tensor<16x1xf32, #dot_op>
// CHECK: %[[B0:.*]] = tile.memdesc_subslice %[[BBUF]] [0, 0] : {{.*}} -> !tile.memdesc<1x32xf32, #[[$B]], 4x32>
// CHECK: %[[Y0:.*]] = tile.local_load %[[B0]] : {{.*}} -> tensor<1x32xf32, #dot_op1>
// CHECK: %[[D0:.*]] = tile.dot %[[X0]], %[[Y0]], %{{.*}} : tensor<16x1xf32, #dot_op> * tensor<1x32xf32, #dot_op1> -> tensor<16x32xf32, #blocked2>
// CHECK: tile.memdesc_subslice %[[ABUF]] [0, 1]
// CHECK: tile.memdesc_subslice %[[BBUF]] [1, 0]
// CHECK: %[[D1:.*]] = tile.dot %{{.*}}, %{{.*}}, %[[D0]]
// CHECK: tile.memdesc_subslice %[[ABUF]] [0, 2]
// CHECK: %[[D2:.*]] = tile.dot %{{.*}}, %{{.*}}, %[[D1]]
// CHECK: tile.memdesc_subslice %[[ABUF]] [0, 3]
// CHECK: %[[D3:.*]] = tile.dot %{{.*}}, %{{.*}}, %[[D2]]
// CHECK-NOT: = tile.dot
// CHECK: tile.convert_layout %[[D3]]
// LLVM-LABEL: llvm.func @fma
// LLVM: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// LLVM: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// LLVM-COUNT-16: llvm.intr.fma
// LLVM: %[[STEP1:.*]] = llvm.getelementptr %{{.*}}[16] : (!llvm.ptr<3>) -> !llvm.ptr<3>, f32
// LLVM: llvm.getelementptr %[[STEP1]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// LLVM: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// LLVM: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// LLVM-COUNT-16: llvm.intr.fma
#blocked = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>
#blocked1 = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
#blocked2 = #tile.blocked<{sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
#dot_op = #tile.dot_operand<{opIdx = 0, parent = #blocked2, kWidth = 0}>
#dot_op1 = #tile.dot_operand<{opIdx = 1, parent = #blocked2, kWidth = 0}>
module attributes {tile.num_warps = 1 : i32, tile.warp_size = 32 : i32} {
  func.func @fma(%x: tensor<16x4xf32, #blocked>, %y: tensor<4x32xf32, #blocked1>, %c: tensor<16x32x!tile.ptr<f32>, #blocked1>) {
    %zero = arith.constant dense<0.000000e+00> : tensor<16x32xf32, #blocked2>
    %a = tile.convert_layout %x : tensor<16x4xf32, #blocked> -> tensor<16x4xf32, #dot_op>
    %b = tile.convert_layout %y : tensor<4x32xf32, #blocked1> -> tensor<4x32xf32, #dot_op1>
    %d = tile.dot %a, %b, %zero : tensor<16x4xf32, #dot_op> * tensor<4x32xf32, #dot_op1> -> tensor<16x32xf32, #blocked2>
    %e = tile.convert_layout %d : tensor<16x32xf32, #blocked2> -> tensor<16x32xf32, #blocked1>
    tile.store %c, %e : tensor<16x32x!tile.ptr<f32>, #blocked1>
    return
  }
}

// -----

// Operands over 64 KiB together (two 128x128xf32) stay in registers; with
// 256 KiB of shared memory (shared-bytes), they go to buffers.
// CHECK-LABEL: func.func @too_large
// CHECK-NOT: tile.local_alloc
// CHECK: = tile.dot
// CHECK-NOT: = tile.dot
#blocked = #tile.blocked<{sizePerThread = [8, 16], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#dot_op = #tile.dot_operand<{opIdx = 0, parent = #blocked, kWidth = 0}>
#dot_op1 = #tile.dot_operand<{opIdx = 1, parent = #blocked, kWidth = 0}>
module attributes {tile.num_warps = 4 : i32, tile.warp_size = 32 : i32} {
  func.func @too_large(%x: tensor<128x128xf32, #blocked>, %y: tensor<128x128xf32, #blocked>) -> tensor<128x128xf32, #blocked> {
    %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #blocked>
    %a = tile.convert_layout %x : tensor<128x128xf32, #blocked> -> tensor<128x128xf32, #dot_op>
    %b = tile.convert_layout %y : tensor<128x128xf32, #blocked> -> tensor<128x128xf32, #dot_op1>
    %d = tile.dot %a, %b, %zero : tensor<128x128xf32, #dot_op> * tensor<128x128xf32, #dot_op1> -> tensor<128x128xf32, #blocked>
    return %d : tensor<128x128xf32, #blocked>
  }
}
// BIG-LABEL: func.func @too_large
// BIG-COUNT-2: tile.local_alloc
// BIG-COUNT-128: = tile.dot
// BIG-NOT: = tile.dot

// -----

// A batched dot: buffers of [batch, rows, K] with A's rows (order [1, 2,
// 0]) and B's columns (order [2, 1, 0]) contiguous, a K step the slice of
// every batch at that K.
// CHECK-DAG: #[[$A:shared[0-9]*]] = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 2, 0]}>
// CHECK-DAG: #[[$B:shared[0-9]*]] = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [2, 1, 0]}>
// CHECK-LABEL: func.func @batched
// BIG-LABEL: func.func @batched
// CHECK: %[[ABUF:.*]] = tile.local_alloc %{{.*}} -> !tile.memdesc<2x16x4xf32, #[[$A]]>
// CHECK: %[[BBUF:.*]] = tile.local_alloc %{{.*}} -> !tile.memdesc<2x4x32xf32, #[[$B]]>
// CHECK: tile.memdesc_subslice %[[ABUF]] [0, 0, 0] : {{.*}} -> !tile.memdesc<2x16x1xf32, #[[$A]], 2x16x4>
// CHECK: tile.memdesc_subslice %[[BBUF]] [0, 0, 0] : {{.*}} -> !tile.memdesc<2x1x32xf32, #[[$B]], 2x4x32>
// CHECK: = tile.dot {{.*}} : tensor<2x16x1xf32, #dot_op> * tensor<2x1x32xf32, #dot_op1>
// CHECK: tile.memdesc_subslice %[[ABUF]] [0, 0, 3]
// CHECK: tile.memdesc_subslice %[[BBUF]] [0, 3, 0]
// CHECK: = tile.dot
// CHECK-NOT: = tile.dot
#blocked = #tile.blocked<{sizePerThread = [1, 1, 1], threadsPerWarp = [1, 8, 4], warpsPerCTA = [1, 1, 1], order = [2, 1, 0]}>
#blocked1 = #tile.blocked<{sizePerThread = [1, 4, 4], threadsPerWarp = [1, 4, 8], warpsPerCTA = [1, 1, 1], order = [2, 1, 0]}>
#dot_op = #tile.dot_operand<{opIdx = 0, parent = #blocked1, kWidth = 0}>
#dot_op1 = #tile.dot_operand<{opIdx = 1, parent = #blocked1, kWidth = 0}>
module attributes {tile.num_warps = 1 : i32, tile.warp_size = 32 : i32} {
  func.func @batched(%x: tensor<2x16x4xf32, #blocked>, %y: tensor<2x4x32xf32, #blocked>) -> tensor<2x16x32xf32, #blocked1> {
    %zero = arith.constant dense<0.000000e+00> : tensor<2x16x32xf32, #blocked1>
    %a = tile.convert_layout %x : tensor<2x16x4xf32, #blocked> -> tensor<2x16x4xf32, #dot_op>
    %b = tile.convert_layout %y : tensor<2x4x32xf32, #blocked> -> tensor<2x4x32xf32, #dot_op1>
    %d = tile.dot %a, %b, %zero : tensor<2x16x4xf32, #dot_op> * tensor<2x4x32xf32, #dot_op1> -> tensor<2x16x32xf32, #blocked1>
    return %d : tensor<2x16x32xf32, #blocked1>
  }
}

// -----

// A tensor-core dot (an mma parent) is not this pass's.
// CHECK-LABEL: func.func @mma
// CHECK-NOT: tile.local_alloc
// CHECK: = tile.dot
// CHECK-NOT: = tile.dot
#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tile_nvidia.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#dot_op = #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>
#dot_op1 = #tile.dot_operand<{opIdx = 1, parent = #mma, kWidth = 2}>
module attributes {tile.num_warps = 4 : i32, tile.warp_size = 32 : i32} {
  func.func @mma(%x: tensor<32x32xf16, #blocked>, %y: tensor<32x32xf16, #blocked>) -> tensor<32x32xf32, #mma> {
    %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32, #mma>
    %a = tile.convert_layout %x : tensor<32x32xf16, #blocked> -> tensor<32x32xf16, #dot_op>
    %b = tile.convert_layout %y : tensor<32x32xf16, #blocked> -> tensor<32x32xf16, #dot_op1>
    %d = tile.dot %a, %b, %zero : tensor<32x32xf16, #dot_op> * tensor<32x32xf16, #dot_op1> -> tensor<32x32xf32, #mma>
    return %d : tensor<32x32xf32, #mma>
  }
}
