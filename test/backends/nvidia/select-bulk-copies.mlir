// Which descriptor loads Hopper's TMA copies: those of descriptors made
// from what the host knows at launch (a 16-byte aligned base, shape and
// strides from arguments or constants, strides multiples of 16 bytes),
// two-dimensional blocks of at least 32 bytes per row feeding dots that
// wgmma computes (M a multiple of 64, not chained). Before sm_90a none.
// RUN: tessera-opt %s -split-input-file -tile-nvidia-select-bulk-copies="compute-capability=90 num-warps=4" | FileCheck %s
// RUN: tessera-opt %s -split-input-file -tile-nvidia-select-bulk-copies="compute-capability=80 num-warps=4" | FileCheck %s --check-prefix=SM80
// RUN: tessera-opt %s -split-input-file -tile-nvidia-select-bulk-copies="compute-capability=90 num-warps=2" | FileCheck %s --check-prefix=WARPS2

// SM80-NOT: tile.bulk_copy
// WARPS2-NOT: tile.bulk_copy

// CHECK-LABEL: func.func @matmul
// CHECK: tile.descriptor_load %{{.*}} {tile.bulk_copy}
// CHECK: tile.descriptor_load %{{.*}} {tile.bulk_copy}
// CHECK: tile.dot
func.func @matmul(%pa: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                  %pb: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                  %m: i32, %n: i32, %k: i32,
                  %lda: i32 {tile.divisibility = 16 : i32},
                  %ldb: i64 {tile.divisibility = 16 : i32}, %i: i32)
    -> tensor<128x128xf32> {
  %one = arith.constant 1 : i64
  %lda64 = arith.extsi %lda : i32 to i64
  %da = tile.make_tensor_descriptor %pa, [%m, %k], [%lda64, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<128x64xf16>>
  %db = tile.make_tensor_descriptor %pb, [%k, %n], [%ldb, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x128xf16>>
  %a = tile.descriptor_load %da[%i, %i] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16>
  %b = tile.descriptor_load %db[%i, %i] : !tile.tensordesc<tensor<64x128xf16>> -> tensor<64x128xf16>
  %c = arith.constant dense<0.0> : tensor<128x128xf32>
  %d = tile.dot %a, %b, %c : tensor<128x64xf16> * tensor<64x128xf16> -> tensor<128x128xf32>
  return %d : tensor<128x128xf32>
}

// -----

// Not what the host can describe: a base not known to be aligned, a
// stride computed in the kernel; a block that is not a dot operand; M
// under 64.
// CHECK-LABEL: func.func @unmapped
// CHECK-NOT: tile.bulk_copy
// CHECK: return
func.func @unmapped(%pa: !tile.ptr<f16>,
                    %pb: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                    %m: i32, %k: i32,
                    %lda: i64 {tile.divisibility = 16 : i32}, %i: i32)
    -> (tensor<128x128xf32>, tensor<32x32xf32>, tensor<64x64xf16>) {
  %one = arith.constant 1 : i64
  %da = tile.make_tensor_descriptor %pa, [%m, %k], [%lda, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<128x64xf16>>
  %twice = arith.muli %lda, %lda : i64
  %db = tile.make_tensor_descriptor %pb, [%k, %m], [%twice, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x128xf16>>
  %a = tile.descriptor_load %da[%i, %i] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16>
  %b = tile.descriptor_load %db[%i, %i] : !tile.tensordesc<tensor<64x128xf16>> -> tensor<64x128xf16>
  %c = arith.constant dense<0.0> : tensor<128x128xf32>
  %d = tile.dot %a, %b, %c : tensor<128x64xf16> * tensor<64x128xf16> -> tensor<128x128xf32>
  %ds = tile.make_tensor_descriptor %pb, [%k, %m], [%lda, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<32x32xf16>>
  %s = tile.descriptor_load %ds[%i, %i] : !tile.tensordesc<tensor<32x32xf16>> -> tensor<32x32xf16>
  %cs = arith.constant dense<0.0> : tensor<32x32xf32>
  %small = tile.dot %s, %s, %cs : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
  %dc = tile.make_tensor_descriptor %pb, [%k, %m], [%lda, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x64xf16>>
  %copy = tile.descriptor_load %dc[%i, %i] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
  return %d, %small, %copy : tensor<128x128xf32>, tensor<32x32xf32>, tensor<64x64xf16>
}

// -----

// 8-bit operands: wgmma reads them K-major, so B is copied only when it
// is loaded as N x K and transposed.
// CHECK-LABEL: func.func @fp8
// CHECK: %[[A:.*]] = tile.descriptor_load %{{.*}} {tile.bulk_copy}
// CHECK: %[[BT:.*]] = tile.descriptor_load %{{.*}} {tile.bulk_copy}
// CHECK: %[[BK:.*]] = tile.descriptor_load %{{.*}} :
func.func @fp8(%p: !tile.ptr<f8E4M3FN> {tile.divisibility = 16 : i32},
               %m: i32, %ld: i64 {tile.divisibility = 16 : i32}, %i: i32)
    -> (tensor<128x128xf32>, tensor<128x128xf32>) {
  %one = arith.constant 1 : i64
  %d = tile.make_tensor_descriptor %p, [%m, %m], [%ld, %one] : !tile.ptr<f8E4M3FN> -> !tile.tensordesc<tensor<128x128xf8E4M3FN>>
  %a = tile.descriptor_load %d[%i, %i] : !tile.tensordesc<tensor<128x128xf8E4M3FN>> -> tensor<128x128xf8E4M3FN>
  %bt = tile.descriptor_load %d[%i, %m] : !tile.tensordesc<tensor<128x128xf8E4M3FN>> -> tensor<128x128xf8E4M3FN>
  %bk = tile.descriptor_load %d[%m, %i] : !tile.tensordesc<tensor<128x128xf8E4M3FN>> -> tensor<128x128xf8E4M3FN>
  %b = tile.trans %bt {order = array<i32: 1, 0>} : tensor<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
  %c = arith.constant dense<0.0> : tensor<128x128xf32>
  %d1 = tile.dot %a, %b, %c : tensor<128x128xf8E4M3FN> * tensor<128x128xf8E4M3FN> -> tensor<128x128xf32>
  %d2 = tile.dot %a, %bk, %c : tensor<128x128xf8E4M3FN> * tensor<128x128xf8E4M3FN> -> tensor<128x128xf32>
  return %d1, %d2 : tensor<128x128xf32>, tensor<128x128xf32>
}
