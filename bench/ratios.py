"""Prints benchmark medians as ratios against the peer measured in the same run.

A benchmark named `<group>_<variant>` is compared with `<group>_<peer>` where the peer variant is
the first of PEERS present in that group (e.g. compile/cnn_hashes vs compile/cnn_passes_only).
"""
import json
import sys

PEERS = ["passes_only", "peer", "memcpy", "naive"]


def medians(paths):
    out = {}
    for path in paths:
        for b in json.load(open(path))["benchmarks"]:
            if b.get("aggregate_name") == "median":
                out[b["run_name"]] = b["real_time"]
    return out


def main():
    times = medians(sys.argv[1:])
    for name, t in sorted(times.items()):
        group, _, variant = name.rpartition("_")
        for peer in PEERS:
            base = times.get(f"{group}_{peer}")
            if base and variant != peer:
                print(f"{name:55s} {t / base:6.3f}x {group}_{peer}")
                break


if __name__ == "__main__":
    main()
