// AMD kernels cannot print (no device printf without the ROCm device
// libraries): an error at the op, not a crash.
// RUN: not tessera-compile --target=gfx942 %s 2>&1 | FileCheck %s

// CHECK: -:[[# @LINE + 3]]:3: cannot lower 'tile.print' for the GPU: this target has no device printf
func.func @print(%x: !tile.ptr<i32>) {
  %v = tile.load %x : !tile.ptr<i32>
  tile.print " v: " %v : i32 {isSigned = array<i1: true>}
  return
}

