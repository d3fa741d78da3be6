func.func @main(%x: tensor<8192x1024xf32>) -> tensor<8192x1024xf32> {
  %n = "tosa.const"() {value = dense<9.765625e-04> : tensor<1x1xf32>} : () -> tensor<1x1xf32>
  %eps = "tosa.const"() {value = dense<1.0e-05> : tensor<1x1xf32>} : () -> tensor<1x1xf32>
  %s = tosa.reduce_sum %x {axis = 1 : i32} : (tensor<8192x1024xf32>) -> tensor<8192x1xf32>
  %mean = tosa.mul %s, %n {shift = 0 : i8} : (tensor<8192x1xf32>, tensor<1x1xf32>) -> tensor<8192x1xf32>
  %c = tosa.sub %x, %mean : (tensor<8192x1024xf32>, tensor<8192x1xf32>) -> tensor<8192x1024xf32>
  %sq = tosa.mul %c, %c {shift = 0 : i8} : (tensor<8192x1024xf32>, tensor<8192x1024xf32>) -> tensor<8192x1024xf32>
  %vs = tosa.reduce_sum %sq {axis = 1 : i32} : (tensor<8192x1024xf32>) -> tensor<8192x1xf32>
  %var = tosa.mul %vs, %n {shift = 0 : i8} : (tensor<8192x1xf32>, tensor<1x1xf32>) -> tensor<8192x1xf32>
  %ve = tosa.add %var, %eps : (tensor<8192x1xf32>, tensor<1x1xf32>) -> tensor<8192x1xf32>
  %rs = tosa.rsqrt %ve : (tensor<8192x1xf32>) -> tensor<8192x1xf32>
  %y = tosa.mul %c, %rs {shift = 0 : i8} : (tensor<8192x1024xf32>, tensor<8192x1xf32>) -> tensor<8192x1024xf32>
  return %y : tensor<8192x1024xf32>
}
