// bench_ral's compiled elementwise kernel: c = a + b over 16 Mi floats (the STREAM "add" of
// RalBench.cpp), compiled by `loupe compile` into an artifact whose add runs through
// ral_cpu_launch on the CPU driver's thread pool.
func.func @main(%a: tensor<16777216xf32>, %b: tensor<16777216xf32>) -> tensor<16777216xf32> {
  %c = tosa.add %a, %b : (tensor<16777216xf32>, tensor<16777216xf32>) -> tensor<16777216xf32>
  return %c : tensor<16777216xf32>
}
