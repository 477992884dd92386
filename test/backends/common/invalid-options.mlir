// Warp options out of range are errors naming the value and what is
// accepted, never a crash (num-warps=0 divided by zero, num-warps=3 failed an
// assertion making the layouts).
// RUN: not tessera-opt %s -tile-assign-layouts=num-warps=0 2>&1 | FileCheck %s --check-prefix=ZERO --implicit-check-not="Stack dump"
// RUN: not tessera-opt %s -tile-assign-layouts=num-warps=3 2>&1 | FileCheck %s --check-prefix=THREE --implicit-check-not="Stack dump"
// RUN: not tessera-opt %s -tile-assign-layouts=num-warps=64 2>&1 | FileCheck %s --check-prefix=MANY
// RUN: not tessera-opt %s -tile-assign-layouts=num-warps=4294967295 2>&1 | FileCheck %s --check-prefix=HUGE --implicit-check-not="Stack dump"
// RUN: not tessera-opt %s -tile-assign-layouts=warp-size=0 2>&1 | FileCheck %s --check-prefix=LANES --implicit-check-not="Stack dump"
// RUN: not tessera-opt %s -tile-assign-layouts="num-warps=32 warp-size=64" 2>&1 | FileCheck %s --check-prefix=WAVE64
// RUN: not tessera-opt %s -tile-nvidia-select-bulk-copies="compute-capability=90 num-warps=0" 2>&1 | FileCheck %s --check-prefix=ZERO

// ZERO: error: num_warps must be a power of two from 1 to 32, got 0
// THREE: error: num_warps must be a power of two from 1 to 32, got 3
// MANY: error: num_warps must be a power of two from 1 to 32, got 64
// HUGE: error: num_warps must be a power of two from 1 to 32, got 4294967295
// LANES: error: warp_size must be a power of two from 1 to 64 (32 or 64 on GPUs), got 0
// WAVE64: error: num_warps must be a power of two from 1 to 16 (1024 threads of 64-lane warps), got 32

func.func @vector_add(%x: !tile.ptr<f32>, %n: i32) {
  %range = tile.make_range 0, 1024 : tensor<1024xi32>
  %bound = tile.splat %n : tensor<1024xi32>
  %mask = arith.cmpi slt, %range, %bound : tensor<1024xi32>
  %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %range : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %v = tile.load %xp, %mask : tensor<1024x!tile.ptr<f32>>
  tile.store %xp, %v, %mask : tensor<1024x!tile.ptr<f32>>
  return
}
