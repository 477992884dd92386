func.func @kernel(%x: !tile.ptr<f32>, %o: tensor<128xf32>) {
  %p = tile.splat %x : tensor<128x!tile.ptr<f32>>
  %q = tile.addptr %p, %o : tensor<128x!tile.ptr<f32>>, tensor<128xf32>
  return
}
