// A loop marked tile.warp_specialize whose operand loads are all TMA copies
// (sm_90a): the kernel becomes a tile.warp_specialize. Before it, S = 3
// buffers per operand, a barrier per buffer for its copies (1 arrival: the
// expect-tx) and one for its readers (the 256 threads of the 8 computing
// warps). The default region is the kernel as it was: its loop waits for
// its buffers' copies with parity (i / 3) & 1, reads them in place and
// then frees the previous iteration's (none in the first); the barriers
// and buffers are released after it. The partition (one warpgroup, 40
// registers; the default region's warps get 232) runs a loop with only
// what the copies need: the program's row and the loop index, no tensors.
// It waits for a buffer to be free (parity ((i / 3) + 1) & 1: the first
// round passes), then expects and issues the copies, with no block
// barrier. A loop whose copies need a value loaded before it is not
// specialized. Where no dot accumulates over the loop, an iteration frees
// its own buffers at its end, after the wait for its dots. Loops marked
// after it whose copies fill the same buffers (causal attention's two)
// are specialized with it: the partition runs their copies one loop after
// the other, and both sides count a later loop's iterations on from the
// earlier ones'. Not where memory is written between them: the later
// loop's copies must not pass that store.
// RUN: tessera-opt %s -tile-nvidia-select-bulk-copies="compute-capability=90 num-warps=8" -tile-lower-descriptors -tile-assign-layouts -tile-nvidia-assign-mma=compute-capability=90 -tile-remove-conversions -canonicalize -cse -tile-nvidia-pipeline=num-stages=3 -canonicalize -cse -tile-nvidia-lower-bulk-copies | FileCheck %s
// RUN: tessera-opt %s -tile-nvidia-select-bulk-copies="compute-capability=90 num-warps=8" -tile-lower-descriptors -tile-assign-layouts -tile-nvidia-assign-mma=compute-capability=90 -tile-remove-conversions -canonicalize -cse -tile-nvidia-pipeline=num-stages=3 -canonicalize -cse -tile-nvidia-lower-bulk-copies -tile-nvidia-async-warpgroup-dots | FileCheck %s --check-prefix=ASYNC
// RUN: tessera-opt %s -tile-nvidia-select-bulk-copies="compute-capability=90 num-warps=8" -tile-lower-descriptors -tile-assign-layouts -tile-nvidia-assign-mma=compute-capability=90 -tile-remove-conversions -canonicalize -cse -tile-nvidia-pipeline=num-stages=3 -canonicalize -cse -tile-nvidia-lower-bulk-copies -tile-nvidia-async-warpgroup-dots -tile-nvidia-fence-async-shared -tile-nvidia-to-llvm | FileCheck %s --check-prefix=LLVM

// CHECK-LABEL: func.func @matmul
// CHECK: %[[A:.*]] = tile.local_alloc : () -> !tile.memdesc<3x128x64xf16
// CHECK: %[[B:.*]] = tile.local_alloc : () -> !tile.memdesc<3x64x256xf16
// CHECK: %[[FULL:.*]] = tile.local_alloc : () -> !tile.memdesc<3x1xi64
// CHECK-COUNT-3: tile_nvidia.init_barrier %{{.*}}, 1 :
// CHECK: %[[FREE:.*]] = tile.local_alloc : () -> !tile.memdesc<3x1xi64
// CHECK-COUNT-3: tile_nvidia.init_barrier %{{.*}}, 256 :
// CHECK: tile.warp_specialize {default_num_regs = 232 : i32, partition_num_regs = array<i32: 40>, partition_num_warps = array<i32: 4>} default {
// CHECK-NOT: tile.program_id
// CHECK: scf.for %[[I:[a-z0-9]+]] =
// CHECK: %[[ITER:.*]] = arith.divsi %[[I]], %c64_i32
// CHECK: %[[SLOT:.*]] = arith.remsi %[[ITER]], %c3_i32
// CHECK: %[[ROUND:.*]] = arith.divsi %[[ITER]], %c3_i32
// CHECK: %[[PHASE:.*]] = arith.andi %[[ROUND]], %c1_i32
// CHECK: %[[BAR:.*]] = tile.memdesc_index %[[FULL]][%[[SLOT]]]
// CHECK: tile_nvidia.wait_barrier %[[BAR]], %[[PHASE]]
// CHECK: tile.memdesc_index %[[A]][%[[SLOT]]]
// CHECK: tile.memdesc_index %[[B]][%[[SLOT]]]
// CHECK: tile_nvidia.warpgroup_dot
// CHECK: %[[AHEAD:.*]] = arith.addi %[[ITER]], %c2_i32
// CHECK: %[[PREVIOUS:.*]] = arith.remsi %[[AHEAD]], %c3_i32
// CHECK: %[[LATER:.*]] = arith.cmpi ne, %[[ITER]], %c0_i32
// CHECK: %[[DONE:.*]] = tile.memdesc_index %[[FREE]][%[[PREVIOUS]]]
// CHECK: tile_nvidia.arrive_barrier %[[DONE]], 1, %[[LATER]]
// CHECK: scf.yield
// CHECK-COUNT-3: tile_nvidia.inval_barrier
// CHECK: tile.local_dealloc %[[FULL]]
// CHECK-COUNT-3: tile_nvidia.inval_barrier
// CHECK: tile.local_dealloc %[[FREE]]
// CHECK: tile.store
// CHECK: } partitions {
// CHECK-NEXT: tile.program_id x
// CHECK-NEXT: %[[ROW:.*]] = arith.muli
// CHECK-NEXT: scf.for %[[J:[a-z0-9]+]] = %c0_i32 to %{{.*}} step %c64_i32 : i32 {
// CHECK-NOT: tensor<
// CHECK: %[[JTER:.*]] = arith.divsi %[[J]], %c64_i32
// CHECK: %[[JSLOT:.*]] = arith.remsi %[[JTER]], %c3_i32
// CHECK: %[[JROUND:.*]] = arith.divsi %[[JTER]], %c3_i32
// CHECK: %[[NEXT:.*]] = arith.addi %[[JROUND]], %c1_i32
// CHECK: %[[FREEPHASE:.*]] = arith.andi %[[NEXT]], %c1_i32
// CHECK: %[[EMPTY:.*]] = tile.memdesc_index %[[FREE]][%[[JSLOT]]]
// CHECK: tile_nvidia.wait_barrier %[[EMPTY]], %[[FREEPHASE]]
// CHECK-NOT: tile.barrier
// CHECK: %[[LANDED:.*]] = tile.memdesc_index %[[FULL]][%[[JSLOT]]]
// CHECK: tile_nvidia.barrier_expect %[[LANDED]], 49152, %true
// CHECK: tile_nvidia.async_tma_copy_global_to_local %{{.*}}[%[[ROW]], %[[J]]]
// CHECK: tile_nvidia.async_tma_copy_global_to_local
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: return

// CHECK-LABEL: func.func @loaded_row
// CHECK-NOT: tile.warp_specialize
// CHECK: tile.barrier
// CHECK: tile_nvidia.barrier_expect

// CHECK-LABEL: func.func @fresh_each_iteration
// CHECK: tile.warp_specialize
// CHECK: scf.for %[[K:[a-z0-9]+]] =
// CHECK: %[[KTER:.*]] = arith.divsi %[[K]], %c64_i32
// CHECK: %[[KSLOT:.*]] = arith.remsi %[[KTER]], %c3_i32
// CHECK: tile_nvidia.warpgroup_dot
// CHECK-NEXT: %[[OWN:.*]] = tile.memdesc_index %{{.*}}[%[[KSLOT]]]
// CHECK-NEXT: tile_nvidia.arrive_barrier %[[OWN]], 1, %true
// CHECK-NEXT: scf.yield
// CHECK-LABEL: func.func @two_loops
// CHECK-COUNT-4: tile.local_alloc
// CHECK-NOT: tile.local_alloc
// CHECK: tile.warp_specialize
// CHECK: scf.for %[[I:[a-z0-9]+]] = %c0_i32 to %[[SPLIT:[a-z0-9]+]] step
// CHECK: %[[ITER:.*]] = arith.divsi %[[I]], %c64_i32
// CHECK: arith.remsi %[[ITER]], %c3_i32
// CHECK: tile_nvidia.arrive_barrier
// CHECK: } {tile.warp_specialize}
// CHECK: %[[SPAN:.*]] = arith.maxsi %[[SPLIT]], %c0_i32
// CHECK: %[[ROUNDED:.*]] = arith.addi %[[SPAN]], %c63_i32
// CHECK: %[[DONE:.*]] = arith.divsi %[[ROUNDED]], %c64_i32
// CHECK: scf.for %[[J:[a-z0-9]+]] = %[[SPLIT]] to
// CHECK: %[[FROM:.*]] = arith.subi %[[J]], %[[SPLIT]]
// CHECK: %[[OWNITER:.*]] = arith.divsi %[[FROM]], %c64_i32
// CHECK: %[[JTER:.*]] = arith.addi %[[OWNITER]], %[[DONE]]
// CHECK: %[[JSLOT:.*]] = arith.remsi %[[JTER]], %c3_i32
// CHECK: tile_nvidia.wait_barrier
// CHECK: tile_nvidia.warpgroup_dot
// CHECK: tile.memdesc_index %{{.*}}[%[[JSLOT]]]
// CHECK-NEXT: tile_nvidia.arrive_barrier
// CHECK: } {tile.warp_specialize}
// CHECK-COUNT-6: tile_nvidia.inval_barrier
// CHECK: } partitions {
// CHECK: scf.for %{{.*}} = %c0_i32 to %[[SPLIT]]
// CHECK: tile_nvidia.wait_barrier
// CHECK-COUNT-2: tile_nvidia.async_tma_copy_global_to_local
// CHECK: arith.maxsi %[[SPLIT]], %c0_i32
// CHECK: %[[CDONE:.*]] = arith.divsi
// CHECK: scf.for %[[K:[a-z0-9]+]] = %[[SPLIT]] to
// CHECK: %[[KFROM:.*]] = arith.subi %[[K]], %[[SPLIT]]
// CHECK: %[[KOWN:.*]] = arith.divsi %[[KFROM]], %c64_i32
// CHECK: arith.addi %[[KOWN]], %[[CDONE]]
// CHECK: tile_nvidia.wait_barrier
// CHECK-COUNT-2: tile_nvidia.async_tma_copy_global_to_local
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: return
// CHECK-LABEL: func.func @store_between
// CHECK: tile.warp_specialize
// CHECK: tile_nvidia.async_tma_copy_local_to_global
// CHECK: tile_nvidia.async_tma_copy_global_to_local
// CHECK: } partitions {
// CHECK: scf.for
// CHECK-NOT: scf.for
// CHECK: return
// ASYNC-LABEL: func.func @fresh_each_iteration
// ASYNC: tile_nvidia.warpgroup_dot {{.*}} {isAsync}
// ASYNC: tile_nvidia.warpgroup_dot_wait %{{.*}} {pendings = 0 : i32}
// ASYNC-NEXT: tile_nvidia.arrive_barrier %{{.*}}, 1, %true
// ASYNC-NEXT: scf.yield

// The block launches 12 warps; the default region's barriers are barrier 1
// over its 256 threads, the copies come from the partition's first thread.
// LLVM-LABEL: llvm.func @matmul
// LLVM-SAME: nvvm.reqntid = array<i32: 384, 1, 1>
// LLVM: nvvm.read.ptx.sreg.tid.x
// LLVM: llvm.icmp "ult" %{{.*}}, %{{.*}} : i32
// LLVM: setmaxnreg.inc.sync.aligned.u32 232;
// LLVM: wgmma.wait_group.sync.aligned
// LLVM: mbarrier.arrive.shared::cta.b64
// LLVM: bar.sync 1, 256;
// LLVM: setmaxnreg.dec.sync.aligned.u32 40;
// LLVM: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// LLVM: %[[OWN:.*]] = llvm.sub %[[TID]], %{{.*}} : i32
// LLVM: llvm.icmp "eq" %[[OWN]]
// LLVM: mbarrier.arrive.expect_tx.shared::cta.b64 _, [$1], 49152
module attributes {tile.num_warps = 8 : i32} {
  func.func @matmul(%pa: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                    %pb: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                    %pc: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                    %m: i32, %n: i32, %k: i32,
                    %lda: i64 {tile.divisibility = 16 : i32}) {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %one = arith.constant 1 : i64
    %ldb = arith.constant 512 : i64
    %pid = tile.program_id x
    %row = arith.muli %pid, %c64 : i32
    %da = tile.make_tensor_descriptor %pa, [%m, %k], [%lda, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<128x64xf16>>
    %db = tile.make_tensor_descriptor %pb, [%k, %n], [%ldb, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x256xf16>>
    %zero = arith.constant dense<0.0> : tensor<128x256xf32>
    %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%c = %zero) -> (tensor<128x256xf32>) : i32 {
      %a = tile.descriptor_load %da[%row, %kk] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16>
      %b = tile.descriptor_load %db[%kk, %c0] : !tile.tensordesc<tensor<64x256xf16>> -> tensor<64x256xf16>
      %d = tile.dot %a, %b, %c : tensor<128x64xf16> * tensor<64x256xf16> -> tensor<128x256xf32>
      scf.yield %d : tensor<128x256xf32>
    } {tile.warp_specialize}
    %rows = tile.make_range 0, 128 : tensor<128xi32>
    %cols = tile.make_range 0, 256 : tensor<256xi32>
    %r = tile.expand_dims %rows {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
    %q = tile.expand_dims %cols {axis = 0 : i32} : tensor<256xi32> -> tensor<1x256xi32>
    %nn = tile.splat %n : tensor<128x1xi32>
    %rn = arith.muli %r, %nn : tensor<128x1xi32>
    %rb = tile.broadcast %rn : tensor<128x1xi32> -> tensor<128x256xi32>
    %qb = tile.broadcast %q : tensor<1x256xi32> -> tensor<128x256xi32>
    %off = arith.addi %rb, %qb : tensor<128x256xi32>
    %base = tile.splat %pc : tensor<128x256x!tile.ptr<f32>>
    %ptrs = tile.addptr %base, %off : tensor<128x256x!tile.ptr<f32>>, tensor<128x256xi32>
    tile.store %ptrs, %acc : tensor<128x256x!tile.ptr<f32>>
    return
  }
  func.func @loaded_row(%pa: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                        %pb: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                        %prow: !tile.ptr<i32>, %m: i32, %n: i32, %k: i32) {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %one = arith.constant 1 : i64
    %ld = arith.constant 512 : i64
    %row = tile.load %prow : !tile.ptr<i32>
    %da = tile.make_tensor_descriptor %pa, [%m, %k], [%ld, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<128x64xf16>>
    %db = tile.make_tensor_descriptor %pb, [%k, %n], [%ld, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x256xf16>>
    %zero = arith.constant dense<0.0> : tensor<128x256xf32>
    %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%c = %zero) -> (tensor<128x256xf32>) : i32 {
      %a = tile.descriptor_load %da[%row, %kk] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16>
      %b = tile.descriptor_load %db[%kk, %c0] : !tile.tensordesc<tensor<64x256xf16>> -> tensor<64x256xf16>
      %d = tile.dot %a, %b, %c : tensor<128x64xf16> * tensor<64x256xf16> -> tensor<128x256xf32>
      scf.yield %d : tensor<128x256xf32>
    } {tile.warp_specialize}
    %h = arith.truncf %acc : tensor<128x256xf32> to tensor<128x256xf16>
    %dc = tile.make_tensor_descriptor %pa, [%m, %n], [%ld, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<128x256xf16>>
    tile.descriptor_store %dc[%c0, %c0], %h : !tile.tensordesc<tensor<128x256xf16>>, tensor<128x256xf16>
    return
  }
  func.func @fresh_each_iteration(%pa: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                                  %pb: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                                  %m: i32, %n: i32, %k: i32) {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %one = arith.constant 1 : i64
    %ld = arith.constant 512 : i64
    %da = tile.make_tensor_descriptor %pa, [%m, %k], [%ld, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<128x64xf16>>
    %db = tile.make_tensor_descriptor %pb, [%k, %n], [%ld, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x256xf16>>
    %zero = arith.constant dense<0.0> : tensor<128x256xf32>
    %last = scf.for %kk = %c0 to %k step %c64 iter_args(%c = %zero) -> (tensor<128x256xf32>) : i32 {
      %a = tile.descriptor_load %da[%c0, %kk] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16>
      %b = tile.descriptor_load %db[%kk, %c0] : !tile.tensordesc<tensor<64x256xf16>> -> tensor<64x256xf16>
      %d = tile.dot %a, %b, %zero : tensor<128x64xf16> * tensor<64x256xf16> -> tensor<128x256xf32>
      scf.yield %d : tensor<128x256xf32>
    } {tile.warp_specialize}
    %h = arith.truncf %last : tensor<128x256xf32> to tensor<128x256xf16>
    %dc = tile.make_tensor_descriptor %pa, [%m, %n], [%ld, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<128x256xf16>>
    tile.descriptor_store %dc[%c0, %c0], %h : !tile.tensordesc<tensor<128x256xf16>>, tensor<128x256xf16>
    return
  }
  func.func @two_loops(%pa: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                       %pb: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                       %m: i32, %n: i32, %k: i32, %split: i32) {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %one = arith.constant 1 : i64
    %ld = arith.constant 512 : i64
    %da = tile.make_tensor_descriptor %pa, [%m, %k], [%ld, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<128x64xf16>>
    %db = tile.make_tensor_descriptor %pb, [%k, %n], [%ld, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x256xf16>>
    %zero = arith.constant dense<0.0> : tensor<128x256xf32>
    %first = scf.for %kk = %c0 to %split step %c64 iter_args(%c = %zero) -> (tensor<128x256xf32>) : i32 {
      %a = tile.descriptor_load %da[%c0, %kk] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16>
      %b = tile.descriptor_load %db[%kk, %c0] : !tile.tensordesc<tensor<64x256xf16>> -> tensor<64x256xf16>
      %d = tile.dot %a, %b, %zero : tensor<128x64xf16> * tensor<64x256xf16> -> tensor<128x256xf32>
      %s = arith.addf %d, %c : tensor<128x256xf32>
      scf.yield %s : tensor<128x256xf32>
    } {tile.warp_specialize}
    %hi = arith.addi %split, %c64 : i32
    %second = scf.for %kk = %split to %hi step %c64 iter_args(%c = %first) -> (tensor<128x256xf32>) : i32 {
      %a = tile.descriptor_load %da[%c0, %kk] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16>
      %b = tile.descriptor_load %db[%kk, %c0] : !tile.tensordesc<tensor<64x256xf16>> -> tensor<64x256xf16>
      %d = tile.dot %a, %b, %zero : tensor<128x64xf16> * tensor<64x256xf16> -> tensor<128x256xf32>
      %s = arith.mulf %d, %c : tensor<128x256xf32>
      scf.yield %s : tensor<128x256xf32>
    } {tile.warp_specialize}
    %h = arith.truncf %second : tensor<128x256xf32> to tensor<128x256xf16>
    %dc = tile.make_tensor_descriptor %pa, [%m, %n], [%ld, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<128x256xf16>>
    tile.descriptor_store %dc[%c0, %c0], %h : !tile.tensordesc<tensor<128x256xf16>>, tensor<128x256xf16>
    return
  }
  func.func @store_between(%pa: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                       %pb: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                       %m: i32, %n: i32, %k: i32, %split: i32) {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %one = arith.constant 1 : i64
    %ld = arith.constant 512 : i64
    %da = tile.make_tensor_descriptor %pa, [%m, %k], [%ld, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<128x64xf16>>
    %db = tile.make_tensor_descriptor %pb, [%k, %n], [%ld, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x256xf16>>
    %zero = arith.constant dense<0.0> : tensor<128x256xf32>
    %first = scf.for %kk = %c0 to %split step %c64 iter_args(%c = %zero) -> (tensor<128x256xf32>) : i32 {
      %a = tile.descriptor_load %da[%c0, %kk] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16>
      %b = tile.descriptor_load %db[%kk, %c0] : !tile.tensordesc<tensor<64x256xf16>> -> tensor<64x256xf16>
      %d = tile.dot %a, %b, %zero : tensor<128x64xf16> * tensor<64x256xf16> -> tensor<128x256xf32>
      %s = arith.addf %d, %c : tensor<128x256xf32>
      scf.yield %s : tensor<128x256xf32>
    } {tile.warp_specialize}
    %hi = arith.addi %split, %c64 : i32
    %early = arith.truncf %first : tensor<128x256xf32> to tensor<128x256xf16>
    %de = tile.make_tensor_descriptor %pb, [%m, %n], [%ld, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<128x256xf16>>
    tile.descriptor_store %de[%c0, %c0], %early : !tile.tensordesc<tensor<128x256xf16>>, tensor<128x256xf16>
    %second = scf.for %kk = %split to %hi step %c64 iter_args(%c = %first) -> (tensor<128x256xf32>) : i32 {
      %a = tile.descriptor_load %da[%c0, %kk] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16>
      %b = tile.descriptor_load %db[%kk, %c0] : !tile.tensordesc<tensor<64x256xf16>> -> tensor<64x256xf16>
      %d = tile.dot %a, %b, %zero : tensor<128x64xf16> * tensor<64x256xf16> -> tensor<128x256xf32>
      %s = arith.mulf %d, %c : tensor<128x256xf32>
      scf.yield %s : tensor<128x256xf32>
    } {tile.warp_specialize}
    %h = arith.truncf %second : tensor<128x256xf32> to tensor<128x256xf16>
    %dc = tile.make_tensor_descriptor %pa, [%m, %n], [%ld, %one] : !tile.ptr<f16> -> !tile.tensordesc<tensor<128x256xf16>>
    tile.descriptor_store %dc[%c0, %c0], %h : !tile.tensordesc<tensor<128x256xf16>>, tensor<128x256xf16>
    return
  }
}
