// The matrix-unit stage on sm_90a: dots wgmma can compute become
// warpgroup dots reading NVMMA-swizzled shared memory.
// RUN: tessera-opt %s -split-input-file -tile-assign-layouts -tile-nvidia-assign-mma=compute-capability=90 -tile-remove-conversions -canonicalize -tile-nvidia-fence-async-shared | FileCheck %s
// RUN: tessera-opt %s -split-input-file -tile-assign-layouts=num-warps=8 -tile-nvidia-assign-mma=compute-capability=90 -tile-remove-conversions -canonicalize -tile-nvidia-fence-async-shared | FileCheck %s --check-prefix=W8
// RUN: tessera-opt %s -split-input-file -tile-assign-layouts -tile-nvidia-assign-mma="compute-capability=90 wgmma-chained=false" -tile-remove-conversions -canonicalize | FileCheck %s --check-prefix=MMASYNC

// f16: A (K contiguous, 64 bytes) and B (N contiguous, 256 bytes) stored
// where they are loaded, with the widest swizzle their rows allow, then a
// fence; one warpgroup takes the 128x128 result in 64-row halves with
// 128-wide instructions; 8 warps stack two warpgroups along M.
// CHECK-DAG: #[[$MMA:mma[0-9]*]] = #tile_nvidia.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>
// CHECK-DAG: #[[$SA:shared[0-9]*]] = #tile.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>
// CHECK-DAG: #[[$SB:shared[0-9]*]] = #tile.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
// CHECK-LABEL: func.func @f16_loop
// CHECK: scf.for {{.*}} -> (tensor<128x128xf32, #[[$MMA]]>)
// CHECK: %[[X:.*]] = tile.load
// CHECK-NEXT: %[[SX:.*]] = tile.local_alloc %[[X]] : ({{.*}}) -> !tile.memdesc<128x32xf16, #[[$SA]], mutable>
// CHECK-NEXT: tile_nvidia.fence_async_shared
// CHECK-NEXT: %[[Y:.*]] = tile.load
// CHECK-NEXT: %[[SY:.*]] = tile.local_alloc %[[Y]] : ({{.*}}) -> !tile.memdesc<32x128xf16, #[[$SB]], mutable>
// CHECK-NEXT: tile_nvidia.fence_async_shared
// CHECK-NEXT: %[[D:.*]] = tile_nvidia.warpgroup_dot %[[SX]], %[[SY]], %{{.*}} : {{.*}} -> tensor<128x128xf32, #[[$MMA]]>
// CHECK-NEXT: scf.yield %[[D]]
// W8: #tile_nvidia.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [16, 128, 16]}>
func.func @f16_loop(%a: tensor<128x32x!tile.ptr<f16>>, %b: tensor<32x128x!tile.ptr<f16>>,
                    %c: tensor<128x128x!tile.ptr<f32>>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<128x128xf32>) : i32 {
    %x = tile.load %a : tensor<128x32x!tile.ptr<f16>>
    %y = tile.load %b : tensor<32x128x!tile.ptr<f16>>
    %d = tile.dot %x, %y, %acc_i : tensor<128x32xf16> * tensor<32x128xf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %c, %acc : tensor<128x128x!tile.ptr<f32>>
  return
}

// -----

// 8-bit and tf32 operands are read K-major whatever their layout; fp8
// formats may mix. ieee fp32 stays on the CUDA cores, tf32x3 on mma.sync.
// CHECK-DAG: #[[$S8A:shared[0-9]*]] = #tile.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 8}>
// CHECK-DAG: #[[$S8B:shared[0-9]*]] = #tile.nvmma_shared<{swizzlingByteWidth = 64, transposed = true, elementBitWidth = 8}>
// CHECK-DAG: #[[$S32A:shared[0-9]*]] = #tile.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 32}>
// CHECK-DAG: #[[$S32B:shared[0-9]*]] = #tile.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 32}>
// CHECK-DAG: #tile_nvidia.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 32]}>
// CHECK-DAG: #tile_nvidia.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 8]}>
// CHECK-LABEL: func.func @types
// CHECK: tile_nvidia.warpgroup_dot {{.*}} : !tile.memdesc<64x64xf8E4M3FN, #[[$S8A]], mutable> * !tile.memdesc<64x64xf8E5M2, #[[$S8B]], mutable>
// CHECK: tile_nvidia.warpgroup_dot {{.*}} precision = tf32 : !tile.memdesc<64x32xf32, #[[$S32A]], mutable> * !tile.memdesc<32x64xf32, #[[$S32B]], mutable>
// CHECK: tile.dot {{.*}} : tensor<64x32xf32, #dot_op{{[0-9]*}}> * tensor<32x64xf32, #dot_op{{[0-9]*}}> -> tensor<64x64xf32, #blocked
// CHECK: tile.dot {{.*}} precision = tf32x3 : {{.*}} -> tensor<64x64xf32, #mma
func.func @types(%p: tensor<64x64x!tile.ptr<f8E4M3FN>>, %q: tensor<64x64x!tile.ptr<f8E5M2>>,
                 %f: tensor<64x32x!tile.ptr<f32>>, %g: tensor<32x64x!tile.ptr<f32>>,
                 %o: tensor<64x64x!tile.ptr<f32>>) {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %x = tile.load %p : tensor<64x64x!tile.ptr<f8E4M3FN>>
  %y = tile.load %q : tensor<64x64x!tile.ptr<f8E5M2>>
  %d8 = tile.dot %x, %y, %zero : tensor<64x64xf8E4M3FN> * tensor<64x64xf8E5M2> -> tensor<64x64xf32>
  tile.store %o, %d8 : tensor<64x64x!tile.ptr<f32>>
  %u = tile.load %f : tensor<64x32x!tile.ptr<f32>>
  %v = tile.load %g : tensor<32x64x!tile.ptr<f32>>
  %t = tile.dot %u, %v, %zero precision = tf32 : tensor<64x32xf32> * tensor<32x64xf32> -> tensor<64x64xf32>
  tile.store %o, %t : tensor<64x64x!tile.ptr<f32>>
  %e = tile.dot %u, %v, %zero : tensor<64x32xf32> * tensor<32x64xf32> -> tensor<64x64xf32>
  tile.store %o, %e : tensor<64x64x!tile.ptr<f32>>
  %x3 = tile.dot %u, %v, %zero precision = tf32x3 : tensor<64x32xf32> * tensor<32x64xf32> -> tensor<64x64xf32>
  tile.store %o, %x3 : tensor<64x64x!tile.ptr<f32>>
  return
}

// -----

// Fewer than 64 rows, or B's 8 columns (16 bytes) contiguous, stay on
// mma.sync.
// CHECK-LABEL: func.func @small
// CHECK-NOT: warpgroup_dot
// CHECK-COUNT-2: tile.dot {{.*}} -> tensor<{{.*}}, #mma{{[0-9]*}}>
func.func @small(%a: tensor<32x64x!tile.ptr<f16>>, %b: tensor<64x64x!tile.ptr<f16>>,
                 %c: tensor<64x16x!tile.ptr<f16>>, %d: tensor<16x8x!tile.ptr<f16>>,
                 %o: tensor<32x64x!tile.ptr<f32>>, %p: tensor<64x8x!tile.ptr<f32>>) {
  %zero = arith.constant dense<0.0> : tensor<32x64xf32>
  %x = tile.load %a : tensor<32x64x!tile.ptr<f16>>
  %y = tile.load %b : tensor<64x64x!tile.ptr<f16>>
  %r = tile.dot %x, %y, %zero : tensor<32x64xf16> * tensor<64x64xf16> -> tensor<32x64xf32>
  tile.store %o, %r : tensor<32x64x!tile.ptr<f32>>
  %zero2 = arith.constant dense<0.0> : tensor<64x8xf32>
  %u = tile.load %c : tensor<64x16x!tile.ptr<f16>>
  %v = tile.load %d : tensor<16x8x!tile.ptr<f16>>
  %s = tile.dot %u, %v, %zero2 : tensor<64x16xf16> * tensor<16x8xf16> -> tensor<64x8xf32>
  tile.store %p, %s : tensor<64x8x!tile.ptr<f32>>
  return
}

// -----

// Chained dots (attention) on wgmma too, every warp along M; the second
// dot takes p from registers. With wgmma-chained=false, mma.sync.
// W8: #tile_nvidia.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>
// W8-LABEL: func.func @chained
// CHECK-LABEL: func.func @chained
// CHECK: tile_nvidia.warpgroup_dot %{{.*}}, %{{.*}}, %{{.*}} : !tile.memdesc<128x64xf16
// CHECK: %[[P:.*]] = tile.convert_layout %{{.*}} -> tensor<128x64xf16, #dot_op>
// CHECK: tile_nvidia.warpgroup_dot %[[P]], %{{.*}}, %{{.*}} : tensor<128x64xf16, #dot_op> * !tile.memdesc
// CHECK-NOT: tile.dot
// MMASYNC-LABEL: func.func @chained
// MMASYNC-NOT: warpgroup_dot
// MMASYNC-COUNT-2: tile.dot
func.func @chained(%q: tensor<128x64x!tile.ptr<f16>>, %k: tensor<64x64x!tile.ptr<f16>>,
                   %o: tensor<128x64x!tile.ptr<f32>>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %x = tile.load %q : tensor<128x64x!tile.ptr<f16>>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero) -> (tensor<128x64xf32>) : i32 {
    %y = tile.load %k : tensor<64x64x!tile.ptr<f16>>
    %s = tile.dot %x, %y, %zero : tensor<128x64xf16> * tensor<64x64xf16> -> tensor<128x64xf32>
    %p = math.exp %s : tensor<128x64xf32>
    %h = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xf16>
    %r = tile.dot %h, %y, %a : tensor<128x64xf16> * tensor<64x64xf16> -> tensor<128x64xf32>
    scf.yield %r : tensor<128x64xf32>
  }
  tile.store %o, %acc : tensor<128x64x!tile.ptr<f32>>
  return
}

// -----

// B loaded N x K (K contiguous) and transposed, as `x @ w.T` writes it: the
// buffer keeps K contiguous (transposed, as B reads it), so that the
// copies into it move whole rows as they were loaded.
// CHECK-DAG: #[[$SK:shared[0-9]*]] = #tile.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16}>
// CHECK-LABEL: func.func @transposed_b
// CHECK: %[[WT:.*]] = tile.trans %{{.*}} {order = array<i32: 1, 0>} : tensor<128x64xf16
// CHECK: tile.local_alloc %[[WT]] : ({{.*}}) -> !tile.memdesc<64x128xf16, #[[$SK]], mutable>
func.func @transposed_b(%a: !tile.tensordesc<tensor<128x64xf16>>,
                        %w: !tile.tensordesc<tensor<128x64xf16>>, %i: i32,
                        %c: tensor<128x128x!tile.ptr<f32>>) {
  %x = tile.descriptor_load %a[%i, %i] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16>
  %y = tile.descriptor_load %w[%i, %i] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16>
  %yt = tile.trans %y {order = array<i32: 1, 0>} : tensor<128x64xf16> -> tensor<64x128xf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %d = tile.dot %x, %yt, %zero : tensor<128x64xf16> * tensor<64x128xf16> -> tensor<128x128xf32>
  tile.store %c, %d : tensor<128x128x!tile.ptr<f32>>
  return
}

// -----

// One operand read by two dots in the same layout (q in causal attention's
// two loops) is stored once.
// CHECK-LABEL: func.func @shared_operand
// CHECK: %[[X:.*]] = tile.descriptor_load
// CHECK-NEXT: %[[SX:.*]] = tile.local_alloc %[[X]]
// CHECK-NOT: tile.local_alloc %[[X]]
// CHECK: tile_nvidia.warpgroup_dot %[[SX]]
// CHECK: tile_nvidia.warpgroup_dot %[[SX]]
func.func @shared_operand(%a: !tile.tensordesc<tensor<128x64xf16>>,
                          %w: !tile.tensordesc<tensor<64x128xf16>>, %i: i32,
                          %c: tensor<128x128x!tile.ptr<f32>>) {
  %x = tile.descriptor_load %a[%i, %i] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16>
  %y = tile.descriptor_load %w[%i, %i] : !tile.tensordesc<tensor<64x128xf16>> -> tensor<64x128xf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %d = tile.dot %x, %y, %zero : tensor<128x64xf16> * tensor<64x128xf16> -> tensor<128x128xf32>
  %e = tile.dot %x, %y, %d : tensor<128x64xf16> * tensor<64x128xf16> -> tensor<128x128xf32>
  tile.store %c, %e : tensor<128x128x!tile.ptr<f32>>
  return
}
