func.func @main(%x: tensor<4096x4096xf32>, %y: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %c15 = "tosa.const"() {value = dense<1.5> : tensor<1x1xf32>} : () -> tensor<1x1xf32>
  %c05 = "tosa.const"() {value = dense<0.5> : tensor<1x1xf32>} : () -> tensor<1x1xf32>
  %a = tosa.mul %x, %c15 {shift = 0 : i8} : (tensor<4096x4096xf32>, tensor<1x1xf32>) -> tensor<4096x4096xf32>
  %b = tosa.add %a, %c05 : (tensor<4096x4096xf32>, tensor<1x1xf32>) -> tensor<4096x4096xf32>
  %t = tosa.tanh %b : (tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %m = tosa.mul %t, %y {shift = 0 : i8} : (tensor<4096x4096xf32>, tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %e = tosa.exp %m : (tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %s = tosa.sub %e, %y : (tensor<4096x4096xf32>, tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %r = tosa.sigmoid %s : (tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %r : tensor<4096x4096xf32>
}
