// RUN: tessera-opt %s | tessera-opt | FileCheck %s
// RUN: tessera-opt %s --mlir-print-op-generic | tessera-opt | FileCheck %s

// Every layout attribute, printed and parsed back, on tensors of a module
// whose warp size and number of warps match them.

#blocked = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#wave64 = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#slice = #tile.slice<{dim = 1, parent = #blocked}>
#linear = #tile.linear<{register = [[0, 1], [0, 2]], lane = [[0, 4], [1, 0], [2, 0], [0, 0], [0, 0]], warp = [[0, 0], [0, 0]], block = []}>
#dot_a = #tile.dot_operand<{opIdx = 0, parent = #blocked, kWidth = 2}>
#dot_b = #tile.dot_operand<{opIdx = 1, parent = #blocked, kWidth = 0}>
#swizzled = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#nvmma = #tile.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>

// Layouts print once, as aliases, and by name where used.
// CHECK: #[[$BLOCKED:blocked[0-9]*]] = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK: #[[$WAVE64:blocked[0-9]*]] = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
// CHECK: #[[$LINEAR:linear[0-9]*]] = #tile.linear<{register = {{\[}}[0, 1], [0, 2]], lane = {{\[}}[0, 4], [1, 0], [2, 0], [0, 0], [0, 0]], warp = {{\[}}[0, 0], [0, 0]], block = []}>
// CHECK: #[[$SWIZZLED:shared[0-9]*]] = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
// CHECK: #[[$NVMMA:shared[0-9]*]] = #tile.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
// CHECK: #[[$DOTA:dot_op[0-9]*]] = #tile.dot_operand<{opIdx = 0, parent = #[[$BLOCKED]], kWidth = 2}>
// CHECK: #[[$DOTB:dot_op[0-9]*]] = #tile.dot_operand<{opIdx = 1, parent = #[[$BLOCKED]], kWidth = 0}>
// CHECK: #[[$SLICE:slice[0-9]*]] = #tile.slice<{dim = 1, parent = #[[$BLOCKED]]}>
// CHECK: module attributes {tile.num_warps = 4 : i32, tile.warp_size = 32 : i32}
module attributes {tile.num_warps = 4 : i32, tile.warp_size = 32 : i32} {
  // CHECK-LABEL: func.func @layouts
  // CHECK-SAME: tensor<64x64xf32, #[[$BLOCKED]]>
  // CHECK-SAME: tensor<64xf32, #[[$SLICE]]>
  // CHECK-SAME: tensor<4x8xf32, #[[$LINEAR]]>
  // CHECK-SAME: tensor<64x16xf16, #[[$DOTA]]>
  // CHECK-SAME: tensor<16x64xf16, #[[$DOTB]]>
  // CHECK-SAME: tensor<64x64xf16, #[[$SWIZZLED]]>
  // CHECK-SAME: tensor<64x64xf16, #[[$NVMMA]]>
  func.func @layouts(%a: tensor<64x64xf32, #blocked>, %b: tensor<64xf32, #slice>,
                     %c: tensor<4x8xf32, #linear>, %d: tensor<64x16xf16, #dot_a>,
                     %e: tensor<16x64xf16, #dot_b>, %f: tensor<64x64xf16, #swizzled>,
                     %g: tensor<64x64xf16, #nvmma>) {
    return
  }
}

// A layout for wave64 (AMD CDNA) in a module without warp-size attributes.
// CHECK-LABEL: func.func @wave64
// CHECK-SAME: tensor<1024xf32, #[[$WAVE64]]>
module {
  func.func @wave64(%a: tensor<1024xf32, #wave64>) {
    return
  }
}

// Tile ops keep layouts: the mask of a load takes the pointers' layout.
// CHECK-LABEL: func.func @load_with_layout
// CHECK: tile.load %{{.*}}, %{{.*}} : tensor<64x64x!tile.ptr<f32>, #[[$BLOCKED]]>
module {
  func.func @load_with_layout(%p: tensor<64x64x!tile.ptr<f32>, #blocked>,
                              %m: tensor<64x64xi1, #blocked>) -> tensor<64x64xf32, #blocked> {
    %v = tile.load %p, %m : tensor<64x64x!tile.ptr<f32>, #blocked>
    return %v : tensor<64x64xf32, #blocked>
  }
}
