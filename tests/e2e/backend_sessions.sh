#!/usr/bin/env bash
# End-to-end tests of sessions with backend variants (examples/sessions/*_backends.json):
# `loupe replay` compiles and runs library, codegen-only and fusion-off variants, checks every
# one against the ONNX expected outputs and compares library with codegen.
# Usage: backend_sessions.sh BIN_DIR SRC_DIR CASE
source "$(dirname "$0")/lib.sh"

# replay_backends MODEL: replays examples/sessions/MODEL_backends.json and checks the report.
replay_backends() {
  local model=$1
  "$LOUPE" replay "$SRC/examples/sessions/${model}_backends.json" --db "$WORK/p.db" \
    --report "$WORK/$model.json" >"$WORK/$model.md" 2>"$WORK/err" ||
    { cat "$WORK/err" >&2; fail "replay of ${model}_backends.json failed"; }
  python3 - "$WORK/$model.json" "$model" <<'PY'
import json, sys
r, model = json.load(open(sys.argv[1])), sys.argv[2]
assert r["exit_code"] == 0, r.get("error")
v = {x["name"]: x for x in r["variants"]}
assert list(v) == ["library", "codegen", "fusion_off"], list(v)
for name, x in v.items():
    assert x["correctness"]["checked"] and x["correctness"]["passed"], (model, name)
backends = {n: {d["backend"] for d in x["dispatches"]} for n, x in v.items()}
assert "onednn" in backends["library"], backends
assert backends["codegen"] == {"codegen"}, backends
assert v["codegen"]["settings"]["backends"] == ["codegen"]
assert v["fusion_off"]["settings"]["fusion"] is False and v["library"]["settings"]["fusion"] is True
assert len(v["fusion_off"]["dispatches"]) > len(v["library"]["dispatches"]), \
    (len(v["fusion_off"]["dispatches"]), len(v["library"]["dispatches"]))
c = r["comparison"]
assert (c["baseline"], c["candidate"]) == ("library", "codegen"), c
lib = [d for d in c["dispatches"] if d["baseline_backend"] == "onednn"]
assert lib and all(d["in_baseline"] for d in lib), c["dispatches"]
# Kernels in both variants (none where each one's source ops differ: the MLP's softmax is
# stitched with fc3's bias only under codegen) run as codegen in the candidate.
paired = [d for d in c["dispatches"] if d["in_baseline"] and d["in_candidate"]]
assert all(d["candidate_backend"] == "codegen" for d in paired), paired
# The library kernels and the loops replacing them are compared as source-op groups, and every
# changed row names the pass where the two compiles part: backends are chosen when clusters
# form.
assert c["groups"] and all(g["candidate_ids"] and g["baseline_ids"] for g in c["groups"]), c["groups"]
changed = [x for x in c["dispatches"] + c["groups"] if x["verdict"] in ("FASTER", "SLOWER")]
for x in changed:
    a = x["first_differing_pass"]
    assert a["pass"] == "loupe-form-clusters" and a["phase"] == "cluster", x
    assert a["source_op"] and a["source_op"] in x["loc"].split(","), x
print(model, {n: len(x["dispatches"]) for n, x in v.items()}, "verdict", c["verdict"])
PY
  grep -q '^## Comparison' "$WORK/$model.md" || fail "$model: the Markdown report lacks the comparison"
}

case_replay_cnn_backends() { replay_backends cnn; }
case_replay_mlp_backends() { replay_backends mlp; }

# A session naming an unknown backend is refused with its JSON pointer (exit 2).
case_replay_bad_backend() {
  printf '%s\n' '{"loupe_session": 2, "model": "MODELS/mlp.onnx",' \
    ' "variants": [{"name": "a", "pipeline": {"overrides": {"fc1": "mkl"}}}]}' |
    sed "s|MODELS|$SRC/examples/models|g" >"$WORK/bad.json"
  local rc=0
  "$LOUPE" replay "$WORK/bad.json" --db "$WORK/p.db" >/dev/null 2>"$WORK/err" || rc=$?
  [ "$rc" -eq 2 ] || { cat "$WORK/err" >&2; fail "unknown backend must exit 2, got $rc"; }
  grep -q "/variants/0/pipeline/overrides/fc1: unknown backend 'mkl' (known: codegen" "$WORK/err" ||
    { cat "$WORK/err" >&2; fail "error lacks the pointer"; }
}

"case_$CASE"
