#!/usr/bin/python3
"""Issue 17's workloads a-f as PyTorch modules: exported to ONNX for Loupe and ONNX Runtime,
timed in PyTorch eager for the torch peers.

Usage:
  /usr/bin/python3 bench/peers/workloads.py export OUT_DIR   # OUT_DIR/<w>.onnx, OUT_DIR/inputs.json
  /usr/bin/python3 bench/peers/workloads.py time NAME REPS   # one JSON line: median/min/max ms

NAME is a workload (a-f) or a torchvision model of the zoo (resnet50, mobilenet_v3_small, ...),
run on a 1x3x224x224 input. Threads: 2 (the machine's cores), as Loupe and ONNX Runtime use.
"""
import json
import os
import sys
import time

import torch
import torchvision

SHAPES = {
    "a": {"x": [256, 1024]},
    "b": {"x": [4096, 4096], "y": [4096, 4096]},
    "c": {"x": [4096, 4096]},
    "d": {"x": [8192, 1024]},
    "e": {"x": [128, 512]},
    "f": {"x": [1, 3, 224, 224]},
}
WHAT = {
    "a": "relu(x@W+b), 256x1024 @ 1024x1024",
    "b": "sigmoid(exp(tanh(x*1.5+0.5)*y)-y), x,y 4096x4096",
    "c": "softmax over rows, 4096x4096",
    "d": "LayerNorm(1024) of 8192x1024",
    "e": "MLP 512-2048-512, exact GELU, batch 128",
    "f": "conv3x3(3->32)+relu, conv3x3(32->64)+relu, global mean, fc; 1x3x224x224",
}


class Math(torch.nn.Module):
    def forward(self, x, y):
        return torch.sigmoid(torch.exp(torch.tanh(x * 1.5 + 0.5) * y) - y)


class Softmax(torch.nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=1)


class SmallCnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 32, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(32, 64, 3, padding=1)
        self.fc = torch.nn.Linear(64, 10)

    def forward(self, x):
        x = torch.relu(self.conv2(torch.relu(self.conv1(x))))
        return self.fc(x.mean(dim=(2, 3)))


def workload(name):
    torch.manual_seed(0)
    if name == "a":
        return torch.nn.Sequential(torch.nn.Linear(1024, 1024), torch.nn.ReLU())
    if name == "b":
        return Math()
    if name == "c":
        return Softmax()
    if name == "d":
        return torch.nn.LayerNorm(1024)
    if name == "e":
        return torch.nn.Sequential(torch.nn.Linear(512, 2048), torch.nn.GELU(),
                                   torch.nn.Linear(2048, 512))
    if name == "f":
        return SmallCnn()
    raise SystemExit(f"unknown workload {name}")


def inputs(name):
    return tuple(torch.rand(*shape) for shape in SHAPES[name].values())


def export(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    for name, shapes in SHAPES.items():
        path = os.path.join(out_dir, name + ".onnx")
        if not os.path.exists(path):
            torch.onnx.export(workload(name).eval(), inputs(name), path,
                              input_names=list(shapes), output_names=["out"], opset_version=17)
    json.dump({"shapes": SHAPES, "what": WHAT}, open(os.path.join(out_dir, "inputs.json"), "w"),
              indent=1)


def time_model(name, reps):
    torch.set_num_threads(2)
    if name in SHAPES:
        model, args = workload(name), inputs(name)
    elif hasattr(torchvision.models, name):
        model = getattr(torchvision.models, name)(weights=None)
        args = (torch.rand(1, 3, 224, 224),)
    else:
        return  # a zoo model torchvision does not have: no torch timing
    model.eval()
    times = []
    with torch.no_grad():
        for _ in range(3):
            model(*args)
        for _ in range(reps):
            start = time.perf_counter()
            model(*args)
            times.append((time.perf_counter() - start) * 1e3)
    times.sort()
    print(json.dumps({"median": times[len(times) // 2], "min": times[0], "max": times[-1]}))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "export":
        export(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "time":
        time_model(sys.argv[2], int(sys.argv[3]))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
