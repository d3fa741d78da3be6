func.func @main(%x: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %m = tosa.reduce_max %x {axis = 1 : i32} : (tensor<4096x4096xf32>) -> tensor<4096x1xf32>
  %d = tosa.sub %x, %m : (tensor<4096x4096xf32>, tensor<4096x1xf32>) -> tensor<4096x4096xf32>
  %e = tosa.exp %d : (tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %s = tosa.reduce_sum %e {axis = 1 : i32} : (tensor<4096x4096xf32>) -> tensor<4096x1xf32>
  %r = tosa.reciprocal %s : (tensor<4096x1xf32>) -> tensor<4096x1xf32>
  %y = tosa.mul %e, %r {shift = 0 : i8} : (tensor<4096x4096xf32>, tensor<4096x1xf32>) -> tensor<4096x4096xf32>
  return %y : tensor<4096x4096xf32>
}
