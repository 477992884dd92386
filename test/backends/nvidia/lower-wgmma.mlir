// Warpgroup dots lower to wgmma: a fence, one instruction per 64-row tile
// and K step with descriptors of the NVMMA layouts, a commit, and a wait
// tying the accumulators; the fence before them to fence.proxy.async.
// RUN: tessera-opt %s -split-input-file -tile-assign-layouts -tile-nvidia-assign-mma=compute-capability=90 -tile-remove-conversions -canonicalize -tile-nvidia-fence-async-shared -tile-nvidia-to-llvm | FileCheck %s
// RUN: tessera-opt %s -split-input-file -tile-assign-layouts -tile-nvidia-assign-mma="compute-capability=90 wgmma-chained=true" -tile-remove-conversions -canonicalize -tile-nvidia-fence-async-shared -tile-nvidia-to-llvm | FileCheck %s --check-prefix=CHAINED

// A 128x32 f16, K contiguous: 64-byte swizzle (mode 2 << 62), 8 rows of
// 64 bytes between row groups (SBO 512 >> 4 = 32 << 32). B 32x128, N
// contiguous: 128-byte swizzle (1 << 62), SBO 1024 (64 << 32), LBO the 32
// rows of a 128-byte column tile (4096 >> 4 = 256 << 16); read transposed.
// CHECK-LABEL: llvm.func @f16_loop
// Each tile's descriptor is its operand's plus the tile's offset in 16-byte
// units: A's second 64 rows 4096 bytes on (256), its second K step 32 bytes
// (2), B's 16 rows of 128 bytes (128).
// CHECK: llvm.call_intrinsic "llvm.nvvm.fence.proxy.async.shared_cta"
// CHECK: llvm.call_intrinsic "llvm.nvvm.wgmma.fence.sync.aligned"
// CHECK: llvm.mlir.constant(-9223371899415822336 : i64)
// CHECK-NEXT: %[[A:.*]] = llvm.or
// CHECK: llvm.mlir.constant(4611686293322072064 : i64)
// CHECK-NEXT: %[[B:.*]] = llvm.or
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}} $64, $65, p, 1, 1, 0, 1;{{.*}}" %[[A]], %[[B]],
// CHECK: llvm.mlir.constant(256 : i64)
// CHECK-NEXT: %[[A1:.*]] = llvm.add %[[A]]
// CHECK: wgmma.mma_async{{.*}}" %[[A1]], %[[B]],
// CHECK: llvm.mlir.constant(2 : i64)
// CHECK-NEXT: %[[A2:.*]] = llvm.add %[[A]]
// CHECK: llvm.mlir.constant(128 : i64)
// CHECK-NEXT: %[[B2:.*]] = llvm.add %[[B]]
// CHECK: wgmma.mma_async{{.*}}" %[[A2]], %[[B2]],
// CHECK: llvm.mlir.constant(258 : i64)
// CHECK-NEXT: %[[A3:.*]] = llvm.add %[[A]]
// CHECK: llvm.mlir.constant(128 : i64)
// CHECK-NEXT: %[[B3:.*]] = llvm.add %[[B]]
// CHECK: wgmma.mma_async{{.*}}" %[[A3]], %[[B3]],
// CHECK-NOT: wgmma.mma_async
// CHECK: llvm.call_intrinsic "llvm.nvvm.wgmma.commit_group.sync.aligned"
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "wgmma.wait_group.sync.aligned 0;", "=f,{{.*}},=f,0,1,2,
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

// With wgmma-chained, attention's second dot takes p from registers: four
// registers of A, no trans-a immediate; the first reads q and kᵀ from
// shared memory.
// CHAINED-LABEL: llvm.func @chained
// CHAINED: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}} $32, $33, p, 1, 1, 0, {{[01]}};
// CHAINED: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}} {$32, $33, $34, $35}, $36, p, 1, 1, 1;
// CHAINED-SAME: "=f,{{.*}},r,r,r,r,l,r,0,1,
func.func @chained(%q: tensor<128x64x!tile.ptr<f16>>, %k: tensor<64x64x!tile.ptr<f16>>,
                   %v: tensor<64x64x!tile.ptr<f16>>, %o: tensor<128x64x!tile.ptr<f32>>) {
  %x = tile.load %q : tensor<128x64x!tile.ptr<f16>>
  %y = tile.load %k : tensor<64x64x!tile.ptr<f16>>
  %w = tile.load %v : tensor<64x64x!tile.ptr<f16>>
  %yt = tile.trans %y {order = array<i32: 1, 0>} : tensor<64x64xf16> -> tensor<64x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %s = tile.dot %x, %yt, %zero : tensor<128x64xf16> * tensor<64x64xf16> -> tensor<128x64xf32>
  %p = math.exp %s : tensor<128x64xf32>
  %h = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xf16>
  %r = tile.dot %h, %w, %zero : tensor<128x64xf16> * tensor<64x64xf16> -> tensor<128x64xf32>
  tile.store %o, %r : tensor<128x64x!tile.ptr<f32>>
  return
}

// -----

// fp8 with maxNumImpreciseAcc = 64 of K = 128 (k32 instructions): two
// groups of two wgmmas, each starting from zero (scale-d 0, then 1),
// committed and waited for, then added to the fp32 sum, one add per
// accumulator register (64 a thread); no commit after the last group.
// CHECK-LABEL: llvm.func @fp8_imprecise
// CHECK: llvm.call_intrinsic "llvm.nvvm.wgmma.fence.sync.aligned"
// CHECK: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {{.*}}" %{{[0-9]+}}, %{{[0-9]+}}, %[[ZERO:[0-9]+]],
// CHECK: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {{.*}}" %{{[0-9]+}}, %{{[0-9]+}}, %[[ONE:[0-9]+]],
// CHECK: llvm.call_intrinsic "llvm.nvvm.wgmma.commit_group.sync.aligned"
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "wgmma.wait_group.sync.aligned 0;"
// CHECK-COUNT-64: llvm.fadd
// CHECK-NOT: llvm.fadd
// CHECK: llvm.call_intrinsic "llvm.nvvm.wgmma.fence.sync.aligned"
// CHECK: wgmma.mma_async{{.*}}" %{{[0-9]+}}, %{{[0-9]+}}, %[[ZERO]],
// CHECK: wgmma.mma_async{{.*}}" %{{[0-9]+}}, %{{[0-9]+}}, %[[ONE]],
// CHECK: llvm.call_intrinsic "llvm.nvvm.wgmma.commit_group.sync.aligned"
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "wgmma.wait_group.sync.aligned 0;"
// CHECK-COUNT-64: llvm.fadd
// CHECK-NOT: wgmma
// CHECK: llvm.return
func.func @fp8_imprecise(%a: tensor<64x128x!tile.ptr<f8E4M3FN>>, %b: tensor<128x128x!tile.ptr<f8E4M3FN>>,
                         %c: tensor<64x128x!tile.ptr<f32>>) {
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %x = tile.load %a : tensor<64x128x!tile.ptr<f8E4M3FN>>
  %y = tile.load %b : tensor<128x128x!tile.ptr<f8E4M3FN>>
  %d = tile.dot %x, %y, %zero {maxNumImpreciseAcc = 64 : i32} : tensor<64x128xf8E4M3FN> * tensor<128x128xf8E4M3FN> -> tensor<64x128xf32>
  tile.store %c, %d : tensor<64x128x!tile.ptr<f32>>
  return
}
