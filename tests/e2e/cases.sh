#!/usr/bin/env bash
# End-to-end tests of the loupe CLI. Usage: cases.sh BIN_DIR SRC_DIR CASE
# Each case is a function; ctest runs one case per test (tests/e2e/CMakeLists.txt).
source "$(dirname "$0")/lib.sh"

case_compile_dump_dir() {
  "$LOUPE" compile "$MODELS/cnn.onnx" --dump-dir "$WORK/dump" -o "$WORK/cnn.so"
  [ -f "$WORK/cnn.so" ] || fail "no artifact"
  python3 - "$WORK/dump" <<'PY'
import json, os, sys
d = sys.argv[1]
index = json.load(open(os.path.join(d, "index.json")))["passes"]
assert len(index) > 40, len(index)
phases = [p["phase"] for p in index]
order = ["import", "graph", "cluster", "lower", "ral", "llvm", "artifact"]
assert [order.index(p) for p in phases] == sorted(order.index(p) for p in phases), "phases out of order"
assert set(phases) == set(order), set(phases)
for i, p in enumerate(index):
    assert p["index"] == i
    assert os.path.isfile(os.path.join(d, p["file"])), p["file"]
    text = open(os.path.join(d, p["ir_file"])).read()
    assert text and not text.startswith("// unchanged"), p["ir_file"]
names = [p["pass"] for p in index]
for needed in ["import-onnx", "tosa-to-linalg", "loupe-form-clusters", "loupe-fuse-clusters", "one-shot-bufferize",
               "ral-inject-execution-context", "ral-lower-to-library-call",
               "loupe-instrument-dispatches", "ral-to-llvm", "convert-func-to-llvm", "translate-to-llvmir",
               "llvm-O3", "llvm-codegen", "link-shared-object"]:
    assert needed in names, needed
assert any(not p["changed"] for p in index), "some pass must leave the IR unchanged"
print("dump ok:", len(index), "passes")
PY
}

case_compile_phase_to() {
  "$LOUPE" compile "$MODELS/mlp.onnx" --phase-to graph --emit mlir -o "$WORK/graph.mlir"
  grep -q "tosa.matmul\|tosa.fully_connected" "$WORK/graph.mlir" || fail "graph IR has no tosa matmul"
  grep -q 'loc("fc1")' "$WORK/graph.mlir" || fail "ONNX node names must survive as locs"
  # The graph-phase output is valid input for the rest of the pipeline.
  "$BIN/loupe-opt" --loupe-cluster --loupe-lower "$WORK/graph.mlir" >/dev/null
  "$LOUPE" compile "$MODELS/mlp.onnx" --emit llvm -o "$WORK/mlp.ll"
  grep -q "define .*@main" "$WORK/mlp.ll" || fail "no LLVM IR"
  expect_exit 2 "unknown phase 'nope'" "$LOUPE" compile "$MODELS/mlp.onnx" --phase-to nope
}

case_compile_cuda() {
  # The cuda target: PTX for the chosen architecture, an artifact whose manifest says cuda and
  # carries each kernel's schedule and launch, and a clear error where no GPU is.
  "$LOUPE" compile "$MODELS/cnn.onnx" --target cuda --gpu-arch sm_90 --emit ptx -o "$WORK/cnn.ptx"
  grep -c "^// kernel dispatch_" "$WORK/cnn.ptx" | grep -qv '^0$' || fail "no kernels in the PTX"
  grep -q "^.target sm_90" "$WORK/cnn.ptx" || fail "PTX is not for sm_90"
  # The transformer block's bias/GELU rows read float4 (the CNN's pads, which did, are now the
  # conv kernel's own padding).
  "$LOUPE" compile "$MODELS/transformer_block.onnx" --target cuda --gpu-arch sm_90 --emit ptx \
    -o "$WORK/tb.ptx"
  grep -q "ld.global.v4.f32" "$WORK/tb.ptx" || fail "no 128-bit loads (thread-per-vector4)"
  "$LOUPE" compile "$MODELS/transformer_block.onnx" --target cuda -o "$WORK/tb.so" --dump-dir "$WORK/dump"
  python3 - "$WORK/tb.so" "$WORK/dump" <<'PY'
import json, os, sys
index = json.load(open(os.path.join(sys.argv[2], "index.json")))["passes"]
link = next(p for p in index if p["pass"] == "link-shared-object")
manifest = json.loads(open(os.path.join(sys.argv[2], link["ir_file"])).read().split("loupe_manifest:\n")[1])
assert manifest["target"] == "cuda", manifest["target"]
d = manifest["dispatches"]
assert "ral_constant___gpu___pvoid_pvoid_i64___pvoid" in manifest["ral_apis"]
assert any(x["backend"] == "cublas" for x in d), "GEMMs go to cuBLAS"
codegen = [x for x in d if x["backend"] == "codegen"]
assert codegen and all(x["schedule"] and x["launch"].startswith("grid ") for x in codegen)
assert any(x["schedule"] == "warp-row-reduction" for x in codegen), "layer norm rows use warps"
assert any(x["schedule"] == "thread-per-vector4" for x in codegen), "bias/GELU rows use float4"
assert any(p["pass"] == "ptx" and p["ir_file"].endswith(".s") for p in index), "PTX snapshot"
print("cuda ok:", len(d), "dispatches,", len(codegen), "code-generated")
PY
  expect_exit 2 "--emit ptx needs --target cuda" "$LOUPE" compile "$MODELS/mlp.onnx" --emit ptx
  # The MLP's GELU needs libdevice's erf: without the toolkit the compile says so (not the driver).
  CUDA_ROOT=/nonexistent expect_exit 3 "calls libdevice's __nv_erff but libdevice was not linked" \
    "$LOUPE" compile "$MODELS/mlp.onnx" --target cuda --emit ptx --cache off
  expect_exit 2 "--gpu-arch must be sm_80 or sm_90, not 'sm_70'" \
    "$LOUPE" compile "$MODELS/mlp.onnx" --target cuda --gpu-arch sm_70
  if ! ldconfig -p | grep -q "libcuda.so.1 "; then
    expect_exit 2 "no NVIDIA driver" "$BIN/loupe-run" "$WORK/tb.so" \
      --inputs "$MODELS/transformer_block/test_data_set_0"
  fi
}

case_run_check_json() {
  "$LOUPE" run "$MODELS/mlp.onnx" --inputs "$MODELS/mlp/test_data_set_0" \
    --check "$MODELS/mlp/test_data_set_0" --reps 12 --db "$WORK/p.db" --json >"$WORK/run.json"
  python3 - "$WORK/run.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["exit_code"] == 0 and r["check"] == "pass", r
assert r["reps"] == 12 and r["median_ns"] > 0 and r["iqr_ns"] >= 0
assert r["dispatches"] and all(d["calls"] == 12 and d["median_ns"] > 0 for d in r["dispatches"])
assert any(d["loc"].startswith("fc1") for d in r["dispatches"]), [d["loc"] for d in r["dispatches"]]
assert r["run_id"] == 1
# Static buffer planning (ral-plan-buffers): the arena holds every buffer, smaller than their
# sum (fc1's output dies before fc3's is written), and a repetition reuses its memory.
mem = r["memory"]
assert mem["unplanned_bytes"] == 0 and 0 < mem["arena_bytes"] < mem["planned_bytes"], mem
assert mem["minor_faults_per_rep"] < 1, mem
print("run ok:", len(r["dispatches"]), "dispatches; memory", mem)
PY
  # The run is in the DB, complete, with every pass and sample.
  sqlite3 "$WORK/p.db" "select status from runs where id=1" | grep -qx complete || fail "run not complete"
  [ "$(sqlite3 "$WORK/p.db" "select count(*) from samples where run_id=1")" -gt 12 ] || fail "samples missing"
}

# Loupe decides how OpenMP threads wait (docs/ral.md "Threads"): OMP_WAIT_POLICY or
# GOMP_SPINCOUNT in the environment is dropped, said on stderr, and the measuring run does not
# see it (its recorded environment); LOUPE_KEEP_OMP_ENV=1 keeps them.
case_openmp_wait_policy() {
  local args=("$MODELS/mlp.onnx" --inputs "$MODELS/mlp/test_data_set_0" --reps 3 --db "$WORK/p.db")
  OMP_WAIT_POLICY=PASSIVE GOMP_SPINCOUNT=0 "$LOUPE" run "${args[@]}" >/dev/null 2>"$WORK/err"
  grep -q "note: ignoring OMP_WAIT_POLICY=PASSIVE, GOMP_SPINCOUNT=0" "$WORK/err" ||
    { cat "$WORK/err" >&2; fail "no note for the dropped variables"; }
  [ "$(grep -c "^note: ignoring" "$WORK/err")" -eq 1 ] || fail "re-executed more than once"
  OMP_WAIT_POLICY=PASSIVE LOUPE_KEEP_OMP_ENV=1 "$LOUPE" run "${args[@]}" >/dev/null 2>"$WORK/err"
  ! grep -q "note: ignoring" "$WORK/err" || fail "LOUPE_KEEP_OMP_ENV=1 did not keep them"
  local env1 env2
  env1=$(sqlite3 "$WORK/p.db" "select json_extract(environment_json, '$.env') from runs where id=1")
  env2=$(sqlite3 "$WORK/p.db" "select json_extract(environment_json, '$.env') from runs where id=2")
  case "$env1" in *OMP_WAIT_POLICY*|*GOMP_SPINCOUNT*) fail "run 1 saw $env1" ;; esac
  case "$env2" in *'"OMP_WAIT_POLICY":"PASSIVE"'*) ;; *) fail "run 2 should record PASSIVE: $env2" ;; esac
}

# Workload c (softmax over 4096x4096 rows): its 64 MiB output is stored non-temporally and its
# exp row lives in a scratch row (ral-stream-output-stores, docs/pipeline.md); the result still
# matches NumPy, under the default pipeline and without fusion (separate kernels).
case_streamed_output() {
  /usr/bin/python3 - "$WORK/c/test_data_set_0" <<'PY'
import os, sys
import numpy as np
from onnx import numpy_helper
out = sys.argv[1]
os.makedirs(out)
x = (np.random.default_rng(0).standard_normal((4096, 4096)) * 3).astype(np.float32)
e = np.exp(x - x.max(axis=1, keepdims=True))
for name, value in (("input_0", x), ("output_0", (e / e.sum(axis=1, keepdims=True)))):
    tensor = numpy_helper.from_array(value.astype(np.float32), name)
    open(os.path.join(out, name + ".pb"), "wb").write(tensor.SerializeToString())
PY
  local model=$SRC/bench/workloads/c_softmax.mlir data=$WORK/c/test_data_set_0
  "$LOUPE" compile "$model" --cache off --dump-dir "$WORK/dump" -o "$WORK/c.so" >/dev/null ||
    fail "compile failed"
  grep -q "nontemporal = true" "$WORK"/dump/*-ral-stream-output-stores.mlir ||
    fail "the softmax's output stores are not non-temporal"
  grep -q "non-temporal stores into output 0 (64 MiB)" "$WORK/c.so" ||
    fail "the manifest's schedule does not say so"
  "$LOUPE" run "$WORK/c.so" --inputs "$data" --check "$data" --rtol 1e-4 --reps 2 >/dev/null ||
    fail "streamed softmax does not match NumPy"
  "$LOUPE" run "$model" --fusion off --inputs "$data" --check "$data" --rtol 1e-4 --reps 2 \
    >/dev/null || fail "unfused softmax does not match NumPy"
}

# Measuring (docs/profiler.md "Method"): loupe-run and loupe run share the adaptive sampling
# and the hot/cold modes; --mode both stores two runs whose samples, stop reasons and configs
# differ only by mode.
case_run_modes() {
  "$LOUPE" compile "$MODELS/mlp.onnx" -o "$WORK/mlp.so"
  "$BIN/loupe-run" "$WORK/mlp.so" --inputs "$MODELS/mlp/test_data_set_0" \
    --check "$MODELS/mlp/test_data_set_0" --mode both --warmup-ms 50 --max-ms 3000 \
    --db "$WORK/p.db" --json >"$WORK/both.json"
  python3 - "$WORK/both.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["exit_code"] == 0 and r["check"] == "pass", r
modes = r["modes"]
assert [m["mode"] for m in modes] == ["hot", "cold"], [m["mode"] for m in modes]
hot, cold = modes
for m in modes:
    assert m["reps"] >= 10 and m["stop"] in ("noise", "max_reps", "max_time"), m
    assert m["stop"] != "noise" or m["noise"] <= 0.02, m
    assert m["warmup_reps"] >= 1 and m["warmup_ms"] >= 50, m
    assert m["median_ns"] > 0 and m["sm_clock_mhz"] is None, m
    assert all(d["calls"] == m["reps"] for d in m["dispatches"]), m
assert hot["flush_bytes"] == 0 and cold["flush_bytes"] >= 64 << 20, (hot["flush_bytes"], cold["flush_bytes"])
# The top level is the first mode's, as before modes existed.
assert r["reps"] == hot["reps"] and r["median_ns"] == hot["median_ns"] and r["run_id"] == hot["run_id"]
assert (hot["run_id"], cold["run_id"]) == (1, 2), (hot["run_id"], cold["run_id"])
print("hot: %.1f us over %d reps (noise %.2f%%, %s); cold: %.1f us over %d reps (noise %.2f%%, %s)" % (
    hot["median_ns"] / 1e3, hot["reps"], 100 * hot["noise"], hot["stop"],
    cold["median_ns"] / 1e3, cold["reps"], 100 * cold["noise"], cold["stop"]))
PY
  # Stored separately: one run per mode, its measurement, configs differing in mode, no clock.
  [ "$(sqlite3 "$WORK/p.db" "select group_concat(run_id || ':' || mode, ',') from measurements")" = "1:hot,2:cold" ] ||
    fail "measurements not stored per mode"
  [ "$(sqlite3 "$WORK/p.db" "select count(*) from samples where sm_clock_mhz is not null")" = 0 ] ||
    fail "a CPU run has SM clocks"
  sqlite3 "$WORK/p.db" "select c.json from runs r join configs c on c.id = r.config_id order by r.id" >"$WORK/configs"
  grep -q '"mode":"hot"' <(sed -n 1p "$WORK/configs") && grep -q '"mode":"cold"' <(sed -n 2p "$WORK/configs") ||
    { cat "$WORK/configs"; fail "configs do not say the mode"; }
  [ "$(sqlite3 "$WORK/p.db" "pragma user_version")" = 10 ] || fail "schema version is not 10"
  [ "$(sqlite3 "$WORK/p.db" "select count(*) from measurements where arena_bytes > 0 and arena_bytes <= planned_bytes and minor_faults_per_rep is not null")" = 2 ] ||
    fail "measurements lack the buffer plan or the page faults"
  [ "$(sqlite3 "$WORK/p.db" "select count(*) from measurements where thread_stalls >= 0")" = 2 ] ||
    fail "CPU measurements lack their thread stalls"
  # The compiler's counts reach the DB: every MLP dispatch moves bytes, its matmuls compute.
  [ "$(sqlite3 "$WORK/p.db" "select count(*) from dispatches where run_id = 1 and bytes = 0")" = 0 ] &&
    [ "$(sqlite3 "$WORK/p.db" "select count(*) from dispatches where run_id = 1 and flops > 0")" -gt 0 ] ||
    fail "dispatches lack the compiler's bytes and FLOPs"

  # loupe run: adaptive by default, the same record; --reps stays an exact count.
  "$LOUPE" run "$WORK/mlp.so" --warmup-ms 20 --max-ms 3000 --json >"$WORK/run.json"
  "$LOUPE" run "$WORK/mlp.so" --warmup 1 --reps 3 --mode cold --json >"$WORK/exact.json"
  python3 - "$WORK/run.json" "$WORK/exact.json" <<'PY'
import json, sys
a, e = (json.load(open(p)) for p in sys.argv[1:3])
assert a["mode"] == "hot" and a["reps"] >= 10 and a["stop"] in ("noise", "max_reps", "max_time"), a
assert e["mode"] == "cold" and e["reps"] == 3 and e["stop"] == "exact" and e["warmup_reps"] == 1, e
assert len(e["modes"]) == 1 and e["flush_bytes"] > 0
PY
  "$LOUPE" run "$WORK/mlp.so" --reps 2 --mode both | grep -c "^run: median" | grep -qx 2 ||
    fail "loupe run --mode both prints one run line per mode"

  expect_exit 2 "--reps N is an exact count; --noise" "$BIN/loupe-run" "$WORK/mlp.so" --reps 5 --noise 0.1
  expect_exit 2 "--mode expects hot, cold or both" "$LOUPE" run "$WORK/mlp.so" --mode warm
  expect_exit 2 "--min-reps must be >= 10" "$BIN/loupe-run" "$WORK/mlp.so" --min-reps 5
  expect_exit 2 "exclude each other" "$LOUPE" run "$WORK/mlp.so" --warmup 2 --warmup-ms 10
}

case_run_mismatch() {
  # Expected outputs of another model: exit 1 and the worst element printed.
  mkdir -p "$WORK/wrong"
  cp "$MODELS/mlp/test_data_set_0/input_0.pb" "$WORK/wrong/input_0.pb"
  python3 - "$MODELS/mlp/test_data_set_0/output_0.pb" "$WORK/wrong/output_0.pb" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
data[-4:] = b"\x00\x00\x80\x40"  # last element := 4.0
open(sys.argv[2], "wb").write(data)
PY
  local rc=0
  "$LOUPE" run "$MODELS/mlp.onnx" --inputs "$WORK/wrong" --check "$WORK/wrong" --reps 1 >"$WORK/out" 2>&1 || rc=$?
  [ "$rc" -eq 1 ] || { cat "$WORK/out"; fail "mismatch must exit 1, got $rc"; }
  grep -q "mismatch at flat index 79" "$WORK/out" || { cat "$WORK/out"; fail "worst element not printed"; }
}

# A library kernel that fails at run time falls back to the next kernel of its dispatch (the
# CNN's fc is a plain oneDNN batch GEMM; the MLP's matmuls all take oneDNN epilogues)
# (LOUPE_RAL_FAIL_KERNEL injects the failure, docs/ral.md): the outputs still match, and the
# fallback is printed, stored with the run and shown in the replay report. With the whole chain
# failing, the run fails with every kernel's message.
case_run_fallback() {
  # The classifier's batch matmul, a small GEMV (OpenBLAS by the cost rule), unfused: one
  # dispatch with a oneDNN fallback.
  local failing=ral_batch_gemm_openblas fallback=ral_batch_gemm_onednn
  LOUPE_RAL_FAIL_KERNEL=$failing "$LOUPE" run "$MODELS/cnn.onnx" --inputs "$MODELS/cnn/test_data_set_0" \
    --check "$MODELS/cnn/test_data_set_0" --fusion off --warmup 2 --reps 5 --db "$WORK/p.db" >"$WORK/out" ||
    { cat "$WORK/out"; fail "run with a failing $failing did not pass"; }
  cat "$WORK/out"
  grep -Eq "^fallback: dispatch [0-9]+: $failing failed, ran $fallback instead \(7 executions\): $failing: failure injected \(LOUPE_RAL_FAIL_KERNEL\)$" "$WORK/out" ||
    fail "the fallback is not printed"
  grep -q "^check output 0: pass" "$WORK/out" || fail "outputs do not match after the fallback"
  sqlite3 "$WORK/p.db" "select a.value, b.value, f.executions, n.value from fallbacks f
      join strings a on a.id = f.failed_kernel_id join strings b on b.id = f.fallback_kernel_id
      join dispatches d on d.run_id = f.run_id and d.dispatch_id = f.dispatch_id
      join strings n on n.id = d.name_id where f.run_id = 1" >"$WORK/stored"
  grep -Eqx "$failing\|$fallback\|7\|dispatch_[0-9]+_$failing" "$WORK/stored" ||
    { cat "$WORK/stored"; fail "the fallback is not stored"; }

  sed "s|\.\./models|$MODELS|g; s|\"phase_to\": \"artifact\"|\"phase_to\": \"artifact\", \"fusion\": false|" \
    "$SRC/examples/sessions/cnn.json" >"$WORK/cnn.json"
  LOUPE_RAL_FAIL_KERNEL=$failing "$LOUPE" replay "$WORK/cnn.json" --db "$WORK/p.db" \
    --report "$WORK/report.json" >"$WORK/report.md" || fail "replay with a failing $failing failed"
  python3 - "$WORK/report.json" "$failing" "$fallback" <<'PY'
import json, sys
r, failing, fallback = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
assert r["correctness"]["passed"], r["correctness"]
[f] = r["fallbacks"]
assert (f["failed_kernel"], f["fallback_kernel"]) == (failing, fallback), f
assert f["dispatch"].endswith(failing) and f["executions"] > 0, f
PY
  grep -q "^## Fallbacks" "$WORK/report.md" || fail "the Markdown report lacks the fallbacks"

  expect_exit 3 "every kernel failed: $failing: failure injected .*; $fallback: failure injected" \
    env LOUPE_RAL_FAIL_KERNEL=$failing,$fallback "$LOUPE" run "$MODELS/cnn.onnx" --fusion off --reps 1
}

case_replay_sessions() {
  for s in "$SRC"/examples/sessions/*.json; do
    name=$(basename "$s" .json)
    "$LOUPE" replay "$s" --db "$WORK/p.db" --report "$WORK/$name.md" >/dev/null 2>"$WORK/err" ||
      { cat "$WORK/err"; fail "replay of $name failed"; }
    "$LOUPE" replay "$s" --db "$WORK/p.db" --report "$WORK/$name.json" >/dev/null 2>&1
    grep -q "Correctness: \*\*PASS\*\*" "$WORK/$name.md" || fail "$name: report lacks PASS"
    grep -q "## Pipeline" "$WORK/$name.md" || fail "$name: report lacks the pipeline"
    grep -q "^- Transient memory: arena" "$WORK/$name.md" || fail "$name: report lacks the buffer plan"
    # A session with variants reports each of them.
    python3 -c "import json,sys; r=json.load(open(sys.argv[1])); runs=r.get('variants', [r]); assert all(v['correctness']['passed'] and v['dispatches'] and v['pipeline']['passes'] for v in runs)" "$WORK/$name.json"
    # Every code-generated CPU dispatch says how it was compiled (loupe-vectorize-cpu).
    python3 -c "import json,sys; r=json.load(open(sys.argv[1])); bad=[(d['name'], d['schedule']) for v in r.get('variants', [r]) for d in v['dispatches'] if d['backend'] == 'codegen' and d['op'] != 'memref.copy' and not d['schedule'].startswith(('vectorised: ', 'scalar loops for '))]; assert not bad, bad" "$WORK/$name.json"
    echo "replayed $name"
  done
}

case_replay_variants() {
  # examples/sessions/cnn_variants.json: two variants, compared.
  "$LOUPE" replay "$SRC/examples/sessions/cnn_variants.json" --db "$WORK/p.db" \
    --report "$WORK/r.json" >"$WORK/r.md" 2>"$WORK/err" || { cat "$WORK/err"; fail "replay failed"; }
  grep -q "^## Comparison" "$WORK/r.md" || fail "the Markdown report lacks the comparison"
  grep -q '^## Variant `warm`' "$WORK/r.md" || fail "the Markdown report lacks variant warm"
  python3 - "$WORK/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["loupe_report"] == 2 and r["exit_code"] == 0, r.get("error")
names = [v["name"] for v in r["variants"]]
assert names == ["no_warmup", "warm"], names
assert r["variants"][0]["settings"]["warmup"] == 0 and r["variants"][1]["settings"]["reps"] == 30
for v in r["variants"]:
    assert v["correctness"]["passed"] and v["run_id"] >= 1 and v["dispatches"], v["name"]
c = r["comparison"]
verdicts = {"SAME", "FASTER", "SLOWER", "AMBIGUOUS"}
assert (c["baseline"], c["candidate"]) == ("no_warmup", "warm"), c
assert c["baseline_run_id"] == r["variants"][0]["run_id"] and c["candidate_run_id"] == r["variants"][1]["run_id"]
assert c["verdict"] in verdicts and c["verdict"] == c["run"]["verdict"]
assert c["run"]["baseline_median_ns"] > 0 and c["run"]["candidate_median_ns"] > 0
# Ratio and change are one estimate (Hodges-Lehmann over 7 paired trials), inside its interval.
assert c["run"]["trials"] == [7, 7], c["run"]["trials"]
assert "7 paired trials" in c["run"]["reason"], c["run"]["reason"]
assert abs(c["run"]["ratio"] - (1 + c["run"]["change"])) < 1e-9
assert c["run"]["change_low"] <= c["run"]["change"] <= c["run"]["change_high"], c["run"]
assert len(c["dispatches"]) == len(r["variants"][0]["dispatches"])
for d in c["dispatches"]:
    assert d["verdict"] in verdicts and d["in_baseline"] and d["in_candidate"], d
    assert abs(d["ratio"] - (1 + d["change"])) < 1e-9, d
assert sum(c["counts"].values()) == len(c["dispatches"])
print("comparison:", c["verdict"], c["counts"])
PY
  # Each trial is its own run in the DB, under its variant's name, interleaved A B A B.
  [ "$(sqlite3 "$WORK/p.db" "select group_concat(v.value || r.trial, ',') from (select variant_id, trial from runs order by id) r join strings v on v.id = r.variant_id")" = "no_warmup0,warm0,no_warmup1,warm1,no_warmup2,warm2,no_warmup3,warm3,no_warmup4,warm4,no_warmup5,warm5,no_warmup6,warm6" ] ||
    fail "trials are not stored interleaved under their variant names"

  # A variant that fails its check makes the exit code 1; the others are still reported.
  printf '%s\n' '{"loupe_session": 2, "model": "MODELS/mlp.onnx",' \
    ' "run": {"warmup": 1, "reps": 10, "inputs": "MODELS/mlp/test_data_set_0", "check": "MODELS/mlp/test_data_set_0"},' \
    ' "variants": [{"name": "ok"}, {"name": "random", "run": {"inputs": "", "seed": 5}}],' \
    ' "compare": ["base", "random"]}' | sed "s|MODELS|$MODELS|g" >"$WORK/mlp.json"
  local rc=0
  "$LOUPE" replay "$WORK/mlp.json" --db "$WORK/p.db" --report "$WORK/mlp.md" >/dev/null 2>&1 || rc=$?
  [ "$rc" -eq 1 ] || fail "a variant failing its check must exit 1, got $rc"
  grep -q '^## Variant `base`' "$WORK/mlp.md" || fail "compare names base: base must run"
  [ "$(grep -c 'Correctness: \*\*PASS\*\*' "$WORK/mlp.md")" -eq 2 ] || fail "base and ok must pass"
  grep -q 'Correctness: \*\*FAIL\*\*' "$WORK/mlp.md" || fail "random must fail its check"
  grep -q "^## Comparison" "$WORK/mlp.md" || fail "a mismatch still has timings to compare"

  # Bad variants name the file and the JSON pointer.
  sed 's/"reps": 30/"repz": 30/' "$SRC/examples/sessions/cnn_variants.json" >"$WORK/repz.json"
  expect_exit 2 "repz.json: /variants/1/run/repz: unknown field 'repz'" \
    "$LOUPE" replay "$WORK/repz.json" --db "$WORK/p.db"
  sed 's/"compare": \["no_warmup", "warm"\]/"compare": ["no_warmup", "hot"]/' \
    "$SRC/examples/sessions/cnn_variants.json" >"$WORK/unknown.json"
  expect_exit 2 "unknown.json: /compare/1: unknown variant 'hot'" \
    "$LOUPE" replay "$WORK/unknown.json" --db "$WORK/p.db"
  sed 's/"loupe_session": 2/"loupe_session": 1/' "$SRC/examples/sessions/cnn_variants.json" >"$WORK/v1.json"
  expect_exit 2 "v1.json: /variants: 'variants' needs" "$LOUPE" replay "$WORK/v1.json" --db "$WORK/p.db"
}

# Every example gives the reference outputs under each backend choice and with fusion off;
# the backends the dispatch table reports follow the choice.
case_backend_variants() {
  "$LOUPE" backends list >"$WORK/backends"
  grep -Eq '^onednn +cpu +conv2d +15 +ral_conv_onednn +yes' "$WORK/backends" ||
    { cat "$WORK/backends"; fail "backends list lacks oneDNN conv"; }
  grep -Eq '^onednn +cpu +conv_bias_act +15 +ral_conv_onednn +conv2d\+depthwise_conv2d\+add\+relu\+hardswish\+silu +yes' "$WORK/backends" ||
    { cat "$WORK/backends"; fail "backends list lacks oneDNN's conv_bias_act fuse pattern"; }
  grep -Eq '^cudnn +gpu +conv_bias_act +15 +ral_conv_cudnn ' "$WORK/backends" ||
    { cat "$WORK/backends"; fail "backends list lacks cuDNN's conv_bias_act fuse pattern"; }
  for model in mlp cnn transformer_block conv_relu dynq_mlp qop_cnn conv_hardswish dwconv_act; do
    data=$MODELS/$model/test_data_set_0
    for flags in "" "--backends openblas,codegen" "--backends codegen" "--fusion off" \
                 "--override fc1=openblas,conv1=codegen"; do
      # shellcheck disable=SC2086
      "$LOUPE" run "$MODELS/$model.onnx" $flags --inputs "$data" --check "$data" --reps 2 \
        --json >"$WORK/run.json" || fail "$model $flags: run failed"
      python3 - "$WORK/run.json" "$model" "$flags" <<'PY'
import json, sys
run, model, flags = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
assert run["check"] == "pass", (model, flags, run["check"])
backends = {d["backend"] for d in run["dispatches"]}
if flags == "--backends codegen":
    assert backends == {"codegen"}, (model, flags, backends)
elif flags == "--backends openblas,codegen":
    assert backends <= {"codegen", "openblas"}, (model, flags, backends)
elif model in ("mlp", "cnn", "dynq_mlp", "qop_cnn") and flags == "":
    assert "onednn" in backends, (model, flags, backends)
# The int8 matmuls and convolutions run on oneDNN whenever it may run them.
int8 = {"dynq_mlp": ("qgemm", ["fc1_matmul", "fc2_matmul"]),
        "qop_cnn": ("qconv", ["conv1", "conv2", "conv3"])}
if model in int8:
    kernel, locs = int8[model]
    got = sorted(d["loc"] for d in run["dispatches"] if kernel in d["name"])
    want = [loc for loc in locs if "onednn" in backends and
            not (flags.startswith("--override") and loc == "conv1")]
    assert got == want, (model, flags, got)
if model == "cnn" and flags.startswith("--override"):
    conv = [d for d in run["dispatches"] if "conv" in d["name"] and d["loc"] == "conv1"]
    assert all(d["backend"] == "codegen" for d in conv), conv
PY
    done
  done
  expect_exit 2 "unknown backend 'mkl' \(known: codegen, onednn" \
    "$LOUPE" run "$MODELS/mlp.onnx" --backends mkl
  expect_exit 2 "--fusion expects on or off" "$LOUPE" compile "$MODELS/mlp.onnx" --fusion maybe
  expect_exit 2 "--override expects LOC=BACKEND" "$LOUPE" compile "$MODELS/mlp.onnx" --override fc1
}

# conv + bias + ReLU as one oneDNN convolution with a ReLU post-op (conv_bias_act): conv1 and
# conv3 take their ReLU, conv2's clip to [0, 6] stays generated code. Fused or not, oneDNN or
# generated, the outputs match the reference (computed in float64) within 1e-4.
case_conv_relu_fusion() {
  # run_checked MODEL OUT [FLAGS...]: MODEL on its own test data with --check, --json into OUT.
  run_checked() {
    local model=$1 out=$2 data=$MODELS/$1/test_data_set_0
    shift 2
    "$LOUPE" run "$MODELS/$model.onnx" "$@" --inputs "$data" --check "$data" --rtol 1e-4 \
      --reps 3 --json >"$out" || fail "$model $*: run failed"
  }
  local i=0
  for flags in "" "--fusion off" "--backends codegen" "--backends codegen --fusion off"; do
    # shellcheck disable=SC2086
    run_checked conv_relu "$WORK/run$i.json" $flags
    i=$((i + 1))
  done
  python3 - "$WORK" <<'PY'
import json, os, sys
runs = [json.load(open(os.path.join(sys.argv[1], "run%d.json" % i))) for i in range(4)]
for i, run in enumerate(runs):
    assert run["check"] == "pass", (i, run["check"])
on, off = runs[0]["dispatches"], runs[1]["dispatches"]
convs = sorted(d["loc"] for d in on if d["backend"] == "onednn")
assert convs == ["conv1,relu1", "conv2", "conv3,relu3"], convs
assert not [d for d in on if d["loc"] in ("relu1", "relu3")], [d["loc"] for d in on]
assert sorted(d["loc"] for d in off if d["backend"] == "onednn") == ["conv1", "conv2", "conv3"]
assert len(on) < len(off), (len(on), len(off))
for run in runs[2:]:
    assert {d["backend"] for d in run["dispatches"]} == {"codegen"}, run["dispatches"]
print("kernels: fused %d, fusion off %d" % (len(on), len(off)))
PY
  # HardSwish (MobileNetV3): the strided conv and the 1x1 conv's GEMM (its bias split off the
  # matmul's init) take it as oneDNN's hardswish post-op.
  run_checked conv_hardswish "$WORK/hs.json"
  python3 - "$WORK/hs.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
assert run["check"] == "pass", run["check"]
fused = sorted((d["name"].split("_", 2)[2], d["loc"]) for d in run["dispatches"] if d["backend"] == "onednn")
assert fused == [("ral_conv_onednn", "conv1,hs1"), ("ral_gemm_epilogue_onednn", "conv2,hs2,conv2.bias")], fused
# What is left is generated layout work: the input's and output's NCHW transposes.
assert [d["name"] for d in run["dispatches"] if d["backend"] == "codegen"] == [
    "dispatch_0_transpose", "dispatch_3_transpose"], run["dispatches"]
PY
  # Depthwise convs with trained (non-zero) biases, which TOSA adds after the conv: the bias
  # and the ReLU, hardswish or SiLU after it become the conv's oneDNN post-ops; the 1x1 conv's
  # GEMM takes its SiLU (Sigmoid, Mul) as eltwise_swish.
  run_checked dwconv_act "$WORK/dw.json"
  python3 - "$WORK/dw.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
assert run["check"] == "pass", run["check"]
fused = [(d["name"].split("_", 2)[2], d["loc"]) for d in run["dispatches"] if d["backend"] == "onednn"]
assert fused == [("ral_conv_onednn", "dw1,relu1"), ("ral_conv_onednn", "dw2,hs2,dw2.bias"),
                 ("ral_conv_onednn", "dw3,silu3"), ("ral_gemm_epilogue_onednn", "pw,silu4")], fused
assert [d["name"] for d in run["dispatches"] if d["backend"] == "codegen"] == [
    "dispatch_0_transpose", "dispatch_5_transpose"], run["dispatches"]
PY
}

case_bad_inputs() {
  head -c 300 "$MODELS/cnn.onnx" >"$WORK/truncated.onnx"
  expect_exit 2 "truncated.onnx" "$LOUPE" compile "$WORK/truncated.onnx"
  printf 'func.func @main(%%x: tensor<4xf32>) -> tensor<4xf32> {\n  %%y = tosa.exp %%x : (tensor<4xf32>) -> \n}\n' >"$WORK/bad.mlir"
  expect_exit 2 "bad.mlir:[0-9]+:[0-9]+: error" "$LOUPE" compile "$WORK/bad.mlir"
  expect_exit 2 "no such|cannot open" "$LOUPE" compile "$WORK/missing.onnx"
  sed 's/"reps"/"repz"/' "$SRC/examples/sessions/mlp.json" >"$WORK/unknown.json"
  expect_exit 2 "unknown.json: /run/repz: unknown field 'repz'" "$LOUPE" replay "$WORK/unknown.json" --db "$WORK/p.db"
  sed 's/"loupe_session": 1/"loupe_session": 99/' "$SRC/examples/sessions/mlp.json" >"$WORK/newer.json"
  expect_exit 2 "newer Loupe" "$LOUPE" replay "$WORK/newer.json" --db "$WORK/p.db"
  printf '{"loupe_session": 1, "model": ' >"$WORK/malformed.json"
  expect_exit 2 "malformed.json: malformed JSON" "$LOUPE" replay "$WORK/malformed.json" --db "$WORK/p.db"
  mkdir -p "$WORK/empty"
  expect_exit 2 "empty" "$LOUPE" run "$MODELS/mlp.onnx" --inputs "$WORK/empty" --reps 1
  expect_exit 2 "input 0 is" "$LOUPE" run "$MODELS/mlp.onnx" --inputs "$MODELS/cnn/test_data_set_0" --reps 1
  head -c 100 /dev/urandom >"$WORK/corrupt.db"
  cp "$WORK/corrupt.db" "$WORK/corrupt.before"
  expect_exit 2 "corrupt.db" "$LOUPE" run "$MODELS/mlp.onnx" --reps 1 --db "$WORK/corrupt.db"
  cmp -s "$WORK/corrupt.db" "$WORK/corrupt.before" || fail "a corrupt DB must be left untouched"
  expect_exit 2 "unknown flag '--bogus'" "$LOUPE" run "$MODELS/mlp.onnx" --bogus
  expect_exit 2 "unknown command" "$LOUPE" frobnicate
}

case_runtime_has_no_compiler() {
  # The runtime and the artifacts it loads must not pull MLIR, LLVM, SQLite or GUI libraries.
  local lib=$BIN/../lib/libloupe_ral.so
  [ -f "$lib" ] || fail "no $lib"
  if ldd "$lib" | grep -Ei "mlir|llvm|sqlite|glfw|imgui|onnx|protobuf"; then
    fail "libloupe_ral.so links compiler, store or GUI libraries"
  fi
  "$LOUPE" compile "$MODELS/mlp.onnx" -o "$WORK/mlp.so" 2>/dev/null
  if ldd "$WORK/mlp.so" | grep -Ei "mlir|llvm|sqlite|onnx"; then
    fail "the artifact links compiler libraries"
  fi
}

# The compile cache is bounded: entries count their artifact, the least recently used go past
# LOUPE_CACHE_MAX_BYTES, and `loupe cache stats|clear` report and empty it.
case_cache_bounded() {
  export LOUPE_CACHE_DIR=$WORK/cache
  stat() { "$LOUPE" cache stats --json | python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
  compile() { "$LOUPE" compile "$MODELS/$1.onnx" -o "$WORK/$1.so" "${@:2}" 2>&1 | sed -n 1p; }
  compile mlp >/dev/null
  compile cnn >/dev/null
  [ "$(stat entries)" -eq 2 ] || fail "expected 2 entries, got $(stat entries)"
  "$LOUPE" cache stats | grep -q "compile cache $WORK/cache: 2 entries" || fail "stats text"
  # The mlp was used last: with room for two entries only, the cnn goes when conv_relu comes.
  local cap
  cap=$(stat bytes)
  touch -d '2 hours ago' "$WORK/cache"/*.key
  compile mlp | grep -q "disk hit" || fail "mlp should hit"
  LOUPE_CACHE_MAX_BYTES=$cap compile conv_relu | grep -q "miss" || fail "conv_relu should miss"
  [ "$(stat entries)" -eq 2 ] || fail "expected 2 entries under the cap, got $(stat entries)"
  compile mlp | grep -q "hit" || fail "the recently used mlp was evicted"
  compile cnn | grep -q "miss" || fail "the least recently used cnn was kept"
  "$LOUPE" cache clear | grep -q "removed 3 compile cache entries" || fail "clear output"
  [ "$(stat entries)" -eq 0 ] || fail "clear left entries"
}

# --input-shape binds a symbolic dim; bad values and unbound dims are exit 2 naming the input.
case_input_shapes() {
  /usr/bin/python3 - "$WORK/dyn.onnx" <<'PY'
import sys
import onnx
from onnx import TensorProto, helper
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])
graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")], "dyn", [x], [y])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), sys.argv[1])
PY
  "$LOUPE" run "$WORK/dyn.onnx" --input-shape x=3,4 --reps 2 --db "$WORK/p.db" --json >"$WORK/run.json"
  grep -q '"exit_code": 0' "$WORK/run.json" || fail "bound run"
  "$LOUPE" compile "$WORK/dyn.onnx" --input-shape x=5,4 --phase-to import --emit mlir 2>/dev/null |
    grep -q "tensor<5x4xf32>" || fail "the bound shape is not in the IR"
  expect_exit 2 "graph input 'x' \[batch,4\] has a symbolic dim 0 \('batch'\)" \
    "$LOUPE" compile "$WORK/dyn.onnx" -o "$WORK/d.so"
  expect_exit 2 "--input-shape expects NAME=D0,D1" "$LOUPE" compile "$WORK/dyn.onnx" --input-shape x=3,-4
  expect_exit 2 "--input-shape names 'z', which is not a graph input \(inputs: x\)" \
    "$LOUPE" compile "$WORK/dyn.onnx" --input-shape z=3,4
  expect_exit 2 "dim 1 is 4 in the model, --input-shape gives 5" \
    "$LOUPE" compile "$WORK/dyn.onnx" --input-shape x=3,5
  expect_exit 2 "applies to ONNX models" \
    "$LOUPE" compile "$MODELS/mlp_tosa.mlir" --input-shape x=3,5
}

case_shape_tensor_inputs() {
  # Pad's pads is a graph input: each value is its own specialized compile, and an artifact
  # specialized to one value refuses another.
  /usr/bin/python3 - "$WORK" <<'PY'
import os, sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
work = sys.argv[1]
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
pads = helper.make_tensor_value_info("pads", TensorProto.INT64, [4])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["h", "w"])
graph = helper.make_graph([helper.make_node("Pad", ["x", "pads"], ["y"], name="pad")], "pad",
                          [x, pads], [y])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]),
          os.path.join(work, "pad.onnx"))
data = np.arange(6, dtype=np.float32).reshape(2, 3)
for name, p in [("d1", [0, 1, 0, 1]), ("d2", [1, 0, 1, 2])]:
    d = os.path.join(work, name)
    os.makedirs(d)
    p = np.array(p, dtype=np.int64)
    out = np.pad(data, [(p[0], p[2]), (p[1], p[3])])
    for i, t in enumerate([data, p]):
        onnx.save_tensor(numpy_helper.from_array(t), os.path.join(d, "input_%d.pb" % i))
    onnx.save_tensor(numpy_helper.from_array(out), os.path.join(d, "output_0.pb"))
PY
  for d in d1 d2; do
    "$LOUPE" run "$WORK/pad.onnx" --inputs "$WORK/$d" --check "$WORK/$d" --reps 1 >/dev/null ||
      fail "specialized run on $d"
  done
  "$LOUPE" compile "$WORK/pad.onnx" --inputs "$WORK/d1" --phase-to import --emit mlir 2>/dev/null |
    grep -q "loupe.specialized = dense<\[0, 1, 0, 1\]>" || fail "no loupe.specialized in the IR"
  "$LOUPE" compile "$WORK/pad.onnx" --inputs "$WORK/d1" -o "$WORK/pad.so" 2>/dev/null
  expect_exit 2 "input 1 element 0 is 1, but the artifact was specialized to 0" \
    "$LOUPE" run "$WORK/pad.so" --inputs "$WORK/d2" --reps 1
  expect_exit 2 "input 'pads' must be a constant integer tensor" \
    "$LOUPE" compile "$WORK/pad.onnx" -o "$WORK/x.so"
}

case_runtime_check() {
  # Unique's output size depends on the data: the compile takes the declared size, and a run
  # whose data hold another count fails with exit 2 and the check's message.
  /usr/bin/python3 - "$WORK" <<'PY'
import os, sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
work = sys.argv[1]
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [6])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])
graph = helper.make_graph([helper.make_node("Unique", ["x"], ["y"], name="uniq")], "u", [x], [y])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)]),
          os.path.join(work, "u.onnx"))
for name, values in [("three", [2, 1, 1, 3, 2, 3]), ("four", [2, 1, 1, 3, 4, 3])]:
    os.makedirs(os.path.join(work, name))
    data = np.array(values, dtype=np.float32)
    onnx.save_tensor(numpy_helper.from_array(data), os.path.join(work, name, "input_0.pb"))
    onnx.save_tensor(numpy_helper.from_array(np.unique(data)),
                     os.path.join(work, name, "output_0.pb"))
PY
  "$LOUPE" run "$WORK/u.onnx" --inputs "$WORK/three" --check "$WORK/three" --reps 1 >/dev/null ||
    fail "three distinct values"
  expect_exit 2 "run-time check failed: .*other than the 3 the model declares \(at uniq\)" \
    "$LOUPE" run "$WORK/u.onnx" --inputs "$WORK/four" --reps 1
}

case_db_commands() {
  # loupe db list/show read back what loupe run stored; the views answer the same in SQL.
  "$LOUPE" run "$MODELS/mlp.onnx" --inputs "$MODELS/mlp/test_data_set_0" \
    --check "$MODELS/mlp/test_data_set_0" --warmup 1 --reps 12 --db "$WORK/p.db" >/dev/null
  "$LOUPE" db list --db "$WORK/p.db" >"$WORK/list"
  grep -Eq "^ +1  .* complete +cpu .*mlp.onnx" "$WORK/list" || { cat "$WORK/list"; fail "db list"; }
  "$LOUPE" db show 1 --db "$WORK/p.db" >"$WORK/show"
  for line in "run 1: complete, cpu" "^on .* \(pid [0-9]+\): loupe [^,]+, load [0-9.]+ [0-9.]+ [0-9.]+, [0-9]+ CPUs" \
              "measured: hot" "repetition: median .* over 12 reps" "check output 0: pass" \
              "dispatch_[0-9]+_.* +12 +[0-9.]+ +[0-9.]+$"; do
    grep -Eq "$line" "$WORK/show" || { cat "$WORK/show"; fail "db show lacks: $line"; }
  done
  "$LOUPE" db show 1 --db "$WORK/p.db" --json >"$WORK/show.json"
  "$LOUPE" db list --db "$WORK/p.db" --model mlp --json >"$WORK/list.json"
  sqlite3 "$WORK/p.db" "select dispatch_id, median_ns from v_dispatch_times where run_id = 1" \
    >"$WORK/view"
  python3 - "$WORK/show.json" "$WORK/list.json" "$WORK/view" <<'PY'
import json, sys
show, runs = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert [r["run_id"] for r in runs] == [1] and runs[0]["status"] == "complete", runs
assert show["status"] == "complete" and show["environment"]["cpus"] >= 1, show
assert show["measurement"]["reps"] == 12 and len(show["dispatches"]) > 0, show
view = dict(line.split("|") for line in open(sys.argv[3]).read().split())
for d in show["dispatches"]:  # the SQL view's median is the one loupe shows
    assert abs(float(view[str(d["id"])]) - d["median_ns"]) < 1e-6, (d, view)
PY
  expect_exit 2 "no profile DB at '$WORK/none.db'" "$LOUPE" db list --db "$WORK/none.db"
  [ ! -e "$WORK/none.db" ] || fail "db list created a DB"
  expect_exit 2 "no run 7" "$LOUPE" db show 7 --db "$WORK/p.db"
  expect_exit 2 "RUN must be a run id" "$LOUPE" db show one --db "$WORK/p.db"
  expect_exit 2 "unknown subcommand 'drop'" "$LOUPE" db drop --db "$WORK/p.db"
}

"case_$CASE"
