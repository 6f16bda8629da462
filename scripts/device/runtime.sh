#!/usr/bin/env bash
# Issue 11's runtime targets on the device host (16 cores), each ratio from
# one run of one binary: tempo beside the same source on a do-nothing
# SerialTask (shapes: by value, and [&] with t.call), plain serial, oneTBB,
# libgomp and (when carried) Rayon. About 3 minutes.
#
#   bash scripts/device/runtime.sh [CARRY]     (CARRY: default .carry/bench)
# CARRY holds bin/tempo_bench (+ bin/tempo_idle_cpu, bin/tempo_overhead, bin/rayon_bench when
# built) and lib/ (libtbb, libgomp, libbenchmark...), as
# scripts/collect_carry.sh makes it. Results (the device returns at most 8
# files): $OUT/targets.json (the ratios) and $OUT/runtime.tgz (every Google
# Benchmark JSON, idle_cpu.json, the logs, machine.txt).
set -u
C=$(cd "${1:-$PWD/.carry/bench}" && pwd)
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
W=/tmp/tempo-runtime; rm -rf "$W"; mkdir -p "$W"
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
TB=$C/bin/tempo_bench
unset TEMPO_THREADS TEMPO_HEARTBEAT_US TEMPO_IDLE_REQUESTS TEMPO_AGED_PROMOTION TEMPO_EAGER_LOOPS OMP_THREAD_LIMIT
nproc > "$W/machine.txt"; (lscpu 2>/dev/null | head -20) >> "$W/machine.txt"

# run NAME CAP_SECONDS BINARY ARGS...: one Google Benchmark run, JSON out.
run() {
  local name=$1 cap=$2 bin=$3; shift 3
  echo "== $name ($(date -u +%T))"
  timeout --signal=INT "$cap" "$bin" "$@" --benchmark_out="$W/$name.json" --benchmark_out_format=json \
    > "$W/$name.txt" 2>&1
  echo "rc=$?"
}
tree=--benchmark_filter='^tree_sum/(serial|serial_task|serial_task_byref|tempo|tempo_byref)/'
# Interleaving the variants' repetitions keeps slow drift (frequency, the
# neighbours) out of the ratios.
mix=(--benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=false)

# 1. 100M-node tree: 1 thread against the SerialTask code, 16 threads against plain serial.
# stream_omp: the same nodes read once in order (the memory floor of the 16-thread figure).
run tree100m 60 "$TB" --threads=1,16 --tree_nodes=100000000 \
  --benchmark_filter='^tree_sum/(serial|serial_task|serial_task_byref|tempo|tempo_byref|stream_omp)/' \
  --benchmark_repetitions=5 --benchmark_min_time=0.01 "${mix[@]}"
# 2. 1,023-node tree summed repeatedly (2M nodes per iteration), 1..16 threads.
run tree1023 30 "$TB" --threads=1,2,4,8,16 --tree_nodes=1023 --tree_nodes_per_iter=2000000 "$tree" \
  --benchmark_repetitions=5 --benchmark_min_time=0.1 "${mix[@]}"
# 3. fib(32), 1 thread (16 for reference), both shapes and their SerialTask code.
run fib 20 "$TB" --threads=1,16 --fib_n=32 \
  --benchmark_filter='^fib/(serial|serial_task|serial_task_byref|tempo|tempo_byref)/' \
  --benchmark_repetitions=5 --benchmark_min_time=0.1 "${mix[@]}"
# 4. UTS T3 at 16 threads against serial, oneTBB (and Rayon below).
run uts 30 "$TB" --threads=16 --uts=T3 --benchmark_filter='^uts_T3/(serial|tempo|tbb_task_group)' \
  --benchmark_repetitions=3 --benchmark_min_time=0.1
# 5. Mandelbrot 2048^2 and matmul 2048 at 16 threads against oneTBB and libgomp.
run loops 35 "$TB" --threads=16 --mandel_size=2048 --mandel_iters=1000 --matmul_n=2048 \
  --benchmark_filter='^(mandelbrot|matmul)/(tempo|tbb|omp)' --benchmark_repetitions=3 --benchmark_min_time=0.2 "${mix[@]}"
if [[ -x $C/bin/rayon_bench ]]; then
  run uts_rayon 20 "$C/bin/rayon_bench" --threads=1,16 --uts=T3 --benchmark_filter='^uts_' --benchmark_min_time=0.1
else
  echo "no rayon_bench carried: the Rayon UTS row is skipped"
fi
# The same small-tree, big-tree and UTS rows with aging and idle requests off
# (the defaults before 2026-12-02's fifth session), for comparison.
TEMPO_AGED_PROMOTION=0 TEMPO_IDLE_REQUESTS=0 run tree1023_old 20 "$TB" --threads=1,2,4,8,16 --tree_nodes=1023 \
  --tree_nodes_per_iter=2000000 "$tree" --benchmark_repetitions=5 --benchmark_min_time=0.1 "${mix[@]}"
TEMPO_AGED_PROMOTION=0 TEMPO_IDLE_REQUESTS=0 run tree100m_old 25 "$TB" --threads=16 --tree_nodes=100000000 \
  --benchmark_filter='^tree_sum/(serial|tempo|tempo_byref)/' --benchmark_repetitions=3 --benchmark_min_time=0.01
TEMPO_AGED_PROMOTION=0 TEMPO_IDLE_REQUESTS=0 run uts_old 15 "$TB" --threads=16 --uts=T3 \
  --benchmark_filter='^uts_T3/tempo/' --benchmark_repetitions=3 --benchmark_min_time=0.1
# 6. Idle pool: CPU time of 16 sleeping workers (target <= 0.1% of a core).
[[ -x $C/bin/tempo_idle_cpu ]] && "$C/bin/tempo_idle_cpu" 16 5 > "$W/idle_cpu.json" && cat "$W/idle_cpu.json"

# 7. The same targets as paired ratios (tempo_overhead: each sample times tempo
# and the SerialTask code back to back, so the host's speed drifts cancel), by
# default and with aging and idle requests off.
if [[ -x $C/bin/tempo_overhead ]]; then
  echo "== overhead ($(date -u +%T))"
  timeout 150 "$C/bin/tempo_overhead" --threads=1,2,4,8,16 --pairs=21 > "$W/overhead.json" 2> "$W/overhead.err"
  echo "rc=$?"; cp "$W/overhead.json" "$OUT/"
  TEMPO_IDLE_REQUESTS=0 TEMPO_AGED_PROMOTION=0 timeout 60 "$C/bin/tempo_overhead" --threads=1,2,4,8,16 --pairs=21 \
    --big_nodes=0 > "$W/overhead_old.json" 2>> "$W/overhead.err"
  echo "rc=$?"
fi

if command -v python3 >/dev/null; then
  python3 "$(dirname "$0")/runtime_targets.py" "$W" > "$W/targets.json" && cat "$W/targets.json"
  cp "$W/targets.json" "$OUT/"
else
  echo "no python3 here: unpack runtime.tgz and run scripts/device/runtime_targets.py on it"
fi
tar czf "$OUT/runtime.tgz" -C "$W" .
