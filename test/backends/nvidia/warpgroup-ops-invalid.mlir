// RUN: tessera-opt %s -split-input-file -verify-diagnostics

// Every verifier error of tile_nvidia.warpgroup_dot, one case each.

#mma2 = #tile_nvidia.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#s = #tile.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>

func.func @not_v3(%x: !tile.memdesc<64x64xf16, #s>, %y: !tile.memdesc<64x64xf16, #s>, %c: tensor<64x64xf32, #mma2>) {
  // expected-error @+1 {{the accumulator must have a version-3 #tile_nvidia.mma layout}}
  %d = tile_nvidia.warpgroup_dot %x, %y, %c : !tile.memdesc<64x64xf16, #s> * !tile.memdesc<64x64xf16, #s> -> tensor<64x64xf32, #mma2>
  return
}

// -----

#mma = #tile_nvidia.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#s = #tile.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>

func.func @shapes(%x: !tile.memdesc<64x32xf16, #s>, %y: !tile.memdesc<64x64xf16, #s>, %c: tensor<64x64xf32, #mma>) {
  // expected-error @+1 {{a is 64x32, b 64x64 and c 64x64: they do not multiply}}
  %d = tile_nvidia.warpgroup_dot %x, %y, %c : !tile.memdesc<64x32xf16, #s> * !tile.memdesc<64x64xf16, #s> -> tensor<64x64xf32, #mma>
  return
}

// -----

#mma = #tile_nvidia.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#s = #tile.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#w = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

func.func @not_nvmma(%x: !tile.memdesc<64x64xf16, #w>, %y: !tile.memdesc<64x64xf16, #s>, %c: tensor<64x64xf32, #mma>) {
  // expected-error @+1 {{a must be in a #tile.nvmma_shared layout with a 32, 64 or 128-byte swizzle}}
  %d = tile_nvidia.warpgroup_dot %x, %y, %c : !tile.memdesc<64x64xf16, #w> * !tile.memdesc<64x64xf16, #s> -> tensor<64x64xf32, #mma>
  return
}

// -----

#mma = #tile_nvidia.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 32]}>
#k = #tile.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 8}>

func.func @fp8_n_major(%x: !tile.memdesc<64x64xf8E4M3FN, #k>, %y: !tile.memdesc<64x64xf8E4M3FN, #k>, %c: tensor<64x64xf32, #mma>) {
  // expected-error @+1 {{b: 'f8E4M3FN' operands must have K contiguous}}
  %d = tile_nvidia.warpgroup_dot %x, %y, %c : !tile.memdesc<64x64xf8E4M3FN, #k> * !tile.memdesc<64x64xf8E4M3FN, #k> -> tensor<64x64xf32, #mma>
  return
}

// -----

#mma = #tile_nvidia.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 8]}>
#s = #tile.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 32}>
#t = #tile.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 32}>

func.func @f32_ieee(%x: !tile.memdesc<64x32xf32, #s>, %y: !tile.memdesc<32x64xf32, #t>, %c: tensor<64x64xf32, #mma>) {
  // expected-error @+1 {{fp32 inputs are multiplied as tf32: precision must be tf32}}
  %d = tile_nvidia.warpgroup_dot %x, %y, %c : !tile.memdesc<64x32xf32, #s> * !tile.memdesc<32x64xf32, #t> -> tensor<64x64xf32, #mma>
  return
}

// -----

#mma = #tile_nvidia.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#s = #tile.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>

func.func @register_a(%x: tensor<64x64xf16, #blocked>, %y: !tile.memdesc<64x64xf16, #s>, %c: tensor<64x64xf32, #mma>) {
  // expected-error @+1 {{a in registers must have the #tile.dot_operand layout of operand 0 of}}
  %d = tile_nvidia.warpgroup_dot %x, %y, %c : tensor<64x64xf16, #blocked> * !tile.memdesc<64x64xf16, #s> -> tensor<64x64xf32, #mma>
  return
}

// -----

#nvmma = #tile.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#bar = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @tma_coords(%map: !tile.ptr<i8>, %i: i32, %buf: !tile.memdesc<128x64xf16, #nvmma, mutable>, %bar: !tile.memdesc<1xi64, #bar, mutable>, %p: i1) {
  // expected-error @+1 {{'tile_nvidia.async_tma_copy_global_to_local' op needs 2 coordinates, got 1}}
  tile_nvidia.async_tma_copy_global_to_local %map[%i] %buf, %bar, %p : !tile.ptr<i8>, !tile.memdesc<128x64xf16, #nvmma, mutable>, !tile.memdesc<1xi64, #bar, mutable>
  return
}

// -----

#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#bar = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @tma_layout(%map: !tile.ptr<i8>, %i: i32, %buf: !tile.memdesc<128x64xf16, #shared, mutable>, %bar: !tile.memdesc<1xi64, #bar, mutable>, %p: i1) {
  // expected-error @+1 {{'tile_nvidia.async_tma_copy_global_to_local' op the buffer must be in a #tile.nvmma_shared layout}}
  tile_nvidia.async_tma_copy_global_to_local %map[%i, %i] %buf, %bar, %p : !tile.ptr<i8>, !tile.memdesc<128x64xf16, #shared, mutable>, !tile.memdesc<1xi64, #bar, mutable>
  return
}

// -----

#bar = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @not_a_barrier(%bar: !tile.memdesc<2xi64, #bar, mutable>) {
  // expected-error @+1 {{must be mbarrier (a !tile.memdesc<1xi64>)}}
  tile_nvidia.init_barrier %bar, 1 : !tile.memdesc<2xi64, #bar, mutable>
  return
}
