#!/usr/bin/env bash
# tempo::ntt against Intel HEXL on one pinned core, in paired rounds. Each round runs HEXL's
# NTT driver from the peers folder (bin/hexl_ntt: its default dispatch, IFMA for q < 2^50,
# then again with HEXL_DISABLE_AVX512IFMA=1, its AVX512-DQ kernels) and tempo's ntt_peer,
# which times tempo with the driver's own method (the median of REPS runs of 16 transforms
# after 2000 warm-ups, same (n, q) list, plus n=2048 with a 27-bit q and ML-DSA). Odd rounds
# run HEXL first, even rounds tempo first, so the host's drift falls on both sides; every
# ratio is taken inside one round. Many short rounds (the defaults: 15 rounds of 301 runs)
# rather than a few long ones: the host's per-core speed jumps by up to 2x from one moment
# to the next (docs/benchmarks.md, "The host"), which a median of five per-round ratios
# does not absorb; a median of many does better, though it still moves with the host's
# state between calls. About 1 minute with the defaults.
#
#   bash scripts/device/ntt_peers.sh [CARRY]     CARRY: default .carry/dev (pack.sh BUILD ntt)
#
# Env: PEERS    the peers folder, holding bin/hexl_ntt (default ../shared/peers)
#      TASKSET  the pinning prefix of every run (default "taskset -c 2"; empty: none)
#      ROUNDS   rounds (default 15)
#      REPS     medians over REPS runs, both sides (default 301)
#
# Results in $OUT/ntt_peers: raw.txt (every line of every run, each run after a
# "## round=R run=hexl|hexl_dq|tempo" line), ratios.md and bench_peers.json
# (bench/ntt/peer_ratios.py: each side's median over rounds, the per-round ratios tempo /
# HEXL and tempo checked / unchecked, the targets met or not), cpu.txt, log.txt.
set -u
ROUNDS=${ROUNDS:-15}
REPS=${REPS:-301}
# shellcheck source-path=SCRIPTDIR source=peer_rounds.sh
. "$(dirname "$0")/peer_rounds.sh"
peer_setup ntt_peers "${1:-.carry/dev}"
peer_require "ntt_peer: scripts/device/pack.sh BUILD ntt" "$B/ntt_peer" "$P/bin/hexl_ntt"
peer_start 'avx2\|avx512f\|avx512dq\|avx512ifma'

# $T is a command prefix, split into words on purpose; peer_pair calls these (SC2317).
# shellcheck disable=SC2086,SC2317
hexl() {
  peer_run 300 run=hexl env REPS="$REPS" $T "$P/bin/hexl_ntt"
  peer_run 300 run=hexl_dq env REPS="$REPS" HEXL_DISABLE_AVX512IFMA=1 $T "$P/bin/hexl_ntt"
}
# shellcheck disable=SC2086,SC2317
tempo() { peer_run 300 run=tempo env REPS="$REPS" WARM=2000 $T "$B/ntt_peer"; }

log "$ROUNDS rounds, REPS=$REPS, pinned: '$T'"
peer_rounds peer_pair hexl tempo

peer_ratios bench/ntt/peer_ratios.py --json "$O/bench_peers.json" --meta "rounds=$ROUNDS" --meta "reps=$REPS"
exit "$status"
