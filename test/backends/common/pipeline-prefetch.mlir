// Software pipelining on a target without asynchronous copies (AMD's):
// loads feeding dots stay loads, issued S - 1 iterations ahead into
// registers, and their tiles are stored to shared memory after the
// iteration's dot, for the next iteration to read.
// RUN: tessera-opt %s -tile-assign-layouts=warp-size=64 -tile-amd-assign-matrix-cores=mfma-version=3 -tile-remove-conversions -canonicalize -cse "-tile-pipeline=num-stages=2 async-copies=false" -canonicalize -cse | FileCheck %s
// RUN: tessera-opt %s -tile-assign-layouts=warp-size=64 -tile-amd-assign-matrix-cores=mfma-version=3 -tile-remove-conversions -canonicalize -cse "-tile-pipeline=num-stages=3 async-copies=false" -canonicalize -cse | FileCheck %s --check-prefix=THREE

// Two stages: one buffer per operand, in the swizzle the conversion planner
// picks from the load's layout to the MFMA operand's; a prologue loading
// and storing iteration 0; in the loop the loads of iteration i + 1
// (masked off past the end: iv < k - 32), the reads of the buffer and the
// dot, then the stores of the loaded tiles. A barrier after the loop.
// CHECK-DAG: #[[$SA:shared[0-9]*]] = #tile.swizzled_shared<{vec = 4, perPhase = 2, maxPhase = 8, order = [1, 0]}>
// CHECK-DAG: #[[$A:dot_op[0-9]*]] = #tile.dot_operand<{opIdx = 0, parent = #mfma, kWidth = 4}>
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: %[[K:arg[0-9]+]]: i32
// CHECK: %[[BUF_A:.*]] = tile.local_alloc : () -> !tile.memdesc<1x32x32xf16, #[[$SA]], mutable>
// CHECK: %[[BUF_B:.*]] = tile.local_alloc : () -> !tile.memdesc<1x32x32xf16, #{{.*}}, mutable>
// CHECK: %[[P0:.*]] = arith.cmpi sgt, %[[K]], %c0_i32 : i32
// CHECK: %[[M0:.*]] = tile.splat %[[P0]]
// CHECK: %[[A0:.*]] = tile.load %{{.*}}, %[[M0]]
// CHECK: %[[B0:.*]] = tile.load %{{.*}}, %[[M0]]
// CHECK: %[[VA:.*]] = tile.memdesc_index %[[BUF_A]][%c0_i32]
// CHECK: tile.local_store %[[A0]], %[[VA]]
// CHECK: %[[VB:.*]] = tile.memdesc_index %[[BUF_B]][%c0_i32]
// CHECK: tile.local_store %[[B0]], %[[VB]]
// CHECK: scf.for %[[IV:.*]] = %c0_i32 to %[[K]] step %c32_i32
// CHECK: %[[END:.*]] = arith.subi %[[K]], %c32_i32 : i32
// CHECK: %[[PRED:.*]] = arith.cmpi slt, %[[IV]], %[[END]] : i32
// CHECK: %[[MASK:.*]] = tile.splat %[[PRED]]
// CHECK: %[[NA:.*]] = tile.load %{{.*}}, %[[MASK]]
// CHECK: %[[NB:.*]] = tile.load %{{.*}}, %[[MASK]]
// CHECK: %[[X:.*]] = tile.local_load %[[VA]] : {{.*}} -> tensor<32x32xf16, #[[$A]]>
// CHECK: %[[Y:.*]] = tile.local_load %[[VB]]
// CHECK: tile.dot %[[X]], %[[Y]]
// CHECK: tile.local_store %[[NA]], %[[VA]]
// CHECK: tile.local_store %[[NB]], %[[VB]]
// CHECK-NEXT: scf.yield
// CHECK: tile.barrier
// CHECK: tile.local_dealloc
// CHECK: tile.local_dealloc
// CHECK: tile.store

// Three stages: two buffers; the loads run two iterations ahead, their
// tiles carried a loop iteration in registers and stored to buffer
// (i + 1) % 2 after the dot of iteration i read buffer i % 2.
// THREE-LABEL: func.func @matmul
// THREE: %[[BUF_A:.*]] = tile.local_alloc : () -> !tile.memdesc<2x32x32xf16, #{{.*}}, mutable>
// THREE: %[[BUF_B:.*]] = tile.local_alloc : () -> !tile.memdesc<2x32x32xf16, #{{.*}}, mutable>
// THREE: %[[A0:.*]] = tile.load
// THREE: %[[B0:.*]] = tile.load
// THREE: %[[A1:.*]] = tile.load
// THREE: %[[B1:.*]] = tile.load
// THREE: tile.local_store %[[A0]]
// THREE: tile.local_store %[[B0]]
// THREE: scf.for %[[IV:.*]] = {{.*}} iter_args({{.*}}, %[[CA:.*]] = %[[A1]], %[[CB:.*]] = %[[B1]])
// THREE: %[[NA:.*]] = tile.load
// THREE: %[[NB:.*]] = tile.load
// THREE: %[[I:.*]] = arith.divsi %[[IV]], %c32_i32 : i32
// THREE: %[[SLOT:.*]] = arith.remsi %[[I]], %c2_i32 : i32
// THREE: %[[RA:.*]] = tile.memdesc_index %[[BUF_A]][%[[SLOT]]]
// THREE: tile.local_load %[[RA]]
// THREE: tile.dot
// THREE: %[[NEXT:.*]] = arith.addi %[[IV]], %c32_i32 : i32
// THREE: %[[J:.*]] = arith.divsi %[[NEXT]], %c32_i32 : i32
// THREE: %[[WSLOT:.*]] = arith.remsi %[[J]], %c2_i32 : i32
// THREE: %[[WA:.*]] = tile.memdesc_index %[[BUF_A]][%[[WSLOT]]]
// THREE: tile.local_store %[[CA]], %[[WA]]
// THREE: %[[WB:.*]] = tile.memdesc_index %[[BUF_B]][%[[WSLOT]]]
// THREE: tile.local_store %[[CB]], %[[WB]]
// THREE: scf.yield {{.*}}, %[[NA]], %[[NB]]
// THREE: tile.barrier
func.func @matmul(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                  %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                  %c: tensor<32x32x!tile.ptr<f32>>,
                  %k: i32 {tile.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  // a + rows[:, None] * k + cols[None, :], b likewise.
  %r32 = tile.make_range 0, 32 : tensor<32xi32>
  %rows = tile.expand_dims %r32 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %cols = tile.expand_dims %r32 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %ks = tile.splat %k : tensor<32x1xi32>
  %arow = arith.muli %rows, %ks : tensor<32x1xi32>
  %arowb = tile.broadcast %arow : tensor<32x1xi32> -> tensor<32x32xi32>
  %colsb = tile.broadcast %cols : tensor<1x32xi32> -> tensor<32x32xi32>
  %off = arith.addi %arowb, %colsb : tensor<32x32xi32>
  %as = tile.splat %a : tensor<32x32x!tile.ptr<f16>>
  %ap0 = tile.addptr %as, %off : tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>
  %bs = tile.splat %b : tensor<32x32x!tile.ptr<f16>>
  %bp0 = tile.addptr %bs, %off : tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>
  // 32 columns of A, 32 rows of B per step.
  %astep = tile.splat %c32 : tensor<32x32xi32>
  %kstep = arith.muli %k, %c32 : i32
  %bstep = tile.splat %kstep : tensor<32x32xi32>
  %acc0 = arith.constant dense<0.0> : tensor<32x32xf32>
  %acc, %ap, %bp = scf.for %kk = %c0 to %k step %c32
      iter_args(%acc_i = %acc0, %ap_i = %ap0, %bp_i = %bp0)
      -> (tensor<32x32xf32>, tensor<32x32x!tile.ptr<f16>>, tensor<32x32x!tile.ptr<f16>>) : i32 {
    %ablk = tile.load %ap_i : tensor<32x32x!tile.ptr<f16>>
    %bblk = tile.load %bp_i : tensor<32x32x!tile.ptr<f16>>
    %acc_n = tile.dot %ablk, %bblk, %acc_i : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
    %ap_n = tile.addptr %ap_i, %astep : tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>
    %bp_n = tile.addptr %bp_i, %bstep : tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>
    scf.yield %acc_n, %ap_n, %bp_n : tensor<32x32xf32>, tensor<32x32x!tile.ptr<f16>>, tensor<32x32x!tile.ptr<f16>>
  }
  tile.store %c, %acc : tensor<32x32x!tile.ptr<f32>>
  return
}
