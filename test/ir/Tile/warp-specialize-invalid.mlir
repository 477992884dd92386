// RUN: tessera-opt %s -split-input-file -verify-diagnostics

// Every verifier error of tile.warp_specialize, one case each.

func.func @counts() {
  // expected-error @+1 {{has 1 partitions but 2 partition_num_warps}}
  tile.warp_specialize {partition_num_warps = array<i32: 4, 4>} default {
  } partitions {
  }
  return
}

// -----

func.func @no_warps() {
  // expected-error @+1 {{partition_num_warps must be positive}}
  tile.warp_specialize {partition_num_warps = array<i32: 0>} default {
  } partitions {
  }
  return
}

// -----

func.func @default_regs_alone() {
  // expected-error @+1 {{default_num_regs needs partition_num_regs}}
  tile.warp_specialize {default_num_regs = 232 : i32, partition_num_warps = array<i32: 4>} default {
  } partitions {
  }
  return
}

// -----

func.func @regs_per_partition() {
  // expected-error @+1 {{partition_num_regs needs one count per partition and default_num_regs}}
  tile.warp_specialize {default_num_regs = 232 : i32, partition_num_regs = array<i32: 40, 40>, partition_num_warps = array<i32: 4>} default {
  } partitions {
  }
  return
}

// -----

func.func @odd_regs() {
  // expected-error @+1 {{register counts must be multiples of 8 in [24, 256]}}
  tile.warp_specialize {default_num_regs = 230 : i32, partition_num_regs = array<i32: 40>, partition_num_warps = array<i32: 4>} default {
  } partitions {
  }
  return
}

// -----

func.func @partial_warpgroup() {
  // expected-error @+1 {{partitions that set their registers must have whole warpgroups (multiples of 4 warps)}}
  tile.warp_specialize {default_num_regs = 232 : i32, partition_num_regs = array<i32: 40>, partition_num_warps = array<i32: 2>} default {
  } partitions {
  }
  return
}

// -----

func.func @yield_outside() {
  // expected-error @+1 {{expects parent op 'tile.warp_specialize'}}
  tile.warp_yield
}
