#!/usr/bin/env bash
# tempo_overhead's paired ratios under each setting, with what the scheduler
# did per run (promotions, steals, sleeps, heartbeats): why the repeated
# 1,023-node sum costs more at 8 and 16 threads under one setting than another.
#   bash scripts/device/overhead.sh [CARRY [SETTING...]]
# CARRY: default .carry/dev. A SETTING is a space-separated list of VAR=VALUE
# ("" for the defaults). The default list: the defaults; aging and idle
# requests off (the promotion of tempo before 2026-12-02's fifth session); a
# heartbeat of one second (nothing is promoted inside a run: the runtime's cost
# without sharing). The first two also sum the 100M-node tree (BIG_NODES,
# default 100000000). About 40 s per setting with the big tree, 10 s without.
# Results: $OUT/overhead_s<k>.json per setting, $OUT/overhead_settings.txt.
set -u
. "$(dirname "$0")/bench_env.sh" overhead "${1:-}"
shift || true
(($#)) || set -- "" "TEMPO_AGED_PROMOTION=0 TEMPO_IDLE_REQUESTS=0" "TEMPO_HEARTBEAT_US=1000000"
TO=$C/bin/tempo_overhead
k=0
for s in "$@"; do
  big=0; ((k < 2)) && big=${BIG_NODES:-100000000}
  echo "s$k: $s" >> "$OUT/overhead_settings.txt"
  echo "== s$k: ${s:-defaults} ($(date -u +%T))"
  # shellcheck disable=SC2086  # a setting is a list of words
  env $s timeout 150 "$TO" --threads=1,2,4,8,16 --pairs=21 --big_nodes="$big" \
    > "$OUT/overhead_s$k.json" 2> "$W/s$k.err"
  echo "rc=$? $(cat "$W/s$k.err")"
  k=$((k + 1))
done
