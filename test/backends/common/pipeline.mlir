// Software pipelining of loops that feed dots: loads converted to dot
// operand layouts become asynchronous copies into S buffers, issued S - 1
// iterations ahead, and the converts local loads of those buffers.
// RUN: tessera-opt %s -split-input-file -tile-assign-layouts -tile-nvidia-assign-mma=compute-capability=80 -tile-remove-conversions -canonicalize -cse -tile-pipeline -canonicalize -cse | FileCheck %s
// RUN: tessera-opt %s -split-input-file -tile-assign-layouts -tile-nvidia-assign-mma=compute-capability=80 -tile-remove-conversions -canonicalize -cse -tile-pipeline=num-stages=2 -canonicalize -cse | FileCheck %s --check-prefix=TWO
// RUN: tessera-opt %s -split-input-file -tile-assign-layouts -tile-nvidia-assign-mma=compute-capability=80 -tile-remove-conversions -canonicalize -cse -tile-pipeline=num-stages=1 -canonicalize -cse | FileCheck %s --check-prefix=ONE

// A 32x32 matmul stepping K by 32, with the default 3 stages: two buffers
// of 3x32x32 before the loop; a prologue of two copy groups (iterations 0
// and 1, into buffers 0 and 1, predicated on k > 0 and k > 32); in the loop
// the wait for all but the newest group (num = 1), then the copies of
// iteration i + 2 into buffer (i + 2) % 3, masked off past the end
// (iv < k - 64), one commit, then local loads of buffer i % 3 into the dot
// operand layouts. After the loop, a wait for every group before the
// buffers are freed: the last iterations' copies (masked off, but cp.async
// still writes their zeros) must land before the bytes are reused.
// CHECK-DAG: #[[$SH:shared[0-9]*]] = #tile.swizzled_shared<{{.*}}>
// CHECK-DAG: #[[$A:dot_op[0-9]*]] = #tile.dot_operand<{opIdx = 0, {{.*}}}>
// CHECK-DAG: #[[$B:dot_op[0-9]*]] = #tile.dot_operand<{opIdx = 1, {{.*}}}>
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: %[[K:arg[0-9]+]]: i32
// CHECK: %[[BUF_A:.*]] = tile.local_alloc : () -> !tile.memdesc<3x32x32xf16, #[[$SH]], mutable>
// CHECK: %[[BUF_B:.*]] = tile.local_alloc : () -> !tile.memdesc<3x32x32xf16, #[[$SH]], mutable>
// CHECK: %[[P0:.*]] = arith.cmpi sgt, %[[K]], %c0_i32 : i32
// CHECK: %[[A0:.*]] = tile.memdesc_index %[[BUF_A]][%c0_i32] : !tile.memdesc<3x32x32xf16, #[[$SH]], mutable> -> !tile.memdesc<32x32xf16, #[[$SH]], mutable, 3x32x32>
// CHECK: %[[M0:.*]] = tile.splat %[[P0]] : tensor<32x32xi1, #{{.*}}>
// CHECK: tile.async_copy_global_to_local %{{.*}}, %[[A0]] mask %[[M0]] :
// CHECK: %[[B0:.*]] = tile.memdesc_index %[[BUF_B]][%c0_i32]
// CHECK: tile.async_copy_global_to_local %{{.*}}, %[[B0]] mask %[[M0]] :
// CHECK-NEXT: tile.async_commit_group
// CHECK: %[[P1:.*]] = arith.cmpi sgt, %[[K]], %c32_i32 : i32
// CHECK: %[[A1:.*]] = tile.memdesc_index %[[BUF_A]][%c1_i32]
// CHECK: %[[M1:.*]] = tile.splat %[[P1]] : tensor<32x32xi1, #{{.*}}>
// CHECK: tile.async_copy_global_to_local %{{.*}}, %[[A1]] mask %[[M1]] :
// CHECK: %[[B1:.*]] = tile.memdesc_index %[[BUF_B]][%c1_i32]
// CHECK: tile.async_copy_global_to_local %{{.*}}, %[[B1]] mask %[[M1]] :
// CHECK-NEXT: tile.async_commit_group
// CHECK-NOT: tile.async_copy_global_to_local
// CHECK: scf.for %[[IV:.*]] = %c0_i32 to %[[K]] step %c32_i32
// CHECK-NOT: tile.load
// CHECK: %[[END:.*]] = arith.subi %[[K]], %c64_i32 : i32
// CHECK: %[[PRED:.*]] = arith.cmpi slt, %[[IV]], %[[END]] : i32
// CHECK-NOT: tile.async_copy_global_to_local
// CHECK: tile.async_wait {num = 1 : i32}
// CHECK: %[[AHEAD:.*]] = arith.addi %[[IV]], %c64_i32 : i32
// CHECK: %[[N:.*]] = arith.divsi %[[AHEAD]], %c32_i32 : i32
// CHECK: %[[SLOT:.*]] = arith.remsi %[[N]], %c3_i32 : i32
// CHECK: %[[AW:.*]] = tile.memdesc_index %[[BUF_A]][%[[SLOT]]]
// CHECK: %[[MASK:.*]] = tile.splat %[[PRED]] : tensor<32x32xi1, #{{.*}}>
// CHECK: tile.async_copy_global_to_local %{{.*}}, %[[AW]] mask %[[MASK]] :
// CHECK: %[[BW:.*]] = tile.memdesc_index %[[BUF_B]][%[[SLOT]]]
// CHECK: tile.async_copy_global_to_local %{{.*}}, %[[BW]] mask %[[MASK]] :
// CHECK-NEXT: tile.async_commit_group
// CHECK-NOT: tile.async_commit_group
// CHECK-NOT: tile.convert_layout
// CHECK: %[[I:.*]] = arith.divsi %[[IV]], %c32_i32 : i32
// CHECK: %[[RSLOT:.*]] = arith.remsi %[[I]], %c3_i32 : i32
// CHECK: %[[AR:.*]] = tile.memdesc_index %[[BUF_A]][%[[RSLOT]]]
// CHECK: %[[X:.*]] = tile.local_load %[[AR]] : !tile.memdesc<32x32xf16, #[[$SH]], mutable, 3x32x32> -> tensor<32x32xf16, #[[$A]]>
// CHECK: %[[BR:.*]] = tile.memdesc_index %[[BUF_B]][%[[RSLOT]]]
// CHECK: %[[Y:.*]] = tile.local_load %[[BR]] : !tile.memdesc<32x32xf16, #[[$SH]], mutable, 3x32x32> -> tensor<32x32xf16, #[[$B]]>
// CHECK: tile.dot %[[X]], %[[Y]], %{{.*}} : tensor<32x32xf16, #[[$A]]> * tensor<32x32xf16, #[[$B]]>
// CHECK-NOT: tile.async
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NOT: tile.local_dealloc
// CHECK: tile.async_wait {num = 0 : i32}
// CHECK-DAG: tile.local_dealloc %[[BUF_A]] : !tile.memdesc<3x32x32xf16, #[[$SH]], mutable>
// CHECK-DAG: tile.local_dealloc %[[BUF_B]] : !tile.memdesc<3x32x32xf16, #[[$SH]], mutable>
// CHECK: tile.store

// num-stages=2: buffers of 2, one prologue group, and a wait for every
// group (num = 0) before the copies of the next iteration.
// TWO-LABEL: func.func @matmul
// TWO: %[[BUF_A:.*]] = tile.local_alloc : () -> !tile.memdesc<2x32x32xf16, #{{.*}}, mutable>
// TWO: %[[BUF_B:.*]] = tile.local_alloc : () -> !tile.memdesc<2x32x32xf16, #{{.*}}, mutable>
// TWO: %[[A0:.*]] = tile.memdesc_index %[[BUF_A]][%c0_i32]
// TWO: tile.async_copy_global_to_local %{{.*}}, %[[A0]] mask
// TWO: %[[B0:.*]] = tile.memdesc_index %[[BUF_B]][%c0_i32]
// TWO: tile.async_copy_global_to_local %{{.*}}, %[[B0]] mask
// TWO-NEXT: tile.async_commit_group
// TWO-NOT: tile.async_copy_global_to_local
// TWO: scf.for %[[IV:.*]] = %c0_i32 to %{{.*}} step %c32_i32
// TWO: tile.async_wait {num = 0 : i32}
// TWO: %[[AHEAD:.*]] = arith.addi %[[IV]], %c32_i32 : i32
// TWO: %[[N:.*]] = arith.divsi %[[AHEAD]], %c32_i32 : i32
// TWO: %[[SLOT:.*]] = arith.remsi %[[N]], %c2_i32 : i32
// TWO: tile.memdesc_index %[[BUF_A]][%[[SLOT]]]
// TWO: tile.async_copy_global_to_local
// TWO: tile.async_copy_global_to_local
// TWO-NEXT: tile.async_commit_group
// TWO: tile.local_load %{{.*}} : !tile.memdesc<32x32xf16, #{{.*}}, mutable, 2x32x32> -> tensor<32x32xf16, #dot_op
// TWO: tile.local_load %{{.*}} : !tile.memdesc<32x32xf16, #{{.*}}, mutable, 2x32x32> -> tensor<32x32xf16, #dot_op
// TWO: tile.dot
// TWO: tile.local_dealloc %[[BUF_B]]
// TWO: tile.local_dealloc %[[BUF_A]]

// num-stages=1: the loop is left as it is.
// ONE-LABEL: func.func @matmul
// ONE-NOT: tile.local_alloc
// ONE: scf.for
// ONE: tile.load
// ONE: tile.load
// ONE: tile.convert_layout %{{.*}} -> tensor<32x32xf16, #dot_op
// ONE: tile.convert_layout %{{.*}} -> tensor<32x32xf16, #dot_op
// ONE: tile.dot
// ONE-NOT: tile.async
// ONE-NOT: tile.local
// ONE: return
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

// -----

// tile.num_stages on the loop overrides the option (3 by default, 2 or 1
// when given): buffers of 4, three prologue groups (buffers 0, 1, 2, for
// k > 0, 16, 32), a wait leaving two groups in flight, and copies of
// iteration i + 3 into buffer (i + 3) % 4, predicated on iv < k - 48.
// CHECK-LABEL: func.func @stages_attribute
// CHECK-SAME: %[[K:arg[0-9]+]]: i32
// CHECK: %[[BUF_A:.*]] = tile.local_alloc : () -> !tile.memdesc<4x32x32xf16, #{{.*}}, mutable>
// CHECK: %[[BUF_B:.*]] = tile.local_alloc : () -> !tile.memdesc<4x32x32xf16, #{{.*}}, mutable>
// CHECK: arith.cmpi sgt, %[[K]], %c0_i32 : i32
// CHECK: tile.memdesc_index %[[BUF_A]][%c0_i32]
// CHECK: tile.async_copy_global_to_local
// CHECK: tile.memdesc_index %[[BUF_B]][%c0_i32]
// CHECK: tile.async_copy_global_to_local
// CHECK-NEXT: tile.async_commit_group
// CHECK: arith.cmpi sgt, %[[K]], %c16_i32 : i32
// CHECK: tile.memdesc_index %[[BUF_A]][%c1_i32]
// CHECK: tile.async_copy_global_to_local
// CHECK: tile.memdesc_index %[[BUF_B]][%c1_i32]
// CHECK: tile.async_copy_global_to_local
// CHECK-NEXT: tile.async_commit_group
// CHECK: arith.cmpi sgt, %[[K]], %c32_i32 : i32
// CHECK: tile.memdesc_index %[[BUF_A]][%c2_i32]
// CHECK: tile.async_copy_global_to_local
// CHECK: tile.memdesc_index %[[BUF_B]][%c2_i32]
// CHECK: tile.async_copy_global_to_local
// CHECK-NEXT: tile.async_commit_group
// CHECK-NOT: tile.async_copy_global_to_local
// CHECK: scf.for %[[IV:.*]] = %c0_i32 to %[[K]] step %c16_i32
// CHECK: %[[END:.*]] = arith.subi %[[K]], %c48_i32 : i32
// CHECK: %[[PRED:.*]] = arith.cmpi slt, %[[IV]], %[[END]] : i32
// CHECK: tile.async_wait {num = 2 : i32}
// CHECK: %[[AHEAD:.*]] = arith.addi %[[IV]], %c48_i32 : i32
// CHECK: %[[N:.*]] = arith.divsi %[[AHEAD]], %c16_i32 : i32
// CHECK: %[[SLOT:.*]] = arith.remsi %[[N]], %c4_i32 : i32
// CHECK: %[[AW:.*]] = tile.memdesc_index %[[BUF_A]][%[[SLOT]]]
// CHECK: %[[MASK:.*]] = tile.splat %[[PRED]]
// CHECK: tile.async_copy_global_to_local %{{.*}}, %[[AW]] mask %[[MASK]] :
// CHECK: tile.async_copy_global_to_local
// CHECK-NEXT: tile.async_commit_group
// CHECK: tile.local_load %{{.*}} : !tile.memdesc<32x32xf16, #{{.*}}, mutable, 4x32x32>
// CHECK: tile.local_load %{{.*}} : !tile.memdesc<32x32xf16, #{{.*}}, mutable, 4x32x32>
// CHECK: tile.dot
// TWO-LABEL: func.func @stages_attribute
// TWO: tile.local_alloc : () -> !tile.memdesc<4x32x32xf16
// TWO: tile.async_wait {num = 2 : i32}
// ONE-LABEL: func.func @stages_attribute
// ONE: tile.local_alloc : () -> !tile.memdesc<4x32x32xf16
// ONE: tile.async_wait {num = 2 : i32}
func.func @stages_attribute(%ap0: tensor<32x32x!tile.ptr<f16>>, %bp0: tensor<32x32x!tile.ptr<f16>>,
                            %c: tensor<32x32x!tile.ptr<f32>>, %k: i32) {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %step = arith.constant dense<16> : tensor<32x32xi32>
  %acc0 = arith.constant dense<0.0> : tensor<32x32xf32>
  %acc, %ap, %bp = scf.for %kk = %c0 to %k step %c16
      iter_args(%acc_i = %acc0, %ap_i = %ap0, %bp_i = %bp0)
      -> (tensor<32x32xf32>, tensor<32x32x!tile.ptr<f16>>, tensor<32x32x!tile.ptr<f16>>) : i32 {
    %x = tile.load %ap_i : tensor<32x32x!tile.ptr<f16>>
    %y = tile.load %bp_i : tensor<32x32x!tile.ptr<f16>>
    %acc_n = tile.dot %x, %y, %acc_i : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
    %ap_n = tile.addptr %ap_i, %step : tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>
    %bp_n = tile.addptr %bp_i, %step : tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>
    scf.yield %acc_n, %ap_n, %bp_n : tensor<32x32xf32>, tensor<32x32x!tile.ptr<f16>>, tensor<32x32x!tile.ptr<f16>>
  } {tile.num_stages = 4 : i32}
  tile.store %c, %acc : tensor<32x32x!tile.ptr<f32>>
  return
}

// -----

// Masked loads with `other` (a K tail): the copies keep the load's mask,
// recomputed for the iteration they copy for (k - (iv + 64)) and anded with
// the predicate, and its `other`.
// CHECK-LABEL: func.func @masked
// CHECK-SAME: %[[K:arg[0-9]+]]: i32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<32x32xf16, #{{.*}}>
// CHECK-DAG: %[[ONES:.*]] = arith.constant dense<1.000000e+00> : tensor<32x32xf16, #{{.*}}>
// CHECK: %[[COLS:.*]] = tile.broadcast
// CHECK: %[[BUF_A:.*]] = tile.local_alloc : () -> !tile.memdesc<3x32x32xf16
// CHECK: %[[BUF_B:.*]] = tile.local_alloc : () -> !tile.memdesc<3x32x32xf16
// CHECK: %[[P0:.*]] = arith.cmpi sgt, %[[K]], %c0_i32 : i32
// CHECK: %[[KS:.*]] = tile.splat %[[K]] : tensor<32x32xi32
// CHECK: %[[L0:.*]] = arith.cmpi slt, %[[COLS]], %[[KS]] : tensor<32x32xi32
// CHECK: %[[S0:.*]] = tile.splat %[[P0]] : tensor<32x32xi1
// CHECK: %[[M0:.*]] = arith.andi %[[L0]], %[[S0]] : tensor<32x32xi1
// CHECK: tile.async_copy_global_to_local %{{.*}}, %{{.*}} mask %[[M0]] other %[[ZERO]] :
// CHECK: tile.async_copy_global_to_local %{{.*}}, %{{.*}} mask %[[M0]] other %[[ONES]] :
// CHECK-NEXT: tile.async_commit_group
// CHECK: tile.async_copy_global_to_local %{{.*}}, %{{.*}} mask %{{.*}} other %[[ZERO]] :
// CHECK: tile.async_copy_global_to_local %{{.*}}, %{{.*}} mask %{{.*}} other %[[ONES]] :
// CHECK-NEXT: tile.async_commit_group
// CHECK: scf.for %[[IV:.*]] = %c0_i32 to %[[K]] step %c32_i32
// CHECK: %[[END:.*]] = arith.subi %[[K]], %c64_i32 : i32
// CHECK: %[[PRED:.*]] = arith.cmpi slt, %[[IV]], %[[END]] : i32
// CHECK: tile.async_wait {num = 1 : i32}
// CHECK: %[[AHEAD:.*]] = arith.addi %[[IV]], %c64_i32 : i32
// CHECK: %[[LEFT:.*]] = arith.subi %[[K]], %[[AHEAD]] : i32
// CHECK: %[[LEFTS:.*]] = tile.splat %[[LEFT]] : tensor<32x32xi32
// CHECK: %[[L:.*]] = arith.cmpi slt, %[[COLS]], %[[LEFTS]] : tensor<32x32xi32
// CHECK: %[[S:.*]] = tile.splat %[[PRED]] : tensor<32x32xi1
// CHECK: %[[M:.*]] = arith.andi %[[L]], %[[S]] : tensor<32x32xi1
// CHECK: tile.async_copy_global_to_local %{{.*}}, %{{.*}} mask %[[M]] other %[[ZERO]] :
// CHECK: tile.async_copy_global_to_local %{{.*}}, %{{.*}} mask %[[M]] other %[[ONES]] :
// CHECK-NEXT: tile.async_commit_group
// CHECK-NOT: tile.load
// CHECK: tile.local_load
// CHECK: tile.local_load
// CHECK: tile.dot
func.func @masked(%ap0: tensor<32x32x!tile.ptr<f16>>, %bp0: tensor<32x32x!tile.ptr<f16>>,
                  %c: tensor<32x32x!tile.ptr<f32>>, %k: i32) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %step = arith.constant dense<32> : tensor<32x32xi32>
  %acc0 = arith.constant dense<0.0> : tensor<32x32xf32>
  %zero = arith.constant dense<0.0> : tensor<32x32xf16>
  %one = arith.constant dense<1.0> : tensor<32x32xf16>
  %r = tile.make_range 0, 32 : tensor<32xi32>
  %r2 = tile.expand_dims %r {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %cols = tile.broadcast %r2 : tensor<1x32xi32> -> tensor<32x32xi32>
  %acc, %ap, %bp = scf.for %kk = %c0 to %k step %c32
      iter_args(%acc_i = %acc0, %ap_i = %ap0, %bp_i = %bp0)
      -> (tensor<32x32xf32>, tensor<32x32x!tile.ptr<f16>>, tensor<32x32x!tile.ptr<f16>>) : i32 {
    %left = arith.subi %k, %kk : i32
    %lefts = tile.splat %left : tensor<32x32xi32>
    %m = arith.cmpi slt, %cols, %lefts : tensor<32x32xi32>
    %x = tile.load %ap_i, %m, %zero : tensor<32x32x!tile.ptr<f16>>
    %y = tile.load %bp_i, %m, %one : tensor<32x32x!tile.ptr<f16>>
    %acc_n = tile.dot %x, %y, %acc_i : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
    %ap_n = tile.addptr %ap_i, %step : tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>
    %bp_n = tile.addptr %bp_i, %step : tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>
    scf.yield %acc_n, %ap_n, %bp_n : tensor<32x32xf32>, tensor<32x32x!tile.ptr<f16>>, tensor<32x32x!tile.ptr<f16>>
  }
  tile.store %c, %acc : tensor<32x32x!tile.ptr<f32>>
  return
}

// -----

// A long iteration: 128x128x64 with 4 warps is 2^18 multiply-adds a warp,
// so the copies of iteration i + 2 go after the dot, which starts right
// after the wait.
// CHECK-LABEL: func.func @copies_after_dot
// CHECK: scf.for
// CHECK: tile.async_wait {num = 1 : i32}
// CHECK-NOT: tile.async_copy_global_to_local
// CHECK: tile.local_load
// CHECK: tile.local_load
// CHECK: tile.dot
// CHECK: tile.async_copy_global_to_local
// CHECK: tile.async_copy_global_to_local
// CHECK-NEXT: tile.async_commit_group
// CHECK: scf.yield
module attributes {tile.num_warps = 4 : i32} {
func.func @copies_after_dot(%ap0: tensor<128x64x!tile.ptr<f16>>, %bp0: tensor<64x128x!tile.ptr<f16>>,
                            %c: tensor<128x128x!tile.ptr<f32>>, %k: i32) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %sa = arith.constant dense<64> : tensor<128x64xi32>
  %sb = arith.constant dense<8192> : tensor<64x128xi32>
  %acc0 = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc, %ap, %bp = scf.for %kk = %c0 to %k step %c64
      iter_args(%acc_i = %acc0, %ap_i = %ap0, %bp_i = %bp0)
      -> (tensor<128x128xf32>, tensor<128x64x!tile.ptr<f16>>, tensor<64x128x!tile.ptr<f16>>) : i32 {
    %x = tile.load %ap_i : tensor<128x64x!tile.ptr<f16>>
    %y = tile.load %bp_i : tensor<64x128x!tile.ptr<f16>>
    %acc_n = tile.dot %x, %y, %acc_i : tensor<128x64xf16> * tensor<64x128xf16> -> tensor<128x128xf32>
    %ap_n = tile.addptr %ap_i, %sa : tensor<128x64x!tile.ptr<f16>>, tensor<128x64xi32>
    %bp_n = tile.addptr %bp_i, %sb : tensor<64x128x!tile.ptr<f16>>, tensor<64x128xi32>
    scf.yield %acc_n, %ap_n, %bp_n : tensor<128x128xf32>, tensor<128x64x!tile.ptr<f16>>, tensor<64x128x!tile.ptr<f16>>
  }
  tile.store %c, %acc : tensor<128x128x!tile.ptr<f32>>
  return
}
}

// -----

// A loop with no dot: its load feeds an elementwise op and a store, so
// nothing is pipelined.
// CHECK-LABEL: func.func @no_dot
// CHECK-NOT: tile.local_alloc
// CHECK: scf.for
// CHECK: tile.load
// CHECK: arith.addf
// CHECK: tile.store
// CHECK-NOT: tile.async_copy_global_to_local
// CHECK: return
func.func @no_dot(%p0: tensor<128x!tile.ptr<f32>>, %q0: tensor<128x!tile.ptr<f32>>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %step = arith.constant dense<128> : tensor<128xi32>
  %p, %q = scf.for %i = %c0 to %n step %c128 iter_args(%p_i = %p0, %q_i = %q0)
      -> (tensor<128x!tile.ptr<f32>>, tensor<128x!tile.ptr<f32>>) : i32 {
    %x = tile.load %p_i : tensor<128x!tile.ptr<f32>>
    %y = arith.addf %x, %x : tensor<128xf32>
    tile.store %q_i, %y : tensor<128x!tile.ptr<f32>>
    %p_n = tile.addptr %p_i, %step : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    %q_n = tile.addptr %q_i, %step : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    scf.yield %p_n, %q_n : tensor<128x!tile.ptr<f32>>, tensor<128x!tile.ptr<f32>>
  }
  return
}

// -----

// A loop that stores to memory is left alone: a load issued iterations
// ahead could pass one of its stores.
// CHECK-LABEL: func.func @stored_operand
// CHECK-NOT: tile.local_alloc
// CHECK: scf.for
// CHECK: tile.load
// CHECK: tile.load
// CHECK: tile.store
// CHECK: tile.dot
// CHECK-NOT: tile.async_copy_global_to_local
// CHECK: return
func.func @stored_operand(%ap0: tensor<32x32x!tile.ptr<f16>>, %bp0: tensor<32x32x!tile.ptr<f16>>,
                          %c: tensor<32x32x!tile.ptr<f32>>, %copy: tensor<32x32x!tile.ptr<f16>>,
                          %k: i32) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %step = arith.constant dense<32> : tensor<32x32xi32>
  %acc0 = arith.constant dense<0.0> : tensor<32x32xf32>
  %acc, %ap, %bp = scf.for %kk = %c0 to %k step %c32
      iter_args(%acc_i = %acc0, %ap_i = %ap0, %bp_i = %bp0)
      -> (tensor<32x32xf32>, tensor<32x32x!tile.ptr<f16>>, tensor<32x32x!tile.ptr<f16>>) : i32 {
    %x = tile.load %ap_i : tensor<32x32x!tile.ptr<f16>>
    %y = tile.load %bp_i : tensor<32x32x!tile.ptr<f16>>
    tile.store %copy, %x : tensor<32x32x!tile.ptr<f16>>
    %acc_n = tile.dot %x, %y, %acc_i : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
    %ap_n = tile.addptr %ap_i, %step : tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>
    %bp_n = tile.addptr %bp_i, %step : tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>
    scf.yield %acc_n, %ap_n, %bp_n : tensor<32x32xf32>, tensor<32x32x!tile.ptr<f16>>, tensor<32x32x!tile.ptr<f16>>
  }
  tile.store %c, %acc : tensor<32x32x!tile.ptr<f32>>
  return
}

// -----

// The pointers the copies advance are used after the loop: the expanded
// loop would run their updates past the end, so it is left alone.
// CHECK-LABEL: func.func @pointers_used_after
// CHECK-NOT: tile.local_alloc
// CHECK: scf.for
// CHECK: tile.load
// CHECK: tile.load
// CHECK: tile.dot
// CHECK-NOT: tile.async_copy_global_to_local
// CHECK: return
func.func @pointers_used_after(%ap0: tensor<32x32x!tile.ptr<f16>>, %bp0: tensor<32x32x!tile.ptr<f16>>,
                               %c: tensor<32x32x!tile.ptr<f32>>, %k: i32,
                               %out: tensor<32x32x!tile.ptr<f16>>) {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %step = arith.constant dense<16> : tensor<32x32xi32>
  %acc0 = arith.constant dense<0.0> : tensor<32x32xf32>
  %acc, %ap, %bp = scf.for %kk = %c0 to %k step %c16
      iter_args(%acc_i = %acc0, %ap_i = %ap0, %bp_i = %bp0)
      -> (tensor<32x32xf32>, tensor<32x32x!tile.ptr<f16>>, tensor<32x32x!tile.ptr<f16>>) : i32 {
    %x = tile.load %ap_i : tensor<32x32x!tile.ptr<f16>>
    %y = tile.load %bp_i : tensor<32x32x!tile.ptr<f16>>
    %acc_n = tile.dot %x, %y, %acc_i : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
    %ap_n = tile.addptr %ap_i, %step : tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>
    %bp_n = tile.addptr %bp_i, %step : tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>
    scf.yield %acc_n, %ap_n, %bp_n : tensor<32x32xf32>, tensor<32x32x!tile.ptr<f16>>, tensor<32x32x!tile.ptr<f16>>
  }
  tile.store %c, %acc : tensor<32x32x!tile.ptr<f32>>
  %last = tile.load %ap : tensor<32x32x!tile.ptr<f16>>
  tile.store %out, %last : tensor<32x32x!tile.ptr<f16>>
  return
}

// -----

// An index loop: the buffer index is computed in index and cast to i32.
// CHECK-LABEL: func.func @index_loop
// CHECK: %[[BUF_A:.*]] = tile.local_alloc : () -> !tile.memdesc<3x32x32xf16
// CHECK: scf.for %[[IV:.*]] = %c0 to %{{.*}} step %c16 iter_args
// CHECK: tile.async_wait {num = 1 : i32}
// CHECK: %[[AHEAD:.*]] = arith.addi %[[IV]], %c32 : index
// CHECK: %[[N:.*]] = arith.divsi %[[AHEAD]], %c16 : index
// CHECK: %[[SLOT:.*]] = arith.remsi %[[N]], %c3 : index
// CHECK: %[[SLOT32:.*]] = arith.index_cast %[[SLOT]] : index to i32
// CHECK: tile.memdesc_index %[[BUF_A]][%[[SLOT32]]]
// CHECK: tile.async_copy_global_to_local
func.func @index_loop(%ap0: tensor<32x32x!tile.ptr<f16>>, %bp0: tensor<32x32x!tile.ptr<f16>>,
                      %c: tensor<32x32x!tile.ptr<f32>>, %k: index) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %step = arith.constant dense<16> : tensor<32x32xi32>
  %acc0 = arith.constant dense<0.0> : tensor<32x32xf32>
  %acc, %ap, %bp = scf.for %kk = %c0 to %k step %c16
      iter_args(%acc_i = %acc0, %ap_i = %ap0, %bp_i = %bp0)
      -> (tensor<32x32xf32>, tensor<32x32x!tile.ptr<f16>>, tensor<32x32x!tile.ptr<f16>>) {
    %x = tile.load %ap_i : tensor<32x32x!tile.ptr<f16>>
    %y = tile.load %bp_i : tensor<32x32x!tile.ptr<f16>>
    %acc_n = tile.dot %x, %y, %acc_i : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
    %ap_n = tile.addptr %ap_i, %step : tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>
    %bp_n = tile.addptr %bp_i, %step : tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>
    scf.yield %acc_n, %ap_n, %bp_n : tensor<32x32xf32>, tensor<32x32x!tile.ptr<f16>>, tensor<32x32x!tile.ptr<f16>>
  }
  tile.store %c, %acc : tensor<32x32x!tile.ptr<f32>>
  return
}

// -----

// tile.num_stages = 1 on the loop turns pipelining off for it.
// CHECK-LABEL: func.func @one_stage_attribute
// CHECK-NOT: tile.local_alloc
// CHECK: scf.for
// CHECK: tile.load
// CHECK: tile.load
// CHECK-NOT: tile.async_copy_global_to_local
// CHECK: } {tile.num_stages = 1 : i32}
func.func @one_stage_attribute(%ap0: tensor<32x32x!tile.ptr<f16>>, %bp0: tensor<32x32x!tile.ptr<f16>>,
                               %c: tensor<32x32x!tile.ptr<f32>>, %k: i32) {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %step = arith.constant dense<16> : tensor<32x32xi32>
  %acc0 = arith.constant dense<0.0> : tensor<32x32xf32>
  %acc, %ap, %bp = scf.for %kk = %c0 to %k step %c16
      iter_args(%acc_i = %acc0, %ap_i = %ap0, %bp_i = %bp0)
      -> (tensor<32x32xf32>, tensor<32x32x!tile.ptr<f16>>, tensor<32x32x!tile.ptr<f16>>) : i32 {
    %x = tile.load %ap_i : tensor<32x32x!tile.ptr<f16>>
    %y = tile.load %bp_i : tensor<32x32x!tile.ptr<f16>>
    %acc_n = tile.dot %x, %y, %acc_i : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
    %ap_n = tile.addptr %ap_i, %step : tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>
    %bp_n = tile.addptr %bp_i, %step : tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>
    scf.yield %acc_n, %ap_n, %bp_n : tensor<32x32xf32>, tensor<32x32x!tile.ptr<f16>>, tensor<32x32x!tile.ptr<f16>>
  } {tile.num_stages = 1 : i32}
  tile.store %c, %acc : tensor<32x32x!tile.ptr<f32>>
  return
}
