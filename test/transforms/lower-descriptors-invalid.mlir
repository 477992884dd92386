// RUN: tessera-opt %s -tile-lower-descriptors -verify-diagnostics

// A descriptor must be traced to the op that made it.
func.func @through_loop(%d: !tile.tensordesc<tensor<64xi32>>, %i: i32) -> tensor<64xi32> {
  // expected-error @+1 {{'tile.descriptor_load' op needs a descriptor made in the kernel or passed to it}}
  %b = tile.descriptor_load %d[%i] : !tile.tensordesc<tensor<64xi32>> -> tensor<64xi32>
  return %b : tensor<64xi32>
}
