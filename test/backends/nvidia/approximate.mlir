// Where Triton approximates, so do we: f32 division marked `arcp` (Triton's
// `/` on fp32) is PTX's div.full.f32, f32 sqrt marked `afn` (tl.sqrt)
// sqrt.approx.ftz.f32, and exp2 below f64 is ex2.approx.ftz.f32 (exp of
// x * log2 e).
// Without the flags (tl.div_rn, tl.sqrt_rn) they are rounded as IEEE 754
// says; f64 exp is libdevice's. A module holds one kernel: each is compiled
// from its own file.
// RUN: split-file %s %t
// RUN: tessera-compile --target=sm_90 --emit=llir %t/divide.mlir | FileCheck %s --check-prefix=DIV
// RUN: tessera-compile --target=sm_90 --emit=asm %t/divide.mlir | FileCheck %s --check-prefix=DIV-PTX
// RUN: tessera-compile --target=sm_90 --emit=llir %t/exponent.mlir | FileCheck %s --check-prefix=EXP
// RUN: tessera-compile --target=sm_90 --emit=asm %t/exponent.mlir | FileCheck %s --check-prefix=EXP-PTX
// RUN: tessera-compile --target=sm_90 --emit=llir %t/square_root.mlir | FileCheck %s --check-prefix=SQRT
// RUN: tessera-compile --target=sm_90 --emit=asm %t/square_root.mlir | FileCheck %s --check-prefix=SQRT-PTX

// DIV-LABEL: define ptx_kernel void @divide
// DIV: call float @llvm.nvvm.div.full(float
// DIV: fdiv float
// DIV: fdiv arcp double
// DIV-PTX-LABEL: .entry divide
// DIV-PTX-DAG: div.full.f32
// DIV-PTX-DAG: div.rn.f32
//--- divide.mlir
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

// EXP-LABEL: define ptx_kernel void @exponent
// EXP: fmul float %{{.*}}, 0x3FF7154760000000
// EXP: call float @llvm.nvvm.ex2.approx.ftz.f32
// EXP: fpext half
// EXP: call float @llvm.nvvm.ex2.approx.ftz.f32
// EXP: __nv_exp
// EXP: call float @llvm.nvvm.ex2.approx.ftz.f32
// EXP: __nv_exp2
// EXP-PTX-LABEL: .entry exponent
// EXP-PTX-COUNT-3: ex2.approx.ftz.f32
//--- exponent.mlir
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

// SQRT-LABEL: define ptx_kernel void @square_root
// SQRT: call float @llvm.nvvm.sqrt.approx.ftz.f(float
// SQRT: call float @llvm.sqrt.f32(float
// SQRT-PTX-LABEL: .entry square_root
// SQRT-PTX-DAG: sqrt.approx.ftz.f32
// SQRT-PTX-DAG: sqrt.rn.f32
//--- square_root.mlir
func.func @square_root(%x: !tile.ptr<f32>) {
  %a = tile.load %x : !tile.ptr<f32>
  %s = math.sqrt %a fastmath<afn> : f32
  %r = math.sqrt %s : f32
  tile.store %x, %r : !tile.ptr<f32>
  return
}
