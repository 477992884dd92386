// RUN: tessera-opt %s -split-input-file -tile-assign-layouts -verify-diagnostics

// Two accesses want two layouts of one loaded value: 16-byte vectors to
// read it through aligned pointers, single elements to write it through
// unaligned ones.
module attributes {tile.explicit_layouts} {
  func.func @conflict(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                      %y: !tile.ptr<f32> {tile.divisibility = 4 : i32}) {
    %range = tile.make_range 0, 512 : tensor<512xi32, #tile.coalesced>
    %xs = tile.splat %x : tensor<512x!tile.ptr<f32>, #tile.coalesced>
    %xp = tile.addptr %xs, %range : tensor<512x!tile.ptr<f32>, #tile.coalesced>, tensor<512xi32, #tile.coalesced>
    // expected-error @+2 {{a tensor in CoalescedLayout gets two layouts}}
    // expected-note @+1 {{the access that wants}}
    %v = tile.load %xp : tensor<512x!tile.ptr<f32>, #tile.coalesced>
    %ys = tile.splat %y : tensor<512x!tile.ptr<f32>, #tile.coalesced>
    %yp = tile.addptr %ys, %range : tensor<512x!tile.ptr<f32>, #tile.coalesced>, tensor<512xi32, #tile.coalesced>
    // expected-note @+1 {{the access that wants}}
    tile.store %yp, %v : tensor<512x!tile.ptr<f32>, #tile.coalesced>
    return
  }
}

// -----

// A coalesced value that no access reaches has nothing to take a layout from.
module attributes {tile.explicit_layouts} {
  func.func @unreached(%x: !tile.ptr<i32>) {
    // expected-error @+1 {{a tensor in CoalescedLayout reaches no load or store}}
    %range = tile.make_range 0, 512 : tensor<512xi32, #tile.coalesced>
    %sum = "tile.reduce"(%range) <{axis = 0 : i32}> ({
    ^bb0(%a: i32, %b: i32):
      %s = arith.addi %a, %b : i32
      tile.reduce.return %s : i32
    }) : (tensor<512xi32, #tile.coalesced>) -> i32
    tile.store %x, %sum : !tile.ptr<i32>
    return
  }
}

// -----

// The layouts the kernel gave stay, and must suit the target's warps.
module attributes {tile.explicit_layouts} {
  func.func @given(%x: !tile.ptr<f32>) {
    // expected-error @+1 {{threads per warp that multiply to 64, but the target's warps have 32 lanes}}
    %range = tile.make_range 0, 256 : tensor<256xi32, #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>>
    return
  }
}
