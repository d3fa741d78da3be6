#!/usr/bin/env bash
# End-to-end tests of loupe tune and --backends auto (docs/cli.md, "loupe tune").
# Usage: tune_cases.sh BIN_DIR SRC_DIR CASE
source "$(dirname "$0")/lib.sh"

runs_in() { sqlite3 "$1" "select count(*) from runs"; }

case_tune_cnn() {
  # The cnn has four ops more than one backend runs (two convs and the max pool: onednn,
  # codegen; the fc: onednn, openblas, codegen). Which wins depends on this machine; what must
  # hold is that the table, the tuned session, the report and --backends auto all say the same.
  "$LOUPE" tune "$MODELS/cnn.onnx" --db "$WORK/p.db" --reps 20 -o "$WORK/cnn.tuned.json" \
    --report "$WORK/tune.html" --json >"$WORK/tune.json" 2>"$WORK/err" ||
    { cat "$WORK/err"; fail "loupe tune exited non-zero"; }
  grep -q "tuned session: $WORK/cnn.tuned.json" "$WORK/err" || fail "no tuned-session line"
  [ "$(sqlite3 "$WORK/p.db" "select count(*) from tuning")" = 4 ] || fail "4 signatures tuned"
  sqlite3 -separator ' ' "$WORK/p.db" "select loc, backend, default_backend, signature from tuning" >"$WORK/table"
  python3 - "$WORK/tune.json" "$WORK/cnn.tuned.json" "$WORK/table" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
tuned = json.load(open(sys.argv[2]))
table = [line.split(" ") for line in open(sys.argv[3]).read().splitlines()]
sigs = {s["signature"]: s for s in report["tuning"]["signatures"]}
assert len(sigs) == 4, sigs.keys()
overrides = tuned.get("pipeline", {}).get("overrides", {})
for loc, backend, default, signature in table:
    s = sigs[signature]
    assert s["backend"] == backend and s["default"] == default and loc in s["locs"], (s, backend)
    tried = [m["backend"] for m in s["measured"]]
    assert tried[0] == default and backend in tried, tried
    assert s["measured"][0]["verdict"] == "default"
    for m in s["measured"][1:]:
        assert m["verdict"] in ("SAME", "FASTER", "SLOWER", "AMBIGUOUS"), m
        assert m["median_ns"] > 0 and m["trials"] == 7, m
    # A backend other than the default is kept only when measured FASTER.
    if backend != default:
        assert next(m for m in s["measured"] if m["backend"] == backend)["verdict"] == "FASTER"
        assert overrides.get(loc) == backend, (loc, overrides)
    else:
        assert loc not in overrides, (loc, overrides)
convs = [s for s in sigs.values() if s["op"] == "conv2d"]
assert len(convs) == 2 and all([m["backend"] for m in s["measured"]] == ["onednn", "codegen"] for s in convs)
# The confirmation compares the tuned overrides with the base on the whole model.
if overrides:
    assert report["comparison"]["candidate"] == "tuned", report["comparison"]
else:
    assert "comparison" not in report
PY
  # The runs: base and one variant per other backend (codegen, openblas), 7 trials each, plus
  # 7 + 7 for the confirmation when an override was kept.
  local runs kept
  runs=$(runs_in "$WORK/p.db")
  kept=$(sqlite3 "$WORK/p.db" "select count(*) from tuning where backend != default_backend")
  [ "$runs" -eq $((kept > 0 ? 35 : 21)) ] || fail "unexpected run count $runs"
  grep -q "<h2>Tuning</h2>" "$WORK/tune.html" || fail "the HTML report has no tuning section"

  # --backends auto: each op gets the table's backend, saying why (in its cluster's reason: a
  # pool that codegen runs is a generic by the ral phase).
  "$LOUPE" compile "$MODELS/cnn.onnx" --backends auto --db "$WORK/p.db" --phase-to cluster \
    --emit mlir -o "$WORK/auto.mlir" 2>/dev/null || fail "compile --backends auto"
  while read -r loc backend default signature; do
    grep -q "tuned: loupe tune measured $backend fastest for $signature" "$WORK/auto.mlir" ||
      fail "--backends auto did not choose $backend for $loc"
  done <"$WORK/table"
  # Without a table (an empty DB), auto leaves the plevels to decide.
  "$LOUPE" compile "$MODELS/cnn.onnx" --backends auto --db "$WORK/none.db" --phase-to ral \
    --emit mlir -o "$WORK/plain.mlir" 2>/dev/null || fail "compile --backends auto without a table"
  ! grep -q "tuned:" "$WORK/plain.mlir" || fail "no table, no tuned choice"
  # The tuned session replays.
  "$LOUPE" replay "$WORK/cnn.tuned.json" --db "$WORK/p.db" >/dev/null 2>&1 || fail "replay of the tuned session"
}

case_tune_bad_input() {
  # Every flag and file is checked before anything runs: exit 2 and nothing stored.
  expect_exit 2 "does not exist" "$LOUPE" tune "$WORK/missing.onnx" --db "$WORK/p.db"
  expect_exit 2 "unknown backend 'nope'" "$LOUPE" tune "$MODELS/cnn.onnx" --db "$WORK/p.db" --try nope
  expect_exit 2 "--trials expects" "$LOUPE" tune "$MODELS/cnn.onnx" --db "$WORK/p.db" --trials 0
  expect_exit 2 "a .json file" "$LOUPE" tune "$MODELS/cnn.onnx" --db "$WORK/p.db" -o "$WORK/t.txt"
  expect_exit 2 "unknown report format" "$LOUPE" tune "$MODELS/cnn.onnx" --db "$WORK/p.db" --report "$WORK/r.pdf"
  expect_exit 2 "unknown backend 'nope'" "$LOUPE" tune "$MODELS/cnn.onnx" --db "$WORK/p.db" --backends nope
  printf '{"loupe_session": 1, "model": "%s"}\n' "$MODELS/cnn.onnx" >"$WORK/s.json"
  expect_exit 2 "applies to a MODEL" "$LOUPE" tune "$WORK/s.json" --db "$WORK/p.db" --backends codegen
  printf '{"loupe_session": 1, "model": 3}\n' >"$WORK/bad.json"
  expect_exit 2 "bad.json" "$LOUPE" tune "$WORK/bad.json" --db "$WORK/p.db"
  [ ! -e "$WORK/p.db" ] || [ "$(runs_in "$WORK/p.db")" = 0 ] || fail "a refused tune stored runs"
  # A foreign file as the DB of --backends auto: exit 2, the file untouched.
  printf 'not a database' >"$WORK/foreign.db"
  expect_exit 2 "backends auto" "$LOUPE" compile "$MODELS/cnn.onnx" --backends auto --db "$WORK/foreign.db" -o "$WORK/x.so"
  [ "$(cat "$WORK/foreign.db")" = "not a database" ] || fail "the foreign file was modified"
}

"case_$CASE"
