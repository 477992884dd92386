// The mma stage takes dots whose layouts are assigned; one without is an
// error, not an abort in the operand-layout choice.
// RUN: tessera-opt %s -tile-nvidia-assign-mma=compute-capability=90 -verify-diagnostics

module attributes {tile.num_warps = 8 : i32} {
  func.func @dot_without_layouts(%a: tensor<128x64xf16>, %b: tensor<64x256xf16>,
                                 %c: tensor<128x256xf32>) -> tensor<128x256xf32> {
    // expected-error @below {{'tile.dot' op has no layout: run tile-assign-layouts before the mma stage}}
    %d = tile.dot %a, %b, %c : tensor<128x64xf16> * tensor<64x256xf16> -> tensor<128x256xf32>
    return %d : tensor<128x256xf32>
  }
}
