#!/usr/bin/env bash
# The promotion settings side by side, in one call: default, TEMPO_IDLE_REQUESTS=1,
# TEMPO_AGED_PROMOTION=1, and both; each on the repeated 1,023-node tree (1 and 16
# threads, with the SerialTask baseline), UTS T3 and the 100M-node tree at 16 threads.
# About 3 minutes.   bash scripts/device/promotion.sh [CARRY]   (default .carry/dev)
# Results: $OUT/promotion.tgz (Google Benchmark JSON and logs per setting).
set -u
. "$(dirname "$0")/bench_env.sh" promotion "${1:-}"
mix=(--benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=false)
for setting in default idle aged idle_aged; do
  case $setting in
    default) env=() ;;
    idle) env=(TEMPO_IDLE_REQUESTS=1) ;;
    aged) env=(TEMPO_AGED_PROMOTION=1) ;;
    idle_aged) env=(TEMPO_IDLE_REQUESTS=1 TEMPO_AGED_PROMOTION=1) ;;
  esac
  if ((${#env[@]})); then export "${env[@]}"; fi
  run "tree1023_$setting" --threads=1,16 --tree_nodes=1023 --tree_nodes_per_iter=2000000 \
    --benchmark_filter='^tree_sum/(serial_task|serial_task_byref|tempo|tempo_byref)/' \
    --benchmark_repetitions=9 --benchmark_min_time=0.05 "${mix[@]}"
  run "uts_$setting" --threads=16 --uts=T3 --benchmark_filter='^uts_T3/(tempo|tbb_task_group)' \
    --benchmark_repetitions=5 --benchmark_min_time=0.1 "${mix[@]}"
  run "tree100m_$setting" --threads=16 --tree_nodes=100000000 --benchmark_filter='^tree_sum/(tempo|tempo_byref)/' \
    --benchmark_repetitions=3 --benchmark_min_time=0.01
  unset TEMPO_IDLE_REQUESTS TEMPO_AGED_PROMOTION
done
tar czf "$OUT/promotion.tgz" -C "$W" .
