// fp8 values are i8 in LLVM IR; conversions to them are integer code.
// RUN: tessera-compile --target=sm_90 --emit=llir %s | FileCheck %s
// RUN: tessera-compile --target=sm_90 --emit=asm %s | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: define ptx_kernel void @fp8
// CHECK-NOT: half
// CHECK: store i8
func.func @fp8(%x: !tile.ptr<f32>, %y: !tile.ptr<f8E5M2>) {
  %r = tile.make_range 0, 128 : tensor<128xi32>
  %p = tile.splat %x : tensor<128x!tile.ptr<f32>>
  %pp = tile.addptr %p, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %v = tile.load %pp : tensor<128x!tile.ptr<f32>>
  %t = arith.truncf %v : tensor<128xf32> to tensor<128xf8E5M2>
  %q = tile.splat %y : tensor<128x!tile.ptr<f8E5M2>>
  %qq = tile.addptr %q, %r : tensor<128x!tile.ptr<f8E5M2>>, tensor<128xi32>
  tile.store %qq, %t : tensor<128x!tile.ptr<f8E5M2>>
  return
}

// PTX: st.global.b8
