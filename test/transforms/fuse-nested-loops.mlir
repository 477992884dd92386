// RUN: tessera-opt %s -split-input-file -tile-fuse-nested-loops | FileCheck %s

// A persistent loop over tiles and the K loop inside it become one loop over
// (tile, k), counting both: the prologue runs where k is the first, the
// accumulator restarts there, the epilogue (the store) runs where k is the
// last. Where K has no
// steps, the original loop runs without the inner one.

// CHECK-LABEL: func.func @persistent
// CHECK-SAME: (%[[P:.*]]: !tile.ptr<f32>, %[[TILES:.*]]: i32, %[[K:.*]]: i32, %[[SMS:.*]]: i32)
// CHECK-DAG:   %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : tensor<16xf32>
// CHECK-DAG:   %[[PID:.*]] = tile.program_id x
// CHECK:       %[[OUTER:.*]] = arith.maxsi
// CHECK:       %[[INNER:.*]] = arith.maxsi
// CHECK:       %[[RUNS:.*]] = arith.cmpi sgt, %[[INNER]], %[[C0:.*]] : i32
// CHECK:       scf.if %[[RUNS]] {
// CHECK:         %[[FIRST_ROW:.*]] = arith.muli %[[PID]]
// CHECK:         %[[TOTAL:.*]] = arith.muli %[[OUTER]], %[[INNER]]
// CHECK:         scf.for %{{.*}} = %[[C0]] to %[[TOTAL]] step %[[C1:[^ ]*]]
// CHECK-SAME:        iter_args(%[[ACC:.*]] = %[[ZEROS]], %[[ROW:.*]] = %[[FIRST_ROW]], %[[KI:.*]] = %[[C0]], %[[TILE:.*]] = %[[PID]])
// CHECK:           %[[KSTEP:.*]] = arith.muli %[[KI]],
// CHECK:           %[[KK:.*]] = arith.addi %{{.*}}, %[[KSTEP]]
// CHECK:           %[[IS_FIRST:.*]] = arith.cmpi eq, %[[KI]], %[[C0]]
// CHECK:           %[[LAST:.*]] = arith.subi %[[INNER]], %[[C1]]
// CHECK:           %[[IS_LAST:.*]] = arith.cmpi eq, %[[KI]], %[[LAST]]
// CHECK:           %[[NEW_ROW:.*]] = scf.if %[[IS_FIRST]] -> (i32) {
// CHECK:             %[[R:.*]] = arith.muli %[[TILE]]
// CHECK:             scf.yield %[[R]] : i32
// CHECK:           } else {
// CHECK:             scf.yield %[[ROW]] : i32
// CHECK:           }
// CHECK:           %[[START:.*]] = arith.select %[[IS_FIRST]], %[[ZEROS]], %[[ACC]]
// CHECK:           tile.splat %[[KK]]
// CHECK:           %[[NEXT:.*]] = arith.addf %[[START]], %{{.*}}
// CHECK:           scf.if %[[IS_LAST]] {
// CHECK:             tile.splat %[[NEW_ROW]]
// CHECK:             tile.store %{{.*}}, %[[NEXT]]
// CHECK:           }
// CHECK:           %[[KI_NEXT:.*]] = arith.addi %[[KI]], %[[C1]]
// CHECK:           %[[WRAPS:.*]] = arith.cmpi eq, %[[KI_NEXT]], %[[INNER]]
// CHECK:           %[[KI_AFTER:.*]] = arith.select %[[WRAPS]], %[[C0]], %[[KI_NEXT]]
// CHECK:           %[[TILE_NEXT:.*]] = arith.addi %[[TILE]], %[[SMS]]
// CHECK:           %[[TILE_AFTER:.*]] = arith.select %[[WRAPS]], %[[TILE_NEXT]], %[[TILE]]
// CHECK:           scf.yield %[[NEXT]], %[[NEW_ROW]], %[[KI_AFTER]], %[[TILE_AFTER]] : tensor<16xf32>, i32, i32, i32
// CHECK:         } {tile.flatten}
// CHECK:       } else {
// CHECK:         scf.for %{{.*}} = %[[PID]] to %[[TILES]] step %[[SMS]] : i32 {
// CHECK-NOT:       scf.for
// CHECK:           tile.store %{{.*}}, %[[ZEROS]]
// CHECK:         }
// CHECK-NOT:     tile.flatten
// CHECK:       }
// CHECK-NEXT:  return
func.func @persistent(%p: !tile.ptr<f32>, %tiles: i32, %k: i32, %sms: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c16 = arith.constant 16 : i32
  %zeros = arith.constant dense<0.0> : tensor<16xf32>
  %pid = tile.program_id x
  scf.for %tile = %pid to %tiles step %sms : i32 {
    %row = arith.muli %tile, %c16 : i32
    %acc = scf.for %kk = %c0 to %k step %c1 iter_args(%a = %zeros)
        -> (tensor<16xf32>) : i32 {
      %x = tile.splat %kk : tensor<16xi32>
      %f = arith.sitofp %x : tensor<16xi32> to tensor<16xf32>
      %s = arith.addf %a, %f : tensor<16xf32>
      scf.yield %s : tensor<16xf32>
    }
    %r = tile.splat %row : tensor<16xi32>
    %range = tile.make_range 0, 16 : tensor<16xi32>
    %o = arith.addi %r, %range : tensor<16xi32>
    %base = tile.splat %p : tensor<16x!tile.ptr<f32>>
    %ptrs = tile.addptr %base, %o : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
    tile.store %ptrs, %acc : tensor<16x!tile.ptr<f32>>
  } {tile.flatten}
  return
}

// -----

// Values the outer loop carries change in the epilogue only; the fused
// loop returns them, and so does the fallback.

// CHECK-LABEL: func.func @carried
// CHECK:       %[[RESULT:.*]] = scf.if %{{.*}} -> (i32) {
// CHECK:         %[[FUSED:.*]]:4 = scf.for {{.*}} iter_args(%[[COUNT:.*]] = %{{.*}}, %[[SUM:.*]] = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (i32, i32, i32, i32)
// CHECK:           %[[START:.*]] = arith.select %{{.*}}, %{{.*}}, %[[SUM]] : i32
// CHECK:           %[[NEXT:.*]] = arith.addi %[[START]], %{{.*}} : i32
// CHECK:           %[[DONE:.*]] = scf.if %{{.*}} -> (i32) {
// CHECK:             %[[MORE:.*]] = arith.addi %[[COUNT]], %[[NEXT]] : i32
// CHECK:             scf.yield %[[MORE]] : i32
// CHECK:           } else {
// CHECK:             scf.yield %[[COUNT]] : i32
// CHECK:           }
// CHECK:           scf.yield %[[DONE]], %[[NEXT]], %{{.*}}, %{{.*}} : i32, i32, i32, i32
// CHECK:         scf.yield %[[FUSED]]#0 : i32
// CHECK:       } else {
// CHECK:         %[[NEST:.*]] = scf.for
// CHECK:         scf.yield %[[NEST]] : i32
// CHECK:       }
// CHECK:       return %[[RESULT]] : i32
func.func @carried(%n: i32, %k: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %total = scf.for %i = %c0 to %n step %c1 iter_args(%count = %c0) -> (i32) : i32 {
    %sum = scf.for %j = %c0 to %k step %c1 iter_args(%s = %c0) -> (i32) : i32 {
      %t = arith.addi %s, %j : i32
      scf.yield %t : i32
    }
    %more = arith.addi %count, %sum : i32
    scf.yield %more : i32
  } {tile.flatten}
  return %total : i32
}

// -----

// Not fused (the mark dropped): two inner loops; an inner bound the outer
// loop computes; a prologue with memory effects.

// CHECK-LABEL: func.func @not_fusable
// CHECK-NOT:   tile.flatten
// CHECK-COUNT-3: scf.for {{.*}} {
func.func @not_fusable(%p: !tile.ptr<i32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    scf.for %j = %c0 to %n step %c1 : i32 {
      tile.store %p, %j : !tile.ptr<i32>
    }
    scf.for %j = %c0 to %n step %c1 : i32 {
      tile.store %p, %j : !tile.ptr<i32>
    }
  } {tile.flatten}
  scf.for %i = %c0 to %n step %c1 : i32 {
    scf.for %j = %c0 to %i step %c1 : i32 {
      tile.store %p, %j : !tile.ptr<i32>
    }
  } {tile.flatten}
  scf.for %i = %c0 to %n step %c1 : i32 {
    %v = tile.load %p : !tile.ptr<i32>
    scf.for %j = %c0 to %n step %c1 : i32 {
      tile.store %p, %v : !tile.ptr<i32>
    }
  } {tile.flatten}
  return
}
