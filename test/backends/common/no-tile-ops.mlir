// tile-assign-layouts loads the tile dialect, whose layouts it makes, even
// on a module holding no tile op (it aborted: "storage uniquer isn't
// initialized").
// RUN: tessera-opt %s -tile-assign-layouts | FileCheck %s

// CHECK: module attributes {tile.num_warps = 4 : i32, tile.warp_size = 32 : i32}
// CHECK-LABEL: func.func @no_tile_ops
func.func @no_tile_ops(%a: f32) -> f32 {
  %0 = arith.constant dense<1.0> : tensor<128xf32>
  %1 = arith.addf %0, %0 : tensor<128xf32>
  %2 = arith.addf %a, %a : f32
  return %2 : f32
}
