// Layout assignment leaves the scalars a loop carries alone (it looked for a
// better layout for every carried value, and aborted on a scalar): flattened
// loops of stride 3 carrying i32 sums.
// RUN: tessera-opt %s -tile-default-pipeline -tile-assign-layouts | FileCheck %s

// CHECK-LABEL: func.func @carried
// CHECK: scf.for {{.*}} -> (i32, i32, i32, i32)
// CHECK: return {{.*}} : i32
func.func @carried(%n: i32, %k: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c3 = arith.constant 3 : i32
  %total = scf.for %i = %c0 to %n step %c3 iter_args(%count = %c0) -> (i32) : i32 {
    %sum = scf.for %j = %c0 to %k step %c3 iter_args(%s = %c0) -> (i32) : i32 {
      %t = arith.addi %s, %j : i32
      scf.yield %t : i32
    }
    %more = arith.addi %count, %sum : i32
    scf.yield %more : i32
  } {tile.flatten}
  return %total : i32
}
