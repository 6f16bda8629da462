#!/usr/bin/env bash
# Two builds of tempo on the device host, alternating in one call: tempo_paired
# (Mandelbrot, matmul, UTS T3 at 16 threads) then tempo_overhead (trees and fib
# at 1..16 threads), each build twice in A B A B order, so the host's drift hits
# both alike. Each build carries its own baselines' rows (oneTBB, libgomp, the
# serial Task) in the same rounds, so compare the builds by those ratios.
#   [PHASES="paired overhead"] bash scripts/device/oldnew.sh CARRY_A CARRY_B
# ROUNDS and CASES pass through to paired.sh, BIG_NODES to overhead.sh.
# Carries as pack.sh makes them (tempo_paired and tempo_overhead).
# Results: $OUT/{a,b}{1,2}/paired_s0.json and overhead_s0.json.
set -u
a=${1:?usage: oldnew.sh CARRY_A CARRY_B}; b=${2:?}
here=$(dirname "$0"); top=$OUT
phases=" ${PHASES:-paired overhead} "
[[ $phases == *" paired "* ]] && for rep in 1 2; do
  for side in a b; do
    carry=$a; [ "$side" = b ] && carry=$b
    echo "== $side$rep paired ($(date -u +%T))"
    OUT=$top/$side$rep bash "$here/paired.sh" "$carry" ""
  done
done
[[ $phases == *" overhead "* ]] && for rep in 1 2; do
  for side in a b; do
    carry=$a; [ "$side" = b ] && carry=$b
    echo "== $side$rep overhead ($(date -u +%T))"
    OUT=$top/$side$rep BIG_NODES=${BIG_NODES:-100000000} bash "$here/overhead.sh" "$carry" ""
  done
done
