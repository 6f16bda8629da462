#!/usr/bin/env bash
# The full benchmark run on the device machine's 16-core host. Builds nothing:
# it runs the binaries that scripts/collect_carry.sh put in .carry/bench and
# writes one JSON file per phase into $OUT (plus machine.txt, phases.log).
#
#   bash scripts/device_bench.sh [CARRY_DIR=.carry/bench] [OUT_DIR=$OUT]
#
# Budget: the phases are ordered by priority and the whole run stays under
# DEADLINE_S (default 540 s, inside the device tool's 600 s per command). A
# phase that would not fit is skipped and logged, and each runs under
# `timeout`; Google Benchmark writes its JSON as it goes, and
# scripts/plot_bench.py repairs a file cut short by a timeout.
# Slow baselines are bounded with --skip_after_seconds: once a variant needs
# more than that per iteration at some thread count, its higher counts are
# recorded as skipped (libgomp's task queue at 2+ threads is the usual case).
set -uo pipefail

carry=${1:-.carry/bench}
out=${2:-${OUT:-./bench-out}}
deadline=${DEADLINE_S:-540}
mkdir -p "$out"
carry=$(cd "$carry" && pwd)
export LD_LIBRARY_PATH=$carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
tb=$carry/bin/tempo_bench
rb=$carry/bin/rayon_bench
[[ -x $tb ]] || { echo "device_bench: $tb missing (run scripts/collect_carry.sh first)" >&2; exit 1; }
have_rayon=0
[[ -x $rb ]] && have_rayon=1

start=$(date +%s)
log=$out/phases.log
: > "$log"
elapsed() { echo $(( $(date +%s) - start )); }

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(hostname 2>/dev/null || cat /proc/sys/kernel/hostname)"
  echo "nproc: $(nproc)"
  uname -a
  lscpu 2>/dev/null | grep -E 'Model name|Socket|Core|Thread|NUMA node\(s\)|MHz|L2|L3' || true
  free -g 2>/dev/null | head -2 || true
  cat "$carry/PROVENANCE.txt" 2>/dev/null || true
  echo "openmp runtime: GCC libgomp ($(ls "$carry"/lib/libgomp.so.* 2>/dev/null | xargs -n1 basename | tr '\n' ' '))"
} > "$out/machine.txt"

# Full problem sizes (the issue's), shared by tempo_bench and rayon_bench.
# Mandelbrot is 2048x2048 (not 4096) to fit the budget; still 4M irregular pixels.
sizes=(--threads=1,2,4,8,16,32 --fib_n=32 --nqueens_n=14 --uts=T1,T3 --skynet_log10=6
       --mandel_size=2048 --mandel_iters=1000 --reduce_n=1000000000 --matmul_n=2048 --saxpy_n=1048576)

# BENCH_EXTRA: flags appended last (they win), e.g. tiny sizes for a local dry run:
#   BENCH_EXTRA="--threads=1,2 --tree_nodes=1000,20000 --fib_n=18 ..." scripts/device_bench.sh
read -r -a extra <<< "${BENCH_EXTRA:-}"

# phase NAME EST_SECONDS BINARY ARGS...: runs if it fits in what is left.
phase() {
  local name=$1 est=$2 bin=$3
  shift 3
  local left=$(( deadline - $(elapsed) ))
  if (( est > left )); then
    echo "SKIPPED $name: needs ~${est}s, ${left}s left" | tee -a "$log"
    return
  fi
  # A runaway phase is cut at 2x its estimate (+30 s) so the rest still runs.
  local cap=$(( 2 * est + 30 ))
  (( cap > left )) && cap=$left
  local t0=$(date +%s)
  echo "== $name (est ${est}s, cap ${cap}s, ${left}s left): $(basename "$bin") $*" | tee -a "$log"
  timeout --signal=INT --kill-after=5 "$cap" "$bin" "$@" ${extra[@]+"${extra[@]}"} \
    --benchmark_out="$out/$name.json" --benchmark_out_format=json \
    > "$out/$name.txt" 2>&1
  local rc=$?
  echo "   rc=$rc in $(( $(date +%s) - t0 ))s" | tee -a "$log"
}

rphase() {  # same, for the Rayon binary when it was carried
  if (( have_rayon )); then phase "$@"; else echo "SKIPPED $1: no rayon_bench carried" | tee -a "$log"; fi
}

rss() {  # rss NAME EST BINARY ARGS...: peak RSS per variant, one child each
  local name=$1 est=$2 bin=$3
  shift 3
  local left=$(( deadline - $(elapsed) ))
  if (( est > left )); then
    echo "SKIPPED $name: needs ~${est}s, ${left}s left" | tee -a "$log"
    return
  fi
  local cap=$(( 2 * est + 30 ))
  (( cap > left )) && cap=$left
  echo "== $name (est ${est}s, cap ${cap}s): $(basename "$bin") $*" | tee -a "$log"
  timeout --kill-after=5 "$cap" "$bin" "$@" ${extra[@]+"${extra[@]}"} --rss_out="$out/$name.json" > "$out/$name.txt" 2>&1
  echo "   rc=$?" | tee -a "$log"
}

# Issue A: tree sum, 100M and 1000 nodes; serial and tempo with 3 repetitions.
phase tree100m_tempo 30 "$tb" "${sizes[@]}" --tree_nodes=100000000 \
  --benchmark_filter='^tree_sum/(serial|tempo|tempo_fork)/' --benchmark_repetitions=3 --benchmark_min_time=0.01
phase tree1000 45 "$tb" "${sizes[@]}" --tree_nodes=1000 \
  --benchmark_filter='^tree_sum/' --benchmark_repetitions=3 --benchmark_min_time=0.1 --skip_after_seconds=4
rphase tree_rayon 25 "$rb" "${sizes[@]}" --tree_nodes=1000,100000000 \
  --benchmark_filter='^tree_sum/' --benchmark_repetitions=3 --benchmark_min_time=0.1 --skip_after_seconds=4
phase tree100m_baselines 70 "$tb" "${sizes[@]}" --tree_nodes=100000000 \
  --benchmark_filter='^tree_sum/(tbb_invoke|tbb_task_group|omp_task)/' --benchmark_min_time=0.01 --skip_after_seconds=8

# Issue B: fine-grained fork/join with targets (fib, UTS).
phase fib 40 "$tb" "${sizes[@]}" --benchmark_filter='^fib/' --benchmark_min_time=0.2 --skip_after_seconds=4
rphase fib_rayon 10 "$rb" "${sizes[@]}" --benchmark_filter='^fib/' --benchmark_min_time=0.2
rss fib_rss 30 "$tb" "${sizes[@]}" --threads=1,16 --rss_sweep='^fib/' --benchmark_min_time=0.01
if (( have_rayon )); then
  rss fib_rss_rayon 5 "$rb" "${sizes[@]}" --threads=1,16 --rss_sweep='^fib/' --benchmark_min_time=0.01
fi
phase uts 50 "$tb" "${sizes[@]}" --benchmark_filter='^uts_' --benchmark_min_time=0.2 --skip_after_seconds=5
rphase uts_rayon 12 "$rb" "${sizes[@]}" --benchmark_filter='^uts_' --benchmark_min_time=0.2

# Issue B: loops with targets: 1-thread overhead (repetitions), Mandelbrot, matmul.
phase loops_1thread 45 "$tb" "${sizes[@]}" --threads=1 \
  --benchmark_filter='^(saxpy|reduce)/' --benchmark_repetitions=5 --benchmark_min_time=0.3
phase mandelbrot 30 "$tb" "${sizes[@]}" --benchmark_filter='^mandelbrot/' --benchmark_min_time=0.2
rphase mandelbrot_rayon 8 "$rb" "${sizes[@]}" --benchmark_filter='^mandelbrot/' --benchmark_min_time=0.2
phase matmul 50 "$tb" "${sizes[@]}" --benchmark_filter='^matmul/' --benchmark_min_time=0.1
rphase matmul_rayon 15 "$rb" "${sizes[@]}" --benchmark_filter='^matmul/' --benchmark_min_time=0.1

# Lower priority (no target attached): the other fork/join workloads, loop sweeps.
phase nqueens 30 "$tb" "${sizes[@]}" --benchmark_filter='^nqueens/' --benchmark_min_time=0.2 --skip_after_seconds=4
rphase nqueens_rayon 6 "$rb" "${sizes[@]}" --benchmark_filter='^nqueens/' --benchmark_min_time=0.2
phase skynet 15 "$tb" "${sizes[@]}" --benchmark_filter='^skynet/' --benchmark_min_time=0.2 --skip_after_seconds=3
rphase skynet_rayon 4 "$rb" "${sizes[@]}" --benchmark_filter='^skynet/' --benchmark_min_time=0.2
phase loops 35 "$tb" "${sizes[@]}" --benchmark_filter='^(saxpy|reduce)/' --benchmark_min_time=0.2
rphase loops_rayon 12 "$rb" "${sizes[@]}" --benchmark_filter='^(saxpy|reduce)/' --benchmark_min_time=0.2

echo "done in $(elapsed)s" | tee -a "$log"
ls -la "$out"
