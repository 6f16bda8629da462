#!/usr/bin/env bash
# A/B of runtime settings over tempo_bench's tempo rows at 16 threads (all the
# workloads: fib, nqueens, skynet, tree sums, UTS, reduce, saxpy, Mandelbrot,
# matmul, and oneTBB's UTS beside them), two rounds of every setting in turn
# so that the host's slow speed drifts fall on all sides. About 1 minute per
# setting.
#   bash scripts/device/ab.sh CARRY SETTING...
#   e.g. bash scripts/device/ab.sh .carry/dev "" "TEMPO_AGED_PROMOTION=0"
# A SETTING is a space-separated list of VAR=VALUE ("" for the defaults).
# Results: $OUT/ab.tgz (r<round>_s<k>.json per round and setting, settings.txt).
set -u
carry=${1:?usage: ab.sh CARRY SETTING...}; shift
. "$(dirname "$0")/bench_env.sh" ab "$carry"
rows='^(fib|nqueens|skynet|tree_sum|uts_T1|uts_T3|reduce|saxpy|mandelbrot|matmul)/(tempo|tempo_byref)/|^uts_T3/tbb'
k=0; for s in "$@"; do echo "s$k: $s" >> "$W/settings.txt"; k=$((k + 1)); done
for round in 1 2; do
  k=0
  for s in "$@"; do
    # shellcheck disable=SC2086  # a setting is a list of words
    env $s bash -c "$(declare -f run); TB='$TB' W='$W' run r${round}_s$k --threads=16 --fib_n=32 --nqueens_n=13 \
      --tree_nodes=1023,10000000 --uts=T1,T3 --mandel_size=1024 --matmul_n=1024 --benchmark_filter='$rows' \
      --benchmark_repetitions=3 --benchmark_min_time=0.05"
    k=$((k + 1))
  done
done
tar czf "$OUT/ab.tgz" -C "$W" .
