// An accumulator stored in two halves (Triton's EPILOGUE_SUBTILE: reshape,
// permute, split): the reshape, the transpose and the split keep each
// element in its register, in the linear layouts the wgmma layout makes in
// the new shapes, and the f16 halves are converted for the stores, after the
// narrowing cast, not the f32 accumulator before the reshape.
// RUN: tessera-opt %s -tile-assign-layouts -tile-nvidia-assign-mma=compute-capability=90 -tile-remove-conversions -canonicalize -cse | FileCheck %s

// CHECK-LABEL: func.func @subtiles
// CHECK: %[[D:.*]] = tile_nvidia.warpgroup_dot
// CHECK-NOT: tile.convert_layout
// CHECK: %[[R:.*]] = tile.reshape %[[D]] : tensor<128x128xf32, #mma> -> tensor<128x2x64xf32, #linear>
// CHECK-NEXT: %[[T:.*]] = tile.trans %[[R]] {order = array<i32: 0, 2, 1>} : tensor<128x2x64xf32, #linear> -> tensor<128x64x2xf32, #linear1>
// CHECK-NEXT: %[[L:.*]], %[[H:.*]] = tile.split %[[T]] : tensor<128x64x2xf32, #linear1> -> tensor<128x64xf32, #linear2>
// CHECK-DAG: %[[L16:.*]] = arith.truncf %[[L]] : tensor<128x64xf32, #linear2> to tensor<128x64xf16, #linear2>
// CHECK-DAG: %[[H16:.*]] = arith.truncf %[[H]] : tensor<128x64xf32, #linear2> to tensor<128x64xf16, #linear2>
// CHECK-DAG: tile.convert_layout %[[L16]] : tensor<128x64xf16, #linear2> -> tensor<128x64xf16, #blocked
// CHECK-DAG: tile.convert_layout %[[H16]] : tensor<128x64xf16, #linear2> -> tensor<128x64xf16, #blocked
func.func @subtiles(%a: tensor<128x64x!tile.ptr<f16>>, %b: tensor<64x128x!tile.ptr<f16>>,
                    %lo: tensor<128x64x!tile.ptr<f16>>, %hi: tensor<128x64x!tile.ptr<f16>>) {
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %x = tile.load %a : tensor<128x64x!tile.ptr<f16>>
  %y = tile.load %b : tensor<64x128x!tile.ptr<f16>>
  %d = tile.dot %x, %y, %zero : tensor<128x64xf16> * tensor<64x128xf16> -> tensor<128x128xf32>
  %r = tile.reshape %d : tensor<128x128xf32> -> tensor<128x2x64xf32>
  %t = tile.trans %r {order = array<i32: 0, 2, 1>} : tensor<128x2x64xf32> -> tensor<128x64x2xf32>
  %l, %h = tile.split %t : tensor<128x64x2xf32> -> tensor<128x64xf32>
  %l16 = arith.truncf %l : tensor<128x64xf32> to tensor<128x64xf16>
  %h16 = arith.truncf %h : tensor<128x64xf32> to tensor<128x64xf16>
  tile.store %lo, %l16 : tensor<128x64x!tile.ptr<f16>>
  tile.store %hi, %h16 : tensor<128x64x!tile.ptr<f16>>
  return
}
