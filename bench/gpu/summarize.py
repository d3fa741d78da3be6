"""Summarises run_all.sh's results as Markdown:
- every model run (numerics, GPU time, how kernels were timed, CUPTI kernel rows in the profile
  DB and how many of them no dispatch claimed);
- CUPTI against the CUDA-events fallback, dispatch by dispatch, for the runs done both ways,
  and against Nsight Compute's duration of the same kernels;
- the benchmark patterns: GPU time, bandwidth as a share of the HBM peak and of the measured
  copy bandwidth, PyTorch eager and torch.compile in the same run; the GEMM's FLOP rate.

usage: python3 summarize.py BENCH_JSON RESULTS_DIR   (RESULTS_DIR/logs holds the runs' JSON)
"""
import csv
import glob
import json
import os
import re
import sqlite3
import statistics
import sys


def load(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return None


def gpu_ns(run):
    """The sum of the dispatches' medians: the model's kernel time without launch gaps."""
    return sum(d["median_ns"] for d in run["dispatches"] if d.get("calls", 0) > 0)


def kernel_rows(db, run_id):
    """(kernel rows, rows with no dispatch, CUDA streams) of one run in the profile DB."""
    if db is None or run_id is None:
        return None, None, None
    return db.execute(
        "SELECT count(*), coalesce(sum(dispatch_id < 0), 0), count(DISTINCT streamId) "
        "FROM kernels WHERE run_id = ?", (run_id,)).fetchone()


def models(runs, db, bench_names):
    print("## Models\n")
    print("| artifact | exit | check | timing | dispatches | run median (us) | "
          "sum of dispatch medians (us) | CUPTI kernel rows | rows without dispatch | streams |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, run in sorted(runs.items()):
        if name.endswith(".events") or "." not in name or name.split(".")[0] in bench_names:
            continue
        if run is None:
            print(f"| {name} | no JSON | | | | | | | | |")
            continue
        total, unclaimed, streams = kernel_rows(db, run.get("run_id"))
        blank = lambda v: "" if v is None else v
        median = run.get("median_ns")
        print(f"| {name} | {run.get('exit_code')} | {run.get('check')} | {run.get('kernel_timing', '')} | "
              f"{len(run['dispatches'])} | {median / 1e3 if median else 0:.1f} | {gpu_ns(run) / 1e3:.1f} | "
              f"{blank(total)} | {blank(unclaimed)} | {blank(streams)} |"
              + (f" {run['error'][:160]}" if run.get("error") else ""))


def cupti_vs_events(runs):
    print("\n## CUPTI vs the CUDA-events fallback (second subscriber holding CUPTI)\n")
    print("Per dispatch: CUPTI's summed kernel time against the events' span on the stream, "
          "over dispatches of at least 20 us. A span also holds the time the stream waits for "
          "the host to launch (docs/profiler.md, \"CUDA events\"), so it exceeds the kernel "
          "time when the host launches slower than the GPU runs.\n")
    print("| artifact | events run timing | dispatches compared | sum CUPTI (us) | sum events (us) | "
          "events / CUPTI | median deviation | worst deviation |")
    print("|---|---|---|---|---|---|---|---|")
    for name in sorted(n for n in runs if n.endswith(".events")):
        events, cupti = runs[name], runs.get(name[:-len(".events")])
        if not events or not cupti or not events.get("dispatches"):
            print(f"| {name} | {events and events.get('error', '')[:120]} | | | | | | |")
            continue
        by_id = {d["id"]: d["median_ns"] for d in cupti["dispatches"] if d.get("calls")}
        pairs = [(by_id[d["id"]], d["median_ns"]) for d in events["dispatches"]
                 if d.get("calls") and d["id"] in by_id and by_id[d["id"]] >= 20e3]
        if not pairs:
            print(f"| {name} | {events.get('kernel_timing')} | 0 | | | | | |")
            continue
        deviations = [e / c - 1 for c, e in pairs]
        sum_c, sum_e = sum(c for c, _ in pairs), sum(e for _, e in pairs)
        print(f"| {name[:-len('.events')]} | {events.get('kernel_timing')} | {len(pairs)} | "
              f"{sum_c / 1e3:.1f} | {sum_e / 1e3:.1f} | {sum_e / sum_c:.3f} | "
              f"{100 * statistics.median(deviations):+.1f}% | {100 * max(deviations, key=abs):+.1f}% |")


def kernel_key(name):
    """A kernel name without namespaces: ncu prints `Kernel2<...>(Params)` where CUPTI's
    demangled name reads `cutlass::Kernel2<...>(...::Params)`."""
    return re.sub(r"\w+::", "", name)


def ncu_durations(path):
    """Kernel name -> median gpu__time_duration (ns) from an `ncu --csv` log."""
    scale = {"nsecond": 1, "usecond": 1e3, "msecond": 1e6, "second": 1e9}
    by_name = {}
    try:
        lines = [l for l in open(path) if l.startswith('"')]
    except OSError:
        return by_name
    for row in csv.DictReader(lines):
        if row.get("Metric Name") == "gpu__time_duration.sum":
            value = float(row["Metric Value"].replace(",", "")) * scale.get(row["Metric Unit"], 1)
            by_name.setdefault(kernel_key(row["Kernel Name"]), []).append(value)
    return {name: statistics.median(v) for name, v in by_name.items()}


def cupti_durations(db, run_id):
    """Kernel name -> median CUPTI kernel duration (ns) of one stored run."""
    by_name = {}
    if db is None or run_id is None:
        return by_name
    for name, ns in db.execute("SELECT s.value, k.\"end\" - k.start FROM kernels k "
                               "JOIN strings s ON s.id = k.demangledName WHERE k.run_id = ?",
                               (run_id,)):
        by_name.setdefault(kernel_key(name), []).append(ns)
    return {name: statistics.median(v) for name, v in by_name.items()}


def cupti_vs_ncu(benches, runs, db, logs):
    print("\n## CUPTI vs Nsight Compute (gpu__time_duration, same kernels, medians)\n")
    print("| pattern | kernel | CUPTI (us) | ncu (us) | CUPTI / ncu |")
    print("|---|---|---|---|---|")
    for bench in benches:
        run = runs.get(f"{bench['name']}.cuda") or {}
        cupti = cupti_durations(db, run.get("run_id"))
        ncu = ncu_durations(os.path.join(logs, f"{bench['name']}.ncu.csv"))
        if not ncu:
            print(f"| {bench['name']} | no ncu rows | | | |")
        for name, ns in sorted(ncu.items()):
            c = cupti.get(name)
            print(f"| {bench['name']} | {name[:60]} | {c / 1e3 if c else 0:.1f} | {ns / 1e3:.1f} | "
                  f"{f'{c / ns:.3f}' if c else 'no CUPTI row'} |")


def patterns(benches, runs, torch):
    peak, copy = torch.get("peak_bytes_per_s"), torch.get("copy_bytes_per_s")
    print("\n## Patterns (GPU time = sum of dispatch medians from CUPTI)\n")
    if copy:
        print(f"Measured device-to-device copy: {copy / 1e9:.0f} GB/s (read + write)"
              + (f", {100 * copy / peak:.0f}% of the HBM peak" if peak else "") + ".\n")
    print("| pattern | Loupe kernels | Loupe (us) | Loupe GB/s | % HBM peak | % copy | "
          "eager (us) | compile (us) | Loupe / eager | Loupe / compile |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for bench in benches:
        name = bench["name"]
        run = runs.get(f"{name}.cuda")
        t = torch.get("benches", {}).get(name, {})
        eager, compiled = t.get("eager_ns"), t.get("compiled_ns")
        if not run or not run.get("dispatches"):
            print(f"| {name} | did not run | | | | | | | | |")
            continue
        ns = gpu_ns(run)
        gbs = bench["bytes"] / ns
        pct = lambda ref: f"{100 * gbs * 1e9 / ref:.0f}%" if ref else ""
        ratio = lambda ref: f"{ns / ref:.2f}x" if ref else ""
        us = lambda v: f"{v / 1e3:.1f}" if v else t.get("compile_error", "")[:60]
        print(f"| {name} | {len(run['dispatches'])} | {ns / 1e3:.1f} | {gbs:.0f} | {pct(peak)} | "
              f"{pct(copy)} | {us(eager)} | {us(compiled)} | {ratio(eager)} | {ratio(compiled)} |")

    gemm = next((b for b in benches if b["name"] == "gemm"), None)
    if not gemm:
        return
    print("\n## GEMM " + "x".join(map(str, gemm["shape"])) + " f32\n")
    print("| backend | us | TFLOP/s |")
    print("|---|---|---|")
    t = torch.get("benches", {}).get("gemm", {})
    rows = [(label, gpu_ns(runs[n])) for label, n in
            [("cuBLAS (Loupe)", "gemm.cuda"), ("codegen (Loupe)", "gemm.cuda-codegen")]
            if runs.get(n) and runs[n].get("dispatches")]
    rows += [(label, t[key]) for label, key in
             [("PyTorch eager (cuBLAS direct, TF32 off)", "eager_ns"),
              ("torch.compile", "compiled_ns")] if t.get(key)]
    for label, ns in rows:
        print(f"| {label} | {ns / 1e3:.1f} | {gemm['flops'] / ns / 1e3:.2f} |")


def main():
    benches = json.load(open(sys.argv[1]))
    results = sys.argv[2]
    logs = os.path.join(results, "logs")
    runs = {os.path.basename(p)[:-len(".json")]: load(p)
            for p in glob.glob(os.path.join(logs, "*.json")) if not p.endswith("torch.json")}
    torch = load(os.path.join(logs, "torch.json")) or {}
    db_path = os.path.join(results, "profiles.db")
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True) if os.path.exists(db_path) else None
    print(f"# GPU run: {torch.get('device', 'unknown device')}, PyTorch {torch.get('torch', '?')}\n")
    models(runs, db, {b["name"] for b in benches})
    cupti_vs_events(runs)
    cupti_vs_ncu(benches, runs, db, logs)
    patterns(benches, runs, torch)


if __name__ == "__main__":
    main()
