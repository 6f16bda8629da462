#!/usr/bin/env bash
# Tuning sweep for host-to-host throughput (10M x 32 B SHAKE256): stream threads per
# device (all of them serve pageable batches; TEMPO_GPU_PINNED_STREAMS serve pinned
# ones) and the chunk cap. Results to $OUT/sweep.
set -u
C=${1:?usage: sweep.sh CARRY_DIR}
O=$OUT/sweep; mkdir -p "$O"
export LD_LIBRARY_PATH=$C/lib
F='BM_gpu_h2h_(pinned|pageable)/len:32/N:10000000/'
for cfg in ${SWEEP:-12,4,8 12,4,16 16,4,8 8,3,16 12,6,16 12,4,24}; do
  set -- ${cfg//,/ }
  echo "== streams=$1 pinned_streams=$2 chunk=${3}MB"
  TEMPO_GPU_STREAMS=$1 TEMPO_GPU_PINNED_STREAMS=$2 TEMPO_GPU_CHUNK_MB=$3 timeout 60 "$C/bin/tempo_gpu_bench" \
    --benchmark_filter="$F" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
    --benchmark_out="$O/s$1_p$2_c$3.json" --benchmark_out_format=json 2>&1 |
    grep median | grep -oE '^BM_gpu_h2h_[a-z]+|items_per_second=[0-9.]+[GMk]/s' | paste -sd' '
done
