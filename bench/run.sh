#!/usr/bin/env bash
# Runs every benchmark binary in BUILD/bin (bench_*) and prints the peer ratios.
# usage: bench/run.sh BUILD_DIR [--benchmark_filter=REGEX]
set -euo pipefail
BUILD=$1; shift || true
OUT=$BUILD/bench-results
mkdir -p "$OUT"
for bin in "$BUILD"/bin/bench_*; do
  [ -x "$bin" ] || continue
  name=$(basename "$bin")
  echo "== $name"
  "$bin" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
    --benchmark_out="$OUT/$name.json" --benchmark_out_format=json "$@"
done
# Ratios of each benchmark's median to its peer's, from the JSON results.
python3 "$(dirname "$0")/ratios.py" "$OUT"/*.json
# Real models: compile time, peak RSS, run time and dispatches per zoo model; chain scaling.
bash "$(dirname "$0")/zoo/zoo_bench.sh" "$BUILD"
# Issue 17's workloads a-f and the zoo's CNNs against ONNX Runtime, PyTorch and hand-written
# kernels, interleaved (bench/peers/peers.sh; writes BUILD/bench-results/peers.md).
bash "$(dirname "$0")/peers/peers.sh" "$BUILD"
