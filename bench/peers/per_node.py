#!/usr/bin/python3
"""Where a model's time goes in Loupe and in ONNX Runtime, side by side: Loupe's dispatch
medians (`loupe run --json`) and ORT's per-node kernel times (its profiler, ort_profile.js),
summed by the module path both keep from the exporter (`/features/features.2/features.2.1`, the
first DEPTH components of a node name without its op), the largest differences first. An ORT node
counts under the ONNX node its time belongs to (ort_source), as a fused Loupe dispatch counts
under its first op. Both tools are timed in turn, not at once; ORT's profiler adds a little per
node.

usage: per_node.py BUILD MODEL.onnx [--reps N] [--depth D] [--rows K] [NAME=D0,D1,...]
Without a binding, the first input's shape comes from MODEL's test_data_set_0 (the zoo's)."""
import argparse
import collections
import json
import os
import subprocess
import sys

import onnx

HERE = os.path.dirname(os.path.abspath(__file__))


def group(name, depth):
    """The module path of a node name: its first `depth` components, without the op."""
    first = name.split(",")[0]  # a fused dispatch's first node
    parts = first.split("/")
    return "/".join(parts[: min(depth + 1, max(1, len(parts) - 1))]) or first


# Ops ORT fuses into the convolution or GEMM before them (Conv + Relu, Conv + Add + Relu in its
# NCHWc layout, BatchNormalization, the SiLU's Sigmoid and Mul): their time is that node's, as
# in a fused Loupe dispatch (whose importer folds BatchNormalization into the Conv).
FUSED_INTO_PRODUCER = {"Add", "BatchNormalization", "Clip", "HardSigmoid", "HardSwish",
                       "LeakyRelu", "Mul", "Relu", "Sigmoid", "Sum", "Tanh"}
HEADS = {"Conv", "ConvTranspose", "Gemm", "MatMul"}


def ort_source(name, producers, nodes):
    """The ONNX node an ORT node's time belongs to. ORT names a node it made (a fusion, a node
    of its NCHWc layout) after the tensor it writes (`/layer1/layer1.0/relu/Relu_output_0_nchwc`
    for Conv + Relu) or after a node and the fusion (`/features.0.2/Mul/QuickGeluFusion/` for a
    SiLU); others keep their ONNX names: that node, followed back through at most 4 ops ORT
    fuses until a convolution or GEMM (else the node itself). Nodes of ORT's own
    (`ReorderInput_token_48`) keep their names."""
    node, key = None, name.rstrip("/")
    while node is None and "/" in key:
        tensor = key[: -len("_nchwc")] if key.endswith("_nchwc") else key
        node = producers.get(tensor) or nodes.get(tensor)
        key = key.rsplit("/", 1)[0]
    if node is None:
        return name
    head = node
    for _ in range(4):
        if head.op_type not in FUSED_INTO_PRODUCER:
            break
        inputs = [producers[i] for i in head.input if i in producers]
        head = next((n for n in inputs if n.op_type in HEADS), None) or next(
            (n for n in inputs if n.op_type in FUSED_INTO_PRODUCER), None)
        if head is None:
            break
    return head.name if head is not None and head.op_type in HEADS else node.name


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("build")
    p.add_argument("model")
    p.add_argument("bindings", nargs="*")
    p.add_argument("--reps", type=int, default=50)
    p.add_argument("--depth", type=int, default=3)
    p.add_argument("--rows", type=int, default=15)
    a = p.parse_args()
    bindings = a.bindings
    if not bindings:
        data = os.path.join(os.path.splitext(a.model)[0], "test_data_set_0", "input_0.pb")
        bindings = [subprocess.check_output(
            ["/usr/bin/python3", os.path.join(HERE, "../../tests/zoo/input_binding.py"), a.model,
             data], text=True).strip()]
    shapes = [x for b in bindings for x in ("--input-shape", b)]
    run = json.loads(subprocess.check_output(
        [os.path.join(a.build, "bin", "loupe"), "run", a.model, *shapes, "--reps", str(a.reps),
         "--json"], text=True))
    env = dict(os.environ, NODE_PATH=os.path.join(a.build, "zoo", "npm", "node_modules"))
    ort = json.loads(subprocess.check_output(
        ["node", os.path.join(HERE, "ort_profile.js"), a.model, str(a.reps), *bindings],
        text=True, env=env))
    loupe_us, ort_us = collections.Counter(), collections.Counter()
    for d in run["dispatches"]:
        loupe_us[group(d["loc"], a.depth)] += d["median_ns"] / 1000
    graph = onnx.load(a.model, load_external_data=False).graph
    producers = {out: n for n in graph.node for out in n.output}
    nodes = {n.name: n for n in graph.node}
    for node, us in ort.items():
        ort_us[group(ort_source(node, producers, nodes), a.depth)] += us
    print(f"{a.model}: loupe run median {run['median_ns'] / 1e6:.2f} ms, dispatch medians "
          f"{sum(loupe_us.values()) / 1000:.2f} ms; ORT node medians "
          f"{sum(ort_us.values()) / 1000:.2f} ms (profiled)")
    print(f"| module | loupe us | ort us | loupe - ort |\n|---|---:|---:|---:|")
    keys = sorted(set(loupe_us) | set(ort_us), key=lambda k: -abs(loupe_us[k] - ort_us[k]))
    for k in keys[: a.rows]:
        print(f"| {k} | {loupe_us[k]:.1f} | {ort_us[k]:.1f} | {loupe_us[k] - ort_us[k]:+.1f} |")


if __name__ == "__main__":
    sys.exit(main())
