// RUN: tessera-opt %s -split-input-file | tessera-opt -split-input-file | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: tessera-opt %s -split-input-file -canonicalize | FileCheck %s

#row = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#col = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>

// convert_layout(convert_layout x) -> convert_layout x
// ROUNDTRIP-LABEL: func.func @convert_of_convert
// ROUNDTRIP: tile.convert_layout %{{.*}} : tensor<64x64xf32, #{{.*}}> -> tensor<64x64xf32, #{{.*}}>
// CHECK-LABEL: func.func @convert_of_convert
// CHECK-SAME: (%[[X:.*]]: tensor<64x64xf32, #[[ROW:.*]]>)
// CHECK-NEXT: %[[C:.*]] = tile.convert_layout %[[X]] : tensor<64x64xf32, #[[ROW]]> -> tensor<64x64xf32, #[[COL:.*]]>
// CHECK-NEXT: return %[[C]]
func.func @convert_of_convert(%x: tensor<64x64xf32, #row>) -> tensor<64x64xf32, #col> {
  %0 = tile.convert_layout %x : tensor<64x64xf32, #row> -> tensor<64x64xf32>
  %1 = tile.convert_layout %0 : tensor<64x64xf32> -> tensor<64x64xf32, #col>
  return %1 : tensor<64x64xf32, #col>
}

// -----

#row = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>

// convert_layout to the layout it has -> x; there and back -> x
// CHECK-LABEL: func.func @convert_to_itself
// CHECK-SAME: (%[[X:.*]]: tensor<64x64xf32, #{{.*}}>)
// CHECK-NEXT: return %[[X]], %[[X]]
func.func @convert_to_itself(%x: tensor<64x64xf32, #row>) -> (tensor<64x64xf32, #row>, tensor<64x64xf32, #row>) {
  %0 = tile.convert_layout %x : tensor<64x64xf32, #row> -> tensor<64x64xf32, #row>
  %1 = tile.convert_layout %x : tensor<64x64xf32, #row> -> tensor<64x64xf32>
  %2 = tile.convert_layout %1 : tensor<64x64xf32> -> tensor<64x64xf32, #row>
  return %0, %2 : tensor<64x64xf32, #row>, tensor<64x64xf32, #row>
}

// -----

#row = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#col = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>

// convert_layout(splat x) -> splat x in the new layout; of a constant -> constant
// CHECK-LABEL: func.func @convert_of_splat
// CHECK-SAME: (%[[S:.*]]: f32)
// CHECK-DAG: %[[C:.*]] = arith.constant dense<1.000000e+00> : tensor<64x64xf32, #{{.*}}>
// CHECK-DAG: %[[T:.*]] = tile.splat %[[S]] : tensor<64x64xf32, #[[COL:.*]]>
// CHECK-NOT: tile.convert_layout
// CHECK: return %[[T]], %[[C]]
func.func @convert_of_splat(%s: f32) -> (tensor<64x64xf32, #col>, tensor<64x64xf32, #col>) {
  %t = tile.splat %s : tensor<64x64xf32, #row>
  %0 = tile.convert_layout %t : tensor<64x64xf32, #row> -> tensor<64x64xf32, #col>
  %c = arith.constant dense<1.0> : tensor<64x64xf32, #row>
  %1 = tile.convert_layout %c : tensor<64x64xf32, #row> -> tensor<64x64xf32, #col>
  return %0, %1 : tensor<64x64xf32, #col>, tensor<64x64xf32, #col>
}

// -----

#row = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#vec = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

// convert_layout(make_range) -> make_range in the new layout
// CHECK-LABEL: func.func @convert_of_range
// CHECK-NEXT: %[[R:.*]] = tile.make_range 0, 512 : tensor<512xi32, #{{.*}}>
// CHECK-NEXT: return %[[R]]
func.func @convert_of_range() -> tensor<512xi32, #vec> {
  %r = tile.make_range 0, 512 : tensor<512xi32, #row>
  %c = tile.convert_layout %r : tensor<512xi32, #row> -> tensor<512xi32, #vec>
  return %c : tensor<512xi32, #vec>
}
