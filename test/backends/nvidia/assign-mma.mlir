// The matrix-unit stage: dots the tensor cores can compute get mma layouts.
// RUN: tessera-opt %s -split-input-file -tile-assign-layouts -tile-nvidia-assign-mma -tile-remove-conversions -canonicalize -loop-invariant-code-motion | FileCheck %s
// RUN: tessera-opt %s -split-input-file -tile-assign-layouts -tile-nvidia-assign-mma=compute-capability=89 -tile-remove-conversions -canonicalize | FileCheck %s --check-prefix=SM89

// f16 in a loop: operands in dot_operand layouts with kWidth 2, the
// accumulator carried in the mma layout and converted once, after the loop.
// Four warps on a 128x128 result: two along M, two along N.
// CHECK: #[[$MMA:mma[0-9]*]] = #tile_nvidia.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
// CHECK: #[[$A:dot_op[0-9]*]] = #tile.dot_operand<{opIdx = 0, parent = #[[$MMA]], kWidth = 2}>
// CHECK: #[[$B:dot_op[0-9]*]] = #tile.dot_operand<{opIdx = 1, parent = #[[$MMA]], kWidth = 2}>
// CHECK-LABEL: func.func @f16_loop
// CHECK: scf.for {{.*}} -> (tensor<128x128xf32, #[[$MMA]]>)
// CHECK-DAG: %[[X:.*]] = tile.convert_layout %{{.*}} -> tensor<128x32xf16, #[[$A]]>
// CHECK-DAG: %[[Y:.*]] = tile.convert_layout %{{.*}} -> tensor<32x128xf16, #[[$B]]>
// CHECK: %[[D:.*]] = tile.dot %[[X]], %[[Y]], %{{.*}} : {{.*}} -> tensor<128x128xf32, #[[$MMA]]>
// CHECK-NEXT: scf.yield %[[D]]
// CHECK: tile.convert_layout %{{.*}} : tensor<128x128xf32, #[[$MMA]]> -> tensor<128x128xf32, #blocked
func.func @f16_loop(%a: tensor<128x32x!tile.ptr<f16>>, %b: tensor<32x128x!tile.ptr<f16>>,
                    %c: tensor<128x128x!tile.ptr<f32>>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<128x128xf32>) : i32 {
    %x = tile.load %a : tensor<128x32x!tile.ptr<f16>>
    %y = tile.load %b : tensor<32x128x!tile.ptr<f16>>
    %d = tile.dot %x, %y, %acc_i : tensor<128x32xf16> * tensor<32x128xf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %c, %acc : tensor<128x128x!tile.ptr<f32>>
  return
}

// -----

// A wide result puts the warps along N; an f16 result of f16 operands
// accumulates in f16 (as Triton's out_dtype=float16), with no conversion.
// CHECK: #[[$MMA:mma[0-9]*]] = #tile_nvidia.mma<{version = 2, warpsPerCTA = [1, 4], instrShape = [16, 8]}>
// CHECK-LABEL: func.func @f16_accumulator
// CHECK-NOT: arith.extf
// CHECK: %[[D:.*]] = tile.dot %{{.*}}, %{{.*}}, %{{.*}} : {{.*}} -> tensor<16x256xf16, #[[$MMA]]>
// CHECK-NOT: arith.truncf
// CHECK: tile.convert_layout %[[D]] : tensor<16x256xf16, #[[$MMA]]>
func.func @f16_accumulator(%a: tensor<16x16x!tile.ptr<f16>>, %b: tensor<16x256x!tile.ptr<f16>>,
                           %c: tensor<16x256x!tile.ptr<f16>>) {
  %x = tile.load %a : tensor<16x16x!tile.ptr<f16>>
  %y = tile.load %b : tensor<16x256x!tile.ptr<f16>>
  %z = tile.load %c : tensor<16x256x!tile.ptr<f16>>
  %d = tile.dot %x, %y, %z : tensor<16x16xf16> * tensor<16x256xf16> -> tensor<16x256xf16>
  tile.store %c, %d : tensor<16x256x!tile.ptr<f16>>
  return
}

// -----

// fp32 inputs: tf32 (kWidth 1) unless the precision is ieee (the default
// of tile IR; Python kernels ask for tf32 as Triton does), which stays on
// the CUDA cores; int8 packs four per register (kWidth 4).
// CHECK-LABEL: func.func @precisions
// CHECK: tile.dot {{.*}} precision = tf32 : tensor<32x32xf32, #dot_op{{[0-9]*}}> * {{.*}} -> tensor<32x32xf32, #mma
// CHECK: tile.dot {{.*}} : tensor<32x32xf32, #dot_op{{[0-9]*}}> * {{.*}} -> tensor<32x32xf32, #blocked
// CHECK: tile.dot {{.*}} : tensor<32x32xi8, #dot_op{{[0-9]*}}> * {{.*}} -> tensor<32x32xi32, #mma
func.func @precisions(%a: tensor<32x32x!tile.ptr<f32>>, %i: tensor<32x32x!tile.ptr<i8>>,
                      %c: tensor<32x32x!tile.ptr<f32>>, %ci: tensor<32x32x!tile.ptr<i32>>) {
  %x = tile.load %a : tensor<32x32x!tile.ptr<f32>>
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %t = tile.dot %x, %x, %zero precision = tf32 : tensor<32x32xf32> * tensor<32x32xf32> -> tensor<32x32xf32>
  %e = tile.dot %x, %x, %t precision = ieee : tensor<32x32xf32> * tensor<32x32xf32> -> tensor<32x32xf32>
  tile.store %c, %e : tensor<32x32x!tile.ptr<f32>>
  %y = tile.load %i : tensor<32x32x!tile.ptr<i8>>
  %izero = arith.constant dense<0> : tensor<32x32xi32>
  %d = tile.dot %y, %y, %izero : tensor<32x32xi8> * tensor<32x32xi8> -> tensor<32x32xi32>
  tile.store %ci, %d : tensor<32x32x!tile.ptr<i32>>
  return
}

// -----

// fp8 before sm_89 is multiplied as f16; from sm_89 as itself (kWidth 4).
// CHECK-LABEL: func.func @fp8
// CHECK: arith.extf {{.*}} : tensor<32x32xf8E4M3FN, {{.*}}> to tensor<32x32xf16
// CHECK: tile.dot {{.*}} : tensor<32x32xf16, #dot_op
// SM89-LABEL: func.func @fp8
// SM89-NOT: arith.extf
// SM89: tile.dot {{.*}} : tensor<32x32xf8E4M3FN, #dot_op{{[0-9]*}}> * tensor<32x32xf8E5M2, #dot_op
func.func @fp8(%a: tensor<32x32x!tile.ptr<f8E4M3FN>>, %b: tensor<32x32x!tile.ptr<f8E5M2>>,
               %c: tensor<32x32x!tile.ptr<f32>>) {
  %x = tile.load %a : tensor<32x32x!tile.ptr<f8E4M3FN>>
  %y = tile.load %b : tensor<32x32x!tile.ptr<f8E5M2>>
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = tile.dot %x, %y, %zero : tensor<32x32xf8E4M3FN> * tensor<32x32xf8E5M2> -> tensor<32x32xf32>
  tile.store %c, %d : tensor<32x32x!tile.ptr<f32>>
  return
}

// -----

// Too small for an instruction (M < 16), or f64: the CUDA cores.
// CHECK-LABEL: func.func @cuda_cores
// CHECK-NOT: #mma
// CHECK: tile.dot {{.*}} -> tensor<8x32xf32, #blocked
// CHECK: tile.dot {{.*}} -> tensor<32x32xf64, #blocked
func.func @cuda_cores(%a: tensor<8x16x!tile.ptr<f16>>, %b: tensor<16x32x!tile.ptr<f16>>,
                      %c: tensor<8x32x!tile.ptr<f32>>, %d: tensor<32x32x!tile.ptr<f64>>) {
  %x = tile.load %a : tensor<8x16x!tile.ptr<f16>>
  %y = tile.load %b : tensor<16x32x!tile.ptr<f16>>
  %zero = arith.constant dense<0.0> : tensor<8x32xf32>
  %r = tile.dot %x, %y, %zero : tensor<8x16xf16> * tensor<16x32xf16> -> tensor<8x32xf32>
  tile.store %c, %r : tensor<8x32x!tile.ptr<f32>>
  %w = tile.load %d : tensor<32x32x!tile.ptr<f64>>
  %zd = arith.constant dense<0.0> : tensor<32x32xf64>
  %s = tile.dot %w, %w, %zd : tensor<32x32xf64> * tensor<32x32xf64> -> tensor<32x32xf64>
  tile.store %d, %s : tensor<32x32x!tile.ptr<f64>>
  return
}

// -----

// Chained dots (attention: softmax(q·kᵀ)·v) put every warp along M.
// CHECK: #[[$MMA:mma[0-9]*]] = #tile_nvidia.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
// CHECK-LABEL: func.func @chained
// CHECK-COUNT-2: tile.dot {{.*}} -> tensor<64x64xf32, #[[$MMA]]>
func.func @chained(%q: tensor<64x64x!tile.ptr<f16>>, %o: tensor<64x64x!tile.ptr<f32>>) {
  %x = tile.load %q : tensor<64x64x!tile.ptr<f16>>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %s = tile.dot %x, %x, %zero : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
  %p = math.exp %s : tensor<64x64xf32>
  %h = arith.truncf %p : tensor<64x64xf32> to tensor<64x64xf16>
  %r = tile.dot %h, %x, %zero : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
  tile.store %o, %r : tensor<64x64x!tile.ptr<f32>>
  return
}

// -----

// A loop-invariant operand (attention's q) is converted once, before the
// loop; a row factor broadcast onto the accumulator is moved as a vector and
// broadcast in the mma layout.
// CHECK: #[[$MMA:mma[0-9]*]] = #tile_nvidia.mma
// CHECK-LABEL: func.func @rescaled_accumulator
// CHECK: %[[Q:.*]] = tile.convert_layout %{{.*}} -> tensor<64x32xf16, #dot_op
// CHECK: scf.for
// CHECK-NOT: -> tensor<64x32xf16, #dot_op
// CHECK: %[[R:.*]] = tile.broadcast %{{.*}} -> tensor<64x32xf32, #[[$MMA]]>
// CHECK: %[[S:.*]] = arith.mulf %{{.*}}, %[[R]] : tensor<64x32xf32, #[[$MMA]]>
// CHECK: tile.dot %[[Q]], %{{.*}}, %[[S]]
func.func @rescaled_accumulator(%q: tensor<64x32x!tile.ptr<f16>>, %k: tensor<32x32x!tile.ptr<f16>>,
                                %f: tensor<64x!tile.ptr<f32>>, %o: tensor<64x32x!tile.ptr<f32>>,
                                %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %x = tile.load %q : tensor<64x32x!tile.ptr<f16>>
  %zero = arith.constant dense<0.0> : tensor<64x32xf32>
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero) -> (tensor<64x32xf32>) : i32 {
    %y = tile.load %k : tensor<32x32x!tile.ptr<f16>>
    %s = tile.load %f : tensor<64x!tile.ptr<f32>>
    %e = tile.expand_dims %s {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
    %b = tile.broadcast %e : tensor<64x1xf32> -> tensor<64x32xf32>
    %scaled = arith.mulf %a, %b : tensor<64x32xf32>
    %d = tile.dot %x, %y, %scaled : tensor<64x32xf16> * tensor<32x32xf16> -> tensor<64x32xf32>
    scf.yield %d : tensor<64x32xf32>
  }
  tile.store %o, %acc : tensor<64x32x!tile.ptr<f32>>
  return
}
