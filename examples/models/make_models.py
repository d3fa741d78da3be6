#!/usr/bin/python3
"""Writes Loupe's example models and their test data (deterministic: fixed seeds).

    /usr/bin/python3 examples/models/make_models.py [--check-only]

Outputs, next to this script:
  mlp.onnx, cnn.onnx, transformer_block.onnx,
  conv_relu.onnx, dynq_mlp.onnx, qop_cnn.onnx,
  conv_hardswish.onnx, dwconv_act.onnx         ONNX opset 17 models with named nodes
  mlp_tosa.mlir                                a TOSA model (MLIR 19.1) with a loc() per op
  <name>/test_data_set_0/input_0.pb, output_0.pb   ONNX backend-test layout (TensorProto)

Needs only Debian's python3-onnx (1.12) and python3-numpy. onnx 1.12 has no reference
evaluator and onnxruntime is not available, so expected outputs come from the small numpy
evaluator below (computed in float64, stored as float32). Before it is trusted, every op it
implements is checked against ONNX's own backend node tests from libonnx-testdata
(/usr/share/libonnx-testdata/data/node), when that package is installed.
"""
import argparse
import glob
import math
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, checker, helper, numpy_helper, shape_inference

HERE = os.path.dirname(os.path.abspath(__file__))
OPSET = 17
ONNX_NODE_TESTS = "/usr/share/libonnx-testdata/data/node"

# ----------------------------------------------------------------------------------------------
# A small numpy evaluator for the ONNX ops the examples use (float64 inside).
# ----------------------------------------------------------------------------------------------


class Unsupported(Exception):
    """An attribute value the evaluator does not implement (the self-test skips such tests)."""


def _require(cond, what):
    if not cond:
        raise Unsupported(what)


def _notset(a):
    return a.get("auto_pad", b"NOTSET") in (b"NOTSET", "NOTSET")


def _attrs(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _pool_pads(pads, rank):
    pads = list(pads) if pads else [0] * (2 * rank)
    return [(pads[i], pads[i + rank]) for i in range(rank)]


def _windows(x, kernel, strides, pads, pad_value):
    """[N, C, *spatial] -> [N, C, *out, *kernel] sliding windows (after padding)."""
    rank = len(kernel)
    x = np.pad(x, [(0, 0), (0, 0)] + _pool_pads(pads, rank), constant_values=pad_value)
    w = np.lib.stride_tricks.sliding_window_view(x, kernel, axis=tuple(range(2, 2 + rank)))
    return w[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in strides)]


def op_conv(node, x, w, b=None):
    a = _attrs(node)
    _require(_notset(a), "Conv auto_pad")
    _require(all(d == 1 for d in a.get("dilations", [1])), "dilated Conv")
    kernel = list(w.shape[2:])
    strides = a.get("strides", [1] * len(kernel))
    win = _windows(x, kernel, strides, a.get("pads"), 0.0)  # N, C, OH, OW, KH, KW
    groups = a.get("group", 1)
    cg, og = x.shape[1] // groups, w.shape[0] // groups
    y = np.concatenate([np.einsum("nchwij,ocij->nohw", win[:, g * cg:(g + 1) * cg], w[g * og:(g + 1) * og])
                        for g in range(groups)], axis=1)
    if b is not None:
        y = y + b.reshape(1, -1, 1, 1)
    return y


def op_maxpool(node, x):
    a = _attrs(node)
    _require(a.get("ceil_mode", 0) == 0 and _notset(a), "MaxPool ceil_mode/auto_pad")
    _require(all(d == 1 for d in a.get("dilations", [1])), "dilated MaxPool")
    _require(a.get("storage_order", 0) == 0 and len(node.output) == 1, "MaxPool indices")
    kernel = a["kernel_shape"]
    win = _windows(x, kernel, a.get("strides", [1] * len(kernel)), a.get("pads"), -np.inf)
    return win.max(axis=tuple(range(-len(kernel), 0)))


def op_averagepool(node, x):
    a = _attrs(node)
    _require(a.get("ceil_mode", 0) == 0 and _notset(a), "AveragePool ceil_mode/auto_pad")
    kernel = a["kernel_shape"]
    strides = a.get("strides", [1] * len(kernel))
    axes = tuple(range(-len(kernel), 0))
    total = _windows(x, kernel, strides, a.get("pads"), 0.0).sum(axis=axes)
    if a.get("count_include_pad", 0):
        return total / np.prod(kernel)
    count = _windows(np.ones_like(x), kernel, strides, a.get("pads"), 0.0).sum(axis=axes)
    return total / count


def op_batchnorm(node, x, scale, bias, mean, var):
    a = _attrs(node)
    _require(a.get("training_mode", 0) == 0 and len(node.output) == 1, "training BatchNormalization")
    shape = (1, -1) + (1,) * (x.ndim - 2)
    eps = a.get("epsilon", 1e-5)
    return (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) * scale.reshape(
        shape
    ) + bias.reshape(shape)


def op_layernorm(node, x, scale, bias=None):
    a = _attrs(node)
    axis = a.get("axis", -1) % x.ndim
    eps = a.get("epsilon", 1e-5)
    axes = tuple(range(axis, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    inv_std = 1.0 / np.sqrt(var + eps)
    y = (x - mean) * inv_std * scale
    if bias is not None:
        y = y + bias
    return y, mean, inv_std


def op_gemm(node, a_, b_, c=None):
    a = _attrs(node)
    if a.get("transA", 0):
        a_ = a_.T
    if a.get("transB", 0):
        b_ = b_.T
    y = a.get("alpha", 1.0) * (a_ @ b_)
    if c is not None:
        y = y + a.get("beta", 1.0) * c
    return y


def op_softmax(node, x):
    axis = _attrs(node).get("axis", -1)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def op_reducemean(node, x, axes_input=None):
    a = _attrs(node)
    axes = a.get("axes")
    if axes_input is not None:
        axes = list(axes_input.astype(np.int64))
    axes = tuple(range(x.ndim)) if axes is None or len(axes) == 0 else tuple(axes)
    return x.mean(axis=axes, keepdims=bool(a.get("keepdims", 1)))


def op_flatten(node, x):
    axis = _attrs(node).get("axis", 1) % (x.ndim + 1) if x.ndim else 0
    return x.reshape(int(np.prod(x.shape[:axis])), -1)


def op_dynamic_quantize_linear(node, x):
    """uint8 quantization of x with a scale and zero point from its range, in float32 as ONNX."""
    x = x.astype(np.float32)
    lo, hi = min(np.float32(0), x.min()), max(np.float32(0), x.max())
    scale = np.float32((hi - lo) / np.float32(255))
    zero_point = np.clip(np.rint(-lo / scale), 0, 255) if scale else np.float32(0)
    y = np.clip(np.rint(x / scale) + zero_point, 0, 255) if scale else np.zeros_like(x)
    return y.astype(np.float64), np.float64(scale), np.float64(zero_point)


def _exact(x, zero_point=None):
    """x - zero_point as int64 (integer tensors keep their numpy dtype in the evaluator)."""
    x = np.asarray(x).astype(np.int64)
    return x if zero_point is None else x - np.asarray(zero_point).astype(np.int64)


def op_quantize_linear(node, x, scale, zero_point=None):
    """saturate(round_half_even(x / scale) + zero_point) in the zero point's type (uint8 without
    one), per tensor; x / scale in float32 as ONNX computes it."""
    _require(np.ndim(scale) == 0 or np.size(scale) == 1, "per-axis QuantizeLinear")
    dtype = np.uint8 if zero_point is None else np.asarray(zero_point).dtype
    _require(dtype.kind in "iu", "QuantizeLinear to a non-integer type")
    info = np.iinfo(dtype)
    q = np.rint(x.astype(np.float32) / np.float32(scale)).astype(np.float64)
    q = q + (0 if zero_point is None else np.asarray(zero_point, np.float64))
    return np.clip(q, info.min, info.max).astype(dtype)


def op_conv_integer(node, x, w, x_zero_point=None, w_zero_point=None):
    """Exact: Conv of x - x_zero_point and w - w_zero_point (per-tensor zero points); the
    padding holds the zero point (0 after the subtraction)."""
    _require(w_zero_point is None or np.size(w_zero_point) == 1, "per-channel w_zero_point")
    return op_conv(node, _exact(x, x_zero_point).astype(np.float64),
                   _exact(w, w_zero_point).astype(np.float64))


def op_matmul_integer(node, a, b, a_zero_point=None, b_zero_point=None):
    """Exact: (a - a_zero_point) @ (b - b_zero_point), per-tensor or per-row/column zero points."""
    a_zp = 0 if a_zero_point is None else _exact(a_zero_point)
    b_zp = 0 if b_zero_point is None else _exact(b_zero_point)
    if np.ndim(a_zp) == 1 and a.ndim >= 2:
        a_zp = a_zp.reshape(-1, 1)
    return np.matmul(_exact(a) - a_zp, _exact(b) - b_zp)


def op_cast(node, x):
    _require(_attrs(node)["to"] in (TensorProto.FLOAT, TensorProto.DOUBLE), "cast to non-float")
    return np.asarray(x, np.float64)


_erf = np.vectorize(math.erf, otypes=[np.float64])

OPS = {
    "Add": lambda n, a, b: a + b,
    "Sub": lambda n, a, b: a - b,
    "Mul": lambda n, a, b: a * b,
    "Div": lambda n, a, b: a / b,
    "Relu": lambda n, x: np.maximum(x, 0),
    "HardSwish": lambda n, x: x * np.clip(x / 6 + 0.5, 0, 1),
    "Sigmoid": lambda n, x: 1 / (1 + np.exp(-x)),
    "Clip": lambda n, x, lo=None, hi=None: np.clip(
        x, -np.inf if lo is None else lo, np.inf if hi is None else hi),
    "Erf": lambda n, x: _erf(x),
    "MatMul": lambda n, a, b: np.matmul(a, b),
    "Gemm": op_gemm,
    "Softmax": op_softmax,
    "Conv": op_conv,
    "BatchNormalization": op_batchnorm,
    "MaxPool": op_maxpool,
    "AveragePool": op_averagepool,
    "Flatten": op_flatten,
    "Transpose": lambda n, x: np.transpose(x, _attrs(n).get("perm")),
    "Concat": lambda n, *xs: np.concatenate(xs, axis=_attrs(n)["axis"]),
    "ReduceMean": op_reducemean,
    "LayerNormalization": op_layernorm,
    "DynamicQuantizeLinear": op_dynamic_quantize_linear,
    "MatMulInteger": op_matmul_integer,
    "QuantizeLinear": op_quantize_linear,
    "ConvInteger": op_conv_integer,
    "Cast": op_cast,
}


def _value(array):
    """Floats as float64; integers keep their type (the quantization ops need it)."""
    array = np.asarray(array)
    return array if array.dtype.kind in "iu" else array.astype(np.float64)


def run_graph(model, feeds):
    """Evaluates `model` on `feeds` (name -> array); returns the graph outputs in order."""
    env = {t.name: _value(numpy_helper.to_array(t)) for t in model.graph.initializer}
    for name, value in feeds.items():
        env[name] = _value(value)
    for node in model.graph.node:
        args = [env[i] if i else None for i in node.input]
        while args and args[-1] is None:
            args.pop()
        result = OPS[node.op_type](node, *args)
        results = result if isinstance(result, tuple) else (result,)
        for name, value in zip(node.output, results):
            if name:
                env[name] = value
    return [env[o.name] for o in model.graph.output]


def self_test():
    """Checks every op of OPS against ONNX's backend node tests; returns the number checked."""
    if not os.path.isdir(ONNX_NODE_TESTS):
        print("note: %s missing; numpy reference not cross-checked" % ONNX_NODE_TESTS)
        return 0
    patterns = [
        "add", "add_bcast", "sub_bcast", "mul_bcast", "div_bcast", "relu", "erf", "clip*",
        "gemm_*", "softmax_axis_?", "softmax_default_axis", "softmax_large_number",
        "basic_conv_with_padding", "basic_conv_without_padding", "conv_with_strides_*",
        "maxpool_2d_default", "maxpool_2d_pads", "maxpool_2d_strides", "maxpool_2d_precomputed_*",
        "averagepool_2d_default", "averagepool_2d_pads", "averagepool_2d_strides",
        "averagepool_2d_pads_count_include_pad", "averagepool_2d_precomputed_*",
        "batchnorm_example", "batchnorm_epsilon", "flatten_axis?", "flatten_default_axis",
        "matmul_2d", "matmul_3d", "matmul_4d", "transpose_all_permutations_*", "transpose_default",
        "concat_*", "reduce_mean_*", "layer_normalization_*", "dynamicquantizelinear*",
        "matmulinteger", "cast_DOUBLE_to_FLOAT", "cast_FLOAT16_to_FLOAT", "quantizelinear",
        "convinteger_*", "basic_convinteger", "hardswish", "sigmoid", "sigmoid_example",
    ]
    dirs = sorted({d for p in patterns for d in glob.glob(os.path.join(ONNX_NODE_TESTS, "test_" + p))})
    checked = skipped = 0
    ops = set()
    for d in dirs:
        if d.endswith("_expanded"):
            continue
        model = onnx.load(os.path.join(d, "model.onnx"))
        if any(n.op_type not in OPS for n in model.graph.node):
            continue
        init = {t.name for t in model.graph.initializer}
        inputs = [i.name for i in model.graph.input if i.name not in init]
        for data in sorted(glob.glob(os.path.join(d, "test_data_set_*"))):
            feeds = {}
            for k, name in enumerate(inputs):
                feeds[name] = numpy_helper.to_array(onnx.load_tensor(os.path.join(data, "input_%d.pb" % k)))
            try:
                got = run_graph(model, feeds)
            except Unsupported:
                skipped += 1
                break
            for k, value in enumerate(got):
                want = numpy_helper.to_array(onnx.load_tensor(os.path.join(data, "output_%d.pb" % k)))
                if value.shape != want.shape or not np.allclose(value, want, rtol=1e-4, atol=1e-5):
                    raise SystemExit(
                        "numpy reference disagrees with ONNX test %s output %d (max |diff| %s)"
                        % (os.path.basename(d), k,
                           np.abs(value - want).max() if value.shape == want.shape else value.shape)
                    )
            checked += 1
            ops.update(n.op_type for n in model.graph.node)
    ops = sorted(ops)
    missing = sorted(set(OPS) - set(ops))
    if missing:
        raise SystemExit("no ONNX node test exercised %s" % missing)
    print("numpy reference: %d ONNX node tests agree, %d use attributes it lacks (%s)"
          % (checked, skipped, ", ".join(ops)))
    return checked


# ----------------------------------------------------------------------------------------------
# Model builders
# ----------------------------------------------------------------------------------------------


def f32(a):
    return np.asarray(a, dtype=np.float32)


def init(name, array):
    return numpy_helper.from_array(f32(array), name)


def he(rng, shape, fan_in):
    return f32(rng.standard_normal(shape) * math.sqrt(2.0 / fan_in))


def finish(graph, doc):
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name="loupe-examples",
        producer_version="1",
        doc_string=doc,
    )
    model.ir_version = 8
    checker.check_model(model, full_check=True)
    inferred = shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
    checker.check_model(inferred, full_check=True)
    # Keep the inferred value_info: every intermediate tensor has a static shape in the file.
    return inferred


def make_mlp(rng):
    w1, b1 = he(rng, (128, 64), 64), f32(rng.standard_normal(128) * 0.1)
    w2, b2 = he(rng, (128, 64), 128), f32(rng.standard_normal(64) * 0.1)  # [K, N]: transB=0
    w3, b3 = he(rng, (10, 64), 64), f32(rng.standard_normal(10) * 0.1)
    nodes = [
        helper.make_node("Gemm", ["x", "fc1.weight", "fc1.bias"], ["fc1.out"], name="fc1", transB=1),
        helper.make_node("Relu", ["fc1.out"], ["relu1.out"], name="relu1"),
        helper.make_node("Gemm", ["relu1.out", "fc2.weight", "fc2.bias"], ["fc2.out"], name="fc2"),
        # GELU (exact, erf form), spelled out: opset 17 has no Gelu op.
        # As PyTorch exports it: Div by sqrt(2), Erf, Add 1, Mul by x, Mul by 0.5.
        helper.make_node("Div", ["fc2.out", "gelu.sqrt2"], ["gelu.scaled"], name="gelu_div"),
        helper.make_node("Erf", ["gelu.scaled"], ["gelu.erf"], name="gelu_erf"),
        helper.make_node("Add", ["gelu.erf", "gelu.one"], ["gelu.one_plus"], name="gelu_add"),
        helper.make_node("Mul", ["fc2.out", "gelu.one_plus"], ["gelu.x_times"], name="gelu_mul"),
        helper.make_node("Mul", ["gelu.x_times", "gelu.half"], ["gelu.out"], name="gelu_half"),
        helper.make_node("Gemm", ["gelu.out", "fc3.weight", "fc3.bias"], ["logits"], name="fc3", transB=1),
        helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=-1),
    ]
    graph = helper.make_graph(
        nodes,
        "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, 64])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [8, 10])],
        initializer=[
            init("fc1.weight", w1), init("fc1.bias", b1),
            init("fc2.weight", w2), init("fc2.bias", b2),
            init("fc3.weight", w3), init("fc3.bias", b3),
            init("gelu.sqrt2", math.sqrt(2.0)), init("gelu.one", 1.0), init("gelu.half", 0.5),
        ],
    )
    model = finish(graph, "MLP 64-128-64-10: Gemm, Relu, GELU via Erf, Softmax")
    return model, {"x": f32(rng.standard_normal((8, 64)))}


def make_cnn(rng):
    bn_scale = f32(1.0 + 0.1 * rng.standard_normal(8))
    bn_bias = f32(0.1 * rng.standard_normal(8))
    bn_mean = f32(0.1 * rng.standard_normal(8))
    bn_var = f32(rng.uniform(0.5, 1.5, 8))
    nodes = [
        helper.make_node("Conv", ["image", "conv1.weight", "conv1.bias"], ["conv1.out"], name="conv1",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1]),
        helper.make_node("BatchNormalization",
                         ["conv1.out", "bn1.scale", "bn1.bias", "bn1.mean", "bn1.var"], ["bn1.out"],
                         name="bn1", epsilon=1e-5),
        helper.make_node("Relu", ["bn1.out"], ["relu1.out"], name="relu1"),
        helper.make_node("MaxPool", ["relu1.out"], ["pool1.out"], name="pool1",
                         kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["pool1.out", "conv2.weight", "conv2.bias"], ["conv2.out"], name="conv2",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1]),
        helper.make_node("Relu", ["conv2.out"], ["relu2.out"], name="relu2"),
        helper.make_node("AveragePool", ["relu2.out"], ["pool2.out"], name="pool2",
                         kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["pool2.out"], ["flatten.out"], name="flatten", axis=1),
        helper.make_node("Gemm", ["flatten.out", "fc.weight", "fc.bias"], ["logits"], name="fc", transB=1),
        helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=-1),
    ]
    graph = helper.make_graph(
        nodes,
        "cnn",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 32, 32])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [1, 10])],
        initializer=[
            init("conv1.weight", he(rng, (8, 3, 3, 3), 27)), init("conv1.bias", 0.1 * rng.standard_normal(8)),
            init("bn1.scale", bn_scale), init("bn1.bias", bn_bias),
            init("bn1.mean", bn_mean), init("bn1.var", bn_var),
            init("conv2.weight", he(rng, (16, 8, 3, 3), 72)), init("conv2.bias", 0.1 * rng.standard_normal(16)),
            init("fc.weight", he(rng, (10, 1024), 1024)), init("fc.bias", 0.1 * rng.standard_normal(10)),
        ],
    )
    model = finish(graph, "CNN: Conv-BN-Relu-MaxPool, Conv-Relu-AvgPool, Flatten, Gemm, Softmax")
    return model, {"image": f32(rng.standard_normal((1, 3, 32, 32)))}


def make_conv_relu(rng):
    nodes = [
        helper.make_node("Conv", ["image", "conv1.weight", "conv1.bias"], ["conv1.out"], name="conv1",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1]),
        helper.make_node("Relu", ["conv1.out"], ["relu1.out"], name="relu1"),
        # No bias, and a clip to [0, 6] (ReLU6), which is not a plain ReLU.
        helper.make_node("Conv", ["relu1.out", "conv2.weight"], ["conv2.out"], name="conv2",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Clip", ["conv2.out", "clip2.min", "clip2.max"], ["clip2.out"], name="clip2"),
        helper.make_node("Conv", ["clip2.out", "conv3.weight", "conv3.bias"], ["conv3.out"], name="conv3",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["conv3.out"], ["relu3.out"], name="relu3"),
    ]
    graph = helper.make_graph(
        nodes,
        "conv_relu",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 16, 16])],
        [helper.make_tensor_value_info("relu3.out", TensorProto.FLOAT, [1, 16, 8, 8])],
        initializer=[
            init("conv1.weight", he(rng, (8, 3, 3, 3), 27)), init("conv1.bias", 0.1 * rng.standard_normal(8)),
            init("conv2.weight", he(rng, (8, 8, 3, 3), 72)),
            init("clip2.min", 0.0), init("clip2.max", 6.0),
            init("conv3.weight", he(rng, (16, 8, 3, 3), 72)), init("conv3.bias", 0.1 * rng.standard_normal(16)),
        ],
    )
    model = finish(graph, "Conv-Relu, Conv (no bias, stride 2)-Clip(0, 6), Conv-Relu")
    return model, {"image": f32(rng.standard_normal((1, 3, 16, 16)))}


def make_conv_hardswish(rng):
    """MobileNetV3's conv + HardSwish twice: a strided 3x3 conv (a oneDNN conv) and a 1x1 conv
    (a GEMM), each with a bias; both take the HardSwish as a oneDNN post-op. Large enough
    (16x32x32 results) for the NCHW transposes to move out of the way (loupe-sink-transposes)."""
    nodes = [
        helper.make_node("Conv", ["image", "conv1.weight", "conv1.bias"], ["conv1.out"], name="conv1",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("HardSwish", ["conv1.out"], ["hs1.out"], name="hs1"),
        helper.make_node("Conv", ["hs1.out", "conv2.weight", "conv2.bias"], ["conv2.out"], name="conv2",
                         kernel_shape=[1, 1]),
        helper.make_node("HardSwish", ["conv2.out"], ["hs2.out"], name="hs2"),
    ]
    graph = helper.make_graph(
        nodes,
        "conv_hardswish",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 64, 64])],
        [helper.make_tensor_value_info("hs2.out", TensorProto.FLOAT, [1, 16, 32, 32])],
        initializer=[
            init("conv1.weight", he(rng, (16, 3, 3, 3), 27)), init("conv1.bias", 0.1 * rng.standard_normal(16)),
            init("conv2.weight", he(rng, (16, 16, 1, 1), 16)), init("conv2.bias", 0.1 * rng.standard_normal(16)),
        ],
    )
    model = finish(graph, "Conv (stride 2)-HardSwish, Conv 1x1-HardSwish")
    return model, {"image": f32(2 * rng.standard_normal((1, 3, 64, 64)))}


def make_dwconv_act(rng):
    """Depthwise convs (group = channels) with trained, non-zero biases and the activations
    MobileNetV3 and EfficientNet put after them, then a 1x1 conv with SiLU: `dw1` 3x3 -> `relu1`,
    `dw2` 3x3 stride 2 -> `hs2` HardSwish, `dw3` 5x5 -> SiLU as torch exports it (`silu3_gate`
    Sigmoid, `silu3` Mul), `pw` 1x1 8->16 -> SiLU (`silu4_gate`, `silu4`). Each activation
    (and a depthwise conv's bias, which TOSA adds after the conv) is a oneDNN post-op. Large
    enough (8x24x24 results) for the NCHW transposes to move out of the way; every file under
    100 KB."""
    def silu(x, name):
        return [helper.make_node("Sigmoid", [x], [name + "_gate.out"], name=name + "_gate"),
                helper.make_node("Mul", [x, name + "_gate.out"], [name + ".out"], name=name)]
    nodes = [
        helper.make_node("Conv", ["image", "dw1.weight", "dw1.bias"], ["dw1.out"], name="dw1",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1], group=8),
        helper.make_node("Relu", ["dw1.out"], ["relu1.out"], name="relu1"),
        helper.make_node("Conv", ["relu1.out", "dw2.weight", "dw2.bias"], ["dw2.out"], name="dw2",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2], group=8),
        helper.make_node("HardSwish", ["dw2.out"], ["hs2.out"], name="hs2"),
        helper.make_node("Conv", ["hs2.out", "dw3.weight", "dw3.bias"], ["dw3.out"], name="dw3",
                         kernel_shape=[5, 5], pads=[2, 2, 2, 2], group=8),
        *silu("dw3.out", "silu3"),
        helper.make_node("Conv", ["silu3.out", "pw.weight", "pw.bias"], ["pw.out"], name="pw",
                         kernel_shape=[1, 1]),
        *silu("pw.out", "silu4"),
    ]
    graph = helper.make_graph(
        nodes,
        "dwconv_act",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 8, 48, 48])],
        [helper.make_tensor_value_info("silu4.out", TensorProto.FLOAT, [1, 16, 24, 24])],
        initializer=[
            init("dw1.weight", he(rng, (8, 1, 3, 3), 9)), init("dw1.bias", 0.5 * rng.standard_normal(8)),
            init("dw2.weight", he(rng, (8, 1, 3, 3), 9)), init("dw2.bias", 0.5 * rng.standard_normal(8)),
            init("dw3.weight", he(rng, (8, 1, 5, 5), 25)), init("dw3.bias", 0.5 * rng.standard_normal(8)),
            init("pw.weight", he(rng, (16, 8, 1, 1), 8)), init("pw.bias", 0.5 * rng.standard_normal(16)),
        ],
    )
    model = finish(graph, "depthwise Conv-Relu, -HardSwish, -SiLU, Conv 1x1-SiLU")
    return model, {"image": f32(rng.standard_normal((1, 8, 48, 48)))}


def make_dynq_mlp(rng):
    """An MLP as onnxruntime's dynamic quantization exports it (quantize_dynamic): per layer,
    DynamicQuantizeLinear of the activations (uint8), MatMulInteger with int8 weights and a
    per-tensor weight zero point, Cast to float, Mul by x_scale * w_scale, Add bias."""
    nodes, inits, x = [], [], "x"
    for name, (k, n, relu) in (("fc1", (64, 128, True)), ("fc2", (128, 32, False))):
        w = he(rng, (k, n), k)
        w_scale = f32(np.abs(w).max() / 127)
        w_zero = np.int8(3)  # Not 0: the zero point must be subtracted from every weight.
        w_q = np.clip(np.rint(w / w_scale) + w_zero, -128, 127).astype(np.int8)
        inits += [numpy_helper.from_array(w_q, name + ".weight_quantized"),
                  numpy_helper.from_array(np.array(w_zero, np.int8), name + ".weight_zero_point"),
                  init(name + ".weight_scale", w_scale),
                  init(name + ".bias", rng.standard_normal(n) * 0.1)]
        nodes += [
            helper.make_node("DynamicQuantizeLinear", [x], [name + ".x_q", name + ".x_scale",
                             name + ".x_zero_point"], name=name + "_quantize"),
            helper.make_node("MatMulInteger", [name + ".x_q", name + ".weight_quantized",
                             name + ".x_zero_point", name + ".weight_zero_point"],
                             [name + ".acc"], name=name + "_matmul"),
            helper.make_node("Cast", [name + ".acc"], [name + ".acc_f"], name=name + "_cast",
                             to=TensorProto.FLOAT),
            helper.make_node("Mul", [name + ".x_scale", name + ".weight_scale"], [name + ".scale"],
                             name=name + "_scale"),
            helper.make_node("Mul", [name + ".acc_f", name + ".scale"], [name + ".real"],
                             name=name + "_dequantize"),
            helper.make_node("Add", [name + ".real", name + ".bias"], [name + ".out"],
                             name=name + "_bias"),
        ]
        x = name + ".out"
        if relu:
            nodes.append(helper.make_node("Relu", [x], [name + ".relu"], name=name + "_relu"))
            x = name + ".relu"
    nodes[-1].output[0] = "y"
    graph = helper.make_graph(
        nodes, "dynq_mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [16, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [16, 32])], initializer=inits)
    model = finish(graph, "Dynamically quantized MLP 64-128-32: DynamicQuantizeLinear, "
                          "MatMulInteger (int8 weights), Cast, Mul, Add, Relu")
    return model, {"x": f32(rng.standard_normal((16, 64)))}


def make_qop_cnn(rng):
    """A CNN in the integer-operator form of a statically quantized export: QuantizeLinear of
    the image to uint8 (zero point 128), per layer ConvInteger with int8 weights (symmetric:
    zero point 0) and the input's constant zero point, Cast, Mul by x_scale * w_scale, Add the
    bias, Relu, QuantizeLinear for the next layer."""
    nodes = [helper.make_node("QuantizeLinear", ["image", "image.scale", "image.zero_point"],
                              ["image.q"], name="quantize")]
    inits = [init("image.scale", 1 / 64), numpy_helper.from_array(np.array(128, np.uint8),
                                                                   "image.zero_point")]
    x, x_scale, channels = "image.q", 1 / 64, 3
    layers = (("conv1", 8, 1, 0.05), ("conv2", 16, 2, 0.05), ("conv3", 16, 1, None))
    for name, out, stride, next_scale in layers:
        w = he(rng, (out, channels, 3, 3), channels * 9)
        w_scale = float(np.abs(w).max() / 127)
        inits += [numpy_helper.from_array(np.clip(np.rint(w / w_scale), -127, 127).astype(np.int8),
                                          name + ".weight"),
                  numpy_helper.from_array(np.array(0, np.int8), name + ".weight_zero_point"),
                  init(name + ".scale", x_scale * w_scale),
                  init(name + ".bias", (rng.standard_normal(out) * 0.1).reshape(1, out, 1, 1))]
        zero_point = "image.zero_point" if name == "conv1" else "act.zero_point"
        nodes += [
            helper.make_node("ConvInteger", [x, name + ".weight", zero_point,
                             name + ".weight_zero_point"], [name + ".acc"], name=name,
                             pads=[1, 1, 1, 1], strides=[stride, stride]),
            helper.make_node("Cast", [name + ".acc"], [name + ".acc_f"], name=name + "_cast",
                             to=TensorProto.FLOAT),
            helper.make_node("Mul", [name + ".acc_f", name + ".scale"], [name + ".real"],
                             name=name + "_dequantize"),
            helper.make_node("Add", [name + ".real", name + ".bias"], [name + ".out"],
                             name=name + "_bias"),
        ]
        if next_scale:
            nodes += [
                helper.make_node("Relu", [name + ".out"], [name + ".relu"], name=name + "_relu"),
                helper.make_node("QuantizeLinear", [name + ".relu", "act.scale", "act.zero_point"],
                                 [name + ".q"], name=name + "_quantize"),
            ]
            x, x_scale = name + ".q", next_scale
        channels = out
    inits += [init("act.scale", 0.05), numpy_helper.from_array(np.array(0, np.uint8),
                                                                "act.zero_point")]
    nodes[-1].output[0] = "features"
    graph = helper.make_graph(
        nodes, "qop_cnn", [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 16, 16])],
        [helper.make_tensor_value_info("features", TensorProto.FLOAT, [1, 16, 8, 8])],
        initializer=inits)
    model = finish(graph, "Statically quantized CNN (integer operators): QuantizeLinear, "
                          "ConvInteger (int8 weights), Cast, Mul, Add, Relu")
    return model, {"image": f32(rng.uniform(-1, 1, (1, 3, 16, 16)))}


def make_transformer_block(rng):
    seq, d, heads, hd, ff = 8, 32, 2, 16, 64
    inits = [
        init("ln1.scale", 1.0 + 0.1 * rng.standard_normal(d)), init("ln1.bias", 0.1 * rng.standard_normal(d)),
        init("ln2.scale", 1.0 + 0.1 * rng.standard_normal(d)), init("ln2.bias", 0.1 * rng.standard_normal(d)),
        init("attn.scale", 1.0 / math.sqrt(hd)),
    ]
    nodes = [
        helper.make_node("LayerNormalization", ["x", "ln1.scale", "ln1.bias"], ["ln1.out"], name="ln1",
                         axis=-1, epsilon=1e-5),
    ]
    head_outs = []
    for h in range(heads):
        p = "head%d" % h
        for proj in ("q", "k", "v"):
            inits += [init("%s.%s.weight" % (p, proj), rng.standard_normal((d, hd)) / math.sqrt(d)),
                      init("%s.%s.bias" % (p, proj), 0.1 * rng.standard_normal(hd))]
            nodes += [
                helper.make_node("MatMul", ["ln1.out", "%s.%s.weight" % (p, proj)], ["%s.%s.mm" % (p, proj)],
                                 name="%s_%s_matmul" % (p, proj)),
                helper.make_node("Add", ["%s.%s.mm" % (p, proj), "%s.%s.bias" % (p, proj)], ["%s.%s" % (p, proj)],
                                 name="%s_%s_bias" % (p, proj)),
            ]
        nodes += [
            helper.make_node("Transpose", ["%s.k" % p], ["%s.kT" % p], name="%s_k_transpose" % p, perm=[0, 2, 1]),
            helper.make_node("MatMul", ["%s.q" % p, "%s.kT" % p], ["%s.scores" % p], name="%s_scores" % p),
            helper.make_node("Mul", ["%s.scores" % p, "attn.scale"], ["%s.scaled" % p], name="%s_scale" % p),
            helper.make_node("Softmax", ["%s.scaled" % p], ["%s.attn" % p], name="%s_softmax" % p, axis=-1),
            helper.make_node("MatMul", ["%s.attn" % p, "%s.v" % p], ["%s.ctx" % p], name="%s_context" % p),
        ]
        head_outs.append("%s.ctx" % p)
    inits += [init("attn_out.weight", rng.standard_normal((d, d)) / math.sqrt(d)),
              init("attn_out.bias", 0.1 * rng.standard_normal(d)),
              init("ffn1.weight", he(rng, (d, ff), d)), init("ffn1.bias", 0.1 * rng.standard_normal(ff)),
              init("ffn2.weight", rng.standard_normal((ff, d)) / math.sqrt(ff)),
              init("ffn2.bias", 0.1 * rng.standard_normal(d))]
    nodes += [
        helper.make_node("Concat", head_outs, ["heads.concat"], name="heads_concat", axis=-1),
        helper.make_node("MatMul", ["heads.concat", "attn_out.weight"], ["attn_out.mm"], name="attn_out_matmul"),
        helper.make_node("Add", ["attn_out.mm", "attn_out.bias"], ["attn_out.out"], name="attn_out_bias"),
        helper.make_node("Add", ["x", "attn_out.out"], ["residual1"], name="residual1"),
        helper.make_node("LayerNormalization", ["residual1", "ln2.scale", "ln2.bias"], ["ln2.out"], name="ln2",
                         axis=-1, epsilon=1e-5),
        helper.make_node("MatMul", ["ln2.out", "ffn1.weight"], ["ffn1.mm"], name="ffn1_matmul"),
        helper.make_node("Add", ["ffn1.mm", "ffn1.bias"], ["ffn1.out"], name="ffn1_bias"),
        helper.make_node("Relu", ["ffn1.out"], ["ffn1.relu"], name="ffn1_relu"),
        helper.make_node("MatMul", ["ffn1.relu", "ffn2.weight"], ["ffn2.mm"], name="ffn2_matmul"),
        helper.make_node("Add", ["ffn2.mm", "ffn2.bias"], ["ffn2.out"], name="ffn2_bias"),
        helper.make_node("Add", ["residual1", "ffn2.out"], ["residual2"], name="residual2"),
        helper.make_node("ReduceMean", ["residual2"], ["pooled"], name="mean_pool", axes=[1], keepdims=0),
    ]
    graph = helper.make_graph(
        nodes,
        "transformer_block",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, seq, d])],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, [1, d])],
        initializer=inits,
    )
    model = finish(graph, "Pre-LN transformer block: 2-head attention, FFN, mean pooling over the sequence")
    return model, {"x": f32(rng.standard_normal((1, seq, d)))}


# ----------------------------------------------------------------------------------------------
# mlp_tosa.mlir: a hand-written TOSA model; weights are multiples of 1/128, so their decimal
# spelling in the .mlir text is exact.
# ----------------------------------------------------------------------------------------------

MLP_TOSA_TEMPLATE = """\
// mlp_tosa.mlir: a 16-32-10 MLP written directly in TOSA (MLIR 19.1), written by
// examples/models/make_models.py; its test data is in mlp_tosa/test_data_set_0.
//   fc1: tosa.fully_connected -> relu1: tosa.clamp -> fc2: tosa.reshape + tosa.matmul +
//   tosa.reshape + tosa.add -> softmax: reduce_max, sub, exp, reduce_sum, reciprocal, mul
// Every op has a loc("...") naming it; the weights are exact multiples of 1/128.
module attributes {{loupe.example = "mlp_tosa"}} {{
  func.func @main(%x: tensor<4x16xf32> loc("x")) -> tensor<4x10xf32> {{
    %fc1_w = "tosa.const"() <{{value = {fc1_w} : tensor<32x16xf32>}}> : () -> tensor<32x16xf32> loc("fc1.weight")
    %fc1_b = "tosa.const"() <{{value = {fc1_b} : tensor<32xf32>}}> : () -> tensor<32xf32> loc("fc1.bias")
    %fc1 = tosa.fully_connected %x, %fc1_w, %fc1_b : (tensor<4x16xf32>, tensor<32x16xf32>, tensor<32xf32>) -> tensor<4x32xf32> loc("fc1")
    %relu1 = tosa.clamp %fc1 {{max_fp = 3.40282347E+38 : f32, max_int = 2147483647 : i64, min_fp = 0.000000e+00 : f32, min_int = 0 : i64}} : (tensor<4x32xf32>) -> tensor<4x32xf32> loc("relu1")
    %fc2_in = tosa.reshape %relu1 {{new_shape = array<i64: 1, 4, 32>}} : (tensor<4x32xf32>) -> tensor<1x4x32xf32> loc("fc2.reshape_in")
    %fc2_w = "tosa.const"() <{{value = {fc2_w} : tensor<1x32x10xf32>}}> : () -> tensor<1x32x10xf32> loc("fc2.weight")
    %fc2_mm = tosa.matmul %fc2_in, %fc2_w : (tensor<1x4x32xf32>, tensor<1x32x10xf32>) -> tensor<1x4x10xf32> loc("fc2.matmul")
    %fc2_out = tosa.reshape %fc2_mm {{new_shape = array<i64: 4, 10>}} : (tensor<1x4x10xf32>) -> tensor<4x10xf32> loc("fc2.reshape_out")
    %fc2_b = "tosa.const"() <{{value = {fc2_b} : tensor<1x10xf32>}}> : () -> tensor<1x10xf32> loc("fc2.bias")
    %logits = tosa.add %fc2_out, %fc2_b : (tensor<4x10xf32>, tensor<1x10xf32>) -> tensor<4x10xf32> loc("fc2.add_bias")
    %max = tosa.reduce_max %logits {{axis = 1 : i32}} : (tensor<4x10xf32>) -> tensor<4x1xf32> loc("softmax.max")
    %shifted = tosa.sub %logits, %max : (tensor<4x10xf32>, tensor<4x1xf32>) -> tensor<4x10xf32> loc("softmax.sub")
    %exp = tosa.exp %shifted : (tensor<4x10xf32>) -> tensor<4x10xf32> loc("softmax.exp")
    %sum = tosa.reduce_sum %exp {{axis = 1 : i32}} : (tensor<4x10xf32>) -> tensor<4x1xf32> loc("softmax.sum")
    %inv = tosa.reciprocal %sum : (tensor<4x1xf32>) -> tensor<4x1xf32> loc("softmax.reciprocal")
    %probs = tosa.mul %exp, %inv {{shift = 0 : i8}} : (tensor<4x10xf32>, tensor<4x1xf32>) -> tensor<4x10xf32> loc("softmax.mul")
    return %probs : tensor<4x10xf32> loc("return")
  }} loc("main")
}} loc("mlp_tosa.mlir")
"""


def mlir_dense(a):
    """dense<...> literal of a float32 array whose values are exact in short decimal."""

    def rec(x):
        if x.ndim == 0:
            v = float(x)
            assert np.float32(repr(v)) == x, "value not exact in decimal"
            return repr(v)
        return "[" + ", ".join(rec(e) for e in x) + "]"

    return "dense<" + rec(np.asarray(a, np.float32)) + ">"


def make_mlp_tosa(rng):
    def q(shape, scale):  # multiples of 1/128
        return f32(np.round(rng.standard_normal(shape) * scale * 128) / 128)

    fc1_w, fc1_b = q((32, 16), 0.35), q(32, 0.1)
    fc2_w, fc2_b = q((32, 10), 0.25), q(10, 0.1)
    x = f32(rng.standard_normal((4, 16)))
    text = MLP_TOSA_TEMPLATE.format(
        fc1_w=mlir_dense(fc1_w), fc1_b=mlir_dense(fc1_b),
        fc2_w=mlir_dense(fc2_w.reshape(1, 32, 10)), fc2_b=mlir_dense(fc2_b.reshape(1, 10)),
    )
    # Reference in float64: fully_connected computes x @ W^T + b (W is [out, in]).
    h = np.maximum(x.astype(np.float64) @ fc1_w.T.astype(np.float64) + fc1_b, 0.0)
    logits = h @ fc2_w.astype(np.float64) + fc2_b
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    probs = e / e.sum(axis=1, keepdims=True)
    return text, x, f32(probs)


# ----------------------------------------------------------------------------------------------


def write_test_data(name, inputs, outputs, names_in, names_out):
    folder = os.path.join(HERE, name, "test_data_set_0")
    os.makedirs(folder, exist_ok=True)
    for k, (arr, tname) in enumerate(zip(inputs, names_in)):
        onnx.save_tensor(numpy_helper.from_array(f32(arr), tname), os.path.join(folder, "input_%d.pb" % k))
    for k, (arr, tname) in enumerate(zip(outputs, names_out)):
        onnx.save_tensor(numpy_helper.from_array(f32(arr), tname), os.path.join(folder, "output_%d.pb" % k))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check-only", action="store_true",
                        help="only cross-check the numpy reference against ONNX node tests")
    args = parser.parse_args()
    self_test()
    if args.check_only:
        return

    builders = [("mlp", make_mlp, 1001), ("cnn", make_cnn, 1002),
                ("transformer_block", make_transformer_block, 1003), ("conv_relu", make_conv_relu, 1005),
                ("dynq_mlp", make_dynq_mlp, 1006), ("qop_cnn", make_qop_cnn, 1007),
                ("conv_hardswish", make_conv_hardswish, 1008), ("dwconv_act", make_dwconv_act, 1009)]
    for name, build, seed in builders:
        model, feeds = build(np.random.default_rng(seed))
        outputs = [f32(o) for o in run_graph(model, feeds)]
        for o, info in zip(outputs, model.graph.output):
            want = [d.dim_value for d in info.type.tensor_type.shape.dim]
            assert list(o.shape) == want, (name, o.shape, want)
            assert np.all(np.isfinite(o)), name
        path = os.path.join(HERE, name + ".onnx")
        onnx.save(model, path)
        write_test_data(name, list(feeds.values()), outputs, list(feeds.keys()),
                        [o.name for o in model.graph.output])
        print("%-22s %6d bytes, %2d nodes, output %s" % (os.path.basename(path), os.path.getsize(path),
                                                        len(model.graph.node), outputs[0].shape))

    text, x, probs = make_mlp_tosa(np.random.default_rng(1004))
    path = os.path.join(HERE, "mlp_tosa.mlir")
    with open(path, "w") as f:
        f.write(text)
    write_test_data("mlp_tosa", [x], [probs], ["x"], ["probs"])
    print("%-22s %6d bytes, output %s" % ("mlp_tosa.mlir", os.path.getsize(path), probs.shape))


if __name__ == "__main__":
    main()
