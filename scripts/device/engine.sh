#!/usr/bin/env bash
# The offload engine (tempo::gpu) and Keccak on it, on the device machine:
#   1. tempo_gpu_tests: the engine on the GPU (the example op, constants, resident chains,
#      lifetimes); tempo_keccak_offload_tests: Keccak through the engine byte-equal to the
#      CPU for every algorithm, split and pinned batches; the user-defined-op example;
#   2. tempo_engine_bench: the engine's own cost (small round trip against raw CUDA, an op
#      with no device work);
#   3. tempo_gpu_bench: the Keccak headline (kernel at N = 1e7 and 1e8, host to host 10M x
#      32 B from pinned and pageable memory) and, unless ENGINE_GRID=0, the placement grid
#      (cpu-only, gpu-only and auto at 32 B..256 KiB x N = 1e2..1e7: is auto within 10% of
#      the better side?);
#   4. one core's SHAKE256 of 32-byte messages against OpenSSL's; bench_keccak: the
#      permutation and sponges on the CPU (TEMPO_KECCAK_ISA decides the instruction set).
# ENGINE_SWEEP=1 adds the host-to-host tuning sweep (stream threads per device, pinned
# streams, chunk cap; SWEEP="streams,pinned,chunk_mb ..." lists the settings) that chose
# the defaults of TEMPO_GPU_STREAMS, TEMPO_GPU_PINNED_STREAMS and TEMPO_GPU_CHUNK_MB.
# About 5 minutes with the grid.
#
#   bash scripts/device/engine.sh [CARRY]     CARRY: default .carry/dev (pack.sh BUILD engine)
# Results in $OUT/engine: gpu_tests.xml, keccak_tests.xml (and .txt), engine_bench.json,
# keccak_headline.json, grid.json, cpu_1t.json, bench_keccak.json, sweep/*.json, log.txt.
# scripts/plot_fanout.py draws throughput against N from grid.json.
set -u
C=$(cd "${1:-.carry/dev}" && pwd) || exit 1
O=${OUT:-$PWD/out}/engine; mkdir -p "$O"
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
B=$C/bin
log() { echo "== $*" | tee -a "$O/log.txt"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$O/device.txt" 2>&1

log "engine tests on the GPU (example op, constants, resident chaining, lifetimes)"
timeout 120 "$B/tempo_gpu_tests" -r junit -o "$O/gpu_tests.xml" > "$O/gpu_tests.txt" 2>&1; log "rc=$?"; tail -3 "$O/gpu_tests.txt"
log "keccak through the engine: byte equality with the CPU, every algorithm, split, pinned"
timeout 200 "$B/tempo_keccak_offload_tests" -r junit -o "$O/keccak_tests.xml" > "$O/keccak_tests.txt" 2>&1; log "rc=$?"; tail -3 "$O/keccak_tests.txt"
log "example program (examples/offload_op)"
timeout 60 "$B/tempo_offload_example" 2>&1 | tee -a "$O/log.txt"
log "engine overhead"
timeout 60 "$B/tempo_engine_bench" --benchmark_out="$O/engine_bench.json" --benchmark_out_format=json 2>&1 | tail -8 | tee -a "$O/log.txt"
log "keccak headline: kernel, host to host pinned and pageable (10M x 32 B)"
timeout 120 "$B/tempo_gpu_bench" --benchmark_filter='BM_gpu_kernel/len:32/N:(10000000|100000000)/|BM_gpu_h2h_pinned/len:32/N:10000000/|BM_gpu_h2h_pageable/len:32/N:10000000/' \
  --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  --benchmark_out="$O/keccak_headline.json" --benchmark_out_format=json 2>&1 | grep -E "median|BM_" | tail -12 | tee -a "$O/log.txt"
if [ "${ENGINE_GRID:-1}" != 0 ]; then
  log "placement grid (32 B..256 KiB x N 1e2..1e7)"
  timeout 300 "$B/tempo_gpu_bench" --benchmark_filter='BM_(cpu_all|gpu_h2h_pinned|gpu_h2h_pageable|auto|auto_pinned)/len:[0-9]+/N:(100|1000|10000|100000|1000000|10000000)/' \
    --benchmark_min_time=0.1 --benchmark_out="$O/grid.json" --benchmark_out_format=json > "$O/grid.txt" 2>&1
  log "grid rc=$?"
fi
log "one core, SHAKE256 of 1M x 32 B: tempo's CPU path against OpenSSL"
timeout 60 "$B/tempo_gpu_bench" --benchmark_filter='BM_(cpu_1t|openssl_1t)/len:32/N:1000000/' --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true --benchmark_out="$O/cpu_1t.json" --benchmark_out_format=json 2>&1 |
  grep median | tee -a "$O/log.txt"
if [ -x "$B/bench_keccak" ]; then
  log "keccak permutations and sponges on the CPU, per instruction set"
  timeout 60 "$B/bench_keccak" --benchmark_min_time=0.2 --benchmark_out="$O/bench_keccak.json" \
    --benchmark_out_format=json > "$O/bench_keccak.txt" 2>&1
  log "rc=$?"
fi
if [ "${ENGINE_SWEEP:-0}" = 1 ]; then
  mkdir -p "$O/sweep"
  for cfg in ${SWEEP:-12,4,8 12,4,16 16,4,8 8,3,16 12,6,16 12,4,24}; do
    IFS=, read -r streams pinned chunk <<< "$cfg"
    log "sweep: streams=$streams pinned_streams=$pinned chunk=${chunk}MB"
    TEMPO_GPU_STREAMS=$streams TEMPO_GPU_PINNED_STREAMS=$pinned TEMPO_GPU_CHUNK_MB=$chunk timeout 60 "$B/tempo_gpu_bench" \
      --benchmark_filter='BM_gpu_h2h_(pinned|pageable)/len:32/N:10000000/' --benchmark_repetitions=3 \
      --benchmark_report_aggregates_only=true --benchmark_out="$O/sweep/s${streams}_p${pinned}_c${chunk}.json" \
      --benchmark_out_format=json 2>&1 | grep median | tee -a "$O/log.txt"
  done
fi
