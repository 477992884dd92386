// A scan: Hillis-Steele across lanes with indexed shuffles, warp totals
// through shared memory (8 register blocks x 4 warps x 4 bytes).
// RUN: tessera-compile --target=sm_90 --emit=asm %s | FileCheck %s
// RUN: tessera-compile --target=sm_90 --emit=metadata %s | FileCheck %s --check-prefix=META

// CHECK-LABEL: .entry cumsum(
// CHECK: shfl.sync.idx.b32
// CHECK: bar.sync 0
// CHECK: st.shared
// CHECK: bar.sync 0
// CHECK: ld.shared
// CHECK: st.global
// META: shared_bytes: 128
func.func @cumsum(%out: !tile.ptr<i32>) {
  %r = tile.make_range 0, 1024 : tensor<1024xi32>
  %s = tile.scan(%r) axis = 0 : (tensor<1024xi32>) -> tensor<1024xi32> {
  ^bb0(%a: i32, %b: i32):
    %c = arith.addi %a, %b : i32
    tile.scan.return %c : i32
  }
  %p = tile.splat %out : tensor<1024x!tile.ptr<i32>>
  %q = tile.addptr %p, %r : tensor<1024x!tile.ptr<i32>>, tensor<1024xi32>
  tile.store %q, %s : tensor<1024x!tile.ptr<i32>>
  return
}
