#!/usr/bin/env bash
# Real models at scale: for every zoo model (examples/zoo/export_zoo.py, export_real.py) the
# compile time and
# peak RSS of `loupe compile` (3 runs: median, min-max), the run time (loupe's adaptive
# sampling: median and IQR) and the dispatch count; then compile time against op count on
# elementwise chains (bench/zoo/make_chain.py). Prints a Markdown table and writes it to
# BUILD/bench-results/zoo.md. The machine is shared: the spread is part of the result.
# usage: bench/zoo/zoo_bench.sh BUILD_DIR [MODEL ...]
set -euo pipefail
BUILD=$(realpath "$1"); shift
HERE=$(dirname "$(realpath "$0")")
LOUPE=$BUILD/bin/loupe
ZOO=$BUILD/zoo
OUT=$BUILD/bench-results
WORK=$(mktemp -d "${TMPDIR:-/tmp}/loupe-zoo-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$OUT"
/usr/bin/python3 "$HERE/../../examples/zoo/export_zoo.py" "$ZOO" >/dev/null
/usr/bin/python3 "$HERE/../../examples/zoo/export_real.py" "$ZOO" >/dev/null
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(resnet50 mobilenet_v3_large efficientnet_b0 convnext_tiny
                                   vit_b_16 bert_encoder ppocr_det ppocr_rec ppocr_cls)

# median, min and max of the numbers on stdin
stats() { sort -g | awk '{v[NR]=$1} END {printf "%.2f (%.2f-%.2f)", v[int((NR+1)/2)], v[1], v[NR]}'; }

{
  echo "| model | weights MB | compile s | peak RSS MiB | run ms (IQR) | dispatches |"
  echo "|---|---|---|---|---|---|"
  for m in "${models[@]}"; do
    data=$ZOO/$m/test_data_set_0
    binding=$(/usr/bin/python3 "$HERE/../../tests/zoo/input_binding.py" "$ZOO/$m.onnx" \
      "$data/input_0.pb")
    : >"$WORK/times"; : >"$WORK/rss"
    for rep in 1 2 3; do
      /usr/bin/time -f "%e %M" -o "$WORK/t" "$LOUPE" compile "$ZOO/$m.onnx" \
        --input-shape "$binding" -o "$WORK/$m.so" --cache off >/dev/null 2>&1
      read -r secs kb <"$WORK/t"
      echo "$secs" >>"$WORK/times"; echo $((kb / 1024)) >>"$WORK/rss"
    done
    "$LOUPE" run "$WORK/$m.so" --inputs "$data" --check "$data" --max-ms 10000 \
      --db "$WORK/p.db" --json >"$WORK/run.json"
    run=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); \
print(f\"{r['median_ns']/1e6:.2f} ({r['iqr_ns']/1e6:.2f}) | {len(r['dispatches'])}\")" "$WORK/run.json")
    mb=$(du -m "$ZOO/$m.onnx" | cut -f1)
    echo "| $m | $mb | $(stats <"$WORK/times") | $(stats <"$WORK/rss") | $run |"
  done
  echo
  echo "| elementwise chain ops | compile s | peak RSS MiB |"
  echo "|---|---|---|"
  for n in 2000 20000; do
    /usr/bin/python3 "$HERE/make_chain.py" "$n" "$WORK/chain.onnx"
    /usr/bin/time -f "%e %M" -o "$WORK/t" "$LOUPE" compile "$WORK/chain.onnx" -o "$WORK/c.so" \
      --cache off >/dev/null 2>&1
    read -r secs kb <"$WORK/t"
    echo "| $n | $secs | $((kb / 1024)) |"
  done
  echo
  echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$OUT/zoo.md"
