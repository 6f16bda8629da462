#!/usr/bin/env bash
# FAEST (tempo::faest) on the device machine: the known-answer and scheme tests (all 200 NIST
# vectors, the fastest and the portable CPU instruction sets), the GPU batch path's gate
# (CPU = GPU bytes over FAEST_GPU_BATCHES seeded batches, default 1000, plus the v2 vectors
# on the GPU), then the benchmarks as Google Benchmark JSON. About 4 minutes.
#
#   bash scripts/device/faest.sh [CARRY]     CARRY: default .carry/dev (pack.sh BUILD faest)
#
# Results in $OUT/faest: faest_single.json (one core, median and p99 per call),
# faest_forked.json and faest_forked_hb20.json (one signature forked over 1..N threads, at
# the default and a 20 us heartbeat), faest_batch.json (signatures per second on a pool),
# faest_single_portable.json (the portable instruction set), faest_gpu.json (batch-size curve
# 256..65536, cpu against gpu), faest_summary.txt, faest_logs.tgz (with the per-stage
# device times of a 16,384 batch: faest_gpu_profile.txt).
# The tests read the known answers from this checkout's tests/data/faest. The binaries must
# come from a CUDA build for the GPU rows; without a device those report "skipped".
# FAEST_SMOKE=1: a quick pass of everything (tiny minimum times), to check the script itself.
set -u
C=$(cd "${1:-.carry/dev}" && pwd) || exit 1
BIN=$C/bin
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
OUT=${OUT:-$PWD/out}/faest
mkdir -p "$OUT"
status=0
if [ -z "${TEMPO_FAEST_DATA_DIR:-}" ] && [ -f tests/data/faest/PQCsignKAT_faest_128f.rsp ]; then
  export TEMPO_FAEST_DATA_DIR="$PWD/tests/data/faest"
fi

# The logs go back as one tarball beside the JSON and the summary.
LOG=$(mktemp -d)
{ lscpu; nproc; date -u; nvidia-smi; } > "$LOG/faest_machine.txt" 2>&1

run() {  # name, command...
  local name=$1
  shift
  echo "== $name: $*" | tee -a "$OUT/faest_summary.txt"
  "$@" > "$LOG/$name.txt" 2>&1
  local rc=$?
  tail -n 3 "$LOG/$name.txt" | tee -a "$OUT/faest_summary.txt"
  echo "rc=$rc" | tee -a "$OUT/faest_summary.txt"
  [ $rc -eq 0 ] || status=1
}

# Correctness first: every NIST KAT (200) and the v2 vectors, with AES-NI and portable paths.
if [ "${FAEST_SMOKE:-0}" = 1 ]; then
  run faest_tests "$BIN/tempo_faest_tests" "[kat],[blocks]"
else
  run faest_tests "$BIN/tempo_faest_tests" "[kat],[kat-full],[blocks],[scheme],[parallel],[engine]"
fi
run faest_tests_portable env TEMPO_FAEST_ISA=portable "$BIN/tempo_faest_tests" "[kat-portable],[blocks]"
# The GPU path: emulated stage (host), then the device: v2 vectors and the CPU = GPU gate.
gpu_batches=${FAEST_GPU_BATCHES:-1000}
if [ "${FAEST_SMOKE:-0}" = 1 ]; then gpu_batches=4; fi
run faest_tests_gpu env TEMPO_FAEST_GPU_BATCHES=$gpu_batches TEMPO_FAEST_GPU_BATCH_SIZE=64 timeout 400 \
  "$BIN/tempo_faest_tests" "[cuda-emulated],[gpu]" -s
grep -E "CPU=GPU gate|skipped" "$LOG/faest_tests_gpu.txt" | head -3 | tee -a "$OUT/faest_summary.txt"

mt() { if [ "${FAEST_SMOKE:-0}" = 1 ]; then echo 0.01; else echo "$1"; fi; }
pin1=""  # one core for the one-core rows: the last CPU, when taskset works here
last_cpu=$(( $(nproc) - 1 ))
if command -v taskset > /dev/null && taskset -c "$last_cpu" true 2> /dev/null; then
  pin1="taskset -c $last_cpu"
fi
# One core (median and p99 per call in the median_us / p99_us counters).
run faest_bench_single $pin1 "$BIN/bench_faest" --benchmark_filter='Single' --benchmark_min_time=$(mt 1) \
  --benchmark_out="$OUT/faest_single.json" --benchmark_out_format=json
# One signature with forks inside, 1..all threads; then batches on the pool.
run faest_bench_forked "$BIN/bench_faest" --benchmark_filter='Forked' --benchmark_min_time=$(mt 0.5) \
  --benchmark_out="$OUT/faest_forked.json" --benchmark_out_format=json
# The same with a 20 us heartbeat: a ~1 ms signature then splits often enough to spread.
run faest_bench_forked_hb20 env TEMPO_HEARTBEAT_US=20 "$BIN/bench_faest" --benchmark_filter='Forked' \
  --benchmark_min_time=$(mt 0.5) --benchmark_out="$OUT/faest_forked_hb20.json" --benchmark_out_format=json
run faest_bench_batch "$BIN/bench_faest" --benchmark_filter='Batch' --benchmark_min_time=$(mt 1) \
  --benchmark_out="$OUT/faest_batch.json" --benchmark_out_format=json
# The portable constant-time instruction set, one core, for the record.
run faest_bench_portable env TEMPO_FAEST_ISA=portable $pin1 "$BIN/bench_faest" \
  --benchmark_filter='Single_(Sign|Verify)/0' --benchmark_min_time=$(mt 0.5) \
  --benchmark_out="$OUT/faest_single_portable.json" --benchmark_out_format=json
# The GPU batch-size curve (3 iterations per row; rows of 65536 signatures take seconds on the CPU).
run faest_bench_gpu timeout 400 "$BIN/bench_faest" --benchmark_filter='Gpu' \
  --benchmark_out="$OUT/faest_gpu.json" --benchmark_out_format=json
grep -E "^BM_Gpu" "$LOG/faest_bench_gpu.txt" | tee -a "$OUT/faest_summary.txt"
# Per-stage device times of one 16,384 batch (one stream: the stages do not overlap) and the
# host's slice timeline, from TEMPO_FAEST_GPU_PROFILE's lines (in faest_logs.tgz).
run faest_gpu_profile env TEMPO_GPU_STREAMS=1 TEMPO_FAEST_GPU_PROFILE=1 timeout 200 "$BIN/bench_faest" \
  --benchmark_filter='Gpu_(Sign|Verify)/0/16384/1'
grep -E "^faest-(sign|verify)" "$LOG/faest_gpu_profile.txt" | head -4 | tee -a "$OUT/faest_summary.txt"
tar czf "$OUT/faest_logs.tgz" -C "$LOG" . && rm -rf "$LOG"
exit $status
