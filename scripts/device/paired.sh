#!/usr/bin/env bash
# tempo_paired on the device host: Mandelbrot, matmul and UTS T3 at 16 threads
# against oneTBB and libgomp in paired rounds, once per setting.
#   bash scripts/device/paired.sh [CARRY [SETTING...]]
# CARRY: default .carry/dev (as pack.sh makes it). A SETTING is a
# space-separated list of VAR=VALUE given to tempo_paired's environment ("" for
# the defaults); the default list is "" and TEMPO_HEARTBEAT_US=1000 (what the
# heartbeat's latency costs). CASES (default mandelbrot,matmul,uts) and ROUNDS
# (default 21) pass through. About 50 s per setting with every case.
# Results: $OUT/paired_s<k>.json per setting, $OUT/paired_settings.txt.
set -u
. "$(dirname "$0")/bench_env.sh" paired "${1:-}"
shift || true
(($#)) || set -- "" "TEMPO_HEARTBEAT_US=1000"
TP=$C/bin/tempo_paired
args=(--threads=16 --rounds="${ROUNDS:-21}" --mandel_size=2048 --mandel_iters=1000 --matmul_n=2048 --uts=T3
      --cases="${CASES:-mandelbrot,matmul,uts}")
k=0
for s in "$@"; do
  echo "s$k: $s" >> "$OUT/paired_settings.txt"
  echo "== s$k: ${s:-defaults} ($(date -u +%T))"
  # shellcheck disable=SC2086  # a setting is a list of words
  env $s timeout 250 "$TP" "${args[@]}" > "$OUT/paired_s$k.json"; echo "rc=$?"
  k=$((k + 1))
done
