// RUN: tessera-opt %s -split-input-file -tile-assign-layouts | FileCheck %s --check-prefixes=CHECK,LANES32
// RUN: tessera-opt %s -split-input-file -tile-assign-layouts=warp-size=64 | FileCheck %s --check-prefixes=CHECK,LANES64

// An explicit-level kernel in CoalescedLayout: the load and the store give
// their operands the blocked layout that coalesces them (16-byte vectors
// along the aligned rows), expand_dims' operands get its slices, the range
// also used by the 1-D store is made again in that store's layout, the
// conversion to CoalescedLayout gets the store's, and the layout the
// kernel gave (#tile.blocked in @kept) stays.
// LANES32-DAG: #[[$TILE:blocked[0-9]*]] = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
// LANES32-DAG: #[[$ROW:blocked[0-9]*]] = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// LANES64-DAG: #[[$TILE:blocked[0-9]*]] = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
// LANES64-DAG: #[[$ROW:blocked[0-9]*]] = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
// CHECK-DAG: #[[$ROWS:slice[0-9]*]] = #tile.slice<{dim = 1, parent = #[[$TILE]]}>
// CHECK-DAG: #[[$COLS:slice[0-9]*]] = #tile.slice<{dim = 0, parent = #[[$TILE]]}>
// CHECK-LABEL: func.func @tile_and_row_sums
// CHECK-NOT: #tile.coalesced
// CHECK: tile.make_range 0, 32 : tensor<32xi32, #[[$ROWS]]>
// CHECK: tile.make_range 0, 32 : tensor<32xi32, #[[$ROW]]>
// CHECK: tile.make_range 0, 64 : tensor<64xi32, #[[$COLS]]>
// CHECK: tile.load %{{.*}} : tensor<32x64x!tile.ptr<f32>, #[[$TILE]]>
// CHECK: tile.store %{{.*}}, %{{.*}} : tensor<32x64x!tile.ptr<f32>, #[[$TILE]]>
// CHECK: tile.reduce{{.*}} -> tensor<32xf32, #[[$ROWS]]>
// CHECK: tile.convert_layout %{{.*}} : tensor<32xf32, #[[$ROWS]]> -> tensor<32xf32, #[[$ROW]]>
// CHECK: tile.store %{{.*}}, %{{.*}} : tensor<32x!tile.ptr<f32>, #[[$ROW]]>
module attributes {tile.explicit_layouts} {
  func.func @tile_and_row_sums(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                               %out: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                               %n: i32 {tile.divisibility = 16 : i32}) {
    %rows = tile.make_range 0, 32 : tensor<32xi32, #tile.coalesced>
    %cols = tile.make_range 0, 64 : tensor<64xi32, #tile.coalesced>
    %r = tile.expand_dims %rows {axis = 1 : i32} : tensor<32xi32, #tile.coalesced> -> tensor<32x1xi32, #tile.coalesced>
    %ns = tile.splat %n : tensor<32x1xi32, #tile.coalesced>
    %rn = arith.muli %r, %ns : tensor<32x1xi32, #tile.coalesced>
    %c = tile.expand_dims %cols {axis = 0 : i32} : tensor<64xi32, #tile.coalesced> -> tensor<1x64xi32, #tile.coalesced>
    %rb = tile.broadcast %rn : tensor<32x1xi32, #tile.coalesced> -> tensor<32x64xi32, #tile.coalesced>
    %cb = tile.broadcast %c : tensor<1x64xi32, #tile.coalesced> -> tensor<32x64xi32, #tile.coalesced>
    %offs = arith.addi %rb, %cb : tensor<32x64xi32, #tile.coalesced>
    %xs = tile.splat %x : tensor<32x64x!tile.ptr<f32>, #tile.coalesced>
    %xp = tile.addptr %xs, %offs : tensor<32x64x!tile.ptr<f32>, #tile.coalesced>, tensor<32x64xi32, #tile.coalesced>
    %v = tile.load %xp : tensor<32x64x!tile.ptr<f32>, #tile.coalesced>
    %os = tile.splat %out : tensor<32x64x!tile.ptr<f32>, #tile.coalesced>
    %op = tile.addptr %os, %offs : tensor<32x64x!tile.ptr<f32>, #tile.coalesced>, tensor<32x64xi32, #tile.coalesced>
    tile.store %op, %v : tensor<32x64x!tile.ptr<f32>, #tile.coalesced>
    %sums = tile.reduce(%v) axis = 1 : (tensor<32x64xf32, #tile.coalesced>) -> tensor<32xf32, #tile.coalesced> {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      tile.reduce.return %s : f32
    }
    %sc = tile.convert_layout %sums : tensor<32xf32, #tile.coalesced> -> tensor<32xf32, #tile.coalesced>
    %ss = tile.splat %out : tensor<32x!tile.ptr<f32>, #tile.coalesced>
    %sp = tile.addptr %ss, %rows : tensor<32x!tile.ptr<f32>, #tile.coalesced>, tensor<32xi32, #tile.coalesced>
    tile.store %sp, %sc : tensor<32x!tile.ptr<f32>, #tile.coalesced>
    return
  }
}

// -----

// A loop carries a coalesced value: it keeps one layout through the loop.
// CHECK: #[[$VEC:blocked[0-9]*]] = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [{{32|64}}], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: func.func @carried
// CHECK: arith.constant dense<0.000000e+00> : tensor<1024xf32, #[[$VEC]]>
// CHECK: scf.for {{.*}} -> (tensor<1024xf32, #[[$VEC]]>)
// CHECK: tile.load %{{.*}} : tensor<1024x!tile.ptr<f32>, #[[$VEC]]>
module attributes {tile.explicit_layouts} {
  func.func @carried(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
    %range = tile.make_range 0, 1024 : tensor<1024xi32, #tile.coalesced>
    %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>, #tile.coalesced>
    %xp = tile.addptr %xs, %range : tensor<1024x!tile.ptr<f32>, #tile.coalesced>, tensor<1024xi32, #tile.coalesced>
    %zero = arith.constant dense<0.0> : tensor<1024xf32, #tile.coalesced>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %acc = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %zero) -> (tensor<1024xf32, #tile.coalesced>) {
      %v = tile.load %xp : tensor<1024x!tile.ptr<f32>, #tile.coalesced>
      %s = arith.addf %a, %v : tensor<1024xf32, #tile.coalesced>
      scf.yield %s : tensor<1024xf32, #tile.coalesced>
    }
    tile.store %xp, %acc : tensor<1024x!tile.ptr<f32>, #tile.coalesced>
    return
  }
}
