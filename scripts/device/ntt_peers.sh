#!/usr/bin/env bash
# tempo::ntt against Intel HEXL on one pinned core, in paired rounds. Each round runs HEXL's
# NTT driver from the peers folder (bin/hexl_ntt: its default dispatch, IFMA for q < 2^50,
# then again with HEXL_DISABLE_AVX512IFMA=1, its AVX512-DQ kernels) and tempo's ntt_peer,
# which times tempo with the driver's own method (the median of REPS runs of 16 transforms
# after 2000 warm-ups, same (n, q) list, plus n=2048 with a 27-bit q and ML-DSA). Odd rounds
# run HEXL first, even rounds tempo first, so the host's drift falls on both sides; every
# ratio is taken inside one round. About 1 minute with the defaults.
#
#   bash scripts/device/ntt_peers.sh [CARRY]     CARRY: default .carry/dev (pack.sh BUILD ntt)
#
# Env: PEERS    the peers folder, holding bin/hexl_ntt (default ../shared/peers)
#      TASKSET  the pinning prefix of every run (default "taskset -c 2"; empty: none)
#      ROUNDS   rounds (default 3)
#      REPS     medians over REPS runs, both sides (default 2001)
#
# Results in $OUT/ntt_peers: raw.txt (every line of every run, each run after a
# "## round=R run=hexl|hexl_dq|tempo" line), ratios.md and bench_peers.json
# (bench/ntt/peer_ratios.py: each side's median over rounds, the per-round ratios tempo /
# HEXL and tempo checked / unchecked, the targets met or not), cpu.txt, log.txt.
set -u
C=$(cd "${1:-.carry/dev}" && pwd) || exit 1
P=$(cd "${PEERS:-../shared/peers}" 2>/dev/null && pwd) || { echo "ntt_peers.sh: no peers folder ${PEERS:-../shared/peers} (set PEERS)" >&2; exit 1; }
O=${OUT:-$PWD/out}/ntt_peers; mkdir -p "$O"
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
B=$C/bin
T=${TASKSET-taskset -c 2}
ROUNDS=${ROUNDS:-3}
REPS=${REPS:-2001}
log() { echo "== $*" | tee -a "$O/log.txt"; }
for f in "$B/ntt_peer" "$P/bin/hexl_ntt"; do
  [ -x "$f" ] || { log "missing $f (ntt_peer: scripts/device/pack.sh BUILD ntt)"; exit 1; }
done
{ grep -m1 "model name" /proc/cpuinfo; nproc; grep -o -w 'avx2\|avx512f\|avx512dq\|avx512ifma' /proc/cpuinfo | sort -u
  echo "taskset: $T"; echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"; } > "$O/cpu.txt"
[ ! -f "$C/PROVENANCE.txt" ] || cp "$C/PROVENANCE.txt" "$O/"

: > "$O/raw.txt"
status=0
# run NAME ENV... BINARY: one run, its lines into raw.txt after the round's marker.
run() {
  local name=$1; shift
  echo "## round=$r run=$name" >> "$O/raw.txt"
  timeout 300 env REPS="$REPS" "$@" >> "$O/raw.txt" 2>&1
  local rc=$?
  ((rc == 0)) || status=1
  log "round $r $name rc=$rc"
}
# $T is a command prefix, split into words on purpose.
# shellcheck disable=SC2086
hexl() {
  run hexl $T "$P/bin/hexl_ntt"
  run hexl_dq HEXL_DISABLE_AVX512IFMA=1 $T "$P/bin/hexl_ntt"
}
# shellcheck disable=SC2086
tempo() { run tempo WARM=2000 $T "$B/ntt_peer"; }

log "$ROUNDS rounds, REPS=$REPS, pinned: '$T'"
for ((r = 1; r <= ROUNDS; r++)); do
  if ((r % 2)); then hexl; tempo; else tempo; hexl; fi
done

if command -v python3 > /dev/null; then
  python3 bench/ntt/peer_ratios.py "$O/raw.txt" --json "$O/bench_peers.json" --meta "rounds=$ROUNDS" \
    --meta "reps=$REPS" --meta "taskset=$T" --meta "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')" \
    > "$O/ratios.md" 2>&1
  rc=$?; ((rc == 0)) || status=1
  log "ratios rc=$rc"; cat "$O/ratios.md" >> "$O/log.txt"
else
  log "no python3: ratios.md not written (run bench/ntt/peer_ratios.py on raw.txt)"
fi
exit $status
