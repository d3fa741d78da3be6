"""Summarises run_all.sh's results as Markdown: the examples (numerics, GPU time per variant)
and the benchmark patterns (GPU time from CUPTI, bandwidth as a share of the HBM peak, GEMM
FLOP rate, PyTorch eager in the same run).

usage: python3 summarize.py BENCH_JSON RESULTS_DIR
"""
import json
import os
import sys


def load(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return None


def gpu_ns(run):
    """The sum of the dispatches' medians: the model's kernel time without launch gaps."""
    return sum(d["median_ns"] for d in run["dispatches"] if d.get("calls", 0) > 0)


def main():
    benches = json.load(open(sys.argv[1]))
    results = sys.argv[2]
    torch = load(os.path.join(results, "torch.json")) or {"benches": {}}
    peak = torch.get("peak_bytes_per_s")
    print(f"# GPU run: {torch.get('device', 'unknown device')}"
          + (f", HBM peak {peak / 1e9:.0f} GB/s" if peak else "") + "\n")

    print("## Examples\n")
    print("| model | variant | check | dispatches | run median (us) | sum of dispatch medians (us) | timing |")
    print("|---|---|---|---|---|---|---|")
    for example in ["mlp", "cnn", "transformer_block"]:
        for variant in ["cuda", "cuda-codegen", "cpu-codegen"]:
            run = load(os.path.join(results, f"{example}.{variant}.json"))
            if not run:
                print(f"| {example} | {variant} | did not run | | | | |")
                continue
            print(f"| {example} | {variant} | {run.get('check')} | {len(run['dispatches'])} | "
                  f"{run['median_ns'] / 1e3:.1f} | {gpu_ns(run) / 1e3:.1f} | {run.get('kernel_timing', '')} |")

    print("\n## Patterns (GPU time = sum of dispatch medians from CUPTI)\n")
    print("| pattern | Loupe kernels | Loupe (us) | Loupe GB/s | % HBM peak | PyTorch eager (us) | eager GB/s | Loupe / eager |")
    print("|---|---|---|---|---|---|---|---|")
    for bench in benches:
        name = bench["name"]
        run = load(os.path.join(results, f"{name}.cuda.json"))
        eager = torch["benches"].get(name, {}).get("median_ns")
        if not run:
            print(f"| {name} | did not run | | | | | | |")
            continue
        ns = gpu_ns(run)
        gbs = bench["bytes"] / ns if ns else 0
        share = f"{100 * gbs * 1e9 / peak:.0f}%" if peak and ns else ""
        eager_cols = (f"{eager / 1e3:.1f} | {bench['bytes'] / eager:.0f} | {ns / eager:.2f}x"
                      if eager else " | | ")
        print(f"| {name} | {len(run['dispatches'])} | {ns / 1e3:.1f} | {gbs:.0f} | {share} | {eager_cols} |")

    gemm = next((b for b in benches if b["name"] == "gemm"), None)
    if gemm:
        print("\n## GEMM " + "x".join(map(str, gemm["shape"])) + " f32\n")
        print("| backend | us | TFLOP/s |")
        print("|---|---|---|")
        for label, file in [("cuBLAS (Loupe)", "gemm.cuda.json"), ("codegen (Loupe)", "gemm.cuda-codegen.json")]:
            run = load(os.path.join(results, file))
            if run:
                ns = gpu_ns(run)
                print(f"| {label} | {ns / 1e3:.1f} | {gemm['flops'] / ns / 1e3:.2f} |")
        eager = torch["benches"].get("gemm", {}).get("median_ns")
        if eager:
            print(f"| PyTorch eager (cuBLAS, TF32 off) | {eager / 1e3:.1f} | {gemm['flops'] / eager / 1e3:.2f} |")


if __name__ == "__main__":
    main()
