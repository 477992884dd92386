// z[i] = x[i] + y[i] for i < n, 1024 elements per program instance: the
// tile IR that `tl.load`/`tl.store` with a mask lower to.
func.func @add_kernel(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                      %y: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                      %z: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                      %n: i32 {tile.divisibility = 16 : i32}) {
  %pid = tile.program_id x
  %block = arith.constant 1024 : i32
  %start = arith.muli %pid, %block : i32
  %range = tile.make_range 0, 1024 : tensor<1024xi32>
  %base = tile.splat %start : tensor<1024xi32>
  %offs = arith.addi %base, %range : tensor<1024xi32>
  %bound = tile.splat %n : tensor<1024xi32>
  %mask = arith.cmpi slt, %offs, %bound : tensor<1024xi32>
  %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %ys = tile.splat %y : tensor<1024x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %a = tile.load %xp, %mask : tensor<1024x!tile.ptr<f32>>
  %b = tile.load %yp, %mask : tensor<1024x!tile.ptr<f32>>
  %sum = arith.addf %a, %b : tensor<1024xf32>
  %zs = tile.splat %z : tensor<1024x!tile.ptr<f32>>
  %zp = tile.addptr %zs, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  tile.store %zp, %sum, %mask : tensor<1024x!tile.ptr<f32>>
  return
}
