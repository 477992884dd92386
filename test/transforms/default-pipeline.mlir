// RUN: tessera-opt %s -tile-default-pipeline | FileCheck %s

// The default target-independent pipeline: the private helper is inlined and
// then dropped, duplicate index math is merged, the loop-invariant splat is
// hoisted, and select(m, load(p, m), 0) becomes a load with `other`.

// CHECK-NOT: func.func private @offsets
// CHECK-LABEL: func.func @kernel
// CHECK-SAME: (%[[X:.*]]: !tile.ptr<f32>, %[[Y:.*]]: !tile.ptr<f32>, %[[N:.*]]: i32)
// CHECK-DAG:   %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<128xf32>
// CHECK-DAG:   %[[PID:.*]] = tile.program_id x
// CHECK-DAG:   %[[RANGE:.*]] = tile.make_range 0, 128 : tensor<128xi32>
// CHECK-DAG:   %[[XS:.*]] = tile.splat %[[X]] : tensor<128x!tile.ptr<f32>>
// CHECK:       %[[SUM:.*]] = scf.for
// CHECK-NOT:     tile.splat %[[X]]
// CHECK:         %[[V:.*]] = tile.load %{{.*}}, %{{.*}}, %[[ZERO]] : tensor<128x!tile.ptr<f32>>
// CHECK-NOT:     arith.select
// CHECK:         scf.yield
// CHECK:       tile.store
// CHECK-NOT:   func.call
func.func private @offsets(%pid: i32) -> tensor<128xi32> {
  %c128 = arith.constant 128 : i32
  %start = arith.muli %pid, %c128 : i32
  %r = tile.make_range 0, 128 : tensor<128xi32>
  %s = tile.splat %start : tensor<128xi32>
  %o = arith.addi %s, %r : tensor<128xi32>
  return %o : tensor<128xi32>
}

func.func @kernel(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32) {
  %pid = tile.program_id x
  %offs = func.call @offsets(%pid) : (i32) -> tensor<128xi32>
  %again = func.call @offsets(%pid) : (i32) -> tensor<128xi32>
  %bound = tile.splat %n : tensor<128xi32>
  %mask = arith.cmpi slt, %offs, %bound : tensor<128xi32>
  %zero = arith.constant 0.0 : f32
  %zeros = tile.splat %zero : tensor<128xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zeros) -> (tensor<128xf32>) : i32 {
    %xs = tile.splat %x : tensor<128x!tile.ptr<f32>>
    %p = tile.addptr %xs, %offs : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    %v = tile.load %p, %mask : tensor<128x!tile.ptr<f32>>
    %w = arith.select %mask, %v, %zeros : tensor<128xi1>, tensor<128xf32>
    %a = arith.addf %acc, %w : tensor<128xf32>
    scf.yield %a : tensor<128xf32>
  }
  %ys = tile.splat %y : tensor<128x!tile.ptr<f32>>
  %q = tile.addptr %ys, %again : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %q, %sum, %mask : tensor<128x!tile.ptr<f32>>
  return
}
