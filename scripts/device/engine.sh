#!/usr/bin/env bash
# The offload engine and Keccak on top of it, on the device machine, from carried
# binaries: $1/bin (tempo_gpu_tests, tempo_keccak_offload_tests, tempo_engine_bench,
# tempo_gpu_bench, tempo_offload_example), $1/lib (shared libraries). Results to $OUT/engine.
set -u
C=${1:?usage: engine.sh CARRY_DIR}
O=$OUT/engine; mkdir -p "$O"
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
B=$C/bin
log() { echo "== $*" | tee -a "$O/log.txt"; }
log "engine tests on the GPU (example op, constants, resident chaining, lifetimes)"
timeout 120 "$B/tempo_gpu_tests" -r junit -o "$O/gpu_tests.xml" > "$O/gpu_tests.txt" 2>&1; log "rc=$?"; tail -3 "$O/gpu_tests.txt"
log "keccak through the engine: byte equality with the CPU, every algorithm, split, pinned"
timeout 200 "$B/tempo_keccak_offload_tests" -r junit -o "$O/keccak_tests.xml" > "$O/keccak_tests.txt" 2>&1; log "rc=$?"; tail -3 "$O/keccak_tests.txt"
log "example program"
"$B/tempo_offload_example" 2>&1 | tee -a "$O/log.txt"
log "engine overhead"
timeout 60 "$B/tempo_engine_bench" --benchmark_out="$O/engine_bench.json" --benchmark_out_format=json 2>&1 | tail -8 | tee -a "$O/log.txt"
log "keccak headline: kernel, host to host pinned and pageable (10M x 32 B)"
timeout 120 "$B/tempo_gpu_bench" --benchmark_filter='BM_gpu_kernel/len:32/N:(10000000|100000000)/|BM_gpu_h2h_pinned/len:32/N:10000000/|BM_gpu_h2h_pageable/len:32/N:10000000/' \
  --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  --benchmark_out="$O/keccak_headline.json" --benchmark_out_format=json 2>&1 | grep -E "median|BM_" | tail -12 | tee -a "$O/log.txt"
if [ "${ENGINE_GRID:-0}" = 1 ]; then
  log "auto placement grid (32 B..256 KiB x N 1e2..1e7)"
  timeout 300 "$B/tempo_gpu_bench" --benchmark_filter='BM_(cpu_all|gpu_h2h_pinned|gpu_h2h_pageable|auto|auto_pinned)/len:[0-9]+/N:(100|1000|10000|100000|1000000|10000000)/' \
    --benchmark_min_time=0.1 --benchmark_out="$O/grid.json" --benchmark_out_format=json > "$O/grid.txt" 2>&1
  log "grid rc=$?"
fi
