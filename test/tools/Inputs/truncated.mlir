func.func @kernel(%x: !tile.ptr<f32>) {
  %r = tile.make_range 0, 128 : tensor<128xi32>
  %p = tile.splat %x : tensor<128x!tile.ptr<f32>>
  %q = tile.addptr %p, %r : tensor<128x!tile.ptr<f32>>, tens
