#!/usr/bin/python3
"""Where a model's time goes in Loupe and in ONNX Runtime, side by side: Loupe's dispatch
medians (`loupe run --json`) and ORT's per-node kernel times (its profiler, ort_profile.js),
summed by the module path both keep from the exporter (`/features/features.2/features.2.1`, the
first DEPTH components of a node name without its op), the largest differences first. Both tools
are timed in turn, not at once; ORT's profiler adds a little per node.

usage: per_node.py BUILD MODEL.onnx [--reps N] [--depth D] [--rows K] [NAME=D0,D1,...]
Without a binding, the first input's shape comes from MODEL's test_data_set_0 (the zoo's)."""
import argparse
import collections
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def group(name, depth):
    """The module path of a node name: its first `depth` components, without the op."""
    first = name.split(",")[0]  # a fused dispatch's first node
    parts = first.split("/")
    return "/".join(parts[: min(depth + 1, max(1, len(parts) - 1))]) or first


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
    for node, us in ort.items():
        ort_us[group(node, a.depth)] += us
    print(f"{a.model}: loupe run median {run['median_ns'] / 1e6:.2f} ms, dispatch medians "
          f"{sum(loupe_us.values()) / 1000:.2f} ms; ORT node medians "
          f"{sum(ort_us.values()) / 1000:.2f} ms (profiled)")
    print(f"| module | loupe us | ort us | loupe - ort |\n|---|---:|---:|---:|")
    keys = sorted(set(loupe_us) | set(ort_us), key=lambda k: -abs(loupe_us[k] - ort_us[k]))
    for k in keys[: a.rows]:
        print(f"| {k} | {loupe_us[k]:.1f} | {ort_us[k]:.1f} | {loupe_us[k] - ort_us[k]:+.1f} |")


if __name__ == "__main__":
    sys.exit(main())
