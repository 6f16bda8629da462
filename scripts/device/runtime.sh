#!/usr/bin/env bash
# The runtime's figures on the device host (16 cores). Every ratio is taken inside one run
# of one binary, so the host's speed drifts between calls cancel:
#   1. tempo_overhead: the 100M-node tree, the repeated 1,023-node tree and fib at 1..16
#      threads, each sample timing tempo and the same source on a do-nothing serial Task
#      back to back (21 pairs), beside runtime-free static and dynamic splits of the big tree;
#   2. rayon_bench --uts_paired: Rayon's UTS T3 at 16 threads over its own serial walk;
#   3. tempo_paired: Mandelbrot 2048^2, matmul 2048 and UTS T3 at 16 threads against oneTBB
#      and libgomp in paired rounds (ROUNDS, default 15), with UTS's serial walk and host
#      ceiling;
#   4. rayon_bench again (the host's drift over the call shows between 2 and 4);
#   5. tempo_idle_cpu: the CPU time of an idle pool of 16 threads over 5 s.
# About 3 minutes.
#
#   bash scripts/device/runtime.sh [CARRY...]        CARRY: default .carry/dev
#   bash scripts/device/runtime.sh --suite [CARRY]   the comparison suite (below)
# Pack a carry with: scripts/device/pack.sh BUILD runtime (rayon_bench: build the
# rayon_bench target first; without it steps 2 and 4 are skipped).
#
# Results in $OUT/runtime: overhead_s0.json, rayon_paired1.json, paired_s0.json,
# rayon_paired2.json, idle_cpu.json, log.txt. STEPS (default "overhead rayon paired idle")
# and CASES (tempo_paired's, default mandelbrot,matmul,uts) select parts.
#
# Comparing builds (main and a patch, say): give several carries. Steps 1 and 3 then run
# for each in turn, REPS times (default 2): a1 b1 a2 b2, into $OUT/runtime/<side><rep>/.
# Each build carries its baselines' rows in its own rounds: compare the builds by those
# ratios, never by raw times of different rounds.
#
# --suite: every workload of tempo_bench and rayon_bench (fib, N-queens, skynet, tree sums,
# UTS T1/T3, Mandelbrot, matmul, saxpy, reduce) against serial code, oneTBB, libgomp
# (OpenMP tasks and loops) and Rayon at 1..32 threads, and peak memory of fib. Phases run
# by priority; one that would not fit in SUITE_DEADLINE_S (default 540) is skipped and
# logged, and each is cut at twice its estimate. Results in $OUT/runtime_suite:
# <phase>.json (Google Benchmark; <phase>_rayon.json from rayon_bench), <phase>.txt,
# phases.log, machine.txt. scripts/plot_bench.py draws the plots and tables from them.
# SUITE_EXTRA: flags appended last (they win), e.g. tiny sizes for a dry run here:
#   SUITE_EXTRA="--threads=1,2 --tree_nodes=1000,20000 --fib_n=18 --uts=T1" ... --suite
# A device call of its own (about 9 minutes).
set -u
here=$(dirname "$0")
suite=0
[ "${1:-}" = --suite ] && { suite=1; shift; }
(($#)) || set -- .carry/dev
OUT=${OUT:-$PWD/out}
if ((suite)); then OUT=$OUT/runtime_suite; else OUT=$OUT/runtime; fi
mkdir -p "$OUT"
# shellcheck source=bench_env.sh
. "$here/bench_env.sh"

if ((suite)); then
  use_carry "$1"
  tb=$C/bin/tempo_bench rb=$C/bin/rayon_bench
  [[ -x $tb ]] || { echo "runtime.sh: $tb missing (scripts/device/pack.sh BUILD runtime)" >&2; exit 1; }
  have_rayon=0; [[ -x $rb ]] && have_rayon=1
  deadline=${SUITE_DEADLINE_S:-540}
  start=$(date +%s)
  log=$OUT/phases.log; : > "$log"
  elapsed() { echo $(( $(date +%s) - start )); }
  {
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "nproc: $(nproc)"
    uname -a
    lscpu 2>/dev/null | grep -E 'Model name|Socket|Core|Thread|NUMA node\(s\)|MHz|L2|L3' || true
    free -g 2>/dev/null | head -2 || true
    cat "$C/PROVENANCE.txt" 2>/dev/null || true
    echo "openmp runtime: GCC libgomp ($(ls "$C"/lib/libgomp.so.* 2>/dev/null | xargs -n1 basename | tr '\n' ' '))"
  } > "$OUT/machine.txt"
  # The full problem sizes, shared by tempo_bench and rayon_bench (Mandelbrot 2048^2 to fit
  # the budget: still 4M irregular pixels).
  sizes=(--threads=1,2,4,8,16,32 --fib_n=32 --nqueens_n=14 --uts=T1,T3 --skynet_log10=6
         --mandel_size=2048 --mandel_iters=1000 --reduce_n=1000000000 --matmul_n=2048 --saxpy_n=1048576)
  read -r -a extra <<< "${SUITE_EXTRA:-}"
  # phase NAME EST_SECONDS BINARY ARGS...: runs if it fits in what is left.
  phase() {
    local name=$1 est=$2 bin=$3; shift 3
    local left=$(( deadline - $(elapsed) ))
    if (( est > left )); then echo "SKIPPED $name: needs ~${est}s, ${left}s left" | tee -a "$log"; return; fi
    local cap=$(( 2 * est + 30 )); (( cap > left )) && cap=$left
    local t0; t0=$(date +%s)
    echo "== $name (est ${est}s, cap ${cap}s, ${left}s left): $(basename "$bin") $*" | tee -a "$log"
    timeout --signal=INT --kill-after=5 "$cap" "$bin" "$@" ${extra[@]+"${extra[@]}"} \
      --benchmark_out="$OUT/$name.json" --benchmark_out_format=json > "$OUT/$name.txt" 2>&1
    echo "   rc=$? in $(( $(date +%s) - t0 ))s" | tee -a "$log"
  }
  rphase() { if ((have_rayon)); then phase "$@"; else echo "SKIPPED $1: no rayon_bench carried" | tee -a "$log"; fi; }
  rss() {  # rss NAME EST BINARY ARGS...: peak RSS per variant, one child process each
    local name=$1 est=$2 bin=$3; shift 3
    local left=$(( deadline - $(elapsed) ))
    if (( est > left )); then echo "SKIPPED $name: needs ~${est}s, ${left}s left" | tee -a "$log"; return; fi
    local cap=$(( 2 * est + 30 )); (( cap > left )) && cap=$left
    echo "== $name (est ${est}s, cap ${cap}s): $(basename "$bin") $*" | tee -a "$log"
    timeout --kill-after=5 "$cap" "$bin" "$@" ${extra[@]+"${extra[@]}"} --rss_out="$OUT/$name.json" > "$OUT/$name.txt" 2>&1
    echo "   rc=$?" | tee -a "$log"
  }
  # Slow baselines are bounded with --skip_after_seconds: once a variant needs more than
  # that per iteration at some thread count, its higher counts are recorded as skipped.
  phase tree100m_tempo 30 "$tb" "${sizes[@]}" --tree_nodes=100000000 \
    --benchmark_filter='^tree_sum/(serial|tempo|tempo_fork)/' --benchmark_repetitions=3 --benchmark_min_time=0.01
  phase tree1000 45 "$tb" "${sizes[@]}" --tree_nodes=1000 \
    --benchmark_filter='^tree_sum/' --benchmark_repetitions=3 --benchmark_min_time=0.1 --skip_after_seconds=4
  rphase tree_rayon 25 "$rb" "${sizes[@]}" --tree_nodes=1000,100000000 \
    --benchmark_filter='^tree_sum/' --benchmark_repetitions=3 --benchmark_min_time=0.1 --skip_after_seconds=4
  phase tree100m_baselines 70 "$tb" "${sizes[@]}" --tree_nodes=100000000 \
    --benchmark_filter='^tree_sum/(tbb_invoke|tbb_task_group|omp_task)/' --benchmark_min_time=0.01 --skip_after_seconds=8
  phase fib 40 "$tb" "${sizes[@]}" --benchmark_filter='^fib/' --benchmark_min_time=0.2 --skip_after_seconds=4
  rphase fib_rayon 10 "$rb" "${sizes[@]}" --benchmark_filter='^fib/' --benchmark_min_time=0.2
  rss fib_rss 30 "$tb" "${sizes[@]}" --threads=1,16 --rss_sweep='^fib/' --benchmark_min_time=0.01
  ((have_rayon)) && rss fib_rss_rayon 5 "$rb" "${sizes[@]}" --threads=1,16 --rss_sweep='^fib/' --benchmark_min_time=0.01
  phase uts 50 "$tb" "${sizes[@]}" --benchmark_filter='^uts_' --benchmark_min_time=0.2 --skip_after_seconds=5
  rphase uts_rayon 12 "$rb" "${sizes[@]}" --benchmark_filter='^uts_' --benchmark_min_time=0.2
  phase loops_1thread 45 "$tb" "${sizes[@]}" --threads=1 \
    --benchmark_filter='^(saxpy|reduce)/' --benchmark_repetitions=5 --benchmark_min_time=0.3
  phase mandelbrot 30 "$tb" "${sizes[@]}" --benchmark_filter='^mandelbrot/' --benchmark_min_time=0.2
  rphase mandelbrot_rayon 8 "$rb" "${sizes[@]}" --benchmark_filter='^mandelbrot/' --benchmark_min_time=0.2
  phase matmul 50 "$tb" "${sizes[@]}" --benchmark_filter='^matmul/' --benchmark_min_time=0.1
  rphase matmul_rayon 15 "$rb" "${sizes[@]}" --benchmark_filter='^matmul/' --benchmark_min_time=0.1
  phase nqueens 30 "$tb" "${sizes[@]}" --benchmark_filter='^nqueens/' --benchmark_min_time=0.2 --skip_after_seconds=4
  rphase nqueens_rayon 6 "$rb" "${sizes[@]}" --benchmark_filter='^nqueens/' --benchmark_min_time=0.2
  phase skynet 15 "$tb" "${sizes[@]}" --benchmark_filter='^skynet/' --benchmark_min_time=0.2 --skip_after_seconds=3
  rphase skynet_rayon 4 "$rb" "${sizes[@]}" --benchmark_filter='^skynet/' --benchmark_min_time=0.2
  phase loops 35 "$tb" "${sizes[@]}" --benchmark_filter='^(saxpy|reduce)/' --benchmark_min_time=0.2
  rphase loops_rayon 12 "$rb" "${sizes[@]}" --benchmark_filter='^(saxpy|reduce)/' --benchmark_min_time=0.2
  echo "done in $(elapsed)s" | tee -a "$log"
  exit 0
fi

steps=" ${STEPS:-overhead rayon paired idle} "
has() { [[ $steps == *" $1 "* ]]; }
overhead() {  # overhead DIR
  step "tempo_overhead ($(basename "$C"))"
  timeout 150 "$C/bin/tempo_overhead" --threads=1,2,4,8,16 --pairs=21 --big_nodes="${BIG_NODES:-100000000}" \
    > "$1/overhead_s0.json" 2>> "$LOG"
  echo "rc=$?" >> "$LOG"
}
paired() {  # paired DIR
  step "tempo_paired ($(basename "$C"))"
  timeout 250 "$C/bin/tempo_paired" --threads=16 --rounds="${ROUNDS:-15}" --mandel_size=2048 --mandel_iters=1000 \
    --matmul_n=2048 --uts=T3 --cases="${CASES:-mandelbrot,matmul,uts}" > "$1/paired_s0.json" 2>> "$LOG"
  echo "rc=$?" >> "$LOG"
}
{ nproc; lscpu 2>/dev/null | head -20; } > "$OUT/host.txt"

if (($# == 1)); then
  use_carry "$1"
  has overhead && overhead "$OUT"
  has rayon && rayon_uts_paired "$OUT/rayon_paired1.json"
  has paired && paired "$OUT"
  has rayon && rayon_uts_paired "$OUT/rayon_paired2.json"
  if has idle; then
    step "tempo_idle_cpu 16 5"
    timeout 30 "$C/bin/tempo_idle_cpu" 16 5 > "$OUT/idle_cpu.json" 2>> "$LOG"; echo "rc=$?" >> "$LOG"
  fi
else
  sides=(a b c d e f g h)
  k=0; for carry in "$@"; do echo "${sides[k]}: $carry" >> "$OUT/sides.txt"; k=$((k + 1)); done
  for ((rep = 1; rep <= ${REPS:-2}; rep++)); do
    k=0
    for carry in "$@"; do
      d=$OUT/${sides[k]}$rep; mkdir -p "$d"; k=$((k + 1))
      use_carry "$carry"
      has overhead && overhead "$d"
      has paired && paired "$d"
    done
  done
fi
