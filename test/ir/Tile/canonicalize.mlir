// RUN: tessera-opt %s -split-input-file -canonicalize | FileCheck %s

// splat(constant) -> dense constant
// CHECK-LABEL: func.func @splat_of_constant
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<2.500000e+00> : tensor<64xf32>
// CHECK-NEXT: return %[[C]]
func.func @splat_of_constant() -> tensor<64xf32> {
  %c = arith.constant 2.5 : f32
  %0 = tile.splat %c : tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

// broadcast(splat x) -> splat x
// CHECK-LABEL: func.func @broadcast_of_splat
// CHECK-SAME: (%[[X:.*]]: i32)
// CHECK-NEXT: %[[S:.*]] = tile.splat %[[X]] : tensor<16x32xi32>
// CHECK-NEXT: return %[[S]]
func.func @broadcast_of_splat(%x: i32) -> tensor<16x32xi32> {
  %0 = tile.splat %x : tensor<1x32xi32>
  %1 = tile.broadcast %0 : tensor<1x32xi32> -> tensor<16x32xi32>
  return %1 : tensor<16x32xi32>
}

// -----

// expand_dims(splat x) -> splat x
// CHECK-LABEL: func.func @expand_dims_of_splat
// CHECK-SAME: (%[[X:.*]]: f16)
// CHECK-NEXT: %[[S:.*]] = tile.splat %[[X]] : tensor<32x1xf16>
// CHECK-NEXT: return %[[S]]
func.func @expand_dims_of_splat(%x: f16) -> tensor<32x1xf16> {
  %0 = tile.splat %x : tensor<32xf16>
  %1 = tile.expand_dims %0 {axis = 1 : i32} : tensor<32xf16> -> tensor<32x1xf16>
  return %1 : tensor<32x1xf16>
}

// -----

// reshape(splat x) -> splat x
// CHECK-LABEL: func.func @reshape_of_splat
// CHECK-SAME: (%[[X:.*]]: !tile.ptr<f32>)
// CHECK-NEXT: %[[S:.*]] = tile.splat %[[X]] : tensor<4x8x!tile.ptr<f32>>
// CHECK-NEXT: return %[[S]]
func.func @reshape_of_splat(%x: !tile.ptr<f32>) -> tensor<4x8x!tile.ptr<f32>> {
  %0 = tile.splat %x : tensor<32x!tile.ptr<f32>>
  %1 = tile.reshape %0 : tensor<32x!tile.ptr<f32>> -> tensor<4x8x!tile.ptr<f32>>
  return %1 : tensor<4x8x!tile.ptr<f32>>
}

// -----

// trans(splat x) -> splat x
// CHECK-LABEL: func.func @trans_of_splat
// CHECK-SAME: (%[[X:.*]]: i8)
// CHECK-NEXT: %[[S:.*]] = tile.splat %[[X]] : tensor<8x4xi8>
// CHECK-NEXT: return %[[S]]
func.func @trans_of_splat(%x: i8) -> tensor<8x4xi8> {
  %0 = tile.splat %x : tensor<4x8xi8>
  %1 = tile.trans %0 {order = array<i32: 1, 0>} : tensor<4x8xi8> -> tensor<8x4xi8>
  return %1 : tensor<8x4xi8>
}

// -----

// broadcast, expand_dims, reshape and trans of a splat constant -> constant
// CHECK-LABEL: func.func @shape_ops_of_constant
// CHECK-DAG: %[[B:.*]] = arith.constant dense<7> : tensor<4x16xi32>
// CHECK-DAG: %[[E:.*]] = arith.constant dense<7> : tensor<1x16xi32>
// CHECK-DAG: %[[R:.*]] = arith.constant dense<7> : tensor<2x8xi32>
// CHECK-DAG: %[[T:.*]] = arith.constant dense<1.000000e+00> : tensor<8x2xf32>
// CHECK: return %[[B]], %[[E]], %[[R]], %[[T]]
func.func @shape_ops_of_constant() -> (tensor<4x16xi32>, tensor<1x16xi32>, tensor<2x8xi32>, tensor<8x2xf32>) {
  %row = arith.constant dense<7> : tensor<1x16xi32>
  %vec = arith.constant dense<7> : tensor<16xi32>
  %mat = arith.constant dense<1.0> : tensor<2x8xf32>
  %b = tile.broadcast %row : tensor<1x16xi32> -> tensor<4x16xi32>
  %e = tile.expand_dims %vec {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %r = tile.reshape %vec : tensor<16xi32> -> tensor<2x8xi32>
  %t = tile.trans %mat {order = array<i32: 1, 0>} : tensor<2x8xf32> -> tensor<8x2xf32>
  return %b, %e, %r, %t : tensor<4x16xi32>, tensor<1x16xi32>, tensor<2x8xi32>, tensor<8x2xf32>
}

// -----

// broadcast to the same shape -> identity
// CHECK-LABEL: func.func @broadcast_identity
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: return %[[X]]
func.func @broadcast_identity(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tile.broadcast %x : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// broadcast(broadcast x) -> broadcast x
// CHECK-LABEL: func.func @broadcast_of_broadcast
// CHECK-SAME: (%[[X:.*]]: tensor<1x1xf32>)
// CHECK-NEXT: %[[B:.*]] = tile.broadcast %[[X]] : tensor<1x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT: return %[[B]]
func.func @broadcast_of_broadcast(%x: tensor<1x1xf32>) -> tensor<4x8xf32> {
  %0 = tile.broadcast %x : tensor<1x1xf32> -> tensor<1x8xf32>
  %1 = tile.broadcast %0 : tensor<1x8xf32> -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// reshape(reshape x) -> reshape x; reshape to the same type -> identity
// CHECK-LABEL: func.func @reshape_of_reshape
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[R:.*]] = tile.reshape %[[X]] allow_reorder : tensor<4x8xf32> -> tensor<2x16xf32>
// CHECK-NEXT: return %[[R]], %[[X]]
func.func @reshape_of_reshape(%x: tensor<4x8xf32>) -> (tensor<2x16xf32>, tensor<4x8xf32>) {
  %0 = tile.reshape %x allow_reorder : tensor<4x8xf32> -> tensor<32xf32>
  %1 = tile.reshape %0 : tensor<32xf32> -> tensor<2x16xf32>
  %2 = tile.reshape %x : tensor<4x8xf32> -> tensor<4x8xf32>
  return %1, %2 : tensor<2x16xf32>, tensor<4x8xf32>
}

// -----

// trans with the identity order -> x; trans(trans x) -> x when the orders cancel
// CHECK-LABEL: func.func @trans_identity
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: return %[[X]], %[[X]]
func.func @trans_identity(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = tile.trans %x {order = array<i32: 0, 1>} : tensor<4x8xf32> -> tensor<4x8xf32>
  %1 = tile.trans %x {order = array<i32: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
  %2 = tile.trans %1 {order = array<i32: 1, 0>} : tensor<8x4xf32> -> tensor<4x8xf32>
  return %0, %2 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// trans(trans x) -> one trans with the composed order
// CHECK-LABEL: func.func @trans_of_trans
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf32>)
// CHECK-NEXT: %[[T:.*]] = tile.trans %[[X]] {order = array<i32: 2, 1, 0>} : tensor<2x4x8xf32> -> tensor<8x4x2xf32>
// CHECK-NEXT: return %[[T]]
func.func @trans_of_trans(%x: tensor<2x4x8xf32>) -> tensor<8x4x2xf32> {
  %0 = tile.trans %x {order = array<i32: 1, 2, 0>} : tensor<2x4x8xf32> -> tensor<4x8x2xf32>
  %1 = tile.trans %0 {order = array<i32: 1, 0, 2>} : tensor<4x8x2xf32> -> tensor<8x4x2xf32>
  return %1 : tensor<8x4x2xf32>
}

// -----

// addptr(p, 0) -> p, for scalars and tensors
// CHECK-LABEL: func.func @addptr_zero
// CHECK-SAME: (%[[P:.*]]: !tile.ptr<f32>, %[[T:.*]]: tensor<8x!tile.ptr<f16>>)
// CHECK-NEXT: return %[[P]], %[[T]]
func.func @addptr_zero(%p: !tile.ptr<f32>, %t: tensor<8x!tile.ptr<f16>>) -> (!tile.ptr<f32>, tensor<8x!tile.ptr<f16>>) {
  %c0 = arith.constant 0 : i32
  %z = arith.constant dense<0> : tensor<8xi64>
  %0 = tile.addptr %p, %c0 : !tile.ptr<f32>, i32
  %1 = tile.addptr %t, %z : tensor<8x!tile.ptr<f16>>, tensor<8xi64>
  return %0, %1 : !tile.ptr<f32>, tensor<8x!tile.ptr<f16>>
}

// -----

// load with an all-false mask -> other
// CHECK-LABEL: func.func @load_all_false
// CHECK-SAME: (%[[P:.*]]: tensor<8x!tile.ptr<f32>>, %[[O:.*]]: tensor<8xf32>)
// CHECK-NOT: tile.load
// CHECK: return %[[O]]
func.func @load_all_false(%p: tensor<8x!tile.ptr<f32>>, %o: tensor<8xf32>) -> tensor<8xf32> {
  %m = arith.constant dense<false> : tensor<8xi1>
  %0 = tile.load %p, %m, %o : tensor<8x!tile.ptr<f32>>
  return %0 : tensor<8xf32>
}

// -----

// A volatile load with an all-false mask stays.
// CHECK-LABEL: func.func @volatile_load_all_false
// CHECK: tile.load {{.*}} volatile
func.func @volatile_load_all_false(%p: tensor<8x!tile.ptr<f32>>, %o: tensor<8xf32>) -> tensor<8xf32> {
  %m = arith.constant dense<false> : tensor<8xi1>
  %0 = tile.load %p, %m, %o volatile : tensor<8x!tile.ptr<f32>>
  return %0 : tensor<8xf32>
}

// -----

// load with an all-true mask -> unmasked load
// CHECK-LABEL: func.func @load_all_true
// CHECK-SAME: (%[[P:.*]]: tensor<8x!tile.ptr<f32>>, %[[O:.*]]: tensor<8xf32>)
// CHECK-NEXT: %[[L:.*]] = tile.load %[[P]] : tensor<8x!tile.ptr<f32>>
// CHECK-NEXT: return %[[L]]
func.func @load_all_true(%p: tensor<8x!tile.ptr<f32>>, %o: tensor<8xf32>) -> tensor<8xf32> {
  %m = arith.constant dense<true> : tensor<8xi1>
  %0 = tile.load %p, %m, %o : tensor<8x!tile.ptr<f32>>
  return %0 : tensor<8xf32>
}

// -----

// store with an all-false mask -> nothing; with an all-true mask -> unmasked store
// CHECK-LABEL: func.func @store_constant_masks
// CHECK-SAME: (%[[P:.*]]: tensor<8x!tile.ptr<f32>>, %[[V:.*]]: tensor<8xf32>)
// CHECK-NEXT: tile.store %[[P]], %[[V]] : tensor<8x!tile.ptr<f32>>
// CHECK-NEXT: return
func.func @store_constant_masks(%p: tensor<8x!tile.ptr<f32>>, %v: tensor<8xf32>) {
  %f = arith.constant dense<false> : tensor<8xi1>
  %t = arith.constant dense<true> : tensor<8xi1>
  tile.store %p, %v, %f : tensor<8x!tile.ptr<f32>>
  tile.store %p, %v, %t : tensor<8x!tile.ptr<f32>>
  return
}

// -----

// Loads with a non-constant mask, and unused pure ops, are handled normally.
// CHECK-LABEL: func.func @dead_pure_ops
// CHECK-NEXT: %[[L:.*]] = tile.load
// CHECK-NEXT: return %[[L]]
func.func @dead_pure_ops(%p: tensor<8x!tile.ptr<f32>>, %m: tensor<8xi1>) -> tensor<8xf32> {
  %r = tile.make_range 0, 8 : tensor<8xi32>
  %unused = tile.load %p, %m : tensor<8x!tile.ptr<f32>>
  %0 = tile.load %p, %m : tensor<8x!tile.ptr<f32>>
  return %0 : tensor<8xf32>
}
