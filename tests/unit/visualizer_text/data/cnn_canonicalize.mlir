#loc1 = loc("image")
#loc2 = loc(unknown)
#loc3 = loc("conv1.bias")
#loc4 = loc("conv2.bias")
#loc5 = loc("conv1")
#loc6 = loc("bn1")
#loc7 = loc("relu1")
#loc9 = loc("conv2")
#loc10 = loc("relu2")
#loc11 = loc("pool2")
#loc12 = loc("fc")
#loc13 = loc("softmax")
#map = affine_map<(d0, d1, d2, d3) -> (d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3) -> (0, d1, 0, 0)>
#map4 = affine_map<(d0, d1) -> (0, d1)>
#map5 = affine_map<(d0, d1) -> (d0, d1)>
#map6 = affine_map<(d0, d1) -> (0, 0)>
module {
  func.func @main(%arg0: tensor<1x3x32x32xf32> loc("image")) -> tensor<1x10xf32> {
    %cst = arith.constant 4.000000e+00 : f32 loc(#loc2)
    %cst_0 = arith.constant 1.000000e+00 : f32 loc(#loc2)
    %cst_1 = arith.constant -3.40282347E+38 : f32 loc(#loc2)
    %cst_2 = arith.constant 0.000000e+00 : f32 loc(#loc2)
    %cst_3 = arith.constant dense<[[0.0907468945, 0.0287766587, 0.134365842, 0.118028164]]> : tensor<1x10xf32> loc(#loc2)
    %cst_4 = arith.constant dense<"0xE3A4D13DBCF3B6BD"> : tensor<1x1024x10xf32> loc(#loc2)
    %cst_5 = arith.constant dense<"0x32F438BDA51A34BC"> : tensor<16x3x3x8xf32> loc(#loc2)
    %cst_6 = arith.constant dense<[[[[0.116512626]], [[0.00388164818]], [[-0.129155472]], [[0.0374056511]], [[-0.068945013]], [[-0.141385213]], [[0.19726944]], [[-0.0582277216]]]]> : tensor<1x8x1x1xf32> loc(#loc2)
    %cst_7 = arith.constant dense<[[[[1.33290899]], [[0.799905359]], [[1.56439126]], [[1.1752528]], [[1.10833025]], [[1.32259655]], [[0.995963573]], [[0.715754806]]]]> : tensor<1x8x1x1xf32> loc(#loc2)
    %cst_8 = arith.constant dense<"0x37D2BFBEB1818DBD"> : tensor<8x3x3x3xf32> loc(#loc2)
    %cst_9 = arith.constant dense<[-0.0889594852, -0.255225271, -0.116664797, -0.0563444942]> : tensor<8xf32> loc(#loc3)
    %cst_10 = arith.constant dense<[-0.0671918616, 0.241977379, 0.0943107679, -0.0928093791]> : tensor<16xf32> loc(#loc4)
    %0 = tensor.empty() : tensor<1x32x32x3xf32> loc(#loc5)
    %transposed = linalg.transpose ins(%arg0 : tensor<1x3x32x32xf32>) outs(%0 : tensor<1x32x32x3xf32>) permutation = [0, 2, 3, 1]  loc(#loc5)
    %padded = tensor.pad %transposed low[0, 1, 1, 0] high[0, 1, 1, 0] {
    ^bb0(%arg1: index loc("conv1"), %arg2: index loc("conv1"), %arg3: index loc("conv1"), %arg4: index loc("conv1")):
      tensor.yield %cst_2 : f32 loc(#loc5)
    } : tensor<1x32x32x3xf32> to tensor<1x34x34x3xf32> loc(#loc5)
    %1 = tensor.empty() : tensor<1x32x32x8xf32> loc(#loc5)
    %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cst_9 : tensor<8xf32>) outs(%1 : tensor<1x32x32x8xf32>) {
    ^bb0(%in: f32 loc("conv1.bias"), %out: f32 loc("conv1")):
      linalg.yield %in : f32 loc(#loc5)
    } -> tensor<1x32x32x8xf32> loc(#loc5)
    %3 = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%padded, %cst_8 : tensor<1x34x34x3xf32>, tensor<8x3x3x3xf32>) outs(%2 : tensor<1x32x32x8xf32>) -> tensor<1x32x32x8xf32> loc(#loc5)
    %4 = tensor.empty() : tensor<1x8x32x32xf32> loc(#loc5)
    %transposed_11 = linalg.transpose ins(%3 : tensor<1x32x32x8xf32>) outs(%4 : tensor<1x8x32x32xf32>) permutation = [0, 3, 1, 2]  loc(#loc5)
    %5 = tensor.empty() : tensor<1x8x32x32xf32> loc(#loc6)
    %6 = linalg.generic {indexing_maps = [#map2, #map3, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed_11, %cst_7 : tensor<1x8x32x32xf32>, tensor<1x8x1x1xf32>) outs(%5 : tensor<1x8x32x32xf32>) {
    ^bb0(%in: f32 loc("conv1"), %in_21: f32 loc(unknown), %out: f32 loc("bn1")):
      %47 = arith.mulf %in, %in_21 : f32 loc(#loc6)
      linalg.yield %47 : f32 loc(#loc6)
    } -> tensor<1x8x32x32xf32> loc(#loc6)
    %7 = tensor.empty() : tensor<1x8x32x32xf32> loc(#loc6)
    %8 = linalg.generic {indexing_maps = [#map2, #map3, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%6, %cst_6 : tensor<1x8x32x32xf32>, tensor<1x8x1x1xf32>) outs(%7 : tensor<1x8x32x32xf32>) {
    ^bb0(%in: f32 loc("bn1"), %in_21: f32 loc(unknown), %out: f32 loc("bn1")):
      %47 = arith.addf %in, %in_21 : f32 loc(#loc6)
      linalg.yield %47 : f32 loc(#loc6)
    } -> tensor<1x8x32x32xf32> loc(#loc6)
    %9 = tensor.empty() : tensor<1x8x32x32xf32> loc(#loc7)
    %10 = linalg.generic {indexing_maps = [#map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%8 : tensor<1x8x32x32xf32>) outs(%9 : tensor<1x8x32x32xf32>) {
    ^bb0(%in: f32 loc("bn1"), %out: f32 loc("relu1")):
      %47 = arith.maximumf %in, %cst_2 : f32 loc(#loc7)
      linalg.yield %47 : f32 loc(#loc7)
    } -> tensor<1x8x32x32xf32> loc(#loc7)
    %11 = tensor.empty() : tensor<1x32x32x8xf32> loc(#loc8)
    %transposed_12 = linalg.transpose ins(%10 : tensor<1x8x32x32xf32>) outs(%11 : tensor<1x32x32x8xf32>) permutation = [0, 2, 3, 1]  loc(#loc8)
    %12 = tensor.empty() : tensor<1x16x16x8xf32> loc(#loc8)
    %13 = linalg.fill ins(%cst_1 : f32) outs(%12 : tensor<1x16x16x8xf32>) -> tensor<1x16x16x8xf32> loc(#loc8)
    %14 = tensor.empty() : tensor<2x2xf32> loc(#loc8)
    %15 = linalg.pooling_nhwc_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%transposed_12, %14 : tensor<1x32x32x8xf32>, tensor<2x2xf32>) outs(%13 : tensor<1x16x16x8xf32>) -> tensor<1x16x16x8xf32> loc(#loc8)
    %padded_13 = tensor.pad %15 low[0, 1, 1, 0] high[0, 1, 1, 0] {
    ^bb0(%arg1: index loc("conv2"), %arg2: index loc("conv2"), %arg3: index loc("conv2"), %arg4: index loc("conv2")):
      tensor.yield %cst_2 : f32 loc(#loc9)
    } : tensor<1x16x16x8xf32> to tensor<1x18x18x8xf32> loc(#loc9)
    %16 = tensor.empty() : tensor<1x16x16x16xf32> loc(#loc9)
    %17 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cst_10 : tensor<16xf32>) outs(%16 : tensor<1x16x16x16xf32>) {
    ^bb0(%in: f32 loc("conv2.bias"), %out: f32 loc("conv2")):
      linalg.yield %in : f32 loc(#loc9)
    } -> tensor<1x16x16x16xf32> loc(#loc9)
    %18 = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%padded_13, %cst_5 : tensor<1x18x18x8xf32>, tensor<16x3x3x8xf32>) outs(%17 : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32> loc(#loc9)
    %19 = tensor.empty() : tensor<1x16x16x16xf32> loc(#loc9)
    %transposed_14 = linalg.transpose ins(%18 : tensor<1x16x16x16xf32>) outs(%19 : tensor<1x16x16x16xf32>) permutation = [0, 3, 1, 2]  loc(#loc9)
    %20 = tensor.empty() : tensor<1x16x16x16xf32> loc(#loc10)
    %21 = linalg.generic {indexing_maps = [#map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed_14 : tensor<1x16x16x16xf32>) outs(%20 : tensor<1x16x16x16xf32>) {
    ^bb0(%in: f32 loc("conv2"), %out: f32 loc("relu2")):
      %47 = arith.maximumf %in, %cst_2 : f32 loc(#loc10)
      linalg.yield %47 : f32 loc(#loc10)
    } -> tensor<1x16x16x16xf32> loc(#loc10)
    %22 = tensor.empty() : tensor<1x16x16x16xf32> loc(#loc11)
    %transposed_15 = linalg.transpose ins(%21 : tensor<1x16x16x16xf32>) outs(%22 : tensor<1x16x16x16xf32>) permutation = [0, 2, 3, 1]  loc(#loc11)
    %23 = tensor.empty() : tensor<1x8x8x16xf32> loc(#loc11)
    %24 = linalg.fill ins(%cst_2 : f32) outs(%23 : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32> loc(#loc11)
    %25 = tensor.empty() : tensor<2x2xf32> loc(#loc11)
    %26 = linalg.pooling_nhwc_sum {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%transposed_15, %25 : tensor<1x16x16x16xf32>, tensor<2x2xf32>) outs(%24 : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32> loc(#loc11)
    %27 = tensor.empty() : tensor<1x8x8x16xf32> loc(#loc11)
    %28 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%26 : tensor<1x8x8x16xf32>) outs(%27 : tensor<1x8x8x16xf32>) {
    ^bb0(%in: f32 loc("pool2"), %out: f32 loc("pool2")):
      %47 = arith.divf %in, %cst : f32 loc(#loc11)
      linalg.yield %47 : f32 loc(#loc11)
    } -> tensor<1x8x8x16xf32> loc(#loc11)
    %29 = tensor.empty() : tensor<1x16x8x8xf32> loc(#loc11)
    %transposed_16 = linalg.transpose ins(%28 : tensor<1x8x8x16xf32>) outs(%29 : tensor<1x16x8x8xf32>) permutation = [0, 3, 1, 2]  loc(#loc11)
    %collapsed = tensor.collapse_shape %transposed_16 [[0], [1, 2, 3]] : tensor<1x16x8x8xf32> into tensor<1x1024xf32> loc(#loc12)
    %expanded = tensor.expand_shape %collapsed [[0, 1], [2]] output_shape [1, 1, 1024] : tensor<1x1024xf32> into tensor<1x1x1024xf32> loc(#loc12)
    %30 = tensor.empty() : tensor<1x1x10xf32> loc(#loc12)
    %31 = linalg.fill ins(%cst_2 : f32) outs(%30 : tensor<1x1x10xf32>) -> tensor<1x1x10xf32> loc(#loc12)
    %32 = linalg.batch_matmul ins(%expanded, %cst_4 : tensor<1x1x1024xf32>, tensor<1x1024x10xf32>) outs(%31 : tensor<1x1x10xf32>) -> tensor<1x1x10xf32> loc(#loc12)
    %collapsed_17 = tensor.collapse_shape %32 [[0, 1], [2]] : tensor<1x1x10xf32> into tensor<1x10xf32> loc(#loc12)
    %33 = tensor.empty() : tensor<1x10xf32> loc(#loc12)
    %34 = linalg.generic {indexing_maps = [#map4, #map4, #map5], iterator_types = ["parallel", "parallel"]} ins(%collapsed_17, %cst_3 : tensor<1x10xf32>, tensor<1x10xf32>) outs(%33 : tensor<1x10xf32>) {
    ^bb0(%in: f32 loc("fc"), %in_21: f32 loc(unknown), %out: f32 loc("fc")):
      %47 = arith.addf %in, %in_21 : f32 loc(#loc12)
      linalg.yield %47 : f32 loc(#loc12)
    } -> tensor<1x10xf32> loc(#loc12)
    %35 = tensor.empty() : tensor<1xf32> loc(#loc13)
    %36 = linalg.fill ins(%cst_1 : f32) outs(%35 : tensor<1xf32>) -> tensor<1xf32> loc(#loc13)
    %reduced = linalg.reduce ins(%34 : tensor<1x10xf32>) outs(%36 : tensor<1xf32>) dimensions = [1] 
      (%in: f32 loc("fc"), %init: f32 loc("softmax")) {
        %47 = arith.maximumf %in, %init : f32 loc(#loc13)
        linalg.yield %47 : f32 loc(#loc13)
      } loc(#loc13)
    %expanded_18 = tensor.expand_shape %reduced [[0, 1]] output_shape [1, 1] : tensor<1xf32> into tensor<1x1xf32> loc(#loc13)
    %37 = tensor.empty() : tensor<1x10xf32> loc(#loc13)
    %38 = linalg.generic {indexing_maps = [#map4, #map6, #map5], iterator_types = ["parallel", "parallel"]} ins(%34, %expanded_18 : tensor<1x10xf32>, tensor<1x1xf32>) outs(%37 : tensor<1x10xf32>) {
    ^bb0(%in: f32 loc("fc"), %in_21: f32 loc("softmax"), %out: f32 loc("softmax")):
      %47 = arith.subf %in, %in_21 : f32 loc(#loc13)
      linalg.yield %47 : f32 loc(#loc13)
    } -> tensor<1x10xf32> loc(#loc13)
    %39 = tensor.empty() : tensor<1x10xf32> loc(#loc13)
    %40 = linalg.generic {indexing_maps = [#map4, #map5], iterator_types = ["parallel", "parallel"]} ins(%38 : tensor<1x10xf32>) outs(%39 : tensor<1x10xf32>) {
    ^bb0(%in: f32 loc("softmax"), %out: f32 loc("softmax")):
      %47 = math.exp %in : f32 loc(#loc13)
      linalg.yield %47 : f32 loc(#loc13)
    } -> tensor<1x10xf32> loc(#loc13)
    %41 = tensor.empty() : tensor<1xf32> loc(#loc13)
    %42 = linalg.fill ins(%cst_2 : f32) outs(%41 : tensor<1xf32>) -> tensor<1xf32> loc(#loc13)
    %reduced_19 = linalg.reduce ins(%40 : tensor<1x10xf32>) outs(%42 : tensor<1xf32>) dimensions = [1] 
      (%in: f32 loc("softmax"), %init: f32 loc("softmax")) {
        %47 = arith.addf %in, %init : f32 loc(#loc13)
        linalg.yield %47 : f32 loc(#loc13)
      } loc(#loc13)
    %expanded_20 = tensor.expand_shape %reduced_19 [[0, 1]] output_shape [1, 1] : tensor<1xf32> into tensor<1x1xf32> loc(#loc13)
    %43 = tensor.empty() : tensor<1x1xf32> loc(#loc13)
    %44 = linalg.generic {indexing_maps = [#map6, #map5], iterator_types = ["parallel", "parallel"]} ins(%expanded_20 : tensor<1x1xf32>) outs(%43 : tensor<1x1xf32>) {
    ^bb0(%in: f32 loc("softmax"), %out: f32 loc("softmax")):
      %47 = arith.divf %cst_0, %in : f32 loc(#loc13)
      linalg.yield %47 : f32 loc(#loc13)
    } -> tensor<1x1xf32> loc(#loc13)
    %45 = tensor.empty() : tensor<1x10xf32> loc(#loc13)
    %46 = linalg.generic {indexing_maps = [#map4, #map6, #map5], iterator_types = ["parallel", "parallel"]} ins(%40, %44 : tensor<1x10xf32>, tensor<1x1xf32>) outs(%45 : tensor<1x10xf32>) {
    ^bb0(%in: f32 loc("softmax"), %in_21: f32 loc("softmax"), %out: f32 loc("softmax")):
      %47 = arith.mulf %in, %in_21 : f32 loc(#loc13)
      linalg.yield %47 : f32 loc(#loc13)
    } -> tensor<1x10xf32> loc(#loc13)
    return %46 : tensor<1x10xf32> loc(#loc14)
  } loc(#loc)
} loc(#loc)
#loc = loc("cnn")
#loc8 = loc("pool1")
#loc14 = loc("return")
