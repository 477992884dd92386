// RUN: tessera-opt %s -split-input-file -verify-diagnostics

// Every verifier error of the tile dialect, one case each.

// expected-error @+1 {{pointee must be an integer, a float or a pointer, got 'tensor<4xf32>'}}
func.func @bad_pointee(%p: !tile.ptr<tensor<4xf32>>) {
  return
}

// -----

// expected-error @+1 {{address space must be non-negative, got -1}}
func.func @bad_address_space(%p: !tile.ptr<f32, -1>) {
  return
}

// -----

func.func @not_power_of_two(%x: f32) {
  // expected-error @+1 {{'tile.splat' op result #0 has dimension 0 of size 3, which is not a power of two}}
  %0 = tile.splat %x : tensor<3xf32>
  return
}

// -----

func.func @not_power_of_two_operand(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{'tile.broadcast' op operand #0 has dimension 1 of size 6, which is not a power of two}}
  %0 = tile.broadcast %x : tensor<4x6xf32> -> tensor<4x6xf32>
  return
}

// -----

func.func @range_rank() {
  // expected-error @+1 {{'tile.make_range' op result must be 1-D, got rank 2}}
  %0 = tile.make_range 0, 16 : tensor<4x4xi32>
  return
}

// -----

func.func @range_empty() {
  // expected-error @+1 {{'tile.make_range' op start 16 must be less than end 16}}
  %0 = tile.make_range 16, 16 : tensor<16xi32>
  return
}

// -----

func.func @range_size() {
  // expected-error @+1 {{'tile.make_range' op result has 16 elements but the range [0, 32) has 32}}
  %0 = tile.make_range 0, 32 : tensor<16xi32>
  return
}

// -----

func.func @range_type() {
  // expected-error @+1 {{'tile.make_range' op result #0 must be ranked tensor of 32-bit signless integer values, but got 'tensor<16xi64>'}}
  %0 = tile.make_range 0, 16 : tensor<16xi64>
  return
}

// -----

func.func @splat_elem(%x: f32) {
  // expected-error @+1 {{'tile.splat' op failed to verify that result element type matches the operand type}}
  %0 = "tile.splat"(%x) : (f32) -> tensor<4xf16>
  return
}

// -----

func.func @splat_tensor(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tile.splat' op operand #0 must be signless integer or floating-point or tile pointer, but got 'tensor<4xf32>'}}
  %0 = "tile.splat"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @broadcast_rank(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tile.broadcast' op operand of rank 1 cannot broadcast to rank 2; use tile.expand_dims first}}
  %0 = tile.broadcast %x : tensor<4xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @broadcast_dim(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'tile.broadcast' op dimension 0 of the operand has size 2, which is neither 1 nor the result's 4}}
  %0 = tile.broadcast %x : tensor<2x4xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @broadcast_elem(%x: tensor<1x4xf32>) {
  // expected-error @+1 {{'tile.broadcast' op requires the same element type for all operands and results}}
  %0 = tile.broadcast %x : tensor<1x4xf32> -> tensor<4x4xf16>
  return
}

// -----

func.func @expand_axis(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tile.expand_dims' op axis 2 is out of range for an operand of rank 1 (expected 0 to 1)}}
  %0 = tile.expand_dims %x {axis = 2 : i32} : tensor<4xf32> -> tensor<4x1xf32>
  return
}

// -----

func.func @expand_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tile.expand_dims' op result shape [4, 1] should be [1, 4]}}
  %0 = tile.expand_dims %x {axis = 0 : i32} : tensor<4xf32> -> tensor<4x1xf32>
  return
}

// -----

func.func @reshape_count(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{'tile.reshape' op operand has 16 elements but the result has 32}}
  %0 = tile.reshape %x : tensor<4x4xf32> -> tensor<32xf32>
  return
}

// -----

func.func @trans_size(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tile.trans' op order has length 1 but the operand has rank 2}}
  %0 = tile.trans %x {order = array<i32: 0>} : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @trans_perm(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tile.trans' op order [1, 1] is not a permutation of the operand's 2 dimensions}}
  %0 = tile.trans %x {order = array<i32: 1, 1>} : tensor<4x8xf32> -> tensor<8x4xf32>
  return
}

// -----

func.func @trans_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tile.trans' op result shape [4, 8] should be [8, 4]}}
  %0 = tile.trans %x {order = array<i32: 1, 0>} : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @cat_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tile.cat' op result shape [4, 16] should be [8, 8]}}
  %0 = tile.cat %x, %x : tensor<4x8xf32> -> tensor<4x16xf32>
  return
}

// -----

func.func @cat_types(%x: tensor<4xf32>, %y: tensor<8xf32>) {
  // expected-error @+1 {{'tile.cat' op requires all operands to have the same type}}
  %0 = "tile.cat"(%x, %y) : (tensor<4xf32>, tensor<8xf32>) -> tensor<16xf32>
  return
}

// -----

func.func @join_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tile.join' op result shape [2, 4] should be [4, 2]}}
  %0 = tile.join %x, %x : tensor<4xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @split_last(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{'tile.split' op the last dimension of the operand must have size 2, got 4}}
  %0:2 = tile.split %x : tensor<4x4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @split_shape(%x: tensor<4x2xf32>) {
  // expected-error @+1 {{'tile.split' op result shape [2] should be [4]}}
  %0:2 = tile.split %x : tensor<4x2xf32> -> tensor<2xf32>
  return
}

// -----

func.func @split_elem(%x: tensor<4x2xf32>) {
  // expected-error @+1 {{'tile.split' op result element type must match the operand's}}
  %0:2 = tile.split %x : tensor<4x2xf32> -> tensor<4xf16>
  return
}

// -----

func.func @addptr_shape(%p: tensor<4x!tile.ptr<f32>>, %o: tensor<8xi32>) {
  // expected-error @+1 {{'tile.addptr' op offset shape [8] must match the pointer shape [4]}}
  %0 = tile.addptr %p, %o : tensor<4x!tile.ptr<f32>>, tensor<8xi32>
  return
}

// -----

func.func @addptr_scalar_offset(%p: tensor<4x!tile.ptr<f32>>, %o: i32) {
  // expected-error @+1 {{'tile.addptr' op offset shape [] must match the pointer shape [4]}}
  %0 = tile.addptr %p, %o : tensor<4x!tile.ptr<f32>>, i32
  return
}

// -----

func.func @addptr_float(%p: !tile.ptr<f32>, %o: f32) {
  // expected-error @+1 {{'tile.addptr' op operand #1 must be integer or tensor of integers, but got 'f32'}}
  %0 = tile.addptr %p, %o : !tile.ptr<f32>, f32
  return
}

// -----

func.func @load_not_ptr(%p: tensor<4xi64>) {
  // expected-error @+1 {{'tile.load' op operand #0 must be pointer or tensor of pointers, but got 'tensor<4xi64>'}}
  %0 = "tile.load"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<4xi64>) -> tensor<4xi64>
  return
}

// -----

func.func @load_other_no_mask(%p: tensor<4x!tile.ptr<f32>>, %o: tensor<4xf32>) {
  // expected-error @+1 {{'tile.load' op 'other' is only meaningful with a mask}}
  %0 = "tile.load"(%p, %o) <{operandSegmentSizes = array<i32: 1, 0, 1>}> : (tensor<4x!tile.ptr<f32>>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @load_mask_shape(%p: tensor<4x!tile.ptr<f32>>, %m: tensor<8xi1>) {
  // expected-error @+1 {{'tile.load' op failed to verify that mask is i1 shaped like ptr}}
  %0 = "tile.load"(%p, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<4x!tile.ptr<f32>>, tensor<8xi1>) -> tensor<4xf32>
  return
}

// -----

func.func @load_result(%p: tensor<4x!tile.ptr<f32>>) {
  // expected-error @+1 {{'tile.load' op failed to verify that result matches the pointee of ptr}}
  %0 = "tile.load"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<4x!tile.ptr<f32>>) -> tensor<4xf16>
  return
}

// -----

func.func @load_other_type(%p: tensor<4x!tile.ptr<f32>>, %m: tensor<4xi1>, %o: tensor<4xf16>) {
  // expected-error @+1 {{'tile.load' op failed to verify that other has the result's type}}
  %0 = "tile.load"(%p, %m, %o) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<4x!tile.ptr<f32>>, tensor<4xi1>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @store_value(%p: tensor<4x!tile.ptr<f32>>, %v: tensor<4xf16>) {
  // expected-error @+1 {{'tile.store' op failed to verify that value matches the pointee of ptr}}
  "tile.store"(%p, %v) : (tensor<4x!tile.ptr<f32>>, tensor<4xf16>) -> ()
  return
}

// -----

func.func @rmw_fadd_int(%p: !tile.ptr<i32>, %v: i32) {
  // expected-error @+1 {{'tile.atomic_rmw' op 'fadd' needs float elements, got 'i32'; use 'add' for integers}}
  %0 = tile.atomic_rmw fadd, acq_rel, gpu, %p, %v : !tile.ptr<i32>
  return
}

// -----

func.func @rmw_and_float(%p: !tile.ptr<f32>, %v: f32) {
  // expected-error @+1 {{'tile.atomic_rmw' op 'and' needs integer elements, got 'f32'}}
  %0 = tile.atomic_rmw and, acq_rel, gpu, %p, %v : !tile.ptr<f32>
  return
}

// -----

func.func @rmw_i8(%p: !tile.ptr<i8>, %v: i8) {
  // expected-error @+1 {{'tile.atomic_rmw' op atomics act on 16-, 32- or 64-bit elements, got 'i8'}}
  %0 = tile.atomic_rmw add, acq_rel, gpu, %p, %v : !tile.ptr<i8>
  return
}

// -----

func.func @rmw_ptr(%p: !tile.ptr<!tile.ptr<f32>>, %v: !tile.ptr<f32>) {
  // expected-error @+1 {{'tile.atomic_rmw' op atomics act on integers and floats, got '!tile.ptr<f32>'}}
  %0 = tile.atomic_rmw xchg, acq_rel, gpu, %p, %v : !tile.ptr<!tile.ptr<f32>>
  return
}

// -----

func.func @rmw_kind(%p: !tile.ptr<i32>, %v: i32) {
  // expected-error @+1 {{custom op 'tile.atomic_rmw' expected string or keyword containing one of the following enum values for attribute 'kind' [add, fadd, max, min, umax, umin, and, or, xor, xchg]}}
  %0 = tile.atomic_rmw nand, acq_rel, gpu, %p, %v : !tile.ptr<i32>
  return
}

// -----

func.func @cas_i8(%p: !tile.ptr<i8>, %v: i8) {
  // expected-error @+1 {{'tile.atomic_cas' op atomics act on 16-, 32- or 64-bit elements, got 'i8'}}
  %0 = tile.atomic_cas acq_rel, gpu, %p, %v, %v : !tile.ptr<i8>
  return
}

// -----

func.func @dot_rank(%a: tensor<16xf16>, %c: tensor<16xf32>) {
  // expected-error @+1 {{'tile.dot' op operands must be 2-D, or 3-D with a batch dimension, got rank 1}}
  %0 = tile.dot %a, %a, %c : tensor<16xf16> * tensor<16xf16> -> tensor<16xf32>
  return
}

// -----

func.func @dot_ranks(%a: tensor<16x16xf16>, %b: tensor<2x16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tile.dot' op a, b and c must have the same rank}}
  %0 = tile.dot %a, %b, %c : tensor<16x16xf16> * tensor<2x16x16xf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_batch(%a: tensor<2x16x16xf16>, %b: tensor<4x16x16xf16>, %c: tensor<2x16x16xf32>) {
  // expected-error @+1 {{'tile.dot' op batch dimensions differ: 2, 4 and 2}}
  %0 = tile.dot %a, %b, %c : tensor<2x16x16xf16> * tensor<4x16x16xf16> -> tensor<2x16x16xf32>
  return
}

// -----

func.func @dot_k(%a: tensor<16x32xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tile.dot' op a is 16x32 but b is 16x16: their inner dimensions differ}}
  %0 = tile.dot %a, %b, %c : tensor<16x32xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_acc(%a: tensor<16x16xf16>, %c: tensor<32x16xf32>) {
  // expected-error @+1 {{'tile.dot' op accumulator is 32x16 but a * b is 16x16}}
  %0 = tile.dot %a, %a, %c : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<32x16xf32>
  return
}

// -----

func.func @dot_elem(%a: tensor<16x16xf16>, %b: tensor<16x16xbf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tile.dot' op a and b have different element types 'f16' and 'bf16'}}
  %0 = tile.dot %a, %b, %c : tensor<16x16xf16> * tensor<16x16xbf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_int_acc(%a: tensor<16x16xi8>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tile.dot' op accumulator element type 'f32' does not suit inputs of 'i8'}}
  %0 = tile.dot %a, %a, %c : tensor<16x16xi8> * tensor<16x16xi8> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_narrow(%a: tensor<16x16xf32>, %c: tensor<16x16xf16>) {
  // expected-error @+1 {{'tile.dot' op accumulator element type 'f16' is narrower than the inputs' 'f32'}}
  %0 = tile.dot %a, %a, %c : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf16>
  return
}

// -----

func.func @reduce_none() {
  // expected-error @+1 {{expected ':'}}
  "tile.reduce"() <{axis = 0 : i32}> ({ ^bb0: tile.reduce.return }) : () -> ()
  return
}

// -----

func.func @reduce_count(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tile.reduce' op has 1 operands but 2 results}}
  %0:2 = "tile.reduce"(%x) <{axis = 0 : i32}> ({ ^bb0(%a: f32, %b: f32): tile.reduce.return %a : f32 }) : (tensor<4xf32>) -> (f32, f32)
  return
}

// -----

func.func @reduce_axis(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tile.reduce' op axis 1 is out of range for operands of rank 1}}
  %0 = tile.reduce(%x) axis = 1 : (tensor<4xf32>) -> f32 { ^bb0(%a: f32, %b: f32): tile.reduce.return %a : f32 }
  return
}

// -----

func.func @reduce_result(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tile.reduce' op result #0 has type 'tensor<4xf32>' but reducing axis 0 gives shape [8] of 'f32'}}
  %0 = tile.reduce(%x) axis = 0 : (tensor<4x8xf32>) -> tensor<4xf32> { ^bb0(%a: f32, %b: f32): tile.reduce.return %a : f32 }
  return
}

// -----

func.func @reduce_args(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tile.reduce' op combiner must take 2 arguments (two per operand), got 1}}
  %0 = tile.reduce(%x) axis = 0 : (tensor<4xf32>) -> f32 { ^bb0(%a: f32): tile.reduce.return %a : f32 }
  return
}

// -----

func.func @reduce_arg_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tile.reduce' op combiner argument #1 has type 'f16' but operand #0 has elements of type 'f32'}}
  %0 = tile.reduce(%x) axis = 0 : (tensor<4xf32>) -> f32 { ^bb0(%a: f32, %b: f16): tile.reduce.return %a : f32 }
  return
}

// -----

func.func @reduce_returns(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tile.reduce' op combiner returns 2 values but must return 1}}
  %0 = tile.reduce(%x) axis = 0 : (tensor<4xf32>) -> f32 { ^bb0(%a: f32, %b: f32): tile.reduce.return %a, %b : f32, f32 }
  return
}

// -----

func.func @reduce_return_type(%x: tensor<4xf32>, %i: i32) {
  // expected-error @+1 {{'tile.reduce' op combiner result #0 has type 'i32' but must be 'f32'}}
  %0 = tile.reduce(%x) axis = 0 : (tensor<4xf32>) -> f32 { ^bb0(%a: f32, %b: f32): tile.reduce.return %i : i32 }
  return
}

// -----

func.func @reduce_shapes(%x: tensor<4xf32>, %y: tensor<8xf32>) {
  // expected-error @+1 {{'tile.reduce' op requires the same shape for all operands}}
  %0:2 = tile.reduce(%x, %y) axis = 0 : (tensor<4xf32>, tensor<8xf32>) -> (f32, f32) { ^bb0(%a: f32, %b: f32, %c: f32, %d: f32): tile.reduce.return %a, %b : f32, f32 }
  return
}

// -----

func.func @scan_axis(%x: tensor<4xi32>) {
  // expected-error @+1 {{'tile.scan' op axis 1 is out of range for operands of rank 1}}
  %0 = tile.scan(%x) axis = 1 : (tensor<4xi32>) -> tensor<4xi32> { ^bb0(%a: i32, %b: i32): tile.scan.return %a : i32 }
  return
}

// -----

func.func @scan_result(%x: tensor<4xi32>) {
  // expected-error @+1 {{'tile.scan' op result #0 has type 'tensor<4xi64>' but operand #0 has type 'tensor<4xi32>'}}
  %0 = tile.scan(%x) axis = 0 : (tensor<4xi32>) -> tensor<4xi64> { ^bb0(%a: i32, %b: i32): tile.scan.return %a : i32 }
  return
}

// -----

func.func @scan_combiner(%x: tensor<4xi32>) {
  // expected-error @+1 {{'tile.scan' op combiner argument #1 has type 'i64' but operand #0 has elements of type 'i32'}}
  %0 = tile.scan(%x) axis = 0 : (tensor<4xi32>) -> tensor<4xi32> { ^bb0(%a: i32, %b: i64): tile.scan.return %a : i32 }
  return
}

// -----

func.func @return_outside(%x: f32) {
  // expected-error @+1 {{'tile.reduce.return' op expects parent op 'tile.reduce'}}
  tile.reduce.return %x : f32
}

// -----

func.func @extern_symbol(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tile.extern_elementwise' op needs the name of the function to call}}
  %0 = tile.extern_elementwise %x {libname = "", libpath = "", symbol = ""} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @extern_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tile.extern_elementwise' op all non-scalar operands/results must have the same shape and base type}}
  %0 = tile.extern_elementwise %x {libname = "", libpath = "", symbol = "f"} : (tensor<4xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @gather_dims(%x: tensor<4x8xf32>, %i: tensor<16x4xi32>) {
  // expected-error @+1 {{'tile.gather' op the indices' dimension 1 is 4, the source's 8}}
  %0 = tile.gather %x[%i] {axis = 0 : i32} : (tensor<4x8xf32>, tensor<16x4xi32>) -> tensor<16x4xf32>
  return
}

// -----

func.func @gather_axis(%x: tensor<4xf32>, %i: tensor<16xi32>) {
  // expected-error @+1 {{'tile.gather' op axis 1 is not a dimension of a rank-1 source}}
  %0 = tile.gather %x[%i] {axis = 1 : i32} : (tensor<4xf32>, tensor<16xi32>) -> tensor<16xf32>
  return
}

// -----

func.func @gather_indices(%x: tensor<4xf32>, %i: tensor<16xf32>) {
  // expected-error @+1 {{'tile.gather' op the indices must be integers}}
  %0 = tile.gather %x[%i] {axis = 0 : i32} : (tensor<4xf32>, tensor<16xf32>) -> tensor<16xf32>
  return
}

// -----

func.func @gather_result(%x: tensor<4xf32>, %i: tensor<16xi32>) {
  // expected-error @+1 {{'tile.gather' op the result's element type is not the source's}}
  %0 = tile.gather %x[%i] {axis = 0 : i32} : (tensor<4xf32>, tensor<16xi32>) -> tensor<16xf16>
  return
}

// -----

func.func @histogram_floats(%x: tensor<16xf32>) {
  // expected-error @+1 {{'tile.histogram' op counts integers into i32 bins}}
  %0 = tile.histogram %x : tensor<16xf32> -> tensor<8xi32>
  return
}

// -----

func.func @histogram_mask(%x: tensor<16xi32>, %m: tensor<8xi1>) {
  // expected-error @+1 {{'tile.histogram' op the mask must be booleans of the source's shape}}
  %0 = tile.histogram %x, %m : tensor<16xi32>, tensor<8xi1> -> tensor<8xi32>
  return
}

// -----

func.func @inline_asm_pack(%x: tensor<4xi8>) {
  // expected-error @+1 {{'tile.inline_asm' op attribute 'packed_element' failed to satisfy constraint: 32-bit signless integer attribute whose value is positive}}
  %0 = tile.inline_asm %x {asm_string = "", constraints = "=r,r", packed_element = 0 : i32} : (tensor<4xi8>) -> tensor<4xi8>
  return
}

// -----

func.func @inline_asm_pack_bound(%x: tensor<4xi8>) {
  // expected-error @+1 {{'tile.inline_asm' op packs at most 16 elements, got 65536}}
  %0 = tile.inline_asm %x {asm_string = "", constraints = "=r,r", packed_element = 65536 : i32} : (tensor<4xi8>) -> tensor<4xi8>
  return
}

// -----

func.func @inline_asm_shape(%x: tensor<4xi8>) {
  // expected-error @+1 {{'tile.inline_asm' op all non-scalar operands/results must have the same shape and base type}}
  %0 = tile.inline_asm %x {asm_string = "", constraints = "=r,r", packed_element = 1 : i32} : (tensor<4xi8>) -> tensor<8xi8>
  return
}

// -----

func.func @inline_asm_results(%x: i32) {
  // expected-error @+1 {{'tile.inline_asm' op needs at least one result}}
  tile.inline_asm %x {asm_string = "", constraints = "r", packed_element = 1 : i32} : (i32) -> ()
  return
}

// -----

func.func @inline_asm_operands() {
  // expected-error @+1 {{'tile.inline_asm' op if a result is non-scalar, then at least one operand must be non-scalar}}
  %0 = tile.inline_asm {asm_string = "mov.b32 $0, 1;", constraints = "=r", packed_element = 1 : i32} : () -> tensor<4xi32>
  return
}

// -----

func.func @print_signed(%x: i32) {
  // expected-error @+1 {{'tile.print' op isSigned has 2 entries but there are 1 arguments}}
  tile.print "x" %x : i32 {isSigned = array<i1: true, false>}
  return
}

// -----

func.func @assert_cond(%x: tensor<4xi32>) {
  // expected-error @+1 {{'tile.assert' op operand #0 must be i1 or tensor of i1, but got 'tensor<4xi32>'}}
  tile.assert %x, "bad" : tensor<4xi32>
  return
}

// -----

func.func @program_axis() {
  // expected-error @+1 {{custom op 'tile.program_id' expected string or keyword containing one of the following enum values for attribute 'axis' [x, y, z]}}
  %0 = tile.program_id w
  return
}

// -----

func.func @num_programs_axis() {
  // expected-error @+1 {{invalid properties {axis = 3 : i32} for op tile.num_programs: Invalid attribute `axis` in property conversion: 3 : i32}}
  %0 = "tile.num_programs"() <{axis = 3 : i32}> : () -> i32
  return
}

// -----

func.func @program_id_type() {
  // expected-error @+1 {{'tile.program_id' op result #0 must be 32-bit signless integer, but got 'i64'}}
  %0 = "tile.program_id"() <{axis = 0 : i32}> : () -> i64
  return
}

// -----

func.func @scan_return_outside(%x: i32) {
  // expected-error @+1 {{'tile.scan.return' op expects parent op 'tile.scan'}}
  tile.scan.return %x : i32
}

// -----

func.func @convert_layout_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tile.convert_layout' op requires the same shape for all operands and results}}
  %0 = tile.convert_layout %x : tensor<4x8xf32> -> tensor<8x4xf32>
  return
}

// -----

func.func @convert_layout_element(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tile.convert_layout' op requires the same element type for all operands and results}}
  %0 = tile.convert_layout %x : tensor<4x8xf32> -> tensor<4x8xf16>
  return
}

// -----

func.func @descriptor_base_type(%p: !tile.ptr<f16>, %n: i32, %s: i64) {
  // expected-error @+1 {{'tile.make_tensor_descriptor' op the base points to 'f16' but the blocks hold 'f32'}}
  %d = tile.make_tensor_descriptor %p, [%n], [%s] : !tile.ptr<f16> -> !tile.tensordesc<tensor<64xf32>>
  return
}

// -----

func.func @descriptor_rank(%p: !tile.ptr<f32>, %n: i32, %s: i64) {
  // expected-error @+1 {{'tile.make_tensor_descriptor' op needs one shape and one stride entry per dimension of the block (2), got 1 and 1}}
  %d = tile.make_tensor_descriptor %p, [%n], [%s] : !tile.ptr<f32> -> !tile.tensordesc<tensor<8x64xf32>>
  return
}

// -----

func.func @descriptor_load_shape(%d: !tile.tensordesc<tensor<64xf32>>, %i: i32) {
  // expected-error @+1 {{'tile.descriptor_load' op the block is 'tensor<64xf32>' but the value is 'tensor<32xf32>'}}
  %b = tile.descriptor_load %d[%i] : !tile.tensordesc<tensor<64xf32>> -> tensor<32xf32>
  return
}

// -----

func.func @descriptor_indices(%d: !tile.tensordesc<tensor<64xf32>>, %i: i32, %v: tensor<64xf32>) {
  // expected-error @+1 {{'tile.descriptor_store' op needs 1 indices, got 2}}
  tile.descriptor_store %d[%i, %i], %v : !tile.tensordesc<tensor<64xf32>>, tensor<64xf32>
  return
}

// -----

func.func @descriptor_boundary(%d: !tile.tensordesc<tensor<64xf32>>, %i: i32) {
  // expected-error @+1 {{'tile.descriptor_load' op boundary_check names dimension 1 of a rank-1 block}}
  %b = tile.descriptor_load %d[%i] {boundaryCheck = array<i32: 1>} : !tile.tensordesc<tensor<64xf32>> -> tensor<64xf32>
  return
}

// -----

func.func @descriptor_reduce_kind(%d: !tile.tensordesc<tensor<64xf32>>, %i: i32, %v: tensor<64xf32>) {
  // expected-error @+1 {{'tile.descriptor_reduce' op 'add' needs integer elements, got 'f32'}}
  tile.descriptor_reduce add, %d[%i], %v : !tile.tensordesc<tensor<64xf32>>, tensor<64xf32>
  return
}

// -----

// Triton's bound on a tensor: 2^20 elements.
func.func @range_too_large() {
  // expected-error @+1 {{'tile.make_range' op result #0: a tensor of shape 2147483648 has more than 1048576 elements, the most a tensor may hold}}
  %0 = tile.make_range 0, 2147483648 : tensor<2147483648xi32>
  return
}

// -----

func.func @splat_too_large(%x: f32) {
  // expected-error @+1 {{'tile.splat' op result #0: a tensor of shape 2048x1024 has more than 1048576 elements, the most a tensor may hold}}
  %0 = tile.splat %x : tensor<2048x1024xf32>
  return
}

// -----

// expected-error @+1 {{argument 0: 'tile.divisibility' must hold positive powers of two, got -16}}
func.func @negative_divisibility(%p: !tile.ptr<f32> {tile.divisibility = -16 : i32}) {
  return
}

// -----

// expected-error @+1 {{argument 1: 'tile.divisibility' must hold positive powers of two, got 0}}
func.func @zero_divisibility(%p: !tile.ptr<f32>, %n: i32 {tile.divisibility = 0 : i32}) {
  return
}

// -----

func.func @contiguity_not_power_of_two() {
  // expected-error @+1 {{'tile.contiguity' must hold positive powers of two, got 3}}
  %0 = tile.make_range 0, 16 {tile.contiguity = array<i64: 3>} : tensor<16xi32>
  return
}

// -----

func.func @constancy_not_integer(%n: i32) {
  // expected-error @+1 {{'tile.constancy' must be an integer or an array of integers}}
  %0 = arith.addi %n, %n {tile.constancy = "two"} : i32
  return
}

// -----

func.func @scope_record_buffer(%buffer: !tile.ptr<i32>) {
  // expected-error @+1 {{'tile.scope_record' op records go to a buffer of i64, got one of 'i32'}}
  tile.scope_record %buffer {scope = 0 : i32, slots = 64 : i32, warps = 4 : i32} : !tile.ptr<i32>
  return
}

// -----

func.func @scope_record_slots(%buffer: !tile.ptr<i64>) {
  // expected-error @+1 {{'tile.scope_record' op slots must be a power of two, got 48}}
  tile.scope_record %buffer {scope = 0 : i32, slots = 48 : i32, warps = 4 : i32} : !tile.ptr<i64>
  return
}
