"""Times the benchmark patterns of bench.json in PyTorch on GPU 0, eager and under
torch.compile (CUDA events, median of REPS after warmup), and reports the GPU's HBM peak from
the driver's attributes and the measured device-to-device copy bandwidth (256 MiB).

usage: python3 torch_eager.py BENCH_JSON REPS   -> JSON on stdout
"""
import ctypes
import json
import statistics
import sys
import time

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


def copy_bytes_per_s(reps):
    """Bytes read plus written per second by a 256 MiB device-to-device copy."""
    x = torch.empty(64 << 20, device="cuda")
    y = torch.empty_like(x)
    return 2 * x.numel() * 4 / (median_ns(lambda: y.copy_(x), reps) * 1e-9)


def compiled_ns(fn, reps):
    """torch.compile's time for fn, or the reason it did not compile (no network there)."""
    try:
        start = time.time()
        compiled = torch.compile(fn)
        compiled()
        return {"compiled_ns": median_ns(compiled, reps), "compile_s": time.time() - start}
    except Exception as e:  # inductor needs a C compiler and Triton; report what failed
        return {"compile_error": f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"}


def main():
    benches = json.load(open(sys.argv[1]))
    reps = int(sys.argv[2])
    torch.backends.cuda.matmul.allow_tf32 = False  # f32 GEMMs, as Loupe's cublasSgemm
    out = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
           "peak_bytes_per_s": hbm_peak_bytes_per_s(), "copy_bytes_per_s": copy_bytes_per_s(reps),
           "benches": {}}
    for bench in benches:
        fn = pattern(bench)
        out["benches"][bench["name"]] = {"eager_ns": median_ns(fn, reps), **compiled_ns(fn, reps)}
        print(bench["name"], out["benches"][bench["name"]], file=sys.stderr)
    json.dump(out, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
