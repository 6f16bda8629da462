#!/usr/bin/env bash
# tempo::tfhe on the device machine. About 8 minutes.
#
#   bash scripts/device/tfhe.sh [CARRY]     CARRY: default .carry/dev (pack.sh BUILD tfhe,
#                                           from a CUDA Release build)
#
# Results in $OUT/tfhe: junit XML of the tests, Google Benchmark JSON per run, summary.json
# (exit codes), log.txt. Order: the CUDA path's own tests first (a wrong kernel stops nothing else, but read
# gpu.txt first), then the two byte-equality gates (1000 seeds x 6 parameter sets, cpu vs
# cuda), then benchmarks (CPU rows, GPU rows, encrypted ADD on both, failure rate on the
# device). Knobs: TFHE_EQUIV_SEEDS (1000), TFHE_FAILURES (100000 bootstraps per set, on
# the device), TFHE_MUL256=1 also runs the encrypted 256-bit MUL on the device,
# TFHE_SKIP_CPU_BENCH=1 skips the CPU rows, TFHE_PARTS picks sections (default
# "gpu tests equiv bench_gpu shapes bench_cpu", plus mul with TFHE_MUL256=1; "shapes" times the
# kernel's shapes: batches of 1,024 and 16,384 and one gate under each of
# TEMPO_TFHE_GPU_MAX_GROUP=1/4/6 x TEMPO_TFHE_GPU_STAGE_KEY=0/1, PN10QP27L3; "doubled", not in
# the default, times TEMPO_TFHE_GPU_DOUBLE_THREADS=256 against 384; "resident", not in the
# default, TEMPO_TFHE_GPU_RESIDENT_GROUPS=1 against 0), TFHE_SETS the GPU
# benchmarks' parameter sets (default "PN10QP27 PN10QP27L3 PN10QP27L3G2 PN11QP54"). A short run, e.g.:
#   TFHE_PARTS="gpu bench_gpu mul" TFHE_SETS=PN10QP27 TFHE_FAILURES=0 bash scripts/device/tfhe.sh
set -u
PARTS=" ${TFHE_PARTS:-gpu tests equiv bench_gpu shapes bench_cpu} "
[ "${TFHE_SKIP_CPU_BENCH:-0}" != 1 ] || PARTS=${PARTS/ bench_cpu / }
[ "${TFHE_MUL256:-0}" != 1 ] || PARTS="$PARTS mul "
part() { [[ $PARTS == *" $1 "* ]]; }
C=$(cd "${1:-.carry/dev}" && pwd) || exit 1
O=${OUT:-$PWD/out}/tfhe; mkdir -p "$O"
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
B=$C/bin
# The KAT corpus from this checkout (the binaries' compiled-in path is the build host's).
export TEMPO_TFHE_DATA_DIR=${TEMPO_TFHE_DATA_DIR:-$PWD/tests/data/tfhe}
log() { echo "== $*" | tee -a "$O/log.txt"; }
declare -A RC
nproc > "$O/nproc.txt"; lscpu > "$O/lscpu.txt" 2>&1; nvidia-smi > "$O/nvidia-smi.txt" 2>&1

if part gpu; then
log "CUDA path: emulation + device byte-equality ([cuda-emulated], [gpu]; TOY256, PN10QP27 and PN10QP27L3, 256 seeds)"
TEMPO_TFHE_TEST_THREADS=0 timeout 240 "$B/tempo_tfhe_tests" "[cuda-emulated],[gpu]" -r junit -o "$O/gpu.xml" \
  > "$O/gpu.txt" 2>&1; RC[gpu]=$?; log "rc=${RC[gpu]}"; grep -E "byte-equal|skipped|passed|failed" "$O/gpu.txt" | tee -a "$O/log.txt"
fi

if part tests; then
log "tests (default sizes, every area)"
timeout 240 "$B/tempo_tfhe_tests" -r junit -o "$O/tests.xml" > "$O/tests.txt" 2>&1; RC[tests]=$?; log "rc=${RC[tests]}"
tail -3 "$O/tests.txt"
fi

if part equiv; then
log "byte-equality gates: ${TFHE_EQUIV_SEEDS:-1000} seeds x 6 sets, dispatch (cpu vs cuda) and selector (TEMPO_BACKEND=cuda vs cpu)"
TEMPO_BACKEND=cuda TEMPO_TFHE_FULL=1 TEMPO_TFHE_EQUIV_SEEDS=${TFHE_EQUIV_SEEDS:-1000} TEMPO_TFHE_EQUIV_KEYGENS=2 \
  TEMPO_TFHE_TEST_THREADS=0 timeout 480 "$B/tempo_tfhe_tests" "[equiv]" -r junit -o "$O/equiv.xml" > "$O/equiv.txt" 2>&1
RC[equiv]=$?; log "rc=${RC[equiv]}"; grep -E "byte-equal|passed|failed" "$O/equiv.txt" | tee -a "$O/log.txt"
fi

N=${TFHE_FAILURES:-100000}
part bench_gpu && for P in ${TFHE_SETS:-PN10QP27 PN10QP27L3 PN10QP27L3G2 PN11QP54}; do
  log "GPU benchmarks $P: batches 256..16384, single-gate latency, ADD-256 on cuda, failure rate over $N bootstraps on cuda"
  ADD=0; case $P in PN10QP27 | PN10QP27L3 | PN10QP27L3G2) ADD=256 ;; esac
  timeout 500 "$B/bench_tfhe" --params=$P --threads=$(nproc) --add_bits=0 --mul_bits=0 --gpu_add_bits=$ADD \
    --gpu_mul_bits=0 --failure_bootstraps=$N --failure_backend=cuda --benchmark_filter='gpu_|cuda|failure' \
    --benchmark_out="$O/bench_gpu_$P.json" --benchmark_out_format=json > "$O/bench_gpu_$P.txt" 2>&1
  RC[bench_gpu_$P]=$?; log "rc=${RC[bench_gpu_$P]}"; grep -vE "^\*\*\*" "$O/bench_gpu_$P.txt" | tail -10 | tee -a "$O/log.txt"
done

part shapes && for G in 1 4 6; do
  for K in 0 1; do
    log "GPU kernel shape: max group $G, staged key $K (PN10QP27L3, batches 1024 and 16384, one gate)"
    TEMPO_TFHE_GPU_MAX_GROUP=$G TEMPO_TFHE_GPU_STAGE_KEY=$K timeout 200 "$B/bench_tfhe" --params=PN10QP27L3 \
      --threads="$(nproc)" --add_bits=0 --mul_bits=0 --gpu_add_bits=0 --gpu_mul_bits=0 --gpu_batches=1024,16384 \
      --failure_bootstraps=0 --benchmark_filter='gpu_' --benchmark_out="$O/bench_shape_g${G}_k$K.json" \
      --benchmark_out_format=json > "$O/bench_shape_g${G}_k$K.txt" 2>&1
    RC[shape_g${G}_k$K]=$?; grep -E "^gpu_" "$O/bench_shape_g${G}_k$K.txt" | tee -a "$O/log.txt"
  done
done

# The doubled shape's threads per bootstrap (TEMPO_TFHE_GPU_DOUBLE_THREADS 256, the default,
# against 384), two rounds alternating, on batches of one to four per SM and ADD-256.
part doubled && for R in 1 2; do
  for D in 256 384; do
    log "GPU doubled shape, round $R: $D threads per bootstrap (PN10QP27L3, batches 133..511, ADD-256)"
    TEMPO_TFHE_GPU_DOUBLE_THREADS=$D timeout 200 "$B/bench_tfhe" --params=PN10QP27L3 --threads=1 --add_bits=0 \
      --mul_bits=0 --gpu_add_bits=256 --gpu_mul_bits=0 --gpu_batches=133,200,264,396,511 --gpu_latency=0 \
      --failure_bootstraps=0 --benchmark_filter='gpu_|cuda' --benchmark_out="$O/bench_doubled_${D}_r$R.json" \
      --benchmark_out_format=json > "$O/bench_doubled_${D}_r$R.txt" 2>&1
    RC[doubled_${D}_r$R]=$?; grep -E "^(gpu_|add)" "$O/bench_doubled_${D}_r$R.txt" | tee -a "$O/log.txt"
  done
done

# The narrow groups' residency choice (TEMPO_TFHE_GPU_RESIDENT_GROUPS 1, the default, against
# 0, both at the doubled shape's default cap), two rounds alternating, on batch sizes where
# the groups' waves alone would pick blocks of one or three, ADD-256 and MUL-256.
part resident && for R in 1 2; do
  for G in 1 0; do
    log "GPU resident groups $G, round $R (PN10QP27L3, batches 462..16384, ADD-256, MUL-256)"
    TEMPO_TFHE_GPU_RESIDENT_GROUPS=$G timeout 200 "$B/bench_tfhe" --params=PN10QP27L3 --threads="$(nproc)" \
      --add_bits=0 --mul_bits=0 --gpu_add_bits=256 --gpu_mul_bits=256 --gpu_batches=462,511,1024,4096,14116,16384 \
      --gpu_latency=0 --failure_bootstraps=0 --benchmark_filter='gpu_|cuda' \
      --benchmark_out="$O/bench_resident_${G}_r$R.json" --benchmark_out_format=json > "$O/bench_resident_${G}_r$R.txt" 2>&1
    RC[resident_${G}_r$R]=$?; grep -E "^(gpu_|add|mul)" "$O/bench_resident_${G}_r$R.txt" | tee -a "$O/log.txt"
  done
done

if part bench_cpu; then
  log "CPU benchmarks PN10QP27 and PN10QP27L3: 1 and $(nproc) threads, ADD-256, MUL-64"
  timeout 400 "$B/bench_tfhe" --params=PN10QP27,PN10QP27L3 --threads=1,$(nproc) --add_bits=256 --mul_bits=64 --gpu_batches= \
    --gpu_latency=0 --gpu_add_bits=0 --benchmark_out="$O/bench_cpu_pn10.json" --benchmark_out_format=json \
    > "$O/bench_cpu.txt" 2>&1; RC[bench_cpu]=$?; log "rc=${RC[bench_cpu]}"
  grep -vE "^\*\*\*" "$O/bench_cpu.txt" | tail -8 | tee -a "$O/log.txt"
fi

if part mul; then
  log "encrypted MUL-256 on cuda (about 100k bootstraps, 24 levels; PN10QP27L3 feeds docs/benchmarks.md)"
  timeout 500 "$B/bench_tfhe" --params=PN10QP27L3,PN10QP27 --threads=$(nproc) --add_bits=0 --mul_bits=0 --gpu_batches= \
    --gpu_latency=0 --gpu_add_bits=0 --gpu_mul_bits=256 --benchmark_filter='mul' \
    --benchmark_out="$O/bench_mul256_cuda.json" --benchmark_out_format=json > "$O/bench_mul.txt" 2>&1
  RC[mul256]=$?; log "rc=${RC[mul256]}"; tail -3 "$O/bench_mul.txt" | tee -a "$O/log.txt"
fi

{ echo "{"; first=1
  for k in "${!RC[@]}"; do [ $first = 1 ] || echo ","; first=0; printf '  "%s": %s' "$k" "${RC[$k]}"; done
  echo; echo "}"; } > "$O/summary.json"
cat "$O/summary.json"
