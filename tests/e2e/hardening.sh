#!/usr/bin/env bash
# Regression tests of the defects hostile input found (issue 15): each case fails before its
# fix. Usage: hardening.sh BIN_DIR SRC_DIR CASE (tests/e2e/CMakeLists.txt runs one case per test).
source "$(dirname "$0")/lib.sh"
LOUPE_RUN=$BIN/loupe-run
DATA=$MODELS/mlp/test_data_set_0
export LOUPE_CACHE_DIR=$WORK/cache

# unchanged FILE CMD...: runs CMD (any exit code) and checks FILE's bytes did not change.
unchanged() {
  local file=$1; shift
  cp "$file" "$WORK/before"
  "$@" >/dev/null 2>&1 || true
  cmp -s "$file" "$WORK/before" || fail "'$*' modified $file"
}

# session_like DEST SED_SCRIPT: examples/sessions/mlp.json edited by SED_SCRIPT, its model and
# data paths made absolute.
session_like() {
  sed -e "s|\.\./models|$MODELS|g" -e "$2" "$SRC/examples/sessions/mlp.json" >"$1"
}

# An ONNX model from a Python expression over onnx.helper as h and TensorProto as T.
onnx_model() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import sys
import onnx
from onnx import TensorProto as T, helper as h
graph = eval(sys.argv[2])
onnx.save(h.make_model(graph, opset_imports=[h.make_opsetid("", 13)]), sys.argv[1])
PY
}

# loupe-run is the one run path too: no check without --check, modes, checks and the DB.
case_harden_run_path() {
  "$LOUPE" compile "$MODELS/mlp.onnx" -o "$WORK/mlp.so" 2>/dev/null
  "$LOUPE_RUN" "$WORK/mlp.so" --reps 2 --mode both >"$WORK/out" || fail "loupe-run without --check failed"
  ! grep -q "check output" "$WORK/out" || fail "loupe-run checked without --check"
  "$LOUPE_RUN" "$WORK/mlp.so" --inputs "$DATA" --check "$DATA" --reps 2 --db "$WORK/p.db" --json \
    >"$WORK/run.json" || fail "loupe-run --check failed"
  python3 - "$WORK/run.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
assert run["check"] == "pass" and run["exit_code"] == 0, run
assert isinstance(run["run_id"], int), run["run_id"]
assert len(run["dispatches"]) > 3, run["dispatches"]
PY
}

# NaN or negative tolerances would pass every check.
case_harden_tolerances() {
  "$LOUPE" compile "$MODELS/mlp.onnx" -o "$WORK/mlp.so" 2>/dev/null
  expect_exit 2 "--rtol must be finite and >= 0" "$LOUPE" run "$MODELS/mlp.onnx" --rtol nan --reps 1
  expect_exit 2 "--atol must be finite and >= 0" "$LOUPE" run "$MODELS/mlp.onnx" --atol -1 --reps 1
  expect_exit 2 "--rtol must be finite and >= 0" "$LOUPE_RUN" "$WORK/mlp.so" --rtol nan --reps 1
  expect_exit 2 "--atol must be finite and >= 0" "$LOUPE_RUN" "$WORK/mlp.so" --atol inf --reps 1
  session_like "$WORK/negative.json" 's/"rtol": 1e-4/"rtol": -1/'
  expect_exit 2 "/run/rtol: 'rtol' must be finite and >= 0" \
    "$LOUPE" replay "$WORK/negative.json" --db "$WORK/p.db"
}

# Another application's SQLite file, a one-byte file and a device are never written to.
case_harden_foreign_db() {
  for version in 1 2 5; do
    python3 -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); \
c.execute('CREATE TABLE notes(text)'); c.execute('PRAGMA user_version = $version'); c.commit()" \
      "$WORK/app$version.db"
    unchanged "$WORK/app$version.db" "$LOUPE" run "$MODELS/mlp.onnx" --reps 1 --db "$WORK/app$version.db"
    expect_exit 2 "another application" "$LOUPE" run "$MODELS/mlp.onnx" --reps 1 --db "$WORK/app$version.db"
    [ ! -e "$WORK/app$version.db-wal" ] || fail "a WAL file was created next to app$version.db"
  done
  printf x >"$WORK/one.db"
  unchanged "$WORK/one.db" "$LOUPE" run "$MODELS/mlp.onnx" --reps 1 --db "$WORK/one.db"
  expect_exit 2 "not an SQLite database" "$LOUPE" run "$MODELS/mlp.onnx" --reps 1 --db "$WORK/one.db"
  expect_exit 2 "not a regular file" "$LOUPE" run "$MODELS/mlp.onnx" --reps 1 --db /dev/null
  # Another writer holding the lock for 9 s (more than the old 5-s busy timeout): the run waits
  # and is stored.
  "$LOUPE" run "$MODELS/mlp.onnx" --reps 1 --db "$WORK/shared.db" >/dev/null
  python3 -c "import sqlite3, sys, time; c = sqlite3.connect(sys.argv[1], isolation_level=None); \
c.execute('BEGIN EXCLUSIVE'); open(sys.argv[2], 'w').close(); time.sleep(9); c.execute('COMMIT')" \
    "$WORK/shared.db" "$WORK/locked" &
  local holder=$!
  while [ ! -e "$WORK/locked" ]; do sleep 0.1; done
  "$LOUPE" run "$MODELS/mlp.onnx" --reps 1 --db "$WORK/shared.db" --json >"$WORK/run.json" ||
    fail "a run lost its measurement to another writer's lock"
  wait "$holder"
  python3 -c "import json, sys; assert isinstance(json.load(open(sys.argv[1]))['run_id'], int)" \
    "$WORK/run.json" || fail "the run was not stored"
}

# A truncated artifact is refused before the loader maps it (it died of SIGBUS); a truncated
# compile-cache entry is a miss, not a crash on every later run.
case_harden_truncated_artifacts() {
  "$LOUPE" compile "$MODELS/mlp.onnx" -o "$WORK/mlp.so" 2>/dev/null
  head -c $(($(stat -c %s "$WORK/mlp.so") / 2)) "$WORK/mlp.so" >"$WORK/half.so"
  expect_exit 2 "truncated artifact" "$LOUPE_RUN" "$WORK/half.so" --reps 1
  expect_exit 2 "truncated artifact" "$LOUPE" run "$WORK/half.so" --reps 1
  local entry
  entry=$(ls "$LOUPE_CACHE_DIR"/*.so | head -n 1)
  head -c 4096 "$entry" >"$WORK/short" && cp "$WORK/short" "$entry"
  "$LOUPE" run "$MODELS/mlp.onnx" --inputs "$DATA" --check "$DATA" --reps 1 >/dev/null ||
    fail "a truncated cache entry broke the run"
  "$LOUPE" compile "$MODELS/mlp.onnx" -o "$WORK/again.so" 2>"$WORK/again.log"
  grep -q "compile cache: disk hit" "$WORK/again.log" ||
    { cat "$WORK/again.log"; ls -la "$LOUPE_CACHE_DIR"; fail "the recompiled entry was not stored again"; }
}

# Sizes no machine holds are errors (exit 2), never aborts.
case_harden_huge_sizes() {
  onnx_model "$WORK/dim.onnx" 'h.make_graph([h.make_node("Relu", ["x"], ["y"])], "g",
      [h.make_tensor_value_info("x", T.FLOAT, [1000000000000])],
      [h.make_tensor_value_info("y", T.FLOAT, [1000000000000])])'
  expect_exit 2 "more than 2\^37 elements" "$LOUPE" run "$WORK/dim.onnx" --reps 1
  onnx_model "$WORK/cos.onnx" 'h.make_graph([h.make_node("ConstantOfShape", ["s"], ["y"])], "g", [],
      [h.make_tensor_value_info("y", T.FLOAT, [1000000, 1000000])],
      [h.make_tensor("s", T.INT64, [2], [1000000, 1000000])])'
  expect_exit 2 "at most 2\^37 elements" "$LOUPE" compile "$WORK/cos.onnx" -o "$WORK/cos.so"
  onnx_model "$WORK/onehot.onnx" 'h.make_graph([h.make_node("OneHot", ["i", "d", "v"], ["y"])], "g",
      [h.make_tensor_value_info("i", T.INT64, [4])],
      [h.make_tensor_value_info("y", T.FLOAT, [4, 10000000000])],
      [h.make_tensor("d", T.INT64, [], [10000000000]), h.make_tensor("v", T.FLOAT, [2], [0, 1])])'
  expect_exit 2 "depth must be in \[1, 2\^31\)" "$LOUPE" compile "$WORK/onehot.onnx" -o "$WORK/oh.so"
  # LRN with a window of 2^40 channels: 2C - 1 slices, not 2^40.
  onnx_model "$WORK/lrn.onnx" 'h.make_graph([h.make_node("LRN", ["x"], ["y"], size=1099511627776)],
      "g", [h.make_tensor_value_info("x", T.FLOAT, [1, 4, 3, 3])],
      [h.make_tensor_value_info("y", T.FLOAT, [1, 4, 3, 3])])'
  timeout 120 "$LOUPE" run "$WORK/lrn.onnx" --reps 1 >/dev/null || fail "LRN with size 2^40 failed"
  # Session numbers beyond their field's range.
  session_like "$WORK/reps.json" 's/"reps": [0-9]*/"reps": 4611686018427387904/'
  expect_exit 2 "/run/reps: .*an integer in" "$LOUPE" replay "$WORK/reps.json" --db "$WORK/p.db"
  session_like "$WORK/version.json" 's/"loupe_session": 1/"loupe_session": 2147483648/'
  expect_exit 2 "loupe_session" "$LOUPE" replay "$WORK/version.json" --db "$WORK/p.db"
  session_like "$WORK/big.json" 's/"reps": [0-9]*/"reps": 1e400/'
  expect_exit 2 "big.json: malformed JSON" "$LOUPE" replay "$WORK/big.json" --db "$WORK/p.db"
  session_like "$WORK/digits.json" "s/\"reps\": [0-9]*/\"reps\": $(printf '9%.0s' $(seq 100000))/"
  expect_exit 2 "digits.json: malformed JSON" "$LOUPE" replay "$WORK/digits.json" --db "$WORK/p.db"
}

# An entry function without a body is an error at the front end (it crashed a pass).
case_harden_entry_without_body() {
  printf 'func.func private @main(%%x: tensor<4xf32>) -> tensor<4xf32>\n' >"$WORK/decl.mlir"
  expect_exit 2 "decl.mlir:1:1: error: the entry function @main is a declaration" \
    "$LOUPE" compile "$WORK/decl.mlir" -o "$WORK/decl.so"
  # An op with loc(unknown): its error still names the file.
  printf 'func.func @main(%%x: tensor<4xf32>) -> tensor<4xf32> {\n  %%y = tosa.exp %%x : (tensor<4xf32>) -> tensor<5xf32> loc(unknown)\n  return %%x : tensor<4xf32>\n}\n' >"$WORK/unknown.mlir"
  expect_exit 2 "unknown.mlir: error: 'tosa.exp' op" "$LOUPE" compile "$WORK/unknown.mlir" -o "$WORK/u.so"
  ! grep -q "<unknown>" "$WORK/err" || fail "an error without the file name: $(cat "$WORK/err")"
  printf 'func.func @main(%%x: tensor<4xf32>) -> tensor<4xf32> {\n' >"$WORK/bad.mlir"
  expect_exit 2 "bad.mlir" "$BIN/loupe-opt" "$WORK/bad.mlir"
}

# Outputs never replace the model, the session or a file that is not an artifact; runs leave
# no artifacts behind; a reused dump directory holds only the last compile's snapshots.
case_harden_outputs() {
  cp "$MODELS/mlp.onnx" "$WORK/m.onnx"
  unchanged "$WORK/m.onnx" "$LOUPE" compile "$WORK/m.onnx" -o "$WORK/m.onnx"
  expect_exit 2 "is the model itself|not an artifact" "$LOUPE" compile "$WORK/m.onnx" -o "$WORK/m.onnx"
  expect_exit 2 "does not exist" "$LOUPE" compile "$WORK/m.onnx" -o /nonexistent/x.so
  expect_exit 2 "is a directory" "$LOUPE" compile "$WORK/m.onnx" -o "$WORK"
  expect_exit 2 "not a regular file" "$LOUPE" compile "$WORK/m.onnx" -o /dev/full
  session_like "$WORK/s.json" 's/"reps": [0-9]*/"reps": 2/'
  unchanged "$WORK/s.json" "$LOUPE" replay "$WORK/s.json" --db "$WORK/p.db" --report "$WORK/s.json"
  expect_exit 2 "session file itself" "$LOUPE" replay "$WORK/s.json" --db "$WORK/p.db" --report "$WORK/s.json"
  expect_exit 2 "unknown report format" "$LOUPE" replay "$WORK/s.json" --db "$WORK/p.db" --report "$WORK/r.pdf"
  # Runs compile into the cache, not into $TMPDIR/loupe; a symlink there is not followed.
  mkdir -p "$WORK/tmp" "$WORK/elsewhere"
  ln -s "$WORK/elsewhere" "$WORK/tmp/loupe"
  TMPDIR=$WORK/tmp "$LOUPE" run "$MODELS/cnn.onnx" --reps 1 >/dev/null
  TMPDIR=$WORK/tmp LOUPE_CACHE_DIR=$WORK/cache2 "$LOUPE" run "$MODELS/cnn.onnx" --reps 1 >/dev/null
  [ -z "$(ls -A "$WORK/elsewhere")" ] || fail "an artifact went through the symlink: $(ls "$WORK/elsewhere")"
  [ -z "$(find "$WORK/tmp" -name '*.so')" ] || fail "runs left artifacts: $(find "$WORK/tmp" -name '*.so')"
  # The cnn's dump, then the TOSA MLP's (fewer passes) into the same directory.
  "$LOUPE" compile "$MODELS/cnn.onnx" --dump-dir "$WORK/dump" -o "$WORK/cnn.so" 2>/dev/null
  touch "$WORK/dump/notes.txt"
  "$LOUPE" compile "$MODELS/mlp_tosa.mlir" --dump-dir "$WORK/dump" -o "$WORK/tosa.so" 2>/dev/null
  python3 - "$WORK/dump" <<'PY'
import json, os, sys
d = sys.argv[1]
index = json.load(open(os.path.join(d, "index.json")))["passes"]
files = sorted(f for f in os.listdir(d) if f[:3].isdigit())
assert files == sorted(p["file"] for p in index), (len(files), len(index))
assert os.path.exists(os.path.join(d, "notes.txt"))
PY
}

# Settings that would be ignored or fail late are refused up front; an override naming no op
# says so.
case_harden_settings() {
  expect_exit 2 "--gpu-arch must be sm_80 or sm_90, not 'sm_1'" \
    "$LOUPE" compile "$MODELS/mlp.onnx" --gpu-arch sm_1 -o "$WORK/m.so"
  expect_exit 2 "--gpu-arch must be sm_80 or sm_90" "$LOUPE" run "$MODELS/mlp.onnx" --gpu-arch sm_1
  session_like "$WORK/phase.json" 's/"phase_to": "artifact"/"phase_to": "nope"/'
  expect_exit 2 "/pipeline/phase_to: 'phase_to' must be one of" \
    "$LOUPE" replay "$WORK/phase.json" --db "$WORK/p.db"
  expect_exit 0 "warning: the override fc9=openblas names no op" \
    "$LOUPE" compile "$MODELS/mlp.onnx" --override fc9=openblas -o "$WORK/m.so"
}

"case_$CASE"
