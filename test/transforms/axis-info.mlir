// RUN: tessera-opt %s -split-input-file -test-print-axis-info -verify-diagnostics -o /dev/null

// Contiguity, divisibility (bytes for pointers) and constancy per dimension.

// The offsets and mask of a 1-D kernel: pid * 1024 + arange(0, 1024) < n.
// expected-remark @+2 {{arg 0: contiguity = [1], divisibility = [16], constancy = [1]}}
// expected-remark @+1 {{arg 1: contiguity = [1], divisibility = [16], constancy = [1]}}
func.func @vector_offsets(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32}) {
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %pid = tile.program_id x
  // expected-remark @+1 {{contiguity = [1], divisibility = [1024], constancy = [1], constant = 1024}}
  %c1024 = arith.constant 1024 : i32
  // expected-remark @+1 {{contiguity = [1], divisibility = [1024], constancy = [1]}}
  %start = arith.muli %pid, %c1024 : i32
  // expected-remark @+1 {{contiguity = [1024], divisibility = [1073741824], constancy = [1]}}
  %range = tile.make_range 0, 1024 : tensor<1024xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [1024], constancy = [1024]}}
  %base = tile.splat %start : tensor<1024xi32>
  // expected-remark @+1 {{contiguity = [1024], divisibility = [1024], constancy = [1]}}
  %offs = arith.addi %base, %range : tensor<1024xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [16], constancy = [1024]}}
  %bound = tile.splat %n : tensor<1024xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [16]}}
  %mask = arith.cmpi slt, %offs, %bound : tensor<1024xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [16], constancy = [1024]}}
  %ptrs = tile.splat %x : tensor<1024x!tile.ptr<f32>>
  // expected-remark @+1 {{contiguity = [1024], divisibility = [16], constancy = [1]}}
  %addrs = tile.addptr %ptrs, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  return
}

// -----

// A row-major 2-D block: base + rows[:, None] * stride + cols[None, :].
// expected-remark @+2 {{arg 0: contiguity = [1], divisibility = [16], constancy = [1]}}
// expected-remark @+1 {{arg 1: contiguity = [1], divisibility = [16], constancy = [1]}}
func.func @block_2d(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %stride: i32 {tile.divisibility = 16 : i32}) {
  // expected-remark @+1 {{contiguity = [32], divisibility = [1073741824], constancy = [1]}}
  %rows = tile.make_range 0, 32 : tensor<32xi32>
  // expected-remark @+1 {{contiguity = [64], divisibility = [1073741824], constancy = [1]}}
  %cols = tile.make_range 0, 64 : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [32, 1], divisibility = [1073741824, 1], constancy = [1, 1]}}
  %r = tile.expand_dims %rows {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  // expected-remark @+1 {{contiguity = [1, 1], divisibility = [16, 16], constancy = [32, 1]}}
  %s = tile.splat %stride : tensor<32x1xi32>
  // expected-remark @+1 {{contiguity = [1, 1], divisibility = [16, 16], constancy = [1, 1]}}
  %rs = arith.muli %r, %s : tensor<32x1xi32>
  // expected-remark @+1 {{contiguity = [1, 1], divisibility = [16, 16], constancy = [1, 64]}}
  %rb = tile.broadcast %rs : tensor<32x1xi32> -> tensor<32x64xi32>
  // expected-remark @+1 {{contiguity = [1, 64], divisibility = [1, 1073741824], constancy = [1, 1]}}
  %c = tile.expand_dims %cols {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  // expected-remark @+1 {{contiguity = [1, 64], divisibility = [1, 1073741824], constancy = [32, 1]}}
  %cb = tile.broadcast %c : tensor<1x64xi32> -> tensor<32x64xi32>
  // expected-remark @+1 {{contiguity = [1, 64], divisibility = [1, 16], constancy = [1, 1]}}
  %offs = arith.addi %rb, %cb : tensor<32x64xi32>
  // expected-remark @+1 {{contiguity = [1, 1], divisibility = [16, 16], constancy = [32, 64]}}
  %p = tile.splat %a : tensor<32x64x!tile.ptr<f16>>
  // expected-remark @+1 {{contiguity = [1, 64], divisibility = [2, 16], constancy = [1, 1]}}
  %q = tile.addptr %p, %offs : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  // expected-remark @+1 {{contiguity = [64, 1], divisibility = [16, 2], constancy = [1, 1]}}
  %t = tile.trans %q {order = array<i32: 1, 0>} : tensor<32x64x!tile.ptr<f16>> -> tensor<64x32x!tile.ptr<f16>>
  return
}

// -----

// Division and remainder by constants, as in index arithmetic of grouped tiles.
func.func @div_rem() {
  // expected-remark @+1 {{contiguity = [128], divisibility = [1073741824], constancy = [1]}}
  %r = tile.make_range 0, 128 : tensor<128xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [8], constancy = [128], constant = 8}}
  %c8 = arith.constant dense<8> : tensor<128xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [128], constant = 3}}
  %c3 = arith.constant dense<3> : tensor<128xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [8]}}
  %q = arith.divsi %r, %c8 : tensor<128xi32>
  // expected-remark @+1 {{contiguity = [8], divisibility = [8], constancy = [1]}}
  %m = arith.remsi %r, %c8 : tensor<128xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %q3 = arith.divui %r, %c3 : tensor<128xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %m3 = arith.remui %r, %c3 : tensor<128xi32>
  // expected-remark @+1 {{contiguity = [128], divisibility = [8], constancy = [1]}}
  %sub = arith.subi %r, %c8 : tensor<128xi32>
  return
}

// -----

// Remainder by a runtime value of known divisibility (tutorial 03's
// `offs % N`): runs as long as both the run and the divisor allow.
// expected-remark @+2 {{arg 0: contiguity = [1], divisibility = [16], constancy = [1]}}
// expected-remark @+1 {{arg 1: contiguity = [1], divisibility = [1], constancy = [1]}}
func.func @rem_runtime(%n: i32 {tile.divisibility = 16 : i32}, %odd: i32) {
  // expected-remark @+1 {{contiguity = [128], divisibility = [1073741824], constancy = [1]}}
  %r = tile.make_range 0, 128 : tensor<128xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [16], constancy = [128]}}
  %ns = tile.splat %n : tensor<128xi32>
  // expected-remark @+1 {{contiguity = [16], divisibility = [16], constancy = [1]}}
  %m = arith.remsi %r, %ns : tensor<128xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [128]}}
  %os = tile.splat %odd : tensor<128xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %mo = arith.remsi %r, %os : tensor<128xi32>
  return
}

// -----

// Bit operations and shifts.
// expected-remark @+1 {{arg 0: contiguity = [1], divisibility = [8], constancy = [1]}}
func.func @bits(%x: i32 {tile.divisibility = 8 : i32}) {
  // expected-remark @+1 {{contiguity = [64], divisibility = [1073741824], constancy = [1]}}
  %r = tile.make_range 0, 64 : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [2], constancy = [64], constant = 2}}
  %c2 = arith.constant dense<2> : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [64], constant = 15}}
  %c15 = arith.constant dense<15> : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [8], constancy = [64]}}
  %s = tile.splat %x : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [4], constancy = [1]}}
  %shl = arith.shli %r, %c2 : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [2], constancy = [64]}}
  %shr = arith.shrui %s, %c2 : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [8], constancy = [64]}}
  %and = arith.andi %s, %c15 : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [4], constancy = [1]}}
  %or = arith.ori %shl, %s : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [4], constancy = [1]}}
  %max = arith.maxsi %s, %shl : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [64], divisibility = [1073741824], constancy = [1]}}
  %ext = arith.extsi %r : tensor<64xi32> to tensor<64xi64>
  return
}

// -----

// A pointer advanced in a loop keeps its alignment; the induction variable is
// divisible by gcd(lb, step).
// expected-remark @+1 {{arg 0: contiguity = [1], divisibility = [16], constancy = [1]}}
func.func @loop(%a: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  // expected-remark @+1 {{contiguity = [1], divisibility = [1073741824], constancy = [1], constant = 0}}
  %c0 = arith.constant 0 : i32
  // expected-remark @+1 {{contiguity = [1], divisibility = [64], constancy = [1], constant = 64}}
  %c64 = arith.constant 64 : i32
  // expected-remark @+1 {{contiguity = [1], divisibility = [1024], constancy = [1], constant = 1024}}
  %c1024 = arith.constant 1024 : i32
  // expected-remark @+1 {{contiguity = [64], divisibility = [1073741824], constancy = [1]}}
  %r = tile.make_range 0, 64 : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [16], constancy = [64]}}
  %p = tile.splat %a : tensor<64x!tile.ptr<f32>>
  // expected-remark @+1 {{contiguity = [64], divisibility = [16], constancy = [1]}}
  %q = tile.addptr %p, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [64], constancy = [64], constant = 64}}
  %step = arith.constant dense<64> : tensor<64xi32>
  // expected-remark @+3 {{arg 0: contiguity = [1], divisibility = [64], constancy = [1]}}
  // expected-remark @+2 {{arg 1: contiguity = [64], divisibility = [16], constancy = [1]}}
  // expected-remark @+1 {{contiguity = [64], divisibility = [16], constancy = [1]}}
  %res = scf.for %i = %c0 to %c1024 step %c64 iter_args(%ptr = %q) -> (tensor<64x!tile.ptr<f32>>) : i32 {
    // expected-remark @+1 {{contiguity = [64], divisibility = [16], constancy = [1]}}
    %next = tile.addptr %ptr, %step : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    scf.yield %next : tensor<64x!tile.ptr<f32>>
  }
  return
}

// -----

// Hints on ops (tl.multiple_of, tl.max_contiguous) override what is derived.
// expected-remark @+1 {{arg 0: contiguity = [1], divisibility = [1], constancy = [1]}}
func.func @hints(%x: tensor<64xi32>) {
  // expected-remark @+1 {{contiguity = [64], divisibility = [16], constancy = [1]}}
  %h = arith.addi %x, %x {tile.contiguity = array<i64: 64>, tile.divisibility = 16 : i32} : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %m = arith.cmpi eq, %x, %x : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %sel = arith.select %m, %x, %h : tensor<64xi1>, tensor<64xi32>
  return
}

// -----

// A hint beyond the analysis' cap (2^30) says no more than the cap, and a
// product of such values stays a positive power of two.
// expected-remark @+1 {{arg 0: contiguity = [1], divisibility = [1073741824], constancy = [1]}}
func.func @hint_beyond_cap(%n: i64 {tile.divisibility = 4611686018427387904 : i64}) {
  // expected-remark @+1 {{contiguity = [1], divisibility = [1073741824], constancy = [1]}}
  %m = arith.muli %n, %n : i64
  return
}
