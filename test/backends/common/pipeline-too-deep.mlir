// A pipeline deeper than 16 stages is an error naming the count: each stage
// is a buffer of every operand and a prologue copy of the loads, and 100
// stages took the compiler 52 s and 11 GB (found by the fuzzer), in stage
// counts from the pass option and from the loop alike.
// RUN: not tessera-opt %s -split-input-file -tile-assign-layouts -tile-pipeline=num-stages=100 2>&1 | FileCheck %s
// RUN: not tessera-opt %s -split-input-file -tile-assign-layouts -tile-pipeline=num-stages=16 2>&1 | FileCheck %s --check-prefix=SIXTEEN

// CHECK: error: num_stages 100 is more than 16, the deepest pipeline of a loop feeding dots
// CHECK: error: num_stages 17 is more than 16, the deepest pipeline of a loop feeding dots
// SIXTEEN-DAG: tile.async_copy_global_to_local
// SIXTEEN-DAG: error: num_stages 17 is more than 16
func.func @dot_loop(%a: tensor<64x32x!tile.ptr<f16>>, %b: tensor<32x64x!tile.ptr<f16>>,
                    %c: tensor<64x64x!tile.ptr<f32>>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) : i32 {
    %x = tile.load %a : tensor<64x32x!tile.ptr<f16>>
    %y = tile.load %b : tensor<32x64x!tile.ptr<f16>>
    %d = tile.dot %x, %y, %acc_i : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %c, %acc : tensor<64x64x!tile.ptr<f32>>
  return
}

// -----

func.func @loop_asks(%a: tensor<64x32x!tile.ptr<f16>>, %b: tensor<32x64x!tile.ptr<f16>>,
                     %c: tensor<64x64x!tile.ptr<f32>>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) : i32 {
    %x = tile.load %a : tensor<64x32x!tile.ptr<f16>>
    %y = tile.load %b : tensor<32x64x!tile.ptr<f16>>
    %d = tile.dot %x, %y, %acc_i : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  } {tile.num_stages = 17 : i32}
  tile.store %c, %acc : tensor<64x64x!tile.ptr<f32>>
  return
}
