// RUN: tessera-opt %s | tessera-opt | FileCheck %s
// RUN: tessera-opt %s -split-input-file -tile-lower-descriptors | FileCheck %s --check-prefix=LOWER

// Tensor descriptors round-trip, and tile-lower-descriptors turns their
// block accesses into masked loads, stores and atomics.

// CHECK-LABEL: @roundtrip
// CHECK: tile.make_tensor_descriptor %{{.*}}, [%{{.*}}, %{{.*}}], [%{{.*}}, %{{.*}}] nan_padding
// CHECK: tile.descriptor_load %{{.*}}[%{{.*}}, %{{.*}}] {boundaryCheck = array<i32: 1>}
// CHECK: tile.descriptor_store
// CHECK: tile.descriptor_reduce fadd
func.func @roundtrip(%p: !tile.ptr<f32>, %m: i32, %n: i32, %ld: i64, %i: i32) {
  %one = arith.constant 1 : i64
  %d = tile.make_tensor_descriptor %p, [%m, %n], [%ld, %one] nan_padding
      : !tile.ptr<f32> -> !tile.tensordesc<tensor<16x32xf32>>
  %b = tile.descriptor_load %d[%i, %i] {boundaryCheck = array<i32: 1>}
      : !tile.tensordesc<tensor<16x32xf32>> -> tensor<16x32xf32>
  tile.descriptor_store %d[%i, %i], %b
      : !tile.tensordesc<tensor<16x32xf32>>, tensor<16x32xf32>
  tile.descriptor_reduce fadd, %d[%i, %i], %b
      : !tile.tensordesc<tensor<16x32xf32>>, tensor<16x32xf32>
  return
}

// LOWER-LABEL: @load_checked
// The addresses: base + (i + range) * ld + (j + range), in i64; each
// dimension is checked with one unsigned comparison.
// LOWER: tile.make_range 0, 16 : tensor<16xi32>
// LOWER: arith.extsi %{{.*}} : tensor<16xi32> to tensor<16xi64>
// LOWER: arith.muli
// LOWER: tile.expand_dims %{{.*}} {axis = 1 : i32} : tensor<16xi64> -> tensor<16x1xi64>
// LOWER: arith.cmpi ult
// LOWER: tile.make_range 0, 32 : tensor<32xi32>
// LOWER: tile.expand_dims %{{.*}} {axis = 0 : i32} : tensor<32xi64> -> tensor<1x32xi64>
// LOWER: arith.cmpi ult
// LOWER: %[[MASK:.*]] = arith.andi
// LOWER: %[[PTRS:.*]] = tile.addptr
// LOWER: %[[NAN:.*]] = arith.constant dense<0x7FC00000> : tensor<16x32xf32>
// LOWER: tile.load %[[PTRS]], %[[MASK]], %[[NAN]]
// LOWER-NOT: tile.make_tensor_descriptor
func.func @load_checked(%p: !tile.ptr<f32>, %m: i32, %n: i32, %ld: i64, %i: i32, %j: i32) -> tensor<16x32xf32> {
  %one = arith.constant 1 : i64
  %d = tile.make_tensor_descriptor %p, [%m, %n], [%ld, %one] nan_padding
      : !tile.ptr<f32> -> !tile.tensordesc<tensor<16x32xf32>>
  %b = tile.descriptor_load %d[%i, %j]
      : !tile.tensordesc<tensor<16x32xf32>> -> tensor<16x32xf32>
  return %b : tensor<16x32xf32>
}

// -----

// Without boundary checks the accesses are unmasked; a reduction is a
// relaxed atomic.
// LOWER-LABEL: @unchecked
// LOWER-NOT: arith.cmpi
// LOWER: tile.store %{{[0-9]+}}, %{{.*}} : tensor<64x!tile.ptr<i32>>
// LOWER: tile.atomic_rmw add, relaxed, gpu
func.func @unchecked(%p: !tile.ptr<i32>, %n: i32, %i: i32, %v: tensor<64xi32>) {
  %one = arith.constant 1 : i64
  %d = tile.make_tensor_descriptor %p, [%n], [%one]
      : !tile.ptr<i32> -> !tile.tensordesc<tensor<64xi32>>
  tile.descriptor_store %d[%i], %v {boundaryCheck = array<i32>}
      : !tile.tensordesc<tensor<64xi32>>, tensor<64xi32>
  tile.descriptor_reduce add, %d[%i], %v
      : !tile.tensordesc<tensor<64xi32>>, tensor<64xi32>
  return
}

// -----

// An aligned descriptor (tl.make_tensor_descriptor's) says its base and row
// stride are 16-byte multiples: the values are hinted where they are made,
// a function argument through its attribute; a plain one (a block
// pointer's) says nothing.
// CHECK-LABEL: @aligned
// CHECK: tile.make_tensor_descriptor %{{.*}}, [%{{.*}}, %{{.*}}], [%{{.*}}, %{{.*}}] aligned :
// LOWER-LABEL: @aligned
// LOWER-SAME: (%{{.*}}: !tile.ptr<i64>, %{{.*}}: i64 {tile.divisibility = 8 : i32},
// LOWER: tile.int_to_ptr %{{.*}} {tile.divisibility = array<i64: 16>} : i64 -> !tile.ptr<f16>
// LOWER-NEXT: tile.int_to_ptr %{{.*}} : i64 -> !tile.ptr<f16>
// LOWER-NOT: tile.divisibility
// LOWER: return
func.func @aligned(%table: !tile.ptr<i64>, %ld: i64, %m: i32, %i: i32) -> (tensor<16x32xf16>, tensor<16x32xf16>) {
  %one = arith.constant 1 : i64
  %address = tile.load %table : !tile.ptr<i64>
  %p = tile.int_to_ptr %address : i64 -> !tile.ptr<f16>
  %q = tile.int_to_ptr %address : i64 -> !tile.ptr<f16>
  %d = tile.make_tensor_descriptor %p, [%m, %m], [%ld, %one] aligned
      : !tile.ptr<f16> -> !tile.tensordesc<tensor<16x32xf16>>
  %e = tile.make_tensor_descriptor %q, [%m, %m], [%ld, %one]
      : !tile.ptr<f16> -> !tile.tensordesc<tensor<16x32xf16>>
  %a = tile.descriptor_load %d[%i, %i] : !tile.tensordesc<tensor<16x32xf16>> -> tensor<16x32xf16>
  %b = tile.descriptor_load %e[%i, %i] : !tile.tensordesc<tensor<16x32xf16>> -> tensor<16x32xf16>
  return %a, %b : tensor<16x32xf16>, tensor<16x32xf16>
}
