#!/usr/bin/env bash
# PERK (tempo::perk) GPU batch path on the device machine: the emulated device stage (host),
# every shipped known answer of the 18 sets through the device, the CPU = GPU gate (bytes
# equal over PERK_GPU_BATCHES seeded batches, default 1000, of PERK_GPU_BATCH_SIZE signatures,
# default 32), the device verifier's verdicts against the CPU's, then the GPU batch-size curve
# (bench_perk's Gpu rows, sign and verify, cpu against cuda) as Google Benchmark JSON. A few
# minutes.
#
#   bash scripts/device/perk.sh [CARRY]     CARRY: default .carry/dev (pack.sh BUILD perk)
#
# Results in $OUT/perk: perk_gpu.json (the curve), perk_summary.txt, perk_logs.tgz. The tests
# read the known answers from this checkout's tests/data/perk. The binaries must come from a
# CUDA build; without a device the GPU cases report "skipped".
# PERK_SMOKE=1: a quick pass (4 gate batches, one iteration per curve row).
set -u
C=$(cd "${1:-.carry/dev}" && pwd) || exit 1
BIN=$C/bin
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
OUT=${OUT:-$PWD/out}/perk
mkdir -p "$OUT"
status=0
if [ -z "${TEMPO_PERK_DATA_DIR:-}" ] && [ -f tests/data/perk/PQCsignKAT_perk-1-fast-aes_aes.rsp ]; then
  export TEMPO_PERK_DATA_DIR="$PWD/tests/data/perk"
fi

LOG=$(mktemp -d)
{ lscpu; nproc; date -u; nvidia-smi; } > "$LOG/perk_machine.txt" 2>&1

run() {  # name, command...
  local name=$1
  shift
  echo "== $name: $*" | tee -a "$OUT/perk_summary.txt"
  "$@" > "$LOG/$name.txt" 2>&1
  local rc=$?
  tail -n 3 "$LOG/$name.txt" | tee -a "$OUT/perk_summary.txt"
  echo "rc=$rc" | tee -a "$OUT/perk_summary.txt"
  [ $rc -eq 0 ] || status=1
}

gpu_batches=${PERK_GPU_BATCHES:-1000}
curve_args=()
if [ "${PERK_SMOKE:-0}" = 1 ]; then
  gpu_batches=4
  curve_args=(--benchmark_min_time=0.01)
fi
run perk_tests_gpu env TEMPO_PERK_GPU_BATCHES=$gpu_batches TEMPO_PERK_GPU_BATCH_SIZE=${PERK_GPU_BATCH_SIZE:-32} \
  timeout 400 "$BIN/tempo_perk_tests" "[cuda-emulated],[gpu]" -s
grep -E "CPU=GPU gate|GPU verify gate|skipped" "$LOG/perk_tests_gpu.txt" | head -4 | tee -a "$OUT/perk_summary.txt"
run perk_bench_gpu timeout 300 "$BIN/bench_perk" --benchmark_filter='Gpu' "${curve_args[@]}" \
  --benchmark_out="$OUT/perk_gpu.json" --benchmark_out_format=json
grep -E "^BM_Gpu" "$LOG/perk_bench_gpu.txt" | tee -a "$OUT/perk_summary.txt"
tar czf "$OUT/perk_logs.tgz" -C "$LOG" . && rm -rf "$LOG"
exit $status
