func.func @kernel(%x: i32) -> i32 {
  %0 = func.call @missing(%x) : (i32) -> i32
  return %0 : i32
}
