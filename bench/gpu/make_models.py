#!/usr/bin/python3
"""Writes the GPU benchmark models (ONNX opset 17) and bench.json describing them.

    /usr/bin/python3 bench/gpu/make_models.py OUT_DIR

Each model is one memory- or compute-bound pattern at a size well above an H100/H200 L2 cache
(50-60 MB), so its time is HBM (or tensor core) bound: an elementwise chain that fusion turns
into one kernel, softmax and layer normalisation over rows, and a square GEMM (cuBLAS vs the
code-generated kernel). bench.json gives each model's ideal bytes moved (every input read once,
every output written once) and FLOPs; run_all.sh divides them by the measured GPU time.
Inputs are random (loupe-run --seed), so no data files are needed.
"""
import json
import os
import sys

from onnx import TensorProto, checker, helper, numpy_helper
import numpy as np

OPSET = 17
F32 = TensorProto.FLOAT


def save(out, name, nodes, inputs, outputs, inits=()):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    checker.check_model(model)
    with open(os.path.join(out, name + ".onnx"), "wb") as f:
        f.write(model.SerializeToString())


def tensor(name, shape):
    return helper.make_tensor_value_info(name, F32, shape)


def const(name, value):
    return numpy_helper.from_array(np.asarray(value, dtype=np.float32), name)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rows, cols = 8192, 2048  # 64 MiB of f32
    n = 2048                 # GEMM size
    mib = rows * cols * 4
    benches = []

    # y = relu(x * 2 + 1) * x: four elementwise ops, one fused kernel.
    save(out, "ew_chain",
         [helper.make_node("Mul", ["x", "two"], ["a"], name="scale"),
          helper.make_node("Add", ["a", "one"], ["b"], name="shift"),
          helper.make_node("Relu", ["b"], ["c"], name="relu"),
          helper.make_node("Mul", ["c", "x"], ["y"], name="gate")],
         [tensor("x", [rows, cols])], [tensor("y", [rows, cols])],
         [const("two", 2.0), const("one", 1.0)])
    benches.append({"name": "ew_chain", "shape": [rows, cols], "bytes": 2 * mib, "flops": 4 * rows * cols})

    save(out, "softmax", [helper.make_node("Softmax", ["x"], ["y"], axis=-1, name="softmax")],
         [tensor("x", [rows, cols])], [tensor("y", [rows, cols])])
    benches.append({"name": "softmax", "shape": [rows, cols], "bytes": 2 * mib, "flops": 5 * rows * cols})

    save(out, "layernorm",
         [helper.make_node("LayerNormalization", ["x", "gamma", "beta"], ["y"], axis=-1,
                           epsilon=1e-5, name="layernorm")],
         [tensor("x", [rows, cols])], [tensor("y", [rows, cols])],
         [const("gamma", np.linspace(0.5, 1.5, cols)), const("beta", np.linspace(-0.1, 0.1, cols))])
    benches.append({"name": "layernorm", "shape": [rows, cols], "bytes": 2 * mib, "flops": 8 * rows * cols})

    save(out, "gemm", [helper.make_node("MatMul", ["a", "b"], ["c"], name="gemm")],
         [tensor("a", [n, n]), tensor("b", [n, n])], [tensor("c", [n, n])])
    benches.append({"name": "gemm", "shape": [n, n, n], "bytes": 3 * n * n * 4, "flops": 2 * n ** 3})

    with open(os.path.join(out, "bench.json"), "w") as f:
        json.dump(benches, f, indent=1)
    print("wrote", ", ".join(b["name"] for b in benches), "to", out)


if __name__ == "__main__":
    main()
