// Row-wise softmax of an M x 1024 fp32 matrix, one row per program instance:
// max-subtracted exponentials divided by their sum, through tile.reduce.
func.func private @row_max(%v: tensor<1024xf32>) -> f32 {
  %m = tile.reduce(%v) axis = 0 : (tensor<1024xf32>) -> f32 {
  ^bb0(%a: f32, %b: f32):
    %r = arith.maximumf %a, %b : f32
    tile.reduce.return %r : f32
  }
  return %m : f32
}

func.func private @row_sum(%v: tensor<1024xf32>) -> f32 {
  %s = tile.reduce(%v) axis = 0 : (tensor<1024xf32>) -> f32 {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    tile.reduce.return %r : f32
  }
  return %s : f32
}

func.func @softmax_kernel(%out: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                          %in: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                          %stride: i32 {tile.divisibility = 16 : i32},
                          %ncols: i32) {
  %row = tile.program_id x
  %start = arith.muli %row, %stride : i32
  %cols = tile.make_range 0, 1024 : tensor<1024xi32>
  %bound = tile.splat %ncols : tensor<1024xi32>
  %mask = arith.cmpi slt, %cols, %bound : tensor<1024xi32>
  %row_in = tile.addptr %in, %start : !tile.ptr<f32>, i32
  %in_s = tile.splat %row_in : tensor<1024x!tile.ptr<f32>>
  %in_p = tile.addptr %in_s, %cols : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %ninf = arith.constant 0xFF800000 : f32
  %ninfs = tile.splat %ninf : tensor<1024xf32>
  %x = tile.load %in_p, %mask, %ninfs : tensor<1024x!tile.ptr<f32>>
  %max = func.call @row_max(%x) : (tensor<1024xf32>) -> f32
  %maxs = tile.splat %max : tensor<1024xf32>
  %shifted = arith.subf %x, %maxs : tensor<1024xf32>
  %num = math.exp %shifted : tensor<1024xf32>
  %den = func.call @row_sum(%num) : (tensor<1024xf32>) -> f32
  %dens = tile.splat %den : tensor<1024xf32>
  %y = arith.divf %num, %dens : tensor<1024xf32>
  %row_out = tile.addptr %out, %start : !tile.ptr<f32>, i32
  %out_s = tile.splat %row_out : tensor<1024x!tile.ptr<f32>>
  %out_p = tile.addptr %out_s, %cols : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  tile.store %out_p, %y, %mask : tensor<1024x!tile.ptr<f32>>
  return
}
