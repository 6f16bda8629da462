#!/usr/bin/env bash
# Two or more builds of tempo on the device host, alternating in one call:
# tempo_paired (Mandelbrot, matmul, UTS T3 at 16 threads) then tempo_overhead
# (trees and fib at 1..16 threads), each build twice in A B [C...] A B [C...]
# order, so the host's drift hits all alike. Each build carries its own
# baselines' rows (oneTBB, libgomp, the serial Task) in the same rounds, so
# compare the builds by those ratios.
#   [PHASES="paired overhead"] [REPS=2] bash scripts/device/oldnew.sh CARRY_A CARRY_B [CARRY_C...]
# ROUNDS and CASES pass through to paired.sh, BIG_NODES to overhead.sh.
# Carries as pack.sh makes them (tempo_paired and tempo_overhead).
# Results: $OUT/<side><rep>/paired_s0.json and overhead_s0.json, sides a, b, c, ...
set -u
(($# >= 2)) || { echo "usage: oldnew.sh CARRY_A CARRY_B [CARRY_C...]" >&2; exit 2; }
carries=("$@"); sides=(a b c d e f)
(($# <= ${#sides[@]})) || { echo "oldnew.sh: at most ${#sides[@]} builds" >&2; exit 2; }
here=$(dirname "$0"); top=$OUT
phases=" ${PHASES:-paired overhead} "
for phase in paired overhead; do
  [[ $phases == *" $phase "* ]] || continue
  for rep in $(seq 1 "${REPS:-2}"); do
    for i in "${!carries[@]}"; do
      side=${sides[$i]}
      echo "== $side$rep $phase ${carries[$i]} ($(date -u +%T))"
      if [ "$phase" = paired ]; then
        OUT=$top/$side$rep bash "$here/paired.sh" "${carries[$i]}" ""
      else
        OUT=$top/$side$rep BIG_NODES=${BIG_NODES:-100000000} bash "$here/overhead.sh" "${carries[$i]}" ""
      fi
    done
  done
done
