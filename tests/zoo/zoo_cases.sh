#!/usr/bin/env bash
# Zoo tests. Usage: zoo_cases.sh BIN_DIR ZOO_DIR CASE [MODEL]
set -euo pipefail
BIN=$1 ZOO=$2 CASE=$3 MODEL=${4:-}
LOUPE=$BIN/loupe
WORK=$(mktemp -d "${TMPDIR:-/tmp}/loupe-zoo-$CASE.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

# Compiles (the input's shape bound from the test data), runs on that input and checks the
# expected output (torch's, or ONNX Runtime's for the npm models); prints the figures bench/
# records: compile time and peak RSS, run time, dispatch count.
case_run() {
  local data=$ZOO/$MODEL/test_data_set_0 binding
  if [ ! -f "$ZOO/$MODEL.onnx" ]; then # only the npm models may be missing (zoo.export says why)
    echo "SKIP: $ZOO/$MODEL.onnx was not exported"
    exit 77
  fi
  binding=$(/usr/bin/python3 "$(dirname "$0")/input_binding.py" "$ZOO/$MODEL.onnx" "$data/input_0.pb")
  /usr/bin/time -f "%e %M" -o "$WORK/compile.time" \
    "$LOUPE" compile "$ZOO/$MODEL.onnx" --input-shape "$binding" -o "$WORK/m.so" --cache off
  "$LOUPE" run "$WORK/m.so" --inputs "$data" --check "$data" --reps 3 --db "$WORK/p.db" \
    --json >"$WORK/run.json"
  python3 - "$WORK/run.json" "$WORK/compile.time" "$MODEL" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
wall, rss_kb = open(sys.argv[2]).read().split()
assert run["check"] == "pass", run["check"]
print(f"{sys.argv[3]}: compile {float(wall):.2f} s at {int(rss_kb) / 1024:.0f} MiB peak RSS, "
      f"run median {run['median_ns'] / 1e6:.2f} ms, {len(run['dispatches'])} dispatches")
PY
}

# The dump of every pass of ResNet-50 stays under 50 MB, no file over 8 MB, and no snapshot
# holds weight bytes (a resource's hex or a large dense literal).
case_resnet50_dump_size() {
  "$LOUPE" compile "$ZOO/resnet50.onnx" --dump-dir "$WORK/dump" -o "$WORK/r50.so" --cache off
  local total
  total=$(du -sb "$WORK/dump" | cut -f1)
  [ "$total" -le $((50 * 1000 * 1000)) ] || fail "dump is $total bytes (> 50 MB)"
  find "$WORK/dump" -type f -size +8M | grep -q . && fail "a snapshot exceeds 8 MB"
  grep -lE '"0x[0-9A-Fa-f]{256}|dense<\[[^]]{4096}' "$WORK/dump"/*.mlir && fail "weights in a snapshot"
  grep -q 'dense_resource<' "$WORK/dump"/000-import-import-onnx.mlir || fail "no dense_resource"
  echo "resnet50 dump: $total bytes"
}

# bert_encoder has symbolic batch and sequence dims: unbound it is an error naming them; bound
# by --input-shape it compiles per shape (two cache entries, the second shape not a hit).
case_bert_input_shapes() {
  local rc=0
  "$LOUPE" compile "$ZOO/bert_encoder.onnx" -o "$WORK/b.so" 2>"$WORK/err" || rc=$?
  [ "$rc" -eq 2 ] || fail "unbound dims exited $rc, expected 2"
  grep -q "graph input 'input' \[batch,sequence,512\] has a symbolic dim 0 ('batch')" "$WORK/err" ||
    { cat "$WORK/err"; fail "unbound-dim message"; }
  export LOUPE_CACHE_DIR=$WORK/cache
  for shape in 1,32,512 4,8,512 1,32,512; do
    "$LOUPE" run "$ZOO/bert_encoder.onnx" --input-shape input=$shape --reps 2 --db "$WORK/p.db" \
      >/dev/null
  done
  [ "$(ls "$WORK/cache"/*.so | wc -l)" -eq 2 ] || fail "expected one cache entry per shape"
  rc=0
  "$LOUPE" run "$ZOO/bert_encoder.onnx" --input-shape input=1,32,500 2>"$WORK/err" || rc=$?
  [ "$rc" -eq 2 ] && grep -q "dim 2 is 512 in the model, --input-shape gives 500" "$WORK/err" ||
    { cat "$WORK/err"; fail "a static dim that disagrees"; }
}

"case_$CASE"
