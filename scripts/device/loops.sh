#!/usr/bin/env bash
# Mandelbrot and matmul at 16 threads with heavy-loop splitting on (the
# default) and off (TEMPO_EAGER_LOOPS=0), beside oneTBB and libgomp, and the
# same loops at 1 thread beside plain serial code. About 2 minutes.
#   bash scripts/device/loops.sh [CARRY]     (CARRY: default .carry/dev, as pack.sh makes it)
# Results: $OUT/loops.tgz (Google Benchmark JSON and logs).
set -u
. "$(dirname "$0")/bench_env.sh" loops "${1:-}"
args=(--mandel_size=2048 --mandel_iters=1000 --matmul_n=2048 --benchmark_min_time=0.2
      --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=false)
run loops16 --threads=16 --benchmark_filter='^(mandelbrot|matmul)/(tempo|tbb|omp)' --benchmark_repetitions=5 "${args[@]}"
TEMPO_EAGER_LOOPS=0 run loops16_no_eager --threads=16 --benchmark_filter='^(mandelbrot|matmul)/tempo' \
  --benchmark_repetitions=5 "${args[@]}"
run loops1 --threads=1 --matmul_n=1024 --benchmark_filter='^matmul/(serial|tempo|tbb|omp)' --benchmark_repetitions=3 \
  --benchmark_min_time=0.2 --benchmark_enable_random_interleaving=true
tar czf "$OUT/loops.tgz" -C "$W" .
