// Where Triton approximates, so do we: f32 division marked `arcp` (Triton's
// `/` on fp32) is PTX's div.full.f32, f32 sqrt marked `afn` (tl.sqrt)
// sqrt.approx.ftz.f32, and exp2 below f64 is ex2.approx.ftz.f32 (exp of
// x * log2 e).
// Without the flags (tl.div_rn, tl.sqrt_rn) they are rounded as IEEE 754
// says; f64 exp is libdevice's.
// RUN: tessera-compile --target=sm_90 --emit=llir %s | FileCheck %s
// RUN: tessera-compile --target=sm_90 --emit=asm %s | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: define ptx_kernel void @divide
// CHECK: call float @llvm.nvvm.div.full(float
// CHECK: fdiv float
// CHECK: fdiv arcp double
// PTX-LABEL: .entry divide
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

// CHECK-LABEL: define ptx_kernel void @exponent
// CHECK: fmul float %{{.*}}, 0x3FF7154760000000
// CHECK: call float @llvm.nvvm.ex2.approx.ftz.f32
// CHECK: fpext half
// CHECK: call float @llvm.nvvm.ex2.approx.ftz.f32
// CHECK: __nv_exp
// CHECK: call float @llvm.nvvm.ex2.approx.ftz.f32
// CHECK: __nv_exp2
// PTX-LABEL: .entry exponent
// PTX-COUNT-3: ex2.approx.ftz.f32
func.func @exponent(%x: !tile.ptr<f32>, %h: !tile.ptr<f16>, %y: !tile.ptr<f64>) {
  %a = tile.load %x : !tile.ptr<f32>
  %ea = math.exp %a : f32
  tile.store %x, %ea : !tile.ptr<f32>
  %c = tile.load %h : !tile.ptr<f16>
  %ec = math.exp %c : f16
  tile.store %h, %ec : !tile.ptr<f16>
  %b = tile.load %y : !tile.ptr<f64>
  %eb = math.exp %b : f64
  tile.store %y, %eb : !tile.ptr<f64>
  %a2 = math.exp2 %a : f32
  tile.store %x, %a2 : !tile.ptr<f32>
  %b2 = math.exp2 %b : f64
  tile.store %y, %b2 : !tile.ptr<f64>
  return
}

// CHECK-LABEL: define ptx_kernel void @square_root
// CHECK: call float @llvm.nvvm.sqrt.approx.ftz.f(float
// CHECK: call float @llvm.sqrt.f32(float
// PTX-LABEL: .entry square_root
// PTX-DAG: sqrt.approx.ftz.f32
// PTX-DAG: sqrt.rn.f32
func.func @square_root(%x: !tile.ptr<f32>) {
  %a = tile.load %x : !tile.ptr<f32>
  %s = math.sqrt %a fastmath<afn> : f32
  %r = math.sqrt %s : f32
  tile.store %x, %r : !tile.ptr<f32>
  return
}
