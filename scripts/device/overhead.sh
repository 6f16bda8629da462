#!/usr/bin/env bash
# tempo_overhead's paired ratios under each promotion setting, with what the
# scheduler did per run (promotions, steals, sleeps, heartbeats): why the
# repeated 1,023-node sum costs more at 8 and 16 threads than at 1.
# Settings: default, TEMPO_AGED_PROMOTION=1 (also with TEMPO_IDLE_REQUESTS=1),
# and a heartbeat of one second (nothing is ever promoted inside a run: the
# runtime's cost without sharing). The 100M-node tree (BIG_NODES, default
# 100000000) runs under the first two. About 2 minutes.   bash scripts/device/overhead.sh [CARRY]   (default .carry/dev)
# Results: $OUT/overhead_<setting>.json.
set -u
. "$(dirname "$0")/bench_env.sh" overhead "${1:-}"
TO=$C/bin/tempo_overhead
nproc > "$W/machine.txt"
for setting in default aged idle_aged hb1s; do
  case $setting in
    default) env=() ;;
    aged) env=(TEMPO_AGED_PROMOTION=1) ;;
    idle_aged) env=(TEMPO_IDLE_REQUESTS=1 TEMPO_AGED_PROMOTION=1) ;;
    hb1s) env=(TEMPO_HEARTBEAT_US=1000000) ;;
  esac
  big=0; [[ $setting == default || $setting == aged ]] && big=${BIG_NODES:-100000000}
  echo "== $setting ($(date -u +%T))"
  env "${env[@]}" timeout 150 "$TO" --threads=1,2,4,8,16 --pairs=21 --big_nodes="$big" \
    > "$OUT/overhead_$setting.json" 2> "$W/$setting.err"
  echo "rc=$? $(cat "$W/$setting.err")"
done
