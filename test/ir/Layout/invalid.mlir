// RUN: tessera-opt %s -split-input-file -verify-diagnostics

// Every verifier error of the layout attributes, one case each.
// expected-error @+1 {{layout #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}> is for rank 2 but the tensor has rank 1}}
func.func @blocked_rank(%a: tensor<4xf32, #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>>) {
  return
}

// -----

// expected-error @+1 {{sizePerThread, threadsPerWarp and warpsPerCTA must have one entry per dimension}}
func.func @blocked_sizes(%a: tensor<4x4xf32, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>>) {
  return
}

// -----

// expected-error @+1 {{sizePerThread must hold powers of two, got 3}}
func.func @blocked_pow2(%a: tensor<4x4xf32, #tile.blocked<{sizePerThread = [1, 3], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>>) {
  return
}

// -----

// Counts past the largest tensor would overflow the layout's linear form.
// expected-error @+1 {{sizePerThread must hold at most 1048576 in all, got 2147483648}}
func.func @blocked_too_large(%a: tensor<64x64xf16, #tile.blocked<{sizePerThread = [1, 2147483648], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>) {
  return
}

// -----

// expected-error @+1 {{order must be a permutation of 0..1}}
func.func @blocked_order(%a: tensor<4x4xf32, #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 1]}>>) {
  return
}

// -----

// expected-error @+1 {{cannot slice dimension 2 of a layout of rank 2}}
func.func @slice_dim(%a: tensor<4xf32, #tile.slice<{dim = 2, parent = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>}>>) {
  return
}

// -----

// expected-error @+2 {{invalid kind of attribute specified}}
// expected-error @+1 {{failed to parse Tile_SliceLayoutAttr parameter 'parent' which is to be a `DistributedLayoutAttrInterface`}}
func.func @slice_parent(%a: tensor<4xf32, #tile.slice<{dim = 0, parent = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>}>>) {
  return
}

// -----

// expected-error @+1 {{layout #tile.slice<{dim = 0, parent = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>}> is for rank 1 but the tensor has rank 2}}
func.func @slice_rank(%a: tensor<4x4xf32, #tile.slice<{dim = 0, parent = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>}>>) {
  return
}

// -----

// expected-error @+1 {{every basis needs one value per tensor dimension (2)}}
func.func @linear_ragged(%a: tensor<4x4xf32, #tile.linear<{register = [[0, 1], [2]], lane = [], warp = [], block = []}>>) {
  return
}

// -----

// expected-error @+1 {{expected 'lane'}}
func.func @linear_names(%a: tensor<4x4xf32, #tile.linear<{register = [[0, 1]], thread = [], warp = [], block = []}>>) {
  return
}

// -----

// expected-error @+1 {{layout #tile.linear<{register = [[0, 8]], lane = [], warp = [], block = []}> needs dimension 1 to have at least 16 elements, but it has 4}}
func.func @linear_beyond(%a: tensor<4x4xf32, #tile.linear<{register = [[0, 8]], lane = [], warp = [], block = []}>>) {
  return
}

// -----

// expected-error @+1 {{basis 0 of 'register' maps to -1 in 'dim1', outside its size 1}}
func.func @linear_negative(%a: tensor<4x4xf32, #tile.linear<{register = [[0, -1]], lane = [], warp = [], block = []}>>) {
  return
}

// -----

// expected-error @+1 {{opIdx must be 0 (A) or 1 (B), got 2}}
func.func @dot_opidx(%a: tensor<4x4xf32, #tile.dot_operand<{opIdx = 2, parent = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>, kWidth = 1}>>) {
  return
}

// -----

// expected-error @+1 {{kWidth must be 0 or a power of two, got 3}}
func.func @dot_kwidth(%a: tensor<4x4xf32, #tile.dot_operand<{opIdx = 0, parent = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>, kWidth = 3}>>) {
  return
}

// -----

// A kWidth no instruction takes would overflow the layout's arithmetic.
// expected-error @+1 {{kWidth must be at most 256, got 2147483648}}
func.func @dot_kwidth_huge(%a: tensor<4x4xf32, #tile.dot_operand<{opIdx = 0, parent = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>, kWidth = 2147483648}>>) {
  return
}

// -----

// expected-error @+1 {{the parent of a dot operand must have rank 2 or 3, got 1}}
func.func @dot_parent_rank(%a: tensor<4xf32, #tile.dot_operand<{opIdx = 0, parent = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>, kWidth = 1}>>) {
  return
}

// -----

// expected-error @+1 {{vec, perPhase and maxPhase must hold powers of two, got 3}}
func.func @swizzle_pow2(%a: tensor<4x4xf32, #tile.swizzled_shared<{vec = 3, perPhase = 1, maxPhase = 1, order = [1, 0]}>>) {
  return
}

// -----

// expected-error @+1 {{order must be a permutation of 0..1}}
func.func @swizzle_order(%a: tensor<4x4xf32, #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 2]}>>) {
  return
}

// -----

// expected-error @+1 {{layout #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}> is for rank 2 but the tensor has rank 1}}
func.func @swizzle_rank(%a: tensor<4xf32, #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>) {
  return
}

// -----

// expected-error @+1 {{swizzlingByteWidth must be 0, 32, 64 or 128, got 96}}
func.func @nvmma_width(%a: tensor<4x4xf16, #tile.nvmma_shared<{swizzlingByteWidth = 96, transposed = false, elementBitWidth = 16}>>) {
  return
}

// -----

// expected-error @+1 {{elementBitWidth must be 8, 16, 32 or 64, got 12}}
func.func @nvmma_bits(%a: tensor<4x4xf16, #tile.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 12}>>) {
  return
}

// -----

// expected-error @+1 {{layout #tile.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}> is for 16-bit elements, not 'f32'}}
func.func @nvmma_element(%a: tensor<4x4xf32, #tile.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>>) {
  return
}

// -----

// expected-error @+1 {{layout #tile.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}> is for rank 2 but the tensor has rank 3}}
func.func @nvmma_rank(%a: tensor<4x4x4xf16, #tile.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>>) {
  return
}

// -----

#blocked32 = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.warp_size = 64 : i32} {
  // expected-error @+1 {{'func.func' op has a layout with 32 threads per warp but the module's 'tile.warp_size' is 64}}
  func.func @warp_size(%a: tensor<128xf32, #blocked32>) {
    return
  }
}

// -----

#blocked4 = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 8 : i32} {
  func.func @num_warps(%a: f32) {
    // expected-error @+1 {{'tile.splat' op has a layout with 4 warps but the module's 'tile.num_warps' is 8}}
    %0 = tile.splat %a : tensor<128xf32, #blocked4>
    return
  }
}

// -----

// expected-error @+1 {{'tile.num_warps' must be a power of two from 1 to 32, got 6}}
module attributes {tile.num_warps = 6 : i32} {
}

// -----

// Triton's bound: at most 32 warps.
// expected-error @+1 {{'tile.num_warps' must be a power of two from 1 to 32, got 64}}
module attributes {tile.num_warps = 64 : i32} {
}

// -----

// expected-error @+1 {{'tile.num_warps' must be a power of two from 1 to 32, got 0}}
module attributes {tile.num_warps = 0 : i32} {
}

// -----

// A block holds 1024 threads: 16 warps of 64 lanes.
// expected-error @+1 {{'tile.num_warps' must be a power of two from 1 to 16 (1024 threads of 64-lane warps), got 32}}
module attributes {tile.num_warps = 32 : i32, tile.warp_size = 64 : i32} {
}

// -----

// expected-error @+1 {{'tile.warp_size' must be a power of two from 1 to 64 (32 or 64 on GPUs), got 48}}
module attributes {tile.warp_size = 48 : i32} {
}

// -----

// A tensor given a layout is bounded like any other, even outside tile ops.
#blocked = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.warp_size = 32 : i32} {
  // expected-error @+1 {{'func.func' op a tensor of shape 65536x65536 has more than 1048576 elements, the most a tensor may hold}}
  func.func @huge_layout(%x: tensor<65536x65536xf32, #blocked>) {
    return
  }
}
