// RUN: tessera-opt %s -split-input-file -tile-assign-layouts -cse | FileCheck %s

// Vector add: 16-byte fp32 vectors along the contiguous, aligned dimension,
// and no conversions left once the ranges and splats are made in place.
// CHECK: #[[$VEC:blocked[0-9]*]] = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK: module attributes {tile.num_warps = 4 : i32, tile.warp_size = 32 : i32}
// CHECK-LABEL: func.func @vector_add
// CHECK-NOT: tile.convert_layout
// CHECK: tile.make_range 0, 1024 : tensor<1024xi32, #[[$VEC]]>
// CHECK: tile.load %{{.*}}, %{{.*}} : tensor<1024x!tile.ptr<f32>, #[[$VEC]]>
// CHECK: tile.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<1024x!tile.ptr<f32>, #[[$VEC]]>
func.func @vector_add(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                      %z: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                      %n: i32 {tile.divisibility = 16 : i32}) {
  %pid = tile.program_id x
  %c1024 = arith.constant 1024 : i32
  %start = arith.muli %pid, %c1024 : i32
  %range = tile.make_range 0, 1024 : tensor<1024xi32>
  %base = tile.splat %start : tensor<1024xi32>
  %offs = arith.addi %base, %range : tensor<1024xi32>
  %bound = tile.splat %n : tensor<1024xi32>
  %mask = arith.cmpi slt, %offs, %bound : tensor<1024xi32>
  %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %v = tile.load %xp, %mask : tensor<1024x!tile.ptr<f32>>
  %w = arith.addf %v, %v : tensor<1024xf32>
  %zs = tile.splat %z : tensor<1024x!tile.ptr<f32>>
  %zp = tile.addptr %zs, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  tile.store %zp, %w, %mask : tensor<1024x!tile.ptr<f32>>
  return
}

// -----

// Unknown alignment: one element per thread. A row sum gives a slice of the
// loaded layout, and expand_dims takes a slice of its result's.
// CHECK: #[[$ROWS:blocked[0-9]*]] = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
// CHECK: #[[$COLUMN:blocked[0-9]*]] = #tile.blocked<{{.*}}>
// CHECK: #[[$SUMS:slice[0-9]*]] = #tile.slice<{dim = 1, parent = #[[$ROWS]]}>
// CHECK: #[[$EXPAND:slice[0-9]*]] = #tile.slice<{dim = 1, parent = #[[$COLUMN]]}>
// CHECK-LABEL: func.func @row_sums
// CHECK: %[[X:.*]] = tile.load %{{.*}} : tensor<32x64x!tile.ptr<f32>, #[[$ROWS]]>
// CHECK: tile.reduce(%[[X]]) axis = 1 : (tensor<32x64xf32, #[[$ROWS]]>) -> tensor<32xf32, #[[$SUMS]]>
// CHECK: tile.expand_dims %{{.*}} {axis = 1 : i32} : tensor<32xf32, #[[$EXPAND]]> -> tensor<32x1xf32, #[[$COLUMN]]>
func.func @row_sums(%p: tensor<32x64x!tile.ptr<f32>>, %q: tensor<32x1x!tile.ptr<f32>>) {
  %x = tile.load %p : tensor<32x64x!tile.ptr<f32>>
  %s = tile.reduce(%x) axis = 1 : (tensor<32x64xf32>) -> tensor<32xf32> {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    tile.reduce.return %r : f32
  }
  %e = tile.expand_dims %s {axis = 1 : i32} : tensor<32xf32> -> tensor<32x1xf32>
  tile.store %q, %e : tensor<32x1x!tile.ptr<f32>>
  return
}

// -----

// A dot on the CUDA cores computes its result in tiles of 2x4 a thread (its
// share of 32x32, as square as it goes); its operands take dot_operand
// layouts of that; a loop carries the accumulator in it.
// CHECK: #[[$ACCL:blocked[0-9]*]] = #tile.blocked<{sizePerThread = [2, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK: #[[$A:dot_op[0-9]*]] = #tile.dot_operand<{opIdx = 0, parent = #[[$ACCL]], kWidth = 0}>
// CHECK: #[[$B:dot_op[0-9]*]] = #tile.dot_operand<{opIdx = 1, parent = #[[$ACCL]], kWidth = 0}>
// CHECK-LABEL: func.func @dot_in_loop
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<32x32xf32, #[[$ACCL]]>)
// CHECK-DAG: %[[X:.*]] = tile.convert_layout %{{.*}} -> tensor<32x16xf16, #[[$A]]>
// CHECK-DAG: %[[Y:.*]] = tile.convert_layout %{{.*}} -> tensor<16x32xf16, #[[$B]]>
// CHECK: tile.dot %[[X]], %[[Y]], %[[ACC]] : {{.*}} -> tensor<32x32xf32, #[[$ACCL]]>
// CHECK: scf.yield %{{.*}} : tensor<32x32xf32, #[[$ACCL]]>
func.func @dot_in_loop(%a: tensor<32x16x!tile.ptr<f16>>, %b: tensor<16x32x!tile.ptr<f16>>,
                       %c: tensor<32x32x!tile.ptr<f32>>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<32x32xf32>) : i32 {
    %x = tile.load %a : tensor<32x16x!tile.ptr<f16>>
    %y = tile.load %b : tensor<16x32x!tile.ptr<f16>>
    %d = tile.dot %x, %y, %acc_i : tensor<32x16xf16> * tensor<16x32xf16> -> tensor<32x32xf32>
    scf.yield %d : tensor<32x32xf32>
  }
  tile.store %c, %acc : tensor<32x32x!tile.ptr<f32>>
  return
}

// -----

// The module's warp size and warps are used (64-lane waves here).
// CHECK: #[[$WAVE:blocked[0-9]*]] = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [8], order = [0]}>
// CHECK: module attributes {tile.num_warps = 8 : i32, tile.warp_size = 64 : i32}
// CHECK-LABEL: func.func @wave64
// CHECK: tile.load %{{.*}} : tensor<4096x!tile.ptr<f32>, #[[$WAVE]]>
module attributes {tile.num_warps = 8 : i32, tile.warp_size = 64 : i32} {
  func.func @wave64(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
    %r = tile.make_range 0, 4096 : tensor<4096xi32>
    %xs = tile.splat %x : tensor<4096x!tile.ptr<f32>>
    %p = tile.addptr %xs, %r : tensor<4096x!tile.ptr<f32>>, tensor<4096xi32>
    %v = tile.load %p : tensor<4096x!tile.ptr<f32>>
    tile.store %p, %v : tensor<4096x!tile.ptr<f32>>
    return
  }
}

// -----

// A branch's result has its then-yield's layout; the else-yield is converted.
// CHECK-LABEL: func.func @branch
// CHECK: %[[R:.*]] = scf.if %{{.*}} -> (tensor<128xf32, #[[$L:blocked[0-9]*]]>)
// CHECK: tile.store %{{.*}}, %[[R]] : tensor<128x!tile.ptr<f32>, #[[$L]]>
func.func @branch(%p: tensor<128x!tile.ptr<f32>>, %flag: i1) {
  %v = tile.load %p : tensor<128x!tile.ptr<f32>>
  %r = scf.if %flag -> (tensor<128xf32>) {
    %w = arith.addf %v, %v : tensor<128xf32>
    scf.yield %w : tensor<128xf32>
  } else {
    %z = arith.constant dense<0.0> : tensor<128xf32>
    scf.yield %z : tensor<128xf32>
  }
  tile.store %p, %r : tensor<128x!tile.ptr<f32>>
  return
}

// -----

// An accumulator started from a constant is carried in the layout of the
// loads it sums (8 halves a thread), not the constant's default: the loop
// has no conversion, and the reduction after it takes the carried layout.
// CHECK: #[[$HALF8:blocked[0-9]*]] = #tile.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: func.func @accumulate_loads
// CHECK-NOT: tile.convert_layout
// CHECK: scf.for {{.*}} -> (tensor<1024xf32, #[[$HALF8]]>)
// CHECK-NOT: tile.convert_layout
// CHECK: tile.reduce(%{{.*}}) axis = 0 : (tensor<1024xf32, #[[$HALF8]]>) -> f32
// CHECK-NOT: tile.convert_layout
func.func @accumulate_loads(%x: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                            %out: !tile.ptr<f32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1024 = arith.constant 1024 : i32
  %zero = arith.constant dense<0.0> : tensor<1024xf32>
  %r = tile.make_range 0, 1024 : tensor<1024xi32>
  %xs = tile.splat %x : tensor<1024x!tile.ptr<f16>>
  %acc = scf.for %off = %c0 to %n step %c1024 iter_args(%acc_i = %zero) -> (tensor<1024xf32>) : i32 {
    %offs = tile.splat %off : tensor<1024xi32>
    %cols = arith.addi %offs, %r : tensor<1024xi32>
    %p = tile.addptr %xs, %cols : tensor<1024x!tile.ptr<f16>>, tensor<1024xi32>
    %v = tile.load %p : tensor<1024x!tile.ptr<f16>>
    %f = arith.extf %v : tensor<1024xf16> to tensor<1024xf32>
    %sq = arith.mulf %f, %f : tensor<1024xf32>
    %sum = arith.addf %acc_i, %sq : tensor<1024xf32>
    scf.yield %sum : tensor<1024xf32>
  }
  %total = tile.reduce(%acc) axis = 0 : (tensor<1024xf32>) -> f32 {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.reduce.return %s : f32
  }
  tile.store %out, %total : !tile.ptr<f32>
  return
}

// -----

// Updates computed from loads of two layouts (fp16 and fp32 vectors): the
// accumulator is carried in one of them, and only the other load converts.
// CHECK-LABEL: func.func @two_layouts_compete
// CHECK: scf.for
// CHECK: tile.convert_layout
// CHECK-NOT: tile.convert_layout
// CHECK: scf.yield
func.func @two_layouts_compete(%x: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                               %y: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                               %out: tensor<1024x!tile.ptr<f32>>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<1024xf32>
  %r = tile.make_range 0, 1024 : tensor<1024xi32>
  %xs = tile.splat %x : tensor<1024x!tile.ptr<f16>>
  %ys = tile.splat %y : tensor<1024x!tile.ptr<f32>>
  %px = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f16>>, tensor<1024xi32>
  %py = tile.addptr %ys, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<1024xf32>) : i32 {
    %a = tile.load %px : tensor<1024x!tile.ptr<f16>>
    %b = tile.load %py : tensor<1024x!tile.ptr<f32>>
    %f = arith.extf %a : tensor<1024xf16> to tensor<1024xf32>
    %p = arith.mulf %f, %b : tensor<1024xf32>
    %sum = arith.addf %acc_i, %p : tensor<1024xf32>
    scf.yield %sum : tensor<1024xf32>
  }
  tile.store %out, %acc : tensor<1024x!tile.ptr<f32>>
  return
}
