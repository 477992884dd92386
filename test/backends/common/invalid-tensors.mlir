// Layout assignment and lowering take only tile tensors (static dimensions
// that are powers of two); a function or loop holding another is an error,
// not an abort in the layout code.
// RUN: tessera-opt %s -split-input-file -verify-diagnostics -tile-assign-layouts
// RUN: tessera-opt %s -split-input-file -verify-diagnostics -tile-nvidia-to-llvm

// expected-error @below {{block argument #0 has a dynamic dimension 0; tile tensors have static shapes}}
func.func @dynamic_dimension(%a: tensor<?x4xf32>) {
  return
}

// -----

// expected-error @below {{block argument #1 has dimension 0 of size 0, which is not a power of two}}
func.func @empty_dimension(%p: tensor<4x!tile.ptr<f32>>, %m: tensor<0xi1>) {
  return
}

// -----

func.func @constant_of_three() -> tensor<4xf32> {
  // expected-error @below {{'arith.constant' op result #0 has dimension 0 of size 3, which is not a power of two}}
  %c = arith.constant dense<0.0> : tensor<3xf32>
  %out = arith.constant dense<0.0> : tensor<4xf32>
  return %out : tensor<4xf32>
}
