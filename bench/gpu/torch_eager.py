"""Times the benchmark patterns of bench.json in PyTorch eager on GPU 0 (CUDA events, median
of REPS after warmup) and reports the GPU's HBM peak from the driver's attributes.

usage: python3 torch_eager.py BENCH_JSON REPS   -> JSON on stdout
"""
import ctypes
import json
import statistics
import sys

import torch


def hbm_peak_bytes_per_s():
    """2 x memory clock x bus width (double data rate), from cuDeviceGetAttribute."""
    cuda = ctypes.CDLL("libcuda.so.1")
    cuda.cuInit(0)
    dev, clock_khz, bus_bits = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
    cuda.cuDeviceGet(ctypes.byref(dev), 0)
    cuda.cuDeviceGetAttribute(ctypes.byref(clock_khz), 36, dev)  # MEMORY_CLOCK_RATE
    cuda.cuDeviceGetAttribute(ctypes.byref(bus_bits), 37, dev)   # GLOBAL_MEMORY_BUS_WIDTH
    return 2.0 * clock_khz.value * 1e3 * bus_bits.value / 8


def pattern(bench):
    shape = bench["shape"]
    gen = torch.Generator(device="cuda").manual_seed(1)
    rand = lambda *s: torch.randn(*s, device="cuda", generator=gen)
    name = bench["name"]
    if name == "ew_chain":
        x = rand(*shape)
        return lambda: torch.relu(x * 2 + 1) * x
    if name == "softmax":
        x = rand(*shape)
        return lambda: torch.softmax(x, dim=-1)
    if name == "layernorm":
        x, cols = rand(*shape), shape[1]
        gamma = torch.linspace(0.5, 1.5, cols, device="cuda")
        beta = torch.linspace(-0.1, 0.1, cols, device="cuda")
        return lambda: torch.nn.functional.layer_norm(x, (cols,), gamma, beta, 1e-5)
    if name == "gemm":
        a, b = rand(shape[0], shape[1]), rand(shape[1], shape[2])
        return lambda: a @ b
    raise ValueError(name)


def median_ns(fn, reps):
    for _ in range(10):
        fn()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e6)
    return statistics.median(times)


def main():
    benches = json.load(open(sys.argv[1]))
    reps = int(sys.argv[2])
    torch.backends.cuda.matmul.allow_tf32 = False  # f32 GEMMs, as Loupe's cublasSgemm
    out = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
           "peak_bytes_per_s": hbm_peak_bytes_per_s(), "benches": {}}
    for bench in benches:
        out["benches"][bench["name"]] = {"median_ns": median_ns(pattern(bench), reps)}
    json.dump(out, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
