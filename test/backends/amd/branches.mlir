// Structured control flow becomes branches: the loops first, then each
// scf.if, its block's taken last first (each op moves once, however many
// masked loads the block holds), ifs nested in ifs in later rounds. AMD's
// masked loads are one if each. Nothing of scf is left, and each if is
// one conditional branch whose join block takes the values it yielded.
// RUN: tessera-opt %s -tile-assign-layouts="num-warps=1 warp-size=64" -tile-amd-to-llvm=warp-size=64 | FileCheck %s

// CHECK-LABEL: llvm.func @branches
// CHECK-NOT: scf.
// Four masked loads (one element a lane each): a branch around each load,
// the join block taking the value.
// CHECK-COUNT-4: llvm.cond_br %{{.*}}, ^{{.*}}, ^{{.*}}{{$}}
// CHECK: ^[[HEAD:bb[0-9]+]](%{{.*}}: i32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32):
// The loop's body: the if, and in its then-block the nested if.
// CHECK: llvm.cond_br %arg3, ^[[THEN:bb[0-9]+]], ^[[ELSE:bb[0-9]+]]
// CHECK: ^[[THEN]]:
// CHECK-NEXT: llvm.cond_br %arg4
// CHECK: ^[[ELSE]]:
// CHECK: llvm.br ^[[HEAD]]
// Four masked stores after the loop.
// CHECK-COUNT-4: llvm.store
// CHECK-NOT: scf.
// CHECK: llvm.return
func.func @branches(%p: !tile.ptr<f32>, %q: !tile.ptr<f32>, %n: i32, %flag: i1, %other: i1) {
  %r = tile.make_range 0, 256 : tensor<256xi32>
  %bound = tile.splat %n : tensor<256xi32>
  %mask = arith.cmpi slt, %r, %bound : tensor<256xi32>
  %ps = tile.splat %p : tensor<256x!tile.ptr<f32>>
  %pp = tile.addptr %ps, %r : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  %v = tile.load %pp, %mask : tensor<256x!tile.ptr<f32>>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %v) -> (tensor<256xf32>) : i32 {
    %next = scf.if %flag -> (tensor<256xf32>) {
      %inner = scf.if %other -> (tensor<256xf32>) {
        %twice = arith.addf %acc, %acc : tensor<256xf32>
        scf.yield %twice : tensor<256xf32>
      } else {
        scf.yield %acc : tensor<256xf32>
      }
      scf.yield %inner : tensor<256xf32>
    } else {
      %plus = arith.addf %acc, %v : tensor<256xf32>
      scf.yield %plus : tensor<256xf32>
    }
    scf.yield %next : tensor<256xf32>
  }
  %qs = tile.splat %q : tensor<256x!tile.ptr<f32>>
  %qq = tile.addptr %qs, %r : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  tile.store %qq, %sum, %mask : tensor<256x!tile.ptr<f32>>
  return
}
