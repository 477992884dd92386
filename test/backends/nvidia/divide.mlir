// f32 division marked `arcp` (Triton's `/` on fp32) is PTX's div.full.f32;
// without it (tl.div_rn) it is rounded as IEEE 754 says, and f64 is LLVM's.
// RUN: tessera-compile --target=sm_90 --emit=llir %s | FileCheck %s
// RUN: tessera-compile --target=sm_90 --emit=asm %s | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: define ptx_kernel void @divide
// CHECK: call float @llvm.nvvm.div.full(float
// CHECK: fdiv float
// CHECK: fdiv arcp double
// PTX-DAG: div.full.f32
// PTX-DAG: div.rn.f32
func.func @divide(%x: !tile.ptr<f32>, %y: !tile.ptr<f64>) {
  %a = tile.load %x : !tile.ptr<f32>
  %q = arith.divf %a, %a fastmath<arcp> : f32
  %r = arith.divf %q, %a : f32
  tile.store %x, %r : !tile.ptr<f32>
  %b = tile.load %y : !tile.ptr<f64>
  %s = arith.divf %b, %b fastmath<arcp> : f64
  tile.store %y, %s : !tile.ptr<f64>
  return
}
