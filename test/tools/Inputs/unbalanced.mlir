func.func @kernel(%x: i32) {
  %0 = tile.reduce(%x) axis = 0 : (tensor<4xi32>) -> i32 {
  ^bb0(%a: i32, %b: i32):
    tile.reduce.return %a : i32
  return
}
