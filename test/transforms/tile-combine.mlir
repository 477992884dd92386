// RUN: tessera-opt %s -split-input-file -tile-combine | FileCheck %s

// dot(a, b, 0) + c -> dot(a, b, c)
// CHECK-LABEL: func.func @dot_add
// CHECK-SAME: (%[[A:.*]]: tensor<16x16xf16>, %[[B:.*]]: tensor<16x16xf16>, %[[C:.*]]: tensor<16x16xf32>)
// CHECK-NEXT: %[[D:.*]] = tile.dot %[[A]], %[[B]], %[[C]] precision = tf32 : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
// CHECK-NEXT: return %[[D]]
func.func @dot_add(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %d = tile.dot %a, %b, %zero precision = tf32 : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  %s = arith.addf %c, %d : tensor<16x16xf32>
  return %s : tensor<16x16xf32>
}

// -----

// c + dot(a, b, 0) -> dot(a, b, c), for integer dots too; the zero may be a splat.
// CHECK-LABEL: func.func @int_dot_add
// CHECK-SAME: (%[[A:.*]]: tensor<16x16xi8>, %[[C:.*]]: tensor<16x16xi32>)
// CHECK-NEXT: %[[D:.*]] = tile.dot %[[A]], %[[A]], %[[C]]
// CHECK-NEXT: return %[[D]]
func.func @int_dot_add(%a: tensor<16x16xi8>, %c: tensor<16x16xi32>) -> tensor<16x16xi32> {
  %c0 = arith.constant 0 : i32
  %zero = tile.splat %c0 : tensor<16x16xi32>
  %d = tile.dot %a, %a, %zero : tensor<16x16xi8> * tensor<16x16xi8> -> tensor<16x16xi32>
  %s = arith.addi %d, %c : tensor<16x16xi32>
  return %s : tensor<16x16xi32>
}

// -----

// A dot whose result is used elsewhere, or whose accumulator is not zero, stays.
// CHECK-LABEL: func.func @dot_add_kept
// CHECK: tile.dot
// CHECK: arith.addf
// CHECK: tile.dot
// CHECK: arith.addf
func.func @dot_add_kept(%a: tensor<16x16xf16>, %c: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) {
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %d = tile.dot %a, %a, %zero : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  %s = arith.addf %c, %d : tensor<16x16xf32>
  %e = tile.dot %a, %a, %c : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  %t = arith.addf %c, %e : tensor<16x16xf32>
  return %s, %d, %t : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>
}

// -----

// select(m, load(p, m), o) -> load(p, m, o)
// CHECK-LABEL: func.func @select_masked_load
// CHECK-SAME: (%[[P:.*]]: tensor<64x!tile.ptr<f32>>, %[[M:.*]]: tensor<64xi1>, %[[O:.*]]: tensor<64xf32>)
// CHECK-NEXT: %[[L:.*]] = tile.load %[[P]], %[[M]], %[[O]] : tensor<64x!tile.ptr<f32>>
// CHECK-NEXT: return %[[L]]
func.func @select_masked_load(%p: tensor<64x!tile.ptr<f32>>, %m: tensor<64xi1>, %o: tensor<64xf32>) -> tensor<64xf32> {
  %l = tile.load %p, %m : tensor<64x!tile.ptr<f32>>
  %s = arith.select %m, %l, %o : tensor<64xi1>, tensor<64xf32>
  return %s : tensor<64xf32>
}

// -----

// A scalar condition whose splat masks the load combines too.
// CHECK-LABEL: func.func @select_scalar_mask
// CHECK-SAME: (%[[P:.*]]: tensor<64x!tile.ptr<f32>>, %[[C:.*]]: i1, %[[O:.*]]: tensor<64xf32>)
// CHECK-NEXT: %[[M:.*]] = tile.splat %[[C]]
// CHECK-NEXT: %[[L:.*]] = tile.load %[[P]], %[[M]], %[[O]] : tensor<64x!tile.ptr<f32>>
// CHECK-NEXT: return %[[L]]
func.func @select_scalar_mask(%p: tensor<64x!tile.ptr<f32>>, %c: i1, %o: tensor<64xf32>) -> tensor<64xf32> {
  %m = tile.splat %c : tensor<64xi1>
  %l = tile.load %p, %m : tensor<64x!tile.ptr<f32>>
  %s = arith.select %c, %l, %o : tensor<64xf32>
  return %s : tensor<64xf32>
}

// -----

// Another mask, or an `other` computed after the load, keeps the select.
// CHECK-LABEL: func.func @select_masked_load_kept
// CHECK: tile.load
// CHECK: arith.select
// CHECK: tile.load
// CHECK: arith.select
func.func @select_masked_load_kept(%p: tensor<64x!tile.ptr<f32>>, %m: tensor<64xi1>, %n: tensor<64xi1>, %o: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %l = tile.load %p, %m : tensor<64x!tile.ptr<f32>>
  %s = arith.select %n, %l, %o : tensor<64xi1>, tensor<64xf32>
  %k = tile.load %p, %m : tensor<64x!tile.ptr<f32>>
  %late = arith.negf %o : tensor<64xf32>
  %t = arith.select %m, %k, %late : tensor<64xi1>, tensor<64xf32>
  return %s, %t : tensor<64xf32>, tensor<64xf32>
}

// -----

// addptr(addptr(p, a), b) -> addptr(p, a + b)
// CHECK-LABEL: func.func @addptr_chain
// CHECK-SAME: (%[[P:.*]]: tensor<8x!tile.ptr<f32>>, %[[A:.*]]: tensor<8xi32>, %[[B:.*]]: tensor<8xi32>)
// CHECK-NEXT: %[[S:.*]] = arith.addi %[[A]], %[[B]] : tensor<8xi32>
// CHECK-NEXT: %[[Q:.*]] = tile.addptr %[[P]], %[[S]]
// CHECK-NEXT: return %[[Q]]
func.func @addptr_chain(%p: tensor<8x!tile.ptr<f32>>, %a: tensor<8xi32>, %b: tensor<8xi32>) -> tensor<8x!tile.ptr<f32>> {
  %0 = tile.addptr %p, %a : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
  %1 = tile.addptr %0, %b : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
  return %1 : tensor<8x!tile.ptr<f32>>
}

// -----

// tile-combine applies the ops' own folds as well: expand_dims(splat x) -> splat x.
// CHECK-LABEL: func.func @op_folds
// CHECK-SAME: (%[[X:.*]]: i32)
// CHECK-NEXT: %[[S:.*]] = tile.splat %[[X]] : tensor<1x8xi32>
// CHECK-NEXT: return %[[S]]
func.func @op_folds(%x: i32) -> tensor<1x8xi32> {
  %0 = tile.splat %x : tensor<8xi32>
  %1 = tile.expand_dims %0 {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
  return %1 : tensor<1x8xi32>
}
