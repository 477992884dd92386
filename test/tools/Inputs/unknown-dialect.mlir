func.func @kernel(%x: i32) {
  %0 = "warp.shuffle"(%x) : (i32) -> i32
  return
}
