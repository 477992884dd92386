// RUN: tessera-opt %s -split-input-file -tile-assign-layouts="num-warps=4 warp-size=64" -tile-amd-assign-matrix-cores=mfma-version=3 -tile-remove-conversions -canonicalize -cse | FileCheck %s
// RUN: tessera-opt %s -split-input-file -tile-assign-layouts="num-warps=4 warp-size=64" -tile-amd-assign-matrix-cores=mfma-version=4 -tile-remove-conversions -canonicalize -cse | FileCheck %s --check-prefix=GFX950
// RUN: tessera-opt %s -split-input-file -tile-assign-layouts="num-warps=4 warp-size=64" -tile-amd-assign-matrix-cores=mfma-version=3 -tile-remove-conversions -tile-amd-to-llvm -canonicalize -cse | FileCheck %s --check-prefix=LLVM
// RUN: tessera-opt %s -split-input-file -tile-assign-layouts="num-warps=4 warp-size=32" -tile-amd-assign-matrix-cores=wmma-version=1 -tile-remove-conversions -canonicalize -cse | FileCheck %s --check-prefix=GFX11
// RUN: tessera-opt %s -split-input-file -tile-assign-layouts="num-warps=4 warp-size=32" -tile-amd-assign-matrix-cores=wmma-version=2 -tile-remove-conversions -tile-amd-to-llvm=warp-size=32 -canonicalize -cse | FileCheck %s --check-prefix=GFX12
// RUN: not tessera-opt %s -split-input-file -tile-assign-layouts="num-warps=4 warp-size=64" -tile-amd-assign-matrix-cores=wmma-version=1 2>&1 | FileCheck %s --check-prefix=WAVES
// WAVES: error: wmma runs on 32-lane waves; the module's have 64
// RUN: tessera-opt %s -split-input-file -tile-assign-layouts="num-warps=4 warp-size=64" -tile-amd-assign-matrix-cores="mfma-version=3 kpack=2" -tile-remove-conversions | FileCheck %s --check-prefix=KPACK
// RUN: not tessera-opt %s -split-input-file -tile-assign-layouts="num-warps=4 warp-size=64" -tile-amd-assign-matrix-cores="mfma-version=3 kpack=3" 2>&1 | FileCheck %s --check-prefix=KPACK3
// KPACK3: error: kpack must be 1 or 2, got 3

// An f16 dot on gfx942 (version 3): 32x32x8 tiles (transposed, as
// Triton's), the 4 waves 2x2 over the 64x64 result, operands in its
// dot_operand layouts with 4 K elements a lane; the accumulator starts in
// the mfma layout. On gfx950 the
// instruction takes 8 (32x32x16). Lowered: 4 MFMAs a wave (K 32 / 8), each
// on 4 halves of A and of B and 16 accumulators.
// CHECK: #[[$MFMA:.*]] = #tile_amd.mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>
// CHECK: #[[$A:.*]] = #tile.dot_operand<{opIdx = 0, parent = #[[$MFMA]], kWidth = 4}>
// CHECK: #[[$B:.*]] = #tile.dot_operand<{opIdx = 1, parent = #[[$MFMA]], kWidth = 4}>
// CHECK-LABEL: func.func @f16
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #[[$MFMA]]>
// CHECK: %[[X:.*]] = tile.convert_layout %{{.*}} -> tensor<64x32xf16, #[[$A]]>
// CHECK: %[[Y:.*]] = tile.convert_layout %{{.*}} -> tensor<32x64xf16, #[[$B]]>
// CHECK: %[[D:.*]] = tile.dot %[[X]], %[[Y]], %[[ZERO]] : {{.*}} -> tensor<64x64xf32, #[[$MFMA]]>
// CHECK: tile.convert_layout %[[D]]
// With kpack 2 the operands hold 8 K elements a lane, two instructions'
// worth (K 32 allows it).
// KPACK: #[[$MFMA:.*]] = #tile_amd.mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>
// KPACK: #tile.dot_operand<{opIdx = 0, parent = #[[$MFMA]], kWidth = 8}>
// KPACK: #tile.dot_operand<{opIdx = 1, parent = #[[$MFMA]], kWidth = 8}>
// GFX950: #tile_amd.mfma<{version = 4, warpsPerCTA = [2, 2], instrShape = [32, 32, 16], isTransposed = true}>
// GFX950: #tile.dot_operand<{opIdx = 0, parent = #{{.*}}, kWidth = 8}>
// On RDNA, WMMA's 16x16x16 tiles, each wave 2x2 of them: gfx11's operands
// with 16 K elements a lane, gfx12's with 8; 8 WMMAs a wave.
// GFX11: #[[$WMMA:.*]] = #tile_amd.wmma<{version = 1, warpsPerCTA = [2, 2]}>
// GFX11: #tile.dot_operand<{opIdx = 0, parent = #[[$WMMA]], kWidth = 16}>
// GFX11-LABEL: func.func @f16
// GFX11: tile.dot {{.*}} -> tensor<64x64xf32, #[[$WMMA]]>
// GFX12-LABEL: llvm.func @f16
// GFX12-COUNT-8: llvm.call_intrinsic "llvm.amdgcn.wmma.f32.16x16x16.f16.v8f32.v8f16"(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<8xf16>, vector<8xf16>, vector<8xf32>) -> vector<8xf32>
// GFX12-NOT: llvm.amdgcn.wmma
// LLVM-LABEL: llvm.func @f16
// LLVM-COUNT-4: llvm.call_intrinsic "llvm.amdgcn.mfma.f32.32x32x8f16"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (vector<4xf16>, vector<4xf16>, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
// LLVM-NOT: llvm.amdgcn.mfma
// LLVM-NOT: llvm.intr.fma
func.func @f16(%a: tensor<64x32x!tile.ptr<f16>>, %b: tensor<32x64x!tile.ptr<f16>>, %c: tensor<64x64x!tile.ptr<f32>>) {
  %x = tile.load %a : tensor<64x32x!tile.ptr<f16>>
  %y = tile.load %b : tensor<32x64x!tile.ptr<f16>>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %x, %y, %zero : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
  tile.store %c, %d : tensor<64x64x!tile.ptr<f32>>
  return
}

// -----

// Chained dots, attention's q k^T then p v: both put the waves along M (4x1
// of 16x16 WMMA tiles; 2x2 of 32x32 MFMA tiles, as many as M has), so that
// the first's rows are the second's A rows and no wave needs another's.
// CHECK-LABEL: func.func @chained
// CHECK: tile.dot {{.*}} -> tensor<64x32xf32, #[[$M0:mfma[0-9]*]]>
// CHECK: tile.dot {{.*}} -> tensor<64x64xf32, #[[$M0]]>
// GFX11: #[[$CHAIN:.*]] = #tile_amd.wmma<{version = 1, warpsPerCTA = [4, 1]}>
// GFX11-LABEL: func.func @chained
// GFX11: tile.dot {{.*}} -> tensor<64x32xf32, #[[$CHAIN]]>
// GFX11: tile.dot {{.*}} -> tensor<64x64xf32, #[[$CHAIN]]>
// GFX12-LABEL: llvm.func @chained
// GFX12-COUNT-16: llvm.amdgcn.wmma
// LLVM-LABEL: llvm.func @chained
func.func @chained(%q: tensor<64x64xf16>, %k: tensor<64x32xf16>, %v: tensor<32x64xf16>, %o: tensor<64x64x!tile.ptr<f32>>) {
  %z0 = arith.constant dense<0.0> : tensor<64x32xf32>
  %z1 = arith.constant dense<0.0> : tensor<64x64xf32>
  %s = tile.dot %q, %k, %z0 : tensor<64x64xf16> * tensor<64x32xf16> -> tensor<64x32xf32>
  %p = arith.truncf %s : tensor<64x32xf32> to tensor<64x32xf16>
  %d = tile.dot %p, %v, %z1 : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
  tile.store %o, %d : tensor<64x64x!tile.ptr<f32>>
  return
}

// -----

// OCP fp8, e4m3 times e5m2: gfx950's MFMA (32x32x16, 8 K elements a lane)
// and gfx12's WMMA multiply them as they are; gfx942 widens them to f16,
// as Triton does.
// CHECK-LABEL: func.func @fp8
// CHECK: tile.dot {{.*}} : tensor<32x32xf16, #{{.*}}> * tensor<32x32xf16, #{{.*}}> -> tensor<32x32xf32, #mfma>
// GFX950: #[[$FP8:.*]] = #tile_amd.mfma<{version = 4, warpsPerCTA = [4, 1], instrShape = [32, 32, 16], isTransposed = true}>
// GFX950-LABEL: func.func @fp8
// GFX950: tile.dot {{.*}} : tensor<32x32xf8E4M3FN, #{{.*}}> * tensor<32x32xf8E5M2, #{{.*}}> -> tensor<32x32xf32, #[[$FP8]]>
// GFX12-LABEL: llvm.func @fp8
// GFX12-COUNT-2: llvm.call_intrinsic "llvm.amdgcn.wmma.f32.16x16x16.fp8.bf8.v8f32.v2i32"(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<2xi32>, vector<2xi32>, vector<8xf32>) -> vector<8xf32>
// GFX12-NOT: llvm.amdgcn.wmma
// LLVM-LABEL: llvm.func @fp8
// LLVM-COUNT-4: llvm.amdgcn.mfma.f32.32x32x8f16
func.func @fp8(%a: tensor<32x32x!tile.ptr<f8E4M3FN>>, %b: tensor<32x32x!tile.ptr<f8E5M2>>, %c: tensor<32x32x!tile.ptr<f32>>) {
  %x = tile.load %a : tensor<32x32x!tile.ptr<f8E4M3FN>>
  %y = tile.load %b : tensor<32x32x!tile.ptr<f8E5M2>>
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = tile.dot %x, %y, %zero : tensor<32x32xf8E4M3FN> * tensor<32x32xf8E5M2> -> tensor<32x32xf32>
  tile.store %c, %d : tensor<32x32x!tile.ptr<f32>>
  return
}

// -----

// f32 dots that allow tf32 run on gfx942's xf32 MFMAs (32x32x4, 2 K
// elements a lane); gfx950 has none, and IEEE f32 dots stay on the CUDA
// cores (@cuda_cores below).
// CHECK-LABEL: func.func @tf32
// CHECK: tile.dot {{.*}} precision = tf32 : tensor<32x16xf32, #{{.*}}> * tensor<16x32xf32, #{{.*}}> -> tensor<32x32xf32, #mfma>
// GFX950-LABEL: func.func @tf32
// GFX950-NOT: #mfma
// GFX950: return
// LLVM-LABEL: llvm.func @tf32
// LLVM-COUNT-4: llvm.call_intrinsic "llvm.amdgcn.mfma.f32.32x32x4.xf32"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (vector<2xf32>, vector<2xf32>, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
func.func @tf32(%a: tensor<32x16x!tile.ptr<f32>>, %b: tensor<16x32x!tile.ptr<f32>>, %c: tensor<32x32x!tile.ptr<f32>>) {
  %x = tile.load %a : tensor<32x16x!tile.ptr<f32>>
  %y = tile.load %b : tensor<16x32x!tile.ptr<f32>>
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = tile.dot %x, %y, %zero precision = tf32 : tensor<32x16xf32> * tensor<16x32xf32> -> tensor<32x32xf32>
  tile.store %c, %d : tensor<32x32x!tile.ptr<f32>>
  return
}

// -----

// bf16 with 16 rows: 16x16x16 tiles (bf16 as i16 for the "1k" instruction
// of versions 2 and 3).
// CHECK-LABEL: func.func @bf16_16
// CHECK: tile.dot {{.*}} -> tensor<16x64xf32, #mfma>
// GFX12-LABEL: llvm.func @bf16_16
// GFX12: llvm.call_intrinsic "llvm.amdgcn.wmma.f32.16x16x16.bf16.v8f32.v8i16"({{.*}}) : (vector<8xi16>, vector<8xi16>, vector<8xf32>) -> vector<8xf32>
// LLVM-LABEL: llvm.func @bf16_16
// LLVM: llvm.call_intrinsic "llvm.amdgcn.mfma.f32.16x16x16bf16.1k"({{.*}}) : (vector<4xi16>, vector<4xi16>, vector<4xf32>, i32, i32, i32) -> vector<4xf32>
func.func @bf16_16(%x: tensor<16x32xbf16>, %y: tensor<32x64xbf16>, %c: tensor<16x64x!tile.ptr<f32>>) {
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %d = tile.dot %x, %y, %zero : tensor<16x32xbf16> * tensor<32x64xbf16> -> tensor<16x64xf32>
  tile.store %c, %d : tensor<16x64x!tile.ptr<f32>>
  return
}

// -----

// int8 into i32: gfx942's 32x32x16 (8 K elements a lane, packed into an
// i64), gfx12's signed iu8 (8 a lane, two i32s).
// CHECK-LABEL: func.func @int8
// CHECK: tile.dot {{.*}} : tensor<32x32xi8, #{{.*}}> * tensor<32x32xi8, #{{.*}}> -> tensor<32x32xi32, #mfma>
// LLVM-LABEL: llvm.func @int8
// LLVM: llvm.call_intrinsic "llvm.amdgcn.mfma.i32.32x32x16.i8"({{.*}}) : (i64, i64, vector<16xi32>, i32, i32, i32) -> vector<16xi32>
// GFX12-LABEL: llvm.func @int8
// GFX12: llvm.call_intrinsic "llvm.amdgcn.wmma.i32.16x16x16.iu8.v8i32.v2i32"({{.*}}) : (i1, vector<2xi32>, i1, vector<2xi32>, vector<8xi32>, i1) -> vector<8xi32>
func.func @int8(%i: tensor<32x32xi8>, %pi: tensor<32x32x!tile.ptr<i32>>) {
  %zi = arith.constant dense<0> : tensor<32x32xi32>
  %d = tile.dot %i, %i, %zi : tensor<32x32xi8> * tensor<32x32xi8> -> tensor<32x32xi32>
  tile.store %pi, %d : tensor<32x32x!tile.ptr<i32>>
  return
}

// -----

// What no matrix instruction takes stays on the CUDA cores: f32 operands,
// a K that is no multiple of the instruction's, shapes under 16.
// CHECK-LABEL: func.func @cuda_cores
// CHECK-NOT: #mfma
// CHECK: return
func.func @cuda_cores(%f: tensor<32x32xf32>, %h: tensor<32x4xf16>, %g: tensor<4x32xf16>, %s: tensor<8x16xf16>, %t: tensor<16x8xf16>,
                      %pf: tensor<32x32x!tile.ptr<f32>>, %ps: tensor<8x8x!tile.ptr<f32>>) {
  %zf = arith.constant dense<0.0> : tensor<32x32xf32>
  %zs = arith.constant dense<0.0> : tensor<8x8xf32>
  %d0 = tile.dot %f, %f, %zf : tensor<32x32xf32> * tensor<32x32xf32> -> tensor<32x32xf32>
  %d2 = tile.dot %h, %g, %d0 : tensor<32x4xf16> * tensor<4x32xf16> -> tensor<32x32xf32>
  %d3 = tile.dot %s, %t, %zs : tensor<8x16xf16> * tensor<16x8xf16> -> tensor<8x8xf32>
  tile.store %pf, %d2 : tensor<32x32x!tile.ptr<f32>>
  tile.store %ps, %d3 : tensor<8x8x!tile.ptr<f32>>
  return
}
