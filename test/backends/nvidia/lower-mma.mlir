// Dots in mma layouts become mma.sync, one per 16x8 tile and instruction K.
// RUN: tessera-opt %s -split-input-file -tile-assign-layouts -tile-nvidia-assign-mma=compute-capability=89 -tile-remove-conversions -canonicalize -tile-nvidia-to-llvm | FileCheck %s

// 32x32 f16 with K 32 on 4 warps (2x2): each warp computes a 16x16 part,
// two 16x8 tiles, each over two k16 steps.
// CHECK-LABEL: llvm.func @f16
// CHECK-COUNT-4: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NOT: nvvm.mma.sync
func.func @f16(%a: tensor<32x32x!tile.ptr<f16>>, %c: tensor<32x32x!tile.ptr<f32>>) {
  %x = tile.load %a : tensor<32x32x!tile.ptr<f16>>
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = tile.dot %x, %x, %zero : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
  tile.store %c, %d : tensor<32x32x!tile.ptr<f32>>
  return
}

// -----

// Operands converted through shared memory are read with ldmatrix.x4 where
// the shared layout keeps 16-byte rows (A here, K contiguous).
// CHECK-LABEL: llvm.func @operands_by_ldmatrix
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
func.func @operands_by_ldmatrix(%a: tensor<128x32x!tile.ptr<f16>>,
                                %base: !tile.ptr<f16>,
                                %c: tensor<128x128x!tile.ptr<f32>>) {
  %x = tile.load %a : tensor<128x32x!tile.ptr<f16>>
  // B[k][n] at base + 128 k + n: rows of contiguous N.
  %k = tile.make_range 0, 32 : tensor<32xi32>
  %n = tile.make_range 0, 128 : tensor<128xi32>
  %k1 = tile.expand_dims %k {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %n1 = tile.expand_dims %n {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %width = arith.constant dense<128> : tensor<32x1xi32>
  %rows = arith.muli %k1, %width : tensor<32x1xi32>
  %rowsb = tile.broadcast %rows : tensor<32x1xi32> -> tensor<32x128xi32>
  %colsb = tile.broadcast %n1 : tensor<1x128xi32> -> tensor<32x128xi32>
  %offsets = arith.addi %rowsb, %colsb : tensor<32x128xi32>
  %bases = tile.splat %base : tensor<32x128x!tile.ptr<f16>>
  %b = tile.addptr %bases, %offsets : tensor<32x128x!tile.ptr<f16>>, tensor<32x128xi32>
  %y = tile.load %b : tensor<32x128x!tile.ptr<f16>>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %d = tile.dot %x, %y, %zero : tensor<128x32xf16> * tensor<32x128xf16> -> tensor<128x128xf32>
  tile.store %c, %d : tensor<128x128x!tile.ptr<f32>>
  return
}

// -----

// bf16 (packed in i32), tf32 (m16n8k8), tf32x3 (three products per tile,
// the small parts first), int8 (m16n8k32, wrapping) and fp8 (m16n8k32).
// CHECK-LABEL: llvm.func @types
module attributes {tile.num_warps = 1 : i32} {
// CHECK: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<bf16>{{.*}}k = 16{{.*}} : (i32, i32, f32)
// CHECK: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<tf32>{{.*}}k = 8{{.*}} : (i32, i32, f32)
// CHECK: llvm.and %{{.*}}, %{{.*}} : i32
// CHECK: llvm.fsub
// CHECK-COUNT-3: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<tf32>
// CHECK: nvvm.mma.sync {{.*}}intOverflowBehavior = #nvvm.mma_int_overflow<satfinite>{{.*}}multiplicandAPtxType = #nvvm.mma_type<s8>{{.*}}k = 32{{.*}} : (i32, i32, i32)
// CHECK: llvm.call_intrinsic "llvm.nvvm.mma.m16n8k32.row.col.f32.e4m3.e5m2.f32"({{.*}}) : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
func.func @types(%a: tensor<16x32x!tile.ptr<bf16>>, %b: tensor<32x8x!tile.ptr<bf16>>,
                 %f: tensor<16x8x!tile.ptr<f32>>, %i: tensor<16x32x!tile.ptr<i8>>,
                 %ci: tensor<16x16x!tile.ptr<i32>>, %e: tensor<16x32x!tile.ptr<f8E4M3FN>>,
                 %e5: tensor<32x8x!tile.ptr<f8E5M2>>) {
  %zero = arith.constant dense<0.0> : tensor<16x8xf32>
  %x = tile.load %a : tensor<16x32x!tile.ptr<bf16>>
  %y = tile.load %b : tensor<32x8x!tile.ptr<bf16>>
  %d = tile.dot %x, %y, %zero : tensor<16x32xbf16> * tensor<32x8xbf16> -> tensor<16x8xf32>
  %xf = arith.extf %x : tensor<16x32xbf16> to tensor<16x32xf32>
  %yf = arith.extf %y : tensor<32x8xbf16> to tensor<32x8xf32>
  %t = tile.dot %xf, %yf, %d precision = tf32 : tensor<16x32xf32> * tensor<32x8xf32> -> tensor<16x8xf32>
  %t3 = tile.dot %xf, %yf, %t precision = tf32x3 : tensor<16x32xf32> * tensor<32x8xf32> -> tensor<16x8xf32>
  tile.store %f, %t3 : tensor<16x8x!tile.ptr<f32>>
  %xi = tile.load %i : tensor<16x32x!tile.ptr<i8>>
  %yi = tile.reshape %xi : tensor<16x32xi8> -> tensor<32x16xi8>
  %izero = arith.constant dense<0> : tensor<16x16xi32>
  %di = tile.dot %xi, %yi, %izero : tensor<16x32xi8> * tensor<32x16xi8> -> tensor<16x16xi32>
  tile.store %ci, %di : tensor<16x16x!tile.ptr<i32>>
  %x8 = tile.load %e : tensor<16x32x!tile.ptr<f8E4M3FN>>
  %y8 = tile.load %e5 : tensor<32x8x!tile.ptr<f8E5M2>>
  %d8 = tile.dot %x8, %y8, %zero : tensor<16x32xf8E4M3FN> * tensor<32x8xf8E5M2> -> tensor<16x8xf32>
  tile.store %f, %d8 : tensor<16x8x!tile.ptr<f32>>
  return
}
}
