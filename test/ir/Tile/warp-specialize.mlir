// RUN: tessera-opt %s | tessera-opt | FileCheck %s

// tile.warp_specialize prints and parses back: a default region and its
// partitions, each ending in an implicit tile.warp_yield, reading values
// from above.

// CHECK-LABEL: func.func @specialized
// CHECK: tile.warp_specialize {default_num_regs = 232 : i32, partition_num_regs = array<i32: 40>, partition_num_warps = array<i32: 4>} default {
// CHECK-NEXT: arith.addi %arg0, %arg0
// CHECK-NEXT: } partitions {
// CHECK-NEXT: arith.muli %arg0, %arg0
// CHECK-NEXT: }
// CHECK-LABEL: func.func @two_partitions
// CHECK: tile.warp_specialize {partition_num_warps = array<i32: 1, 2>} default {
// CHECK: } partitions {
// CHECK: }, {
// CHECK: }
func.func @specialized(%x: i32) {
  tile.warp_specialize {default_num_regs = 232 : i32, partition_num_regs = array<i32: 40>, partition_num_warps = array<i32: 4>} default {
    %a = arith.addi %x, %x : i32
  } partitions {
    %b = arith.muli %x, %x : i32
  }
  return
}

func.func @two_partitions() {
  tile.warp_specialize {partition_num_warps = array<i32: 1, 2>} default {
  } partitions {
  }, {
  }
  return
}
