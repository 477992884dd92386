// RUN: tessera-opt %s -split-input-file | tessera-opt -split-input-file | FileCheck %s
// The warpgroup ops print and parse back.

#mma = #tile_nvidia.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>
#a = #tile.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#b = #tile.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#op = #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>

// CHECK-LABEL: func.func @ops
// CHECK: %[[D:.*]] = tile_nvidia.warpgroup_dot %{{.*}}, %{{.*}}, %{{.*}} {isAsync} : !tile.memdesc<64x64xf16, #{{.*}}> * !tile.memdesc<64x128xf16, #{{.*}}> -> tensor<64x128xf32, #mma>
// CHECK: %[[W:.*]]:2 = tile_nvidia.warpgroup_dot_wait %[[D]], %{{.*}} {pendings = 1 : i32} : tensor<64x128xf32, #mma>, tensor<64x128xf32, #mma>
// CHECK: tile_nvidia.warpgroup_dot %{{.*}}, %{{.*}}, %[[W]]#0 : tensor<64x64xf16, #{{.*}}> * !tile.memdesc<64x128xf16, #{{.*}}> -> tensor<64x128xf32, #mma>
// CHECK: tile_nvidia.fence_async_shared
func.func @ops(%x: !tile.memdesc<64x64xf16, #a>, %y: !tile.memdesc<64x128xf16, #b>,
               %r: tensor<64x64xf16, #op>, %c: tensor<64x128xf32, #mma>) -> tensor<64x128xf32, #mma> {
  %d = tile_nvidia.warpgroup_dot %x, %y, %c {isAsync} : !tile.memdesc<64x64xf16, #a> * !tile.memdesc<64x128xf16, #b> -> tensor<64x128xf32, #mma>
  %w:2 = tile_nvidia.warpgroup_dot_wait %d, %c {pendings = 1 : i32} : tensor<64x128xf32, #mma>, tensor<64x128xf32, #mma>
  %e = tile_nvidia.warpgroup_dot %r, %y, %w#0 : tensor<64x64xf16, #op> * !tile.memdesc<64x128xf16, #b> -> tensor<64x128xf32, #mma>
  tile_nvidia.fence_async_shared
  return %e : tensor<64x128xf32, #mma>
}
