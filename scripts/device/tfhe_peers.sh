#!/usr/bin/env bash
# tempo::tfhe's gate bootstrap against the TFHE library (tfhe/tfhe, spqlios-fma FFT, its
# default 128-bit gate parameters) on one pinned core, in paired rounds. Each round runs the
# library's gate driver from the peers folder (bin/tfhe_gate: one bootsNAND, gate
# bootstrapping + key switch, timed per gate) and tempo's tfhe_peer, which times one NAND
# through tempo's public API the same way (GATES gates after WARM discarded, the median).
# Odd rounds run the TFHE library first, even rounds tempo first, so the host's drift falls
# on both sides; every ratio is taken inside one round. About 10 s per round with the
# defaults (each side makes its keys first, a second or two, then 210 gates of 10-30 ms).
#
#   bash scripts/device/tfhe_peers.sh [CARRY]     CARRY: default .carry/dev (pack.sh BUILD tfhe)
#
# Env: PEERS    the peers folder, holding bin/tfhe_gate (default ../shared/peers)
#      TASKSET  the pinning prefix of every run (default "taskset -c 2"; empty: none)
#      ROUNDS   rounds (default 3)
#      GATES, WARM  timed and discarded gates per run, both sides (default 200, 10)
#      TEMPO_TFHE_PARAMS  tempo's parameter set (default PN10QP27, 128-bit)
#
# Results in $OUT/tfhe_peers: raw.txt (every line of every run, each run after a
# "## round=R run=tfhe_lib|tempo" line), ratios.md (per round: both medians and
# tempo / TFHE library), bench_peers.json (the same, the median of the per-round ratios and
# the target, ratio <= 0.6, met or not), cpu.txt, log.txt. Exit status 1 when a run fails
# (a gate that decrypts wrong fails its run) or a round lacks a number.
set -u
ROUNDS=${ROUNDS:-3}
GATES=${GATES:-200}
WARM=${WARM:-10}
TARGET=0.6
# shellcheck source-path=SCRIPTDIR source=peer_rounds.sh
. "$(dirname "$0")/peer_rounds.sh"
peer_setup tfhe_peers "${1:-.carry/dev}"
peer_require "tfhe_peer: scripts/device/pack.sh BUILD tfhe" "$B/tfhe_peer" "$P/bin/tfhe_gate"
peer_start 'avx2\|avx512f\|avx512dq\|avx512ifma\|fma'

# $T is a command prefix, split into words on purpose; peer_pair calls these (SC2317).
# shellcheck disable=SC2086,SC2317
peer() { peer_run 600 run=tfhe_lib env GATES="$GATES" WARM="$WARM" $T "$P/bin/tfhe_gate"; }
# shellcheck disable=SC2086,SC2317
tempo() { peer_run 600 run=tempo env GATES="$GATES" WARM="$WARM" $T "$B/tfhe_peer"; }

log "$ROUNDS rounds, GATES=$GATES WARM=$WARM, pinned: '$T'"
peer_rounds peer_pair peer tempo

# Per round: each side's gate_ms (the median gate of its run), the ratio tempo / TFHE library;
# then the median of the rounds' ratios against the target.
awk -v target="$TARGET" -v rounds="$ROUNDS" -v gates="$GATES" -v warm="$WARM" -v taskset="$T" \
    -v cpu="$(cpu_model)" -v params="${TEMPO_TFHE_PARAMS:-PN10QP27}" \
    -v md="$O/ratios.md" -v js="$O/bench_peers.json" '
  /^## round=/ { split($2, a, "="); rd = a[2]; split($3, b, "="); who = b[2]; next }
  /^(tfhe-lib|tempo) gate_ms=/ {
    for (i = 2; i <= NF; ++i) { split($i, kv, "="); if (kv[1] == "gate_ms") ms[rd, who] = kv[2] + 0 }
  }
  END {
    bad = 0; n = 0
    print "| round | TFHE lib gate ms | tempo gate ms | tempo / TFHE lib |" > md
    print "| --- | --- | --- | --- |" > md
    rows = ""
    for (r = 1; r <= rounds; ++r) {
      if (!((r, "tfhe_lib") in ms) || !((r, "tempo") in ms) || ms[r, "tfhe_lib"] <= 0) {
        bad = 1; printf "| %d | missing | missing | - |\n", r > md; continue
      }
      ratio = ms[r, "tempo"] / ms[r, "tfhe_lib"]
      ratios[++n] = ratio
      printf "| %d | %.3f | %.3f | %.3f |\n", r, ms[r, "tfhe_lib"], ms[r, "tempo"], ratio > md
      rows = rows sprintf("%s{\"round\": %d, \"tfhe_lib_ms\": %.4f, \"tempo_ms\": %.4f, \"ratio\": %.4f}",
                          rows == "" ? "" : ", ", r, ms[r, "tfhe_lib"], ms[r, "tempo"], ratio)
    }
    for (i = 1; i <= n; ++i) for (j = i + 1; j <= n; ++j) if (ratios[j] < ratios[i]) { t = ratios[i]; ratios[i] = ratios[j]; ratios[j] = t }
    med = n == 0 ? -1 : (n % 2 ? ratios[(n + 1) / 2] : (ratios[n / 2] + ratios[n / 2 + 1]) / 2)
    met = (n > 0 && med <= target) ? "true" : "false"
    printf "\nmedian ratio over %d rounds: %.3f (target <= %s: %s)\n", n, med, target, met == "true" ? "met" : "NOT met" > md
    printf "{\"measure\": \"gate bootstrap + key switch, one NAND, one core\", \"peer\": \"TFHE library (spqlios-fma, default 128-bit gate parameters)\", " > js
    printf "\"params\": \"%s\", \"cpu\": \"%s\", \"taskset\": \"%s\", \"gates\": %d, \"warm\": %d, \"rounds\": [%s], ", params, cpu, taskset, gates, warm, rows > js
    printf "\"median_ratio\": %.4f, \"target_ratio\": %s, \"target_met\": %s}\n", med, target, met > js
    exit bad
  }' "$O/raw.txt"
rc=$?; ((rc == 0)) || status=1
log "ratios rc=$rc"; tee -a "$O/log.txt" < "$O/ratios.md"
exit "$status"
