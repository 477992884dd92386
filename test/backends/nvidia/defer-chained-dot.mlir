// Attention's loop of two chained dots, warp-specialized on sm_90a: its
// buffers come from the copying partition, and nothing in it but dots and
// barriers touches memory. Each iteration's p v then starts in the next
// one, right after that one's q kT: the loop waits for q kT with one dot
// (p v) still in flight, computes the softmax while it runs, and waits for
// it (then frees its buffers) before going round. What p v reads of the
// earlier stage (p, alpha, its buffer's slot) and its induction value are
// carried. Under a check that the loop runs at all, the first iteration's
// q kT and softmax come before it, the last p v after it; else the loop's
// initial values. Where the loop copies its own operands, p v is not
// deferred: a copy could overwrite the buffer it reads. Nor with two
// buffers (TWO): the copies would wait for each iteration's end.
// RUN: tessera-opt %s -tile-nvidia-select-bulk-copies="compute-capability=90 num-warps=8" -tile-lower-descriptors -tile-assign-layouts -tile-nvidia-assign-mma=compute-capability=90 -tile-remove-conversions -canonicalize -cse -tile-nvidia-pipeline=num-stages=3 -canonicalize -cse -tile-nvidia-lower-bulk-copies -tile-nvidia-async-warpgroup-dots | FileCheck %s
// RUN: tessera-opt %s -tile-nvidia-select-bulk-copies="compute-capability=90 num-warps=8" -tile-lower-descriptors -tile-assign-layouts -tile-nvidia-assign-mma=compute-capability=90 -tile-remove-conversions -canonicalize -cse -tile-nvidia-pipeline=num-stages=2 -canonicalize -cse -tile-nvidia-lower-bulk-copies -tile-nvidia-async-warpgroup-dots | FileCheck %s --check-prefix=TWO

// CHECK-LABEL: func.func @attention
// CHECK: %[[Q:.*]] = tile.local_alloc %{{.*}} : (tensor<128x64xf16
// CHECK: %[[RUNS:.*]] = arith.cmpi slt, %c0_i32, %arg4 : i32
// CHECK: %[[R:.*]]:2 = scf.if %[[RUNS]]
// CHECK: tile_nvidia.wait_barrier
// CHECK: %[[S0:.*]] = tile_nvidia.warpgroup_dot %[[Q]], %{{.*}}, %{{.*}} :
// CHECK: math.exp2
// CHECK: %[[P0:.*]] = tile.convert_layout
// CHECK: %[[ALPHA0:.*]] = math.exp2 %{{.*}} : tensor<128xf32
// CHECK: %[[NEXT:.*]] = arith.addi %c0_i32, %c64_i32
// CHECK: %[[L:.*]]:6 = scf.for %[[J:.*]] = %[[NEXT]] to %arg4 step %c64_i32 iter_args(%[[ACC:.*]] = %cst, %[[M:.*]] = %{{.*}}, %[[SLOT:.*]] = %{{.*}}, %[[ALPHA:.*]] = %[[ALPHA0]], %[[P:.*]] = %[[P0]], %[[PREV:.*]] = %c0_i32)
// CHECK: tile_nvidia.wait_barrier
// CHECK: %[[S:.*]] = tile_nvidia.warpgroup_dot %[[Q]], %{{.*}}, %{{.*}} {isAsync}
// CHECK: %[[V:.*]] = tile.memdesc_index %{{.*}}[%[[SLOT]]]
// CHECK: tile.expand_dims %[[ALPHA]]
// CHECK: %[[SCALED:.*]] = arith.mulf %[[ACC]]
// CHECK: %[[O:.*]] = tile_nvidia.warpgroup_dot %[[P]], %[[V]], %[[SCALED]] {isAsync}
// CHECK: %[[FREE:.*]] = tile.memdesc_index %{{.*}}[%[[SLOT]]]
// CHECK: %[[SW:.*]] = tile_nvidia.warpgroup_dot_wait %[[S]] {pendings = 1 : i32}
// CHECK: tile.reduce(%[[SW]])
// CHECK: math.exp2
// CHECK: %[[PN:.*]] = tile.convert_layout
// CHECK: %[[AN:.*]] = math.exp2
// CHECK: %[[OW:.*]] = tile_nvidia.warpgroup_dot_wait %[[O]] {pendings = 0 : i32}
// CHECK-NEXT: tile_nvidia.arrive_barrier %[[FREE]], 1
// CHECK-NEXT: scf.yield %[[OW]], %{{.*}}, %{{.*}}, %[[AN]], %[[PN]], %[[J]]
// CHECK: %[[ACCW:.*]] = tile_nvidia.warpgroup_dot_wait %[[L]]#0 {pendings = 0 : i32}
// CHECK: %[[LASTV:.*]] = tile.memdesc_index %{{.*}}[%[[L]]#2]
// CHECK: tile.expand_dims %[[L]]#3
// CHECK: %[[LASTSCALED:.*]] = arith.mulf %[[ACCW]]
// CHECK: %[[LAST:.*]] = tile_nvidia.warpgroup_dot %[[L]]#4, %[[LASTV]], %[[LASTSCALED]] :
// CHECK: tile_nvidia.arrive_barrier
// CHECK: scf.yield %[[LAST]], %[[L]]#1
// CHECK: } else {
// CHECK-NEXT: scf.yield %cst, %cst_0
// CHECK: } partitions {

// TWO-LABEL: func.func @attention
// TWO-NOT: scf.if
// TWO: scf.for
// TWO: tile_nvidia.warpgroup_dot_wait %{{.*}} {pendings = 0 : i32}
// TWO: tile_nvidia.warpgroup_dot_wait %{{.*}} {pendings = 0 : i32}
// TWO: scf.yield

// CHECK-LABEL: func.func @copies_in_the_loop
// CHECK-NOT: scf.if
// CHECK: scf.for
// CHECK: tile_nvidia.warpgroup_dot_wait %{{.*}} {pendings = 0 : i32}
// CHECK: tile_nvidia.warpgroup_dot_wait %{{.*}} {pendings = 0 : i32}
// CHECK: scf.yield
module attributes {tile.num_warps = 8 : i32} {
  func.func @attention(%pq: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                       %pk: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                       %pv: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                       %po: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                       %n: i32) {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %one = arith.constant 1 : i64
    %ld = arith.constant 64 : i64
    %dq = tile.make_tensor_descriptor %pq, [%n, %c64], [%ld, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<128x64xf16>>
    %dk = tile.make_tensor_descriptor %pk, [%n, %c64], [%ld, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x64xf16>>
    %dv = tile.make_tensor_descriptor %pv, [%n, %c64], [%ld, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x64xf16>>
    %q = tile.descriptor_load %dq[%c0, %c0] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16>
    %zero = arith.constant dense<0.0> : tensor<128x64xf32>
    %m0 = arith.constant dense<0xFF800000> : tensor<128xf32>
    %acc, %m = scf.for %j = %c0 to %n step %c64 iter_args(%acc_i = %zero, %m_i = %m0) -> (tensor<128x64xf32>, tensor<128xf32>) : i32 {
      %k = tile.descriptor_load %dk[%j, %c0] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
      %kt = tile.trans %k {order = array<i32: 1, 0>} : tensor<64x64xf16> -> tensor<64x64xf16>
      %qk = tile.dot %q, %kt, %zero : tensor<128x64xf16> * tensor<64x64xf16> -> tensor<128x64xf32>
      %top = tile.reduce(%qk) axis = 1 : (tensor<128x64xf32>) -> tensor<128xf32> {
      ^bb0(%x: f32, %y: f32):
        %r = arith.maxnumf %x, %y : f32
        tile.reduce.return %r : f32
      }
      %m_ij = arith.maxnumf %m_i, %top : tensor<128xf32>
      %m1 = tile.expand_dims %m_ij {axis = 1 : i32} : tensor<128xf32> -> tensor<128x1xf32>
      %mb = tile.broadcast %m1 : tensor<128x1xf32> -> tensor<128x64xf32>
      %centred = arith.subf %qk, %mb : tensor<128x64xf32>
      %p = math.exp2 %centred : tensor<128x64xf32>
      %drop = arith.subf %m_i, %m_ij : tensor<128xf32>
      %alpha = math.exp2 %drop : tensor<128xf32>
      %a1 = tile.expand_dims %alpha {axis = 1 : i32} : tensor<128xf32> -> tensor<128x1xf32>
      %ab = tile.broadcast %a1 : tensor<128x1xf32> -> tensor<128x64xf32>
      %scaled = arith.mulf %acc_i, %ab : tensor<128x64xf32>
      %v = tile.descriptor_load %dv[%j, %c0] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
      %p16 = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xf16>
      %next = tile.dot %p16, %v, %scaled : tensor<128x64xf16> * tensor<64x64xf16> -> tensor<128x64xf32>
      scf.yield %next, %m_ij : tensor<128x64xf32>, tensor<128xf32>
    } {tile.warp_specialize}
    %h = arith.truncf %acc : tensor<128x64xf32> to tensor<128x64xf16>
    %do = tile.make_tensor_descriptor %po, [%n, %c64], [%ld, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<128x64xf16>>
    tile.descriptor_store %do[%c0, %c0], %h : !tile.tensordesc<tensor<128x64xf16>>, tensor<128x64xf16>
    return
  }
  func.func @copies_in_the_loop(%pq: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                       %pk: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                       %pv: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                       %po: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                       %n: i32) {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %one = arith.constant 1 : i64
    %ld = arith.constant 64 : i64
    %dq = tile.make_tensor_descriptor %pq, [%n, %c64], [%ld, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<128x64xf16>>
    %dk = tile.make_tensor_descriptor %pk, [%n, %c64], [%ld, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x64xf16>>
    %dv = tile.make_tensor_descriptor %pv, [%n, %c64], [%ld, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x64xf16>>
    %q = tile.descriptor_load %dq[%c0, %c0] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16>
    %zero = arith.constant dense<0.0> : tensor<128x64xf32>
    %m0 = arith.constant dense<0xFF800000> : tensor<128xf32>
    %acc, %m = scf.for %j = %c0 to %n step %c64 iter_args(%acc_i = %zero, %m_i = %m0) -> (tensor<128x64xf32>, tensor<128xf32>) : i32 {
      %k = tile.descriptor_load %dk[%j, %c0] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
      %kt = tile.trans %k {order = array<i32: 1, 0>} : tensor<64x64xf16> -> tensor<64x64xf16>
      %qk = tile.dot %q, %kt, %zero : tensor<128x64xf16> * tensor<64x64xf16> -> tensor<128x64xf32>
      %top = tile.reduce(%qk) axis = 1 : (tensor<128x64xf32>) -> tensor<128xf32> {
      ^bb0(%x: f32, %y: f32):
        %r = arith.maxnumf %x, %y : f32
        tile.reduce.return %r : f32
      }
      %m_ij = arith.maxnumf %m_i, %top : tensor<128xf32>
      %m1 = tile.expand_dims %m_ij {axis = 1 : i32} : tensor<128xf32> -> tensor<128x1xf32>
      %mb = tile.broadcast %m1 : tensor<128x1xf32> -> tensor<128x64xf32>
      %centred = arith.subf %qk, %mb : tensor<128x64xf32>
      %p = math.exp2 %centred : tensor<128x64xf32>
      %drop = arith.subf %m_i, %m_ij : tensor<128xf32>
      %alpha = math.exp2 %drop : tensor<128xf32>
      %a1 = tile.expand_dims %alpha {axis = 1 : i32} : tensor<128xf32> -> tensor<128x1xf32>
      %ab = tile.broadcast %a1 : tensor<128x1xf32> -> tensor<128x64xf32>
      %scaled = arith.mulf %acc_i, %ab : tensor<128x64xf32>
      %v = tile.descriptor_load %dv[%j, %c0] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
      %p16 = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xf16>
      %next = tile.dot %p16, %v, %scaled : tensor<128x64xf16> * tensor<64x64xf16> -> tensor<128x64xf32>
      scf.yield %next, %m_ij : tensor<128x64xf32>, tensor<128xf32>
    }
    %h = arith.truncf %acc : tensor<128x64xf32> to tensor<128x64xf16>
    %do = tile.make_tensor_descriptor %po, [%n, %c64], [%ld, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<128x64xf16>>
    tile.descriptor_store %do[%c0, %c0], %h : !tile.tensordesc<tensor<128x64xf16>>, tensor<128x64xf16>
    return
  }
}
