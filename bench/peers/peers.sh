#!/usr/bin/env bash
# Loupe against its peers, interleaved in one run: issue 17's workloads a-f (workloads.py) and
# every model of the zoo exported under BUILD/zoo (tests/zoo; torch times its torchvision ones
# only), each timed by
#   loupe     `loupe run MODEL.onnx --json` (its median over --reps)
#   ort       ONNX Runtime, npm onnxruntime-node, CPU EP, 2 threads (ort_peer.js)
#   torch     Debian's PyTorch eager, 2 threads, OMP_WAIT_POLICY=PASSIVE
#   tuned     the same plus jemalloc without decay (LD_PRELOAD) and ATEN_CPU_CAPABILITY=avx512
#   reference hand-written one-pass C kernels (reference.c), workloads b, c, d
# ROUNDS times in turn (loupe, ort, torch, tuned, reference, then the next workload), so load
# on this shared machine hits every tool alike. Prints the median of the rounds' medians with
# its min-max, the ratios loupe/peer (below 1: Loupe faster) and what else ran (load), and
# writes the table to BUILD/bench-results/peers.md.
# PEERS_BUSY=1 keeps one busy loop running throughout (another process holding one core, as a
# shared machine's tenant does) and writes BUILD/bench-results/peers-busy.md instead.
# Set-up (not needed by ./x test): libjemalloc2 (apt) and onnxruntime-node (npm, the version
# examples/zoo/export_real.py pins, into BUILD/zoo/npm, where the zoo installs it too).
# usage: bench/peers/peers.sh BUILD_DIR [ROUNDS] [WORKLOAD|MODEL ...]
set -euo pipefail
BUILD=$(realpath "$1"); ROUNDS=${2:-3}; shift $(( $# >= 2 ? 2 : 1 ))
HERE=$(dirname "$(realpath "$0")")
LOUPE=$BUILD/bin/loupe
OUT=$BUILD/peers
NPM=$BUILD/zoo/npm
JEMALLOC=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2
REPS=${LOUPE_PEER_REPS:-20}
mkdir -p "$OUT" "$BUILD/bench-results"

# Set-up.
if [ ! -f "$JEMALLOC" ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get install -y -q --no-install-recommends libjemalloc2
fi
if [ ! -d "$NPM/node_modules/onnxruntime-node" ]; then
  version=$(grep -o 'onnxruntime-node@[0-9.]*' "$HERE/../../examples/zoo/export_real.py")
  npm install --prefix "$NPM" --no-save --no-audit --no-fund --ignore-scripts "$version"
fi
/usr/bin/python3 "$HERE/workloads.py" export "$OUT"
gcc -O3 -march=native -ffast-math -fopenmp "$HERE/reference.c" -lm -o "$OUT/reference"

items=("$@")
if [ ${#items[@]} -eq 0 ]; then
  items=(a b c d e f)
  for m in "$BUILD"/zoo/*.onnx; do [ -f "$m" ] && items+=("$(basename "$m" .onnx)"); done
fi

# NAME=D0,... bindings of a workload or zoo model.
bindings() {
  if [ -f "$OUT/$1.onnx" ]; then
    /usr/bin/python3 -c "import json,sys; s=json.load(open('$OUT/inputs.json'))['shapes']['$1']
print(' '.join(k + '=' + ','.join(map(str, v)) for k, v in s.items()))"
  else
    /usr/bin/python3 "$HERE/../../tests/zoo/input_binding.py" "$BUILD/zoo/$1.onnx" \
      "$BUILD/zoo/$1/test_data_set_0/input_0.pb"
  fi
}
model() { [ -f "$OUT/$1.onnx" ] && echo "$OUT/$1.onnx" || echo "$BUILD/zoo/$1.onnx"; }
median_ms() { /usr/bin/python3 -c "import json,sys; print(json.load(sys.stdin)['median'])"; }

# One timing of TOOL on ITEM in ms, or nothing when the tool does not run it.
time_one() {
  local tool=$1 item=$2 m; m=$(model "$item")
  case $tool in
    loupe)
      # shellcheck disable=SC2046
      "$LOUPE" run "$m" $(bindings "$item" | sed 's/ / --input-shape /g; s/^/--input-shape /') \
        --reps "$REPS" --json 2>/dev/null |
        /usr/bin/python3 -c "import json,sys; print(json.load(sys.stdin)['median_ns'] / 1e6)" ;;
    ort)
      # shellcheck disable=SC2046
      NODE_PATH=$NPM/node_modules node "$HERE/ort_peer.js" "$m" "$REPS" $(bindings "$item") |
        median_ms ;;
    torch)
      OMP_WAIT_POLICY=PASSIVE /usr/bin/python3 "$HERE/workloads.py" time "$item" "$REPS" | median_ms ;;
    tuned)
      OMP_WAIT_POLICY=PASSIVE LD_PRELOAD=$JEMALLOC MALLOC_CONF=dirty_decay_ms:-1,muzzy_decay_ms:-1 \
        ATEN_CPU_CAPABILITY=avx512 /usr/bin/python3 "$HERE/workloads.py" time "$item" "$REPS" |
        median_ms ;;
    reference)
      case $item in b|c|d) OMP_NUM_THREADS=2 "$OUT/reference" "$item" "$REPS" | median_ms ;; esac ;;
  esac
}

TOOLS=(loupe ort torch tuned reference)
results=$OUT/results.txt; : >"$results"
load_before=$(cut -d' ' -f1 /proc/loadavg)
table=$BUILD/bench-results/peers.md
what="load average"
if [ "${PEERS_BUSY:-0}" = 1 ]; then
  sh -c 'while :; do :; done' &
  busy=$!
  trap 'kill $busy' EXIT
  table=$BUILD/bench-results/peers-busy.md
  what="a busy loop on one core throughout; load average"
fi
for round in $(seq "$ROUNDS"); do
  for item in "${items[@]}"; do
    for tool in "${TOOLS[@]}"; do
      ms=$(time_one "$tool" "$item" || true)
      [ -n "$ms" ] && echo "$item $tool $ms" >>"$results"
      echo "round $round: $item $tool ${ms:--}" >&2
    done
  done
done
load_after=$(cut -d' ' -f1 /proc/loadavg)

/usr/bin/python3 "$HERE/table.py" "$results" "$OUT/inputs.json" "$ROUNDS" \
  "$what ${load_before} before, ${load_after} after ($(nproc) CPUs)" |
  tee "$table"
