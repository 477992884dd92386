// C = A * B for fp16 A (M x K), B (K x N) and fp32 C, row-major with
// K % 32 == 0: each program instance computes one 64 x 64 block of C,
// stepping along K with tile.dot.
func.func @matmul_kernel(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                         %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                         %c: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                         %n: i32 {tile.divisibility = 16 : i32},
                         %k: i32 {tile.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %pid_m = tile.program_id x
  %pid_n = tile.program_id y
  %m0 = arith.muli %pid_m, %c64 : i32
  %n0 = arith.muli %pid_n, %c64 : i32
  // Row offsets of A and C, column offsets of B and C, and the K range.
  %r64 = tile.make_range 0, 64 : tensor<64xi32>
  %r32 = tile.make_range 0, 32 : tensor<32xi32>
  %m0s = tile.splat %m0 : tensor<64xi32>
  %n0s = tile.splat %n0 : tensor<64xi32>
  %rows = arith.addi %m0s, %r64 : tensor<64xi32>
  %cols = arith.addi %n0s, %r64 : tensor<64xi32>
  // A block pointers: a + rows[:, None] * k + ks[None, :]
  %rows2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %ks = tile.splat %k : tensor<64x1xi32>
  %arow = arith.muli %rows2, %ks : tensor<64x1xi32>
  %arowb = tile.broadcast %arow : tensor<64x1xi32> -> tensor<64x32xi32>
  %kcol = tile.expand_dims %r32 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %kcolb = tile.broadcast %kcol : tensor<1x32xi32> -> tensor<64x32xi32>
  %aoff = arith.addi %arowb, %kcolb : tensor<64x32xi32>
  %as = tile.splat %a : tensor<64x32x!tile.ptr<f16>>
  %ap0 = tile.addptr %as, %aoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  // B block pointers: b + ks[:, None] * n + cols[None, :]
  %krow = tile.expand_dims %r32 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %ns = tile.splat %n : tensor<32x1xi32>
  %brow = arith.muli %krow, %ns : tensor<32x1xi32>
  %browb = tile.broadcast %brow : tensor<32x1xi32> -> tensor<32x64xi32>
  %bcol = tile.expand_dims %cols {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %bcolb = tile.broadcast %bcol : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff = arith.addi %browb, %bcolb : tensor<32x64xi32>
  %bs = tile.splat %b : tensor<32x64x!tile.ptr<f16>>
  %bp0 = tile.addptr %bs, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  // Steps of 32 along K: 32 elements for A, 32 rows for B.
  %astep = tile.splat %c32 : tensor<64x32xi32>
  %nstep = arith.muli %n, %c32 : i32
  %bstep = tile.splat %nstep : tensor<32x64xi32>
  %zero = arith.constant 0.0 : f32
  %acc0 = tile.splat %zero : tensor<64x64xf32>
  %acc, %ap, %bp = scf.for %kk = %c0 to %k step %c32
      iter_args(%acc_i = %acc0, %ap_i = %ap0, %bp_i = %bp0)
      -> (tensor<64x64xf32>, tensor<64x32x!tile.ptr<f16>>, tensor<32x64x!tile.ptr<f16>>) : i32 {
    %ablk = tile.load %ap_i : tensor<64x32x!tile.ptr<f16>>
    %bblk = tile.load %bp_i : tensor<32x64x!tile.ptr<f16>>
    %acc_n = tile.dot %ablk, %bblk, %acc_i : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    %ap_n = tile.addptr %ap_i, %astep : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
    %bp_n = tile.addptr %bp_i, %bstep : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
    scf.yield %acc_n, %ap_n, %bp_n : tensor<64x64xf32>, tensor<64x32x!tile.ptr<f16>>, tensor<32x64x!tile.ptr<f16>>
  }
  // C block pointers: c + rows[:, None] * n + cols[None, :]
  %ns64 = tile.splat %n : tensor<64x1xi32>
  %crow = arith.muli %rows2, %ns64 : tensor<64x1xi32>
  %crowb = tile.broadcast %crow : tensor<64x1xi32> -> tensor<64x64xi32>
  %ccol = tile.expand_dims %cols {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %ccolb = tile.broadcast %ccol : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %crowb, %ccolb : tensor<64x64xi32>
  %cs = tile.splat %c : tensor<64x64x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %cp, %acc : tensor<64x64x!tile.ptr<f32>>
  return
}
