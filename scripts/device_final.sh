#!/usr/bin/env bash
# Last device run: the tempo rows of the final code (equal-part loop splits,
# idle requests off by default, spin before sleeping), each beside the serial and oneTBB rows of the
# same run, the same with TEMPO_IDLE_REQUESTS=1 where it matters, and the
# idle-pool CPU cost. Results packed into $OUT/final.tgz.
set -u
C=$PWD/.carry/bench; W=/tmp/tempo-final; mkdir -p $W
export LD_LIBRARY_PATH=$C/lib
TB=$C/bin/tempo_bench
S=(--threads=1,2,4,8,16,32 --fib_n=32 --uts=T1,T3 --skynet_log10=6 --mandel_size=2048 --mandel_iters=1000
   --reduce_n=1000000000 --matmul_n=2048 --saxpy_n=1048576)
run() { local name=$1 cap=$2; shift 2; echo "== $name"; timeout --signal=INT "$cap" "$TB" "${S[@]}" "$@" \
  --benchmark_out=$W/$name.json --benchmark_out_format=json > $W/$name.txt 2>&1; echo "rc=$?"; }
$C/bin/tempo_idle_cpu 16 5 > $W/idle_cpu.json; cat $W/idle_cpu.json
run tree1000 40 --tree_nodes=1000 --benchmark_filter='^tree_sum/(serial|tempo)/' --benchmark_repetitions=3 --benchmark_min_time=0.1
run loops_1thread 60 --threads=1 --benchmark_filter='^(saxpy|reduce)/(serial|tempo|tbb)' --benchmark_repetitions=5 --benchmark_min_time=0.3
TEMPO_IDLE_REQUESTS=1 run tree1000_idle_requests 15 --threads=16 --tree_nodes=1000 --benchmark_filter='^tree_sum/tempo/' --benchmark_repetitions=3 --benchmark_min_time=0.1
run tree100m 45 --tree_nodes=100000000 --benchmark_filter='^tree_sum/(serial|tempo)/' --benchmark_repetitions=3 --benchmark_min_time=0.01
run uts 45 --threads=1,16 --benchmark_filter='^uts_T[13]/(serial|tempo|tbb_task_group)/' --benchmark_min_time=0.2
TEMPO_IDLE_REQUESTS=1 run uts_idle_requests 15 --threads=16 --benchmark_filter='^uts_T[13]/tempo/' --benchmark_min_time=0.2
run mandelbrot 30 --threads=16 --benchmark_filter='^mandelbrot/(serial|tempo|tbb)/' --benchmark_min_time=0.2
run matmul 30 --threads=8,16 --benchmark_filter='^matmul/(tempo|tbb)/' --benchmark_min_time=0.1
run fib 20 --benchmark_filter='^fib/(serial|tempo)/' --benchmark_min_time=0.2
run skynet 20 --benchmark_filter='^skynet/(serial|tempo)/' --benchmark_min_time=0.2
tar czf $OUT/final.tgz -C $W .
for f in $W/*.txt; do echo "== $f"; grep -E "^(tree|uts|mandel|matmul|fib)" $f | grep -v "_stddev\|_cv\|_mean" | sed 's/  */ /g' | awk '{print $1, $NF}'; done
