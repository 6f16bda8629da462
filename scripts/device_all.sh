#!/usr/bin/env bash
# One device-machine call for every GPU and 16-core figure: the GPU headline
# figures, fan-out grid (N <= 1e7) and daemon end to end, then the CPU
# benchmark suite. Everything is packed into $OUT/results.tgz (the device tool
# returns at most 8 files).   bash scripts/device_all.sh   (after building and
# running scripts/collect_carry.sh BUILD and bench/gpu/make_carry.sh BUILD .carry/gpu)
set -u
G=.carry/gpu; W=/tmp/tempo-results
mkdir -p $W/gpu
export LD_LIBRARY_PATH=$PWD/$G/lib
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $W/gpu/device.txt
timeout 70 $G/tempo_gpu_bench --benchmark_filter='BM_gpu_kernel_variant|BM_gpu_kernel/len:32/N:(10000000|100000000)/|BM_gpu_h2h_pinned/len:32/N:10000000/|BM_gpu_h2h_pageable/len:32/N:10000000/' \
  --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  --benchmark_out=$W/gpu/bench_headline.json --benchmark_out_format=json > $W/gpu/headline.txt 2>&1
timeout 80 $G/tempo_gpu_bench --benchmark_filter='N:(1000|10000|100000|1000000|10000000)/' --benchmark_min_time=0.1 \
  --benchmark_out=$W/gpu/bench_fanout.json --benchmark_out_format=json > $W/gpu/grid.txt 2>&1
timeout 45 python3 bench/gpu/fanout_daemon_bench.py $G/tempo-fanout --json $W/gpu/fanout_daemon.json --dir /tmp/fanout-bench > $W/gpu/daemon.txt 2>&1
timeout 30 $G/bench_keccak --benchmark_min_time=0.2 --benchmark_out=$W/gpu/bench_keccak.json --benchmark_out_format=json > $W/gpu/keccak.txt 2>&1
cat $W/gpu/headline.txt | tail -20
DEADLINE_S=${CPU_DEADLINE_S:-340} bash scripts/device_bench.sh .carry/bench $W/cpu
tar czf $OUT/results.tgz -C $W .
cat $W/cpu/phases.log
