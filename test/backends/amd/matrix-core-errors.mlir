// A dot in a matrix-core layout that no instruction of the chip computes
// is a located error of the lowering, not an instruction LLVM cannot
// select.
// RUN: not tessera-opt %s -split-input-file -tile-amd-to-llvm=warp-size=64 2>&1 | FileCheck %s

#mfma = #tile_amd.mfma<{version = 4, warpsPerCTA = [1, 1], instrShape = [32, 32, 4]}>
#a = #tile.dot_operand<{opIdx = 0, parent = #mfma, kWidth = 2}>
#b = #tile.dot_operand<{opIdx = 1, parent = #mfma, kWidth = 2}>
module attributes {tile.num_warps = 1 : i32, tile.warp_size = 64 : i32} {
  func.func @xf32_on_gfx950(%x: tensor<32x4xf32, #a>, %y: tensor<4x32xf32, #b>, %z: tensor<32x32xf32, #mfma>) -> tensor<32x32xf32, #mfma> {
    // CHECK: :[[# @LINE + 1]]:10: error: cannot lower 'tile.dot' for the GPU: MFMA version 4 has no instruction of 2 K elements a lane for this dot's types
    %d = tile.dot %x, %y, %z precision = tf32 : tensor<32x4xf32, #a> * tensor<4x32xf32, #b> -> tensor<32x32xf32, #mfma>
    return %d : tensor<32x32xf32, #mfma>
  }
}

// -----

#mfma = #tile_amd.mfma<{version = 3, warpsPerCTA = [1, 1], instrShape = [32, 32, 16]}>
#a = #tile.dot_operand<{opIdx = 0, parent = #mfma, kWidth = 8}>
#b = #tile.dot_operand<{opIdx = 1, parent = #mfma, kWidth = 8}>
module attributes {tile.num_warps = 1 : i32, tile.warp_size = 64 : i32} {
  func.func @ocp_fp8_on_gfx942(%x: tensor<32x16xf8E4M3FN, #a>, %y: tensor<16x32xf8E4M3FN, #b>, %z: tensor<32x32xf32, #mfma>) -> tensor<32x32xf32, #mfma> {
    // CHECK: :[[# @LINE + 1]]:10: error: cannot lower 'tile.dot' for the GPU: MFMA version 3 has no instruction of 8 K elements a lane for this dot's types
    %d = tile.dot %x, %y, %z : tensor<32x16xf8E4M3FN, #a> * tensor<16x32xf8E4M3FN, #b> -> tensor<32x32xf32, #mfma>
    return %d : tensor<32x32xf32, #mfma>
  }
}

// -----

// OCP and FNUZ fp8 do not mix: gfx942's fp8 MFMAs read both operands as
// FNUZ.
#mfma = #tile_amd.mfma<{version = 3, warpsPerCTA = [1, 1], instrShape = [32, 32, 16]}>
#a = #tile.dot_operand<{opIdx = 0, parent = #mfma, kWidth = 8}>
#b = #tile.dot_operand<{opIdx = 1, parent = #mfma, kWidth = 8}>
module attributes {tile.num_warps = 1 : i32, tile.warp_size = 64 : i32} {
  func.func @fnuz_with_ocp(%x: tensor<32x16xf8E4M3FNUZ, #a>, %y: tensor<16x32xf8E4M3FN, #b>, %z: tensor<32x32xf32, #mfma>) -> tensor<32x32xf32, #mfma> {
    // CHECK: :[[# @LINE + 1]]:10: error: cannot lower 'tile.dot' for the GPU: MFMA version 3 has no instruction of 8 K elements a lane for this dot's types
    %d = tile.dot %x, %y, %z : tensor<32x16xf8E4M3FNUZ, #a> * tensor<16x32xf8E4M3FN, #b> -> tensor<32x32xf32, #mfma>
    return %d : tensor<32x32xf32, #mfma>
  }
}
