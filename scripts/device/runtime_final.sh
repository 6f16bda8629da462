#!/usr/bin/env bash
# Every issue-11 figure in one call of about 3 minutes: overhead.sh
# (tempo_overhead: trees and fib, 1..16 threads, paired with the serial Task),
# rayon_bench's UTS T3 at 16 threads against its own serial walk in paired
# rounds (before and after paired.sh), paired.sh with 15 rounds
# (tempo_paired: Mandelbrot, matmul, UTS T3 at 16 threads against oneTBB and
# libgomp in the same rounds) and the idle pool's CPU use.
#   bash scripts/device/runtime_final.sh [CARRY]
# CARRY (default .carry/dev) holds bin/tempo_overhead, bin/tempo_paired,
# bin/tempo_idle_cpu (pack.sh) and, if present, bin/rayon_bench (bench/rayon).
# Results: $OUT/overhead_s0.json, rayon_paired{1,2}.json, paired_s0.json,
# idle_cpu.json, log.txt (each step's time and exit status).
set -u
here=$(dirname "$0")
. "$here/bench_env.sh" runtime_final "${1:-}"
step() { echo "== $1 $(date -u +%T)" >> "$OUT/log.txt"; }
step overhead
bash "$here/overhead.sh" "$C" "" >> "$OUT/log.txt" 2>&1
rayon_uts_paired 1
step paired
ROUNDS=15 bash "$here/paired.sh" "$C" "" >> "$OUT/log.txt" 2>&1
rayon_uts_paired 2
step idle
timeout 30 "$C/bin/tempo_idle_cpu" 16 5 > "$OUT/idle_cpu.json" 2>> "$OUT/log.txt"; echo "rc=$?" >> "$OUT/log.txt"
