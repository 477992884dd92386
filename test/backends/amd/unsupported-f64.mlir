// f64 transcendentals need the ROCm device libraries on AMD GPUs: an error
// at the op, before lowering.
// RUN: not tessera-compile --target=gfx1100 %s 2>&1 | FileCheck %s

// CHECK: -:[[# @LINE + 3]]:8: cannot lower 'math.exp' on f64 for AMD GPUs: it needs the ROCm device libraries
func.func @exp64(%x: !tile.ptr<f64>) {
  %v = tile.load %x : !tile.ptr<f64>
  %e = math.exp %v : f64
  tile.store %x, %e : !tile.ptr<f64>
  return
}
