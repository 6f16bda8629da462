#!/usr/bin/env bash
# tempo::ntt on the device machine: the tests on this host's CPU (its AVX-512 paths run for
# real here; every path against the portable one, and the portable and AVX2 paths forced),
# the CPU = GPU gate (1000 seeds x 3 presets x 2 surfaces) and the resident chain on the
# device, then bench_ntt in parts: one core per CPU path, batches on the pool, the GPU
# (launch floor, kernel time on resident data, host to host, engine-resident), and auto
# against cpu with the device hidden. About 2-3 minutes.
#
#   bash scripts/device/ntt.sh [CARRY]     CARRY: default .carry/dev (pack.sh BUILD ntt)
#
# NTT_PARTS (default all: tests_cpu,tests_gpu,bench_cpu,bench_gpu,nodevice) picks the parts;
# NTT_GPU_FILTER (default ^gpu) the GPU bench rows, e.g. the 32-bit layout's rows against
# the 64-bit ones: NTT_PARTS=tests_gpu,bench_gpu NTT_GPU_FILTER='^gpu_(kernel|resident)/PN10QP27'
#
# Results in $OUT/ntt: test logs (the gate prints "NTT CPU=GPU gate: X of Y assertions
# passed"), bench_*.json, summary.md and summary.json (bench/ntt/summarize.py), log.txt.
set -u
C=$(cd "${1:-.carry/dev}" && pwd) || exit 1
O=${OUT:-$PWD/out}/ntt; mkdir -p "$O"
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
B=$C/bin
PARTS=,${NTT_PARTS:-tests_cpu,tests_gpu,bench_cpu,bench_gpu,nodevice},
GPU_FILTER=${NTT_GPU_FILTER:-^gpu}
log() { echo "== $*" | tee -a "$O/log.txt"; }
part() { [[ $PARTS == *,$1,* ]]; }
{ grep -m1 "model name" /proc/cpuinfo; nproc; grep -o -w 'avx2\|avx512f\|avx512dq\|avx512ifma' /proc/cpuinfo | sort -u; } > "$O/cpu.txt"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > "$O/gpu.txt" 2>&1

if part tests_cpu; then
log "CPU tests on this host (AVX-512 paths run for real here): kat, random, every path vs portable"
timeout 120 "$B/tempo_ntt_tests" "[plan],[kat],[random],[random-sizes],[paths],[cuda-emulated],[batch],[sim],[u32]" > "$O/tests_cpu.txt" 2>&1
log "rc=$?"; grep -E "passed|failed" "$O/tests_cpu.txt" | tail -2 | tee -a "$O/log.txt"
TEMPO_NTT_ISA=portable timeout 60 "$B/tempo_ntt_tests" "[kat],[random],[random-sizes]" > "$O/tests_portable.txt" 2>&1
log "portable forced rc=$?"; grep -E "passed|failed" "$O/tests_portable.txt" | tail -1 | tee -a "$O/log.txt"
TEMPO_NTT_ISA=avx2 timeout 60 "$B/tempo_ntt_tests" "[kat],[random],[random-sizes]" > "$O/tests_avx2.txt" 2>&1
log "avx2 forced rc=$?"; grep -E "passed|failed" "$O/tests_avx2.txt" | tail -1 | tee -a "$O/log.txt"
fi

if part tests_gpu; then
log "GPU gate: 1000 seeds x 3 presets x 2 surfaces (+ the 32-bit layout), CPU = GPU bytes; resident chains"
timeout 200 "$B/tempo_ntt_tests" "[gpu]" > "$O/tests_gpu.txt" 2>&1
log "rc=$?"; grep -E "gate|SKIPPED|passed|failed" "$O/tests_gpu.txt" | tail -4 | tee -a "$O/log.txt"
fi

# The bench in three parts, each with its own JSON, so one part running long loses nothing else.
if part bench_cpu; then
log "bench 1/3: one core, one polynomial, each CPU path and the public API"
timeout 120 "$B/bench_ntt" --benchmark_filter='^cpu(_api)?/' --benchmark_out="$O/bench_cpu1.json" \
  --benchmark_out_format=json > "$O/bench_cpu1.txt" 2>&1
log "rc=$?"; grep -E "^cpu_api/(PN10QP27|PN11QP54|n1024_q50|n1024_q60|n2048_q60)/fwd" "$O/bench_cpu1.txt" | tee -a "$O/log.txt"
log "bench 2/3: batches on the pool (1 and all threads, cpu and auto backends, a user's parallel_for)"
timeout 150 "$B/bench_ntt" --benchmark_filter='^cpu_(batch|loop)/' --benchmark_out="$O/bench_cpu_batch.json" \
  --benchmark_out_format=json > "$O/bench_cpu_batch.txt" 2>&1
log "rc=$?"
fi
if part bench_gpu; then
log "bench 3/3: GPU (launch floor, kernel time on resident data, host to host, engine-resident), filter $GPU_FILTER"
timeout 240 "$B/bench_ntt" --benchmark_filter="$GPU_FILTER" --benchmark_out="$O/bench_gpu.json" \
  --benchmark_out_format=json > "$O/bench_gpu.txt" 2>&1
log "rc=$?"; grep -E "^gpu_(floor|kernel/(PN10QP27|n1024_q60)/fwd/count:1/|kernel/PN10QP27(_u32)?/.*count:32768|resident/PN10QP27)" \
  "$O/bench_gpu.txt" | tee -a "$O/log.txt"
fi

if part nodevice; then
log "TEMPO_BACKEND=auto vs cpu with the device hidden (CUDA_VISIBLE_DEVICES='')"
CUDA_VISIBLE_DEVICES='' timeout 120 "$B/bench_ntt" --benchmark_filter='cpu_batch/(MLDSA|PN10QP27|n1024_q60)/' \
  --benchmark_out="$O/bench_nodevice.json" --benchmark_out_format=json > "$O/bench_nodevice.txt" 2>&1
log "rc=$?"
fi

if command -v python3 > /dev/null; then
  python3 bench/ntt/summarize.py "$O/bench_cpu1.json" "$O/bench_cpu_batch.json" "$O/bench_gpu.json" \
    --nodevice "$O/bench_nodevice.json" > "$O/summary.md" 2>&1
  log "summary rc=$?"; cat "$O/summary.md" >> "$O/log.txt"
fi
