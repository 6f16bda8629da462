#!/usr/bin/env bash
# tempo's signers against the peers' on one pinned core, in paired rounds: PERK (the PERK
# team's optimized AVX2 code, bin/perk_1-fast_aes_aes and bin/perk_1-short_aes_aes) and FAEST
# (faest-avx, bin/faest_128f_avx2 and bin/faest_128s_avx2) from the peers folder, and tempo's
# sig_peer, which times tempo as those drivers time theirs (fresh key pair, 32-byte message,
# keygen / sign / verify each timed, medians after warm-up). Odd rounds run the peer first,
# even rounds tempo first, so the host's drift falls on both sides; every ratio is taken
# inside one round. About 2 minutes with the defaults.
#
#   bash scripts/device/sig_peers.sh [CARRY]     CARRY: default .carry/dev (pack.sh BUILD sig_peer)
#
# Env: PEERS    the peers folder, holding bin/ (default ../shared/peers)
#      TASKSET  the pinning prefix of every run (default "taskset -c 2"; empty: none)
#      ROUNDS   rounds (default 5)
#      SETS     which pairs (default "perk-1-fast perk-1-short faest-128f faest-128s")
#      N_FAST, N_SHORT  iterations per run for the fast/f and short/s sets (default 100, 20)
#
# Results in $OUT/sig_peers: raw.txt (every line, each run after a "## round=R set=S run=peer|tempo"
# line), ratios.md, bench_peers_perk.json and bench_peers_faest.json (bench/sig_peer/peer_ratios.py:
# each side's median over rounds, the per-round ratios tempo / peer, the targets met or not),
# cpu.txt, log.txt.
set -u
ROUNDS=${ROUNDS:-5}
SETS=${SETS:-perk-1-fast perk-1-short faest-128f faest-128s}
N_FAST=${N_FAST:-100}
N_SHORT=${N_SHORT:-20}
# shellcheck source-path=SCRIPTDIR source=peer_rounds.sh
. "$(dirname "$0")/peer_rounds.sh"
peer_setup sig_peers "${1:-.carry/dev}"
peer_require "scripts/device/pack.sh BUILD sig_peer" "$B/sig_peer"
# The PERK team's binaries keep their large arrays on the stack.
ulimit -s 16000 2> /dev/null || log "could not raise the stack limit (the PERK peer may crash)"
peer_start ""

# One set's two runs, on pair's locals (set, n, peer, tempo_set).
# $T is a command prefix, split into words on purpose; peer_pair calls these (SC2317).
# shellcheck disable=SC2086,SC2317
peer_side() { peer_run 300 "set=$set run=peer" $T "${peer[@]}"; }
# shellcheck disable=SC2086,SC2317
tempo_side() { peer_run 300 "set=$set run=tempo" env N="$n" $T "$B/sig_peer" "$tempo_set"; }
# shellcheck disable=SC2317
pair() {  # pair SET: the peer and tempo, in this round's order
  local set=$1 n peer tempo_set
  case $set in
    perk-1-fast) n=$N_FAST; peer=("$P/bin/perk_1-fast_aes_aes" "$n"); tempo_set=perk-1-fast-aes_aes ;;
    perk-1-short) n=$N_SHORT; peer=("$P/bin/perk_1-short_aes_aes" "$n"); tempo_set=perk-1-short-aes_aes ;;
    faest-128f) n=$N_FAST; peer=(env N="$n" "$P/bin/faest_128f_avx2"); tempo_set=faest-128f ;;
    faest-128s) n=$N_SHORT; peer=(env N="$n" "$P/bin/faest_128s_avx2"); tempo_set=faest-128s ;;
    *) log "unknown set $set"; status=1; return ;;
  esac
  peer_pair peer_side tempo_side
}
# shellcheck disable=SC2317
every_set() { for s in $SETS; do pair "$s"; done; }

log "$ROUNDS rounds, sets: $SETS, pinned: '$T'"
peer_rounds every_set

peer_ratios bench/sig_peer/peer_ratios.py --json-prefix "$O/bench_peers" --meta "rounds=$ROUNDS"
exit "$status"
