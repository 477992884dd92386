// RUN: tessera-opt %s -split-input-file -verify-diagnostics

// Every verifier error of the shared-memory type and ops, one case each.

#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

// expected-error @+1 {{the encoding must be a shared-memory layout, got #tile.blocked}}
func.func @distributed_encoding(%m: !tile.memdesc<64x64xf16, #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>>) {
  return
}

// -----

#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

// expected-error @+1 {{dimension 1 of the view (128) exceeds the allocation's (64)}}
func.func @view_too_big(%m: !tile.memdesc<64x128xf16, #shared, 64x64>) {
  return
}

// -----

#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

// expected-error @+1 {{the buffer's dimensions must be powers of two, got 48}}
func.func @odd_buffer(%m: !tile.memdesc<64x48xf16, #shared>) {
  return
}

// -----

#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

// expected-error @+1 {{shared memory holds integers or floats, got '!tile.ptr<f32>'}}
func.func @pointers(%m: !tile.memdesc<64x64x!tile.ptr<f32>, #shared>) {
  return
}

// -----

#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

func.func @immutable_alloc() {
  // expected-error @+1 {{an allocation without a source must be mutable}}
  %a = tile.local_alloc : () -> !tile.memdesc<64x64xf16, #shared>
  return
}

// -----

#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

func.func @alloc_view() {
  // expected-error @+1 {{allocates a whole buffer: the result's shape [64, 32] must be its allocation shape [64, 64]}}
  %a = tile.local_alloc : () -> !tile.memdesc<64x32xf16, #shared, mutable, 64x64>
  return
}

// -----

#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

func.func @alloc_shape(%x: tensor<32x64xf16>) {
  // expected-error @+1 {{the tensor's shape [32, 64] differs from the shared-memory view's [64, 64]}}
  %a = tile.local_alloc %x : (tensor<32x64xf16>) -> !tile.memdesc<64x64xf16, #shared>
  return
}

// -----

#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

func.func @load_element(%m: !tile.memdesc<64x64xf16, #shared>) {
  // expected-error @+1 {{the tensor's elements ('f32') differ from the shared-memory view's ('f16')}}
  %x = tile.local_load %m : !tile.memdesc<64x64xf16, #shared> -> tensor<64x64xf32>
  return
}

// -----

#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

func.func @store_immutable(%m: !tile.memdesc<64x64xf16, #shared>, %x: tensor<64x64xf16>) {
  // expected-error @+1 {{writes an immutable shared-memory buffer}}
  tile.local_store %x, %m : tensor<64x64xf16> -> !tile.memdesc<64x64xf16, #shared>
  return
}

// -----

#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

func.func @dealloc_view(%m: !tile.memdesc<64x64xf16, #shared, mutable>) {
  // expected-error @+1 {{frees a buffer, the result of a tile.local_alloc}}
  tile.local_dealloc %m : !tile.memdesc<64x64xf16, #shared, mutable>
  return
}

// -----

#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

func.func @index_rank(%m: !tile.memdesc<64xf16, #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, mutable>, %i: i32) {
  // expected-error @+1 {{indexes the first of at least two dimensions, the view has 1}}
  %v = tile.memdesc_index %m[%i] : !tile.memdesc<64xf16, #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, mutable> -> !tile.memdesc<64xf16, #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, mutable>
  return
}

// -----

#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

func.func @index_shape(%m: !tile.memdesc<2x64x64xf16, #shared, mutable>, %i: i32) {
  // expected-error @+1 {{result shape [64, 32] should be [64, 64]}}
  %v = tile.memdesc_index %m[%i] : !tile.memdesc<2x64x64xf16, #shared, mutable> -> !tile.memdesc<64x32xf16, #shared, mutable, 2x64x64>
  return
}

// -----

#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

func.func @index_alloc(%m: !tile.memdesc<2x64x64xf16, #shared, mutable>, %i: i32) {
  // expected-error @+1 {{the view must keep the element type, encoding, mutability and allocation shape}}
  %v = tile.memdesc_index %m[%i] : !tile.memdesc<2x64x64xf16, #shared, mutable> -> !tile.memdesc<64x64xf16, #shared, mutable>
  return
}

// -----

#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

func.func @subslice_outside(%m: !tile.memdesc<64x64xf16, #shared>) {
  // expected-error @+1 {{the slice [64, 32] at [0, 48] does not fit in [64, 64]}}
  %v = tile.memdesc_subslice %m [0, 48] : !tile.memdesc<64x64xf16, #shared> -> !tile.memdesc<64x32xf16, #shared, 64x64>
  return
}

// -----

#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

func.func @trans_order(%m: !tile.memdesc<64x32xf16, #shared>) {
  // expected-error @+1 {{order [0, 0] is not a permutation of the operand's 2 dimensions}}
  %v = tile.memdesc_trans %m {order = array<i32: 0, 0>} : !tile.memdesc<64x32xf16, #shared> -> !tile.memdesc<32x64xf16, #shared>
  return
}

// -----

#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

func.func @trans_layout(%m: !tile.memdesc<64x32xf16, #shared>) {
  // expected-error @+1 {{result type should be '!tile.memdesc<32x64xf16, #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>>'}}
  %v = tile.memdesc_trans %m {order = array<i32: 1, 0>} : !tile.memdesc<64x32xf16, #shared> -> !tile.memdesc<32x64xf16, #shared>
  return
}

// -----

#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

func.func @copy_immutable(%p: tensor<64x64x!tile.ptr<f16>>, %m: !tile.memdesc<64x64xf16, #shared>) {
  // expected-error @+1 {{writes an immutable shared-memory buffer}}
  tile.async_copy_global_to_local %p, %m : tensor<64x64x!tile.ptr<f16>> -> !tile.memdesc<64x64xf16, #shared>
  return
}

// -----

#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

func.func @copy_shape(%p: tensor<64x32x!tile.ptr<f16>>, %m: !tile.memdesc<64x64xf16, #shared, mutable>) {
  // expected-error @+1 {{the tensor's shape [64, 32] differs from the shared-memory view's [64, 64]}}
  tile.async_copy_global_to_local %p, %m : tensor<64x32x!tile.ptr<f16>> -> !tile.memdesc<64x64xf16, #shared, mutable>
  return
}

// -----

#shared = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

func.func @negative_wait() {
  // expected-error @+1 {{attribute 'num' failed to satisfy constraint}}
  tile.async_wait {num = -1 : i32}
  return
}

// -----

#plain = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>

func.func @reinterpret_larger(%m: !tile.memdesc<4x8xf16, #plain, mutable>) {
  // expected-error @+1 {{the result (128 bytes) is larger than the buffer (64 bytes)}}
  %v = tile.memdesc_reinterpret %m : !tile.memdesc<4x8xf16, #plain, mutable> -> !tile.memdesc<4x8xf32, #plain, mutable>
  return
}

// -----

#plain = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>

func.func @reinterpret_part(%m: !tile.memdesc<4x4xf32, #plain, mutable, 4x8>) {
  // expected-error @+1 {{reinterprets a whole buffer, not a part of}}
  %v = tile.memdesc_reinterpret %m : !tile.memdesc<4x4xf32, #plain, mutable, 4x8> -> !tile.memdesc<16xf32, #tile.shared_linear<{offset = [[1], [2], [4], [8]], alignment = 16}>, mutable>
  return
}

// -----

// expected-error @+1 {{a shared linear layout puts two elements at one offset}}
func.func @linear_not_injective(%m: !tile.memdesc<4x4xf32, #tile.shared_linear<{offset = [[0, 1], [0, 1], [1, 0], [2, 0]]}>, mutable>) {
  return
}

// -----

// expected-error @+1 {{interval values must all be power of two}}
func.func @padded_interval(%m: !tile.memdesc<4x4xf32, #tile.padded_shared<[6:+2] {offset = [[0, 1], [0, 2], [1, 0], [2, 0]]}>, mutable>) {
  return
}

// -----

// expected-error @+1 {{interval values cannot have duplicates}}
func.func @padded_twice(%m: !tile.memdesc<4x4xf32, #tile.padded_shared<[4:+2, 4:+1] {offset = [[0, 1], [0, 2], [1, 0], [2, 0]]}>, mutable>) {
  return
}

// -----

// expected-error @+1 {{a shared linear layout puts two elements at one offset}}
func.func @padded_broadcast(%m: !tile.memdesc<4x4xf32, #tile.padded_shared<[4:+2] {offset = [[0, 1], [0, 1], [1, 0], [2, 0]]}>, mutable>) {
  return
}

// -----

// Padding counts in the bytes a buffer spans: 16 elements and 15 * 2 of
// padding, 184 bytes.
func.func @padded_reinterpret(%m: !tile.memdesc<4x4xf32, #tile.padded_shared<[1:+2] {offset = [[0, 1], [0, 2], [1, 0], [2, 0]]}>, mutable>) {
  %fits = tile.memdesc_reinterpret %m : !tile.memdesc<4x4xf32, #tile.padded_shared<[1:+2] {offset = [[0, 1], [0, 2], [1, 0], [2, 0]]}>, mutable> -> !tile.memdesc<32xf32, #tile.shared_linear<{offset = [[1], [2], [4], [8], [16]], alignment = 16}>, mutable>
  // expected-error @+1 {{the result (256 bytes) is larger than the buffer (184 bytes)}}
  %big = tile.memdesc_reinterpret %m : !tile.memdesc<4x4xf32, #tile.padded_shared<[1:+2] {offset = [[0, 1], [0, 2], [1, 0], [2, 0]]}>, mutable> -> !tile.memdesc<64xf32, #tile.shared_linear<{offset = [[1], [2], [4], [8], [16], [32]], alignment = 16}>, mutable>
  return
}
