#!/usr/bin/env bash
# tempo::tfhe on the device machine, from carried binaries in $1/bin (tempo_tfhe_tests,
# bench_tfhe; shared libraries in $1/lib if any). Results under $OUT/tfhe. About 3 minutes.
# Build: ninja -C build/<dir> tempo_tfhe_tests bench_tfhe (Release).
# There is no CUDA TFHE path yet: the byte-equality gates compare backend cpu with auto (the
# device-less contract), and a run with TEMPO_TFHE_EQUIV_BACKEND=cuda shows the fail-fast error.
# Knobs: TFHE_MUL256=1 also runs the encrypted 256-bit MUL (about 100k bootstraps: a minute or
# more on 16 cores); TFHE_FAILURES=N bootstraps per set for the failure rate (default 100000
# for PN10QP27, a tenth of it for PN11QP54; the issue asks 100000 for each: TFHE_FAILURES_PN11).
set -u
C=${1:?usage: tfhe.sh CARRY_DIR}
O=$OUT/tfhe; mkdir -p "$O"
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
B=$C/bin
# The KAT corpus from this checkout (the binaries' compiled-in path is the build host's).
export TEMPO_TFHE_DATA_DIR=${TEMPO_TFHE_DATA_DIR:-$PWD/tests/data/tfhe}
log() { echo "== $*" | tee -a "$O/log.txt"; }
nproc > "$O/nproc.txt"; lscpu > "$O/lscpu.txt" 2>&1
log "tests (default sizes)"
timeout 240 "$B/tempo_tfhe_tests" -r junit -o "$O/tests.xml" > "$O/tests.txt" 2>&1; log "rc=$?"; tail -3 "$O/tests.txt"
log "byte-equality gates: 1000 seeds x 3 parameter sets, both surfaces, all cores"
TEMPO_TFHE_FULL=1 TEMPO_TFHE_EQUIV_SEEDS=${TFHE_EQUIV_SEEDS:-1000} TEMPO_TFHE_EQUIV_KEYGENS=2 TEMPO_TFHE_TEST_THREADS=0 \
  timeout 400 "$B/tempo_tfhe_tests" "[equiv]" > "$O/equiv.txt" 2>&1; log "rc=$?"
grep -E "byte-equal|passed|failed" "$O/equiv.txt" | tee -a "$O/log.txt"
log "cuda requested without a CUDA TFHE path (must fail fast)"
TEMPO_TFHE_EQUIV_BACKEND=cuda timeout 60 "$B/tempo_tfhe_tests" "dispatch surface byte-equal between backends" 2>&1 | grep -m2 -E "cuda|FAILED" | tee -a "$O/log.txt"
N=${TFHE_FAILURES:-100000}
log "benchmarks PN10QP27 (+ failure rate over $N bootstraps), 1 and $(nproc) threads, ADD-256, MUL-64"
timeout 400 "$B/bench_tfhe" --params=PN10QP27 --threads=1,$(nproc) --add_bits=256 --mul_bits=64 --failure_bootstraps=$N \
  --benchmark_out="$O/bench_pn10.json" --benchmark_out_format=json 2>&1 | grep -vE "^\*\*\*" | tail -8 | tee -a "$O/log.txt"
N11=${TFHE_FAILURES_PN11:-$((N / 10))}
log "benchmarks PN11QP54 (+ failure rate over $N11 bootstraps)"
timeout 300 "$B/bench_tfhe" --params=PN11QP54 --threads=1,$(nproc) --add_bits=0 --mul_bits=0 --failure_bootstraps=$N11 \
  --benchmark_out="$O/bench_pn11.json" --benchmark_out_format=json 2>&1 | grep -vE "^\*\*\*" | tail -6 | tee -a "$O/log.txt"
if [ "${TFHE_MUL256:-0}" = 1 ]; then
  log "encrypted MUL-256, all cores"
  timeout 500 "$B/bench_tfhe" --params=PN10QP27 --threads=$(nproc) --add_bits=0 --mul_bits=256 \
    --benchmark_filter='mul' --benchmark_out="$O/bench_mul256.json" --benchmark_out_format=json 2>&1 | tail -3 | tee -a "$O/log.txt"
fi
