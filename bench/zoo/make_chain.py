#!/usr/bin/python3
"""Writes an ONNX model that is one chain of N elementwise ops, for compile-time scaling.

Usage: /usr/bin/python3 bench/zoo/make_chain.py N OUT.onnx

x f32[4x64] -> Add(c) -> Mul(c) -> Relu -> Add(c) -> ... (N ops, cycling through Add, Mul,
Relu, Sub with one shared constant). Every node is named op_<i>, so the compile keeps N locs.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    n, out = int(sys.argv[1]), sys.argv[2]
    shape = [4, 64]
    nodes, prev = [], "x"
    const = numpy_helper.from_array(np.full(shape, 0.5, np.float32), "c")
    for i in range(n):
        op = ("Add", "Mul", "Relu", "Sub")[i % 4]
        inputs = [prev] if op == "Relu" else [prev, "c"]
        name = f"op_{i}"
        nodes.append(helper.make_node(op, inputs, [name + ".out"], name=name))
        prev = name + ".out"
    graph = helper.make_graph(
        nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info(prev, TensorProto.FLOAT, shape)], [const])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, out)


if __name__ == "__main__":
    main()
