#!/usr/bin/env bash
# Runs every tempo::gpu test and benchmark on the device machine from a prebuilt,
# carried build folder, and writes the results under $OUT (default ./device-out).
#
#   bench/gpu/device_run.sh BUILD_DIR [quick]
#
# BUILD_DIR holds (see docs/gpu.md, "Running on the device machine"):
#   tempo_gpu_tests, tempo_gpu_bench, tempo-fanout, lib/ (libbenchmark.so.1, libcrypto.so.3, ...)
# 'quick' runs the benchmark on fewer sizes (N <= 1e7).
set -u
B=${1:?usage: device_run.sh BUILD_DIR [quick]}
MODE=${2:-full}
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
HERE=$(cd "$(dirname "$0")" && pwd)
log() { echo "== $*" | tee -a "$OUT/device_run.log"; }

log "device"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv | tee -a "$OUT/device_run.log"
nproc | tee -a "$OUT/device_run.log"

log "resource usage of the kernels (registers, spills: expect 0 local memory)"
if command -v cuobjdump >/dev/null; then
  cuobjdump -res-usage "$B/tempo_gpu_tests" 2>&1 | grep -E "Function|REG|STACK|LOCAL" | head -40 | tee -a "$OUT/device_run.log"
  cuobjdump --dump-sass "$B/tempo_gpu_tests" > /tmp/tempo_gpu.sass 2>/dev/null &&
    { echo "LDL/STL in SASS: $(grep -cE 'LDL|STL' /tmp/tempo_gpu.sass)";
      awk '/Function : .*fixed32_kernelILi17ELi24ELb1E/{f=1} f&&/Function : /&&!/fixed32_kernelILi17ELi24ELb1E/{f=0} f' /tmp/tempo_gpu.sass |
        grep -oE '^\s+/\*[0-9a-f]{4}\*/\s+[A-Z0-9]+' | awk '{print $2}' | sort | uniq -c | sort -rn | head -12; } 2>&1 | tee -a "$OUT/device_run.log"
fi

log "tests (byte equality sweep first: bench numbers from a wrong kernel mean nothing)"
TEMPO_FANOUT_EXE="$B/tempo-fanout" "$B/tempo_gpu_tests" -r junit -o "$OUT/gpu_tests.xml" ; rc_tests=$?
"$B/tempo_gpu_tests" "[equivalence]" 2>&1 | tail -3 | tee -a "$OUT/device_run.log"
log "tests rc=$rc_tests"
TEMPO_FANOUT_EXE="$B/tempo-fanout" TEMPO_BACKEND=cuda "$B/tempo_gpu_tests" "[fanout]" > /dev/null 2>&1; log "fanout tests under TEMPO_BACKEND=cuda rc=$?"

log "kernel variants and headline figures"
"$B/tempo_gpu_bench" --benchmark_filter='BM_gpu_kernel_variant|BM_gpu_kernel/len:32/N:(10000000|100000000)/|BM_gpu_h2h_pinned/len:32/N:10000000/|BM_gpu_h2h_pageable/len:32/N:10000000/' \
  --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  --benchmark_out="$OUT/bench_headline.json" --benchmark_out_format=json 2>&1 | tee -a "$OUT/device_run.log"

log "fan-out grid"
FILTER='.'
[ "$MODE" = quick ] && FILTER='N:(1000|10000|100000|1000000|10000000)/'
"$B/tempo_gpu_bench" --benchmark_filter="$FILTER" --benchmark_min_time=0.2 \
  --benchmark_out="$OUT/bench_fanout.json" --benchmark_out_format=json 2>&1 | grep -v "skipped:" | tail -n 400 > "$OUT/bench_fanout.txt"
log "grid rc=$?"

log "daemon end to end (1M x 32 B, binary wire)"
python3 "$HERE/fanout_daemon_bench.py" "$B/tempo-fanout" --json "$OUT/fanout_daemon.json" --dir /tmp/fanout-bench 2>&1 | tail -n 30 | tee -a "$OUT/device_run.log"

if python3 -c 'import matplotlib' 2>/dev/null; then
  python3 "$HERE/../../scripts/plot_fanout.py" "$OUT/bench_fanout.json" -o "$OUT/fanout.png" 2>&1 | tee -a "$OUT/device_run.log"
fi
exit $rc_tests
