#!/usr/bin/env bash
# The 16-thread targets against what the host allows, in one call:
#  1. tempo_overhead at 1 and 16 threads with the 100M-node tree: tempo's
#     speed-up beside the runtime-free static and dynamic splits' (the dynamic
#     one is the host's ceiling for that walk);
#  2. UTS T3 speed-ups over each runtime's own serial code: tempo_bench
#     (serial, tempo, oneTBB) and rayon_bench (serial, Rayon), twice, alternating;
#  3. tempo_paired UTS T3 under heartbeat settings (HB_SETTINGS, default: the
#     default 100 us, 50 us, 25 us);
#  4. tempo_paired matmul alone, MATMUL_ROUNDS rounds (default 31).
#   bash scripts/device/scaling.sh [CARRY]
# CARRY (default .carry/dev, from pack.sh) holds tempo_overhead, tempo_paired,
# tempo_bench and rayon_bench. Results under $OUT; pack them into one tgz after.
set -u
here=$(dirname "$0")
. "$here/bench_env.sh" scaling "${1:-}"
top=$OUT
echo "== overhead 1,16 ($(date -u +%T))"
timeout 200 "$C/bin/tempo_overhead" --threads=1,16 --pairs=21 --big_nodes=100000000 \
  > "$top/overhead.json" 2> "$top/overhead.err"; echo "rc=$?"
for rep in 1 2; do
  run "uts_tempo$rep" --threads=16 --uts=T3 --benchmark_filter='^uts_T3/(serial|tempo|tbb_task_group)' \
    --benchmark_repetitions=3 --benchmark_min_time=0.1
  echo "== uts_rayon$rep ($(date -u +%T))"
  timeout 60 "$C/bin/rayon_bench" --threads=1,16 --uts=T3 --benchmark_filter='^uts_' \
    --benchmark_repetitions=3 --benchmark_min_time=0.1 \
    --benchmark_out="$W/uts_rayon$rep.json" --benchmark_out_format=json > "$W/uts_rayon$rep.txt" 2>&1
  echo "rc=$?"
done
cp "$W"/*.json "$W"/*.txt "$top/" 2>/dev/null
# shellcheck disable=SC2086  # each setting is a list of words
OUT=$top/uts_hb CASES=uts ROUNDS=${UTS_ROUNDS:-11} bash "$here/paired.sh" "$C" \
  ${HB_SETTINGS:-"" "TEMPO_HEARTBEAT_US=50" "TEMPO_HEARTBEAT_US=25"}
OUT=$top/matmul CASES=matmul ROUNDS=${MATMUL_ROUNDS:-31} bash "$here/paired.sh" "$C" ""
