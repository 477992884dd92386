func.func @kernel(%x: i32) {
  %0 = tile.frobnicate %x : i32
  return
}
