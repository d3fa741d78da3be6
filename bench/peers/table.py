"""Markdown table of bench/peers/peers.sh's results: per workload or model and tool, the median
of the rounds' medians (min-max over rounds), Loupe's ratio to each peer (below 1: Loupe is
faster) and whether issue 17's target holds in this run.
usage: table.py RESULTS INPUTS_JSON ROUNDS LOAD_TEXT"""
import collections
import json
import statistics
import sys

# Issue 17's targets (ms) for workloads a-f; every one must also be no slower than ORT and tuned
# torch. Models: no slower than ORT; ResNet-50 and MobileNetV3 at most 0.8x torch eager.
TARGET_MS = {"a": 2.6, "b": 13.0, "c": 5.8, "d": 1.6, "e": 2.6, "f": 10.3}
TOOLS = ["loupe", "ort", "torch", "tuned", "reference"]


def main():
    results, inputs_json, rounds, load = sys.argv[1:5]
    what = json.load(open(inputs_json))["what"]
    times = collections.defaultdict(list)
    order = []
    for line in open(results):
        item, tool, ms = line.split()
        times[item, tool].append(float(ms))
        if item not in order:
            order.append(item)
    med = {k: statistics.median(v) for k, v in times.items()}

    print(f"Medians of {rounds} interleaved rounds (min-max), ms; {load}.\n")
    print("| workload | " + " | ".join(TOOLS) +
          " | loupe/ort | loupe/tuned | loupe/torch | loupe/reference | target | holds |")
    print("|---|" + "---:|" * (len(TOOLS) + 5) + "---|")
    for item in order:
        cells = []
        for tool in TOOLS:
            v = times.get((item, tool))
            cells.append(f"{med[item, tool]:.2f} ({min(v):.2f}-{max(v):.2f})" if v else "-")
        loupe = med.get((item, "loupe"))
        ratio = lambda tool: (f"{loupe / med[item, tool]:.2f}x"
                              if loupe and (item, tool) in med else "-")
        if item in TARGET_MS:
            target = f"<= {TARGET_MS[item]} ms"
            holds = loupe is not None and loupe <= TARGET_MS[item] and all(
                loupe <= med[item, t] for t in ("ort", "tuned") if (item, t) in med)
        else:
            target = "<= ort" + (", <= 0.8x torch" if item.startswith(("resnet", "mobilenet")) else "")
            holds = loupe is not None and loupe <= med.get((item, "ort"), float("inf")) and (
                not item.startswith(("resnet", "mobilenet")) or
                loupe <= 0.8 * med.get((item, "torch"), float("inf")))
        name = f"{item}: {what[item]}" if item in what else item
        print(f"| {name} | " + " | ".join(cells) +
              f" | {ratio('ort')} | {ratio('tuned')} | {ratio('torch')} | {ratio('reference')} | "
              f"{target} | {'yes' if holds else '**no**'} |")


if __name__ == "__main__":
    main()
