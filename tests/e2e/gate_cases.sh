#!/usr/bin/env bash
# End-to-end tests of comparisons as a CI gate: loupe replay --fail-on/--threshold/--baseline/
# --trials/--shard and loupe compare (docs/ci.md). Usage: gate_cases.sh BIN_DIR SRC_DIR CASE
source "$(dirname "$0")/lib.sh"

# mlp with test data; variants given as JSON text.
mlp_session() {
  printf '%s\n' '{"loupe_session": 2, "name": "gate", "model": "MODELS/mlp.onnx",' \
    ' "run": {"warmup": 2, "reps": 15, "inputs": "MODELS/mlp/test_data_set_0", "check": "MODELS/mlp/test_data_set_0"}' \
    "$1}" | sed "s|MODELS|$MODELS|g"
}

runs_in() { sqlite3 "$1" "select count(*) from runs"; }

case_gate_replay() {
  # A candidate that waits 2 ms more per repetition (about 100x the mlp) fails the gate; the
  # regressed rows are printed; the verdicts are stored.
  mlp_session ', "variants": [{"name": "a"}, {"name": "b", "run": {"inject_delay_us": 2000}}], "compare": ["a", "b"]' >"$WORK/slow.json"
  local rc=0
  "$LOUPE" replay "$WORK/slow.json" --db "$WORK/p.db" --fail-on slower >"$WORK/out.md" 2>"$WORK/err" || rc=$?
  [ "$rc" -eq 1 ] || { cat "$WORK/err"; fail "a slower candidate must exit 1, got $rc"; }
  grep -q "gate FAILED: b against a is SLOWER (7 paired trials" "$WORK/err" || { cat "$WORK/err"; fail "gate line"; }
  grep -q "whole repetition \*\*SLOWER\*\*" "$WORK/out.md" || fail "report verdict"
  [ "$(sqlite3 "$WORK/p.db" "select verdict || ' ' || baseline_trials || ' ' || candidate_trials from comparisons where name = 'whole repetition'")" = "SLOWER 7 7" ] ||
    fail "the whole-model verdict is not stored"
  # Without --fail-on the same verdict exits 0; --fail-on faster passes it.
  "$LOUPE" replay "$WORK/slow.json" --db "$WORK/p.db" --trials 4 >/dev/null 2>&1 || fail "no gate: exit 0"
  "$LOUPE" replay "$WORK/slow.json" --db "$WORK/p.db" --trials 4 --fail-on faster >/dev/null 2>"$WORK/err" ||
    { cat "$WORK/err"; fail "--fail-on faster must pass a slower candidate"; }
  grep -q "gate passed" "$WORK/err" || fail "gate passed line"

  # Identical variants pass a gate on slower and ambiguous (a 50% threshold keeps this test
  # free of the 5% false alarms a noisy machine may give; bench/aa measures the real rate).
  mlp_session ', "variants": [{"name": "a"}, {"name": "b"}], "compare": ["a", "b"]' >"$WORK/same.json"
  "$LOUPE" replay "$WORK/same.json" --db "$WORK/p.db" --fail-on slower,ambiguous --threshold 50 \
    >/dev/null 2>"$WORK/err" || { cat "$WORK/err"; fail "A/A must pass the gate"; }
}

case_gate_baseline_and_compare() {
  mlp_session ', "variants": [{"name": "a"}, {"name": "b", "run": {"inject_delay_us": 2000}}], "compare": ["a", "b"]' >"$WORK/slow.json"
  "$LOUPE" replay "$WORK/slow.json" --db "$WORK/p.db" --trials 4 >/dev/null 2>&1
  local a b
  a=$(sqlite3 "$WORK/p.db" "select min(r.id) from runs r join strings v on v.id = r.variant_id where v.value = 'a'")
  b=$(sqlite3 "$WORK/p.db" "select min(r.id) from runs r join strings v on v.id = r.variant_id where v.value = 'b'")
  # loupe compare takes each run's batch: 4 vs 4 trials (too few to pair: Mann-Whitney).
  local rc=0
  "$LOUPE" compare "$a" "$b" --db "$WORK/p.db" --fail-on slower --json >"$WORK/c.json" 2>"$WORK/err" || rc=$?
  [ "$rc" -eq 1 ] || { cat "$WORK/err"; fail "compare of a slower run must exit 1, got $rc"; }
  python3 - "$WORK/c.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["comparison"]
assert c["verdict"] == "SLOWER" and c["run"]["trials"] == [4, 4], c["run"]
assert c["run"]["change_low"] > 1, c["run"]  # at least 2x slower, surely
PY
  "$LOUPE" compare "$b" "$a" --db "$WORK/p.db" --fail-on slower >/dev/null 2>&1 || fail "faster is not a regression"
  "$LOUPE" compare "$a" "$a" --db "$WORK/p.db" --fail-on slower,ambiguous >/dev/null 2>&1 || fail "a run against itself"

  # replay --baseline: the session's only variant against a stored run, from another DB too.
  mlp_session '' >"$WORK/one.json"
  rc=0
  "$LOUPE" replay "$WORK/one.json" --db "$WORK/q.db" --baseline "$b" --baseline-db "$WORK/p.db" \
    --fail-on faster --report "$WORK/r.json" >/dev/null 2>"$WORK/err" || rc=$?
  [ "$rc" -eq 1 ] || { cat "$WORK/err"; fail "faster than the stored slow run, with --fail-on faster: exit 1, got $rc"; }
  grep -q "gate FAILED: base against run $b is FASTER" "$WORK/err" || { cat "$WORK/err"; fail "gate line"; }
  python3 -c "import json,sys; c=json.load(open('$WORK/r.json'))['comparison']; assert c['baseline']=='run $b' and c['run']['trials']==[4,7], c['run']"
}

case_gate_bad_flags() {
  # Every flag and file is checked before anything runs: the DB gets no run.
  mlp_session ', "variants": [{"name": "a"}, {"name": "b"}], "compare": ["a", "b"]' >"$WORK/s.json"
  mlp_session '' >"$WORK/one.json"
  "$LOUPE" run "$MODELS/mlp.onnx" --reps 10 --warmup 1 --db "$WORK/p.db" >/dev/null
  expect_exit 2 "--fail-on: unknown verdict 'worse'" "$LOUPE" replay "$WORK/s.json" --db "$WORK/p.db" --fail-on worse
  expect_exit 2 "--threshold expects a percentage" "$LOUPE" replay "$WORK/s.json" --db "$WORK/p.db" --threshold -3
  expect_exit 2 "--trials expects 1 to 1000" "$LOUPE" replay "$WORK/s.json" --db "$WORK/p.db" --trials 0
  expect_exit 2 "--shard expects I/N" "$LOUPE" replay "$WORK/s.json" --db "$WORK/p.db" --shard 3/2
  expect_exit 2 "--baseline must be a run id" "$LOUPE" replay "$WORK/s.json" --db "$WORK/p.db" --baseline x
  expect_exit 2 "no run 99" "$LOUPE" replay "$WORK/s.json" --db "$WORK/p.db" --baseline 99
  expect_exit 2 "no profile DB at '$WORK/none.db'" "$LOUPE" replay "$WORK/s.json" --baseline 1 --baseline-db "$WORK/none.db"
  expect_exit 2 "--baseline-db needs --baseline" "$LOUPE" replay "$WORK/s.json" --baseline-db "$WORK/p.db"
  expect_exit 2 "--fail-on needs something to compare" "$LOUPE" replay "$WORK/one.json" --db "$WORK/p.db" --fail-on slower
  expect_exit 2 "unknown report format" "$LOUPE" replay "$WORK/s.json" --db "$WORK/p.db" --report "$WORK/r.txt"
  [ "$(runs_in "$WORK/p.db")" = 1 ] || fail "a refused replay must not run anything"
  expect_exit 2 "RUN_B must be a run id" "$LOUPE" compare 1 zero --db "$WORK/p.db"
  expect_exit 2 "no run 7" "$LOUPE" compare 1 7 --db "$WORK/p.db"
  expect_exit 2 "no profile DB" "$LOUPE" compare 1 1 --db "$WORK/none.db"
  [ ! -e "$WORK/none.db" ] || fail "compare must not create a DB"
}

case_gate_shards() {
  # Two shards run disjoint halves of the variants; together, all of them.
  mlp_session ', "variants": [{"name": "v1"}, {"name": "v2"}, {"name": "v3"}]' >"$WORK/s.json"
  "$LOUPE" replay "$WORK/s.json" --db "$WORK/s1.db" --shard 1/2 >/dev/null 2>&1 || fail "shard 1"
  "$LOUPE" replay "$WORK/s.json" --db "$WORK/s2.db" --shard 2/2 >/dev/null 2>&1 || fail "shard 2"
  local one two
  one=$(sqlite3 "$WORK/s1.db" "select group_concat(v.value) from runs r join strings v on v.id = r.variant_id")
  two=$(sqlite3 "$WORK/s2.db" "select group_concat(v.value) from runs r join strings v on v.id = r.variant_id")
  [ "$one" = "v1,v3" ] && [ "$two" = "v2" ] || fail "shards ran '$one' and '$two'"

  # loupe db merge combines the shards' DBs, once; the inputs stay as they were.
  local before
  before=$(md5sum "$WORK/s1.db" | cut -d' ' -f1)
  "$LOUPE" db merge "$WORK/all.db" "$WORK/s1.db" "$WORK/s2.db" >"$WORK/out" || fail "merge"
  grep -q "s1.db: 2 runs copied, 0 already" "$WORK/out" || { cat "$WORK/out"; fail "merge output"; }
  "$LOUPE" db merge "$WORK/all.db" "$WORK/s1.db" >"$WORK/out" || fail "merge again"
  grep -q "0 runs copied, 2 already" "$WORK/out" || { cat "$WORK/out"; fail "a merged run is copied once"; }
  [ "$(md5sum "$WORK/s1.db" | cut -d' ' -f1)" = "$before" ] || fail "merge changed an input"
  [ "$(sqlite3 "$WORK/all.db" "select group_concat(variant || ':' || status) from (select * from v_runs order by variant)")" = \
    "v1:complete,v2:complete,v3:complete" ] || fail "merged runs"
  # Copies keep their samples: the same medians as the originals.
  [ "$(sqlite3 "$WORK/all.db" "select sum(median_ns) from v_dispatch_times d join v_runs r using (run_id) where r.variant = 'v2'")" = \
    "$(sqlite3 "$WORK/s2.db" "select sum(median_ns) from v_dispatch_times")" ] || fail "merged samples differ"
  expect_exit 2 "is the output DB itself" "$LOUPE" db merge "$WORK/all.db" "$WORK/all.db"
  expect_exit 2 "not an SQLite|no profile DB|cannot open|not a Loupe" "$LOUPE" db merge "$WORK/x.db" "$WORK/s.json"

  # export: a run (with its batch) as a DB or its samples as CSV; gc trims.
  "$LOUPE" db export 1 --db "$WORK/all.db" -o "$WORK/one.db" >/dev/null || fail "export db"
  [ "$(sqlite3 "$WORK/one.db" "select count(*) from runs")" = 1 ] || fail "export db runs"
  "$LOUPE" db export 1 2 --db "$WORK/all.db" -o "$WORK/s.csv" >/dev/null || fail "export csv"
  head -1 "$WORK/s.csv" | grep -q "^run_id,variant,trial,dispatch_id,dispatch,backend,rep,duration_ns$" || fail "csv header"
  [ "$(grep -c '^1,v1,.*,whole repetition,' "$WORK/s.csv")" = 15 ] || fail "csv: 15 repetitions of run 1"
  expect_exit 2 "exists; not replacing it" "$LOUPE" db export 1 --db "$WORK/all.db" -o "$WORK/s.csv"
  "$LOUPE" db gc --db "$WORK/all.db" --keep 1 --dry-run >"$WORK/out"
  [ "$(grep -c "would delete" "$WORK/out")" = 2 ] || fail "gc --dry-run"
  "$LOUPE" db gc --db "$WORK/all.db" --keep 1 >/dev/null || fail "gc"
  [ "$(sqlite3 "$WORK/all.db" "select count(*) from runs")" = 1 ] || fail "gc --keep 1"
  [ "$(sqlite3 "$WORK/all.db" "select count(*) from samples where run_id not in (select id from runs)")" = 0 ] || fail "gc left samples"
  expect_exit 2 "say what to delete" "$LOUPE" db gc --db "$WORK/all.db"
}

case_reports() {
  # A slower candidate, reported in every format from the replay and from the DB.
  mlp_session ', "variants": [{"name": "a"}, {"name": "b", "run": {"inject_delay_us": 2000}}], "compare": ["a", "b"]' >"$WORK/slow.json"
  "$LOUPE" replay "$WORK/slow.json" --db "$WORK/p.db" --report "$WORK/replay.html" >/dev/null 2>&1 || fail "replay --report .html"
  "$LOUPE" replay "$WORK/slow.json" --db "$WORK/q.db" --report "$WORK/replay.xml" >/dev/null 2>&1 || fail "replay --report .xml"
  local a b
  a=$(sqlite3 "$WORK/p.db" "select min(run_id) from v_runs where variant = 'a'")
  b=$(sqlite3 "$WORK/p.db" "select min(run_id) from v_runs where variant = 'b'")
  for ext in md json html csv xml; do
    "$LOUPE" report --db "$WORK/p.db" --run "$b" --compare "$a" -o "$WORK/r.$ext" 2>/dev/null || fail "report .$ext"
  done
  "$LOUPE" report --db "$WORK/p.db" --run "$a" -o "$WORK/one.html" 2>/dev/null || fail "report of one run"
  "$LOUPE" report --db "$WORK/p.db" --run "$a" -o "$WORK/one.xml" 2>/dev/null || fail "junit of one run"
  # The run's transient memory (measurements.arena_bytes, ...) comes back from the DB.
  "$LOUPE" report --db "$WORK/p.db" --run "$a" -o "$WORK/one.md" 2>/dev/null || fail "report .md of one run"
  grep -q "^- Transient memory: arena .* of buffers" "$WORK/one.md" || fail "the stored report lacks the buffer plan"
  grep -q "<li>Transient memory: arena" "$WORK/one.html" || fail "the HTML report lacks the buffer plan"

  # JUnit validates against the schema CI systems read; the regression is a failure.
  for f in r.xml replay.xml one.xml; do
    xmllint --noout --schema "$SRC/tests/e2e/schemas/junit.xsd" "$WORK/$f" 2>"$WORK/err" || { cat "$WORK/err"; fail "$f is not JUnit"; }
  done
  grep -q '<testcase classname="gate: run '"$b"' vs run '"$a"'" name="whole repetition" time="[0-9.]*">' "$WORK/r.xml" || fail "junit whole-model case"
  grep -q '<failure message="SLOWER +[0-9.]*%"' "$WORK/r.xml" || fail "junit failure"
  grep -q 'failures="0"' "$WORK/one.xml" || fail "a passing run has no failure"

  # The HTML parses; its SVG charts are well-formed and hold what they claim.
  python3 - "$WORK/r.html" "$WORK/replay.html" "$WORK/one.html" <<'PY'
import re, sys, xml.etree.ElementTree as ET
from html.parser import HTMLParser
class Check(HTMLParser):
    def __init__(self):
        super().__init__(); self.stack = []; self.external = []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("script", "link", "img") or (tag == "a" and a.get("href", "").startswith("http")):
            self.external.append(tag)
        if tag not in ("meta", "br", "line", "rect", "circle", "polyline"):
            self.stack.append(tag)
    def handle_endtag(self, tag):
        if tag in ("line", "rect", "circle", "polyline"):
            return
        assert self.stack and self.stack[-1] == tag, (tag, self.stack[-5:])
        self.stack.pop()
for path in sys.argv[1:]:
    page = open(path).read()
    c = Check(); c.feed(page)
    assert not c.stack, c.stack
    assert not c.external, "not self-contained: %s" % c.external
    svgs = re.findall(r"<svg.*?</svg>", page, re.S)
    labels = [ET.fromstring(s).get("aria-label") for s in svgs]  # each is well-formed XML
    for need in ("dispatch medians with interquartile range", "timeline of the median repetition",
                 "time of every pass", "roofline of every kernel"):
        assert need in labels, (path, need, labels)
    if "one.html" not in path:
        assert "change per dispatch with 95% interval" in labels, labels
        chart = ET.fromstring(svgs[labels.index("change per dispatch with 95% interval")])
        fills = [r.get("fill") for r in chart.iter("{http://www.w3.org/2000/svg}rect")]
        assert "#d64545" in fills, "the slower whole repetition is drawn red: %s" % fills
        assert "SLOWER" in page
    roof = ET.fromstring(svgs[labels.index("roofline of every kernel")])
    assert list(roof.iter("{http://www.w3.org/2000/svg}polyline")), "no roofs"
    assert list(roof.iter("{http://www.w3.org/2000/svg}circle")), "no kernels on the roofline"
print("html ok")
PY
  head -1 "$WORK/r.csv" | grep -q "^kind,id,name,loc,baseline_backend,candidate_backend,baseline_median_ns" || fail "csv header"
  grep -q "^whole,,whole repetition,.*,SLOWER$" "$WORK/r.csv" || fail "csv whole row"
  grep -q "^## Comparison" "$WORK/r.md" && grep -q "^## Dispatches" "$WORK/r.md" || fail "md sections"

  expect_exit 2 "expected --run ID and -o" "$LOUPE" report --db "$WORK/p.db" --run "$a"
  expect_exit 2 "unknown report format" "$LOUPE" report --db "$WORK/p.db" --run "$a" -o "$WORK/r.pdf"
  expect_exit 2 "no run 999" "$LOUPE" report --db "$WORK/p.db" --run 999 -o "$WORK/x.md"
  [ ! -e "$WORK/x.md" ] || fail "a failed report must not leave a file"
}

"case_$CASE"
