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
C=$(cd "${1:-.carry/dev}" && pwd) || exit 1
P=$(cd "${PEERS:-../shared/peers}" 2>/dev/null && pwd) || { echo "sig_peers.sh: no peers folder ${PEERS:-../shared/peers} (set PEERS)" >&2; exit 1; }
O=${OUT:-$PWD/out}/sig_peers; mkdir -p "$O"
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
B=$C/bin
T=${TASKSET-taskset -c 2}
ROUNDS=${ROUNDS:-5}
SETS=${SETS:-perk-1-fast perk-1-short faest-128f faest-128s}
N_FAST=${N_FAST:-100}
N_SHORT=${N_SHORT:-20}
log() { echo "== $*" | tee -a "$O/log.txt"; }
[ -x "$B/sig_peer" ] || { log "missing $B/sig_peer (scripts/device/pack.sh BUILD sig_peer)"; exit 1; }
# The PERK team's binaries keep their large arrays on the stack.
ulimit -s 16000 2> /dev/null || log "could not raise the stack limit (the PERK peer may crash)"
{ grep -m1 "model name" /proc/cpuinfo; nproc; echo "taskset: $T"; echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"; } > "$O/cpu.txt"
[ ! -f "$C/PROVENANCE.txt" ] || cp "$C/PROVENANCE.txt" "$O/"

: > "$O/raw.txt"
status=0
run() {  # run SET peer|tempo CMD...: one run, its lines into raw.txt after the marker
  local set=$1 side=$2; shift 2
  echo "## round=$r set=$set run=$side" >> "$O/raw.txt"
  timeout 300 "$@" >> "$O/raw.txt" 2>&1
  local rc=$?
  ((rc == 0)) || status=1
  log "round $r $set $side rc=$rc"
}
# $T is a command prefix, split into words on purpose.
# shellcheck disable=SC2086
pair() {  # pair SET: the peer and tempo, in this round's order
  local set=$1 n peer tempo_set
  case $set in
    perk-1-fast) n=$N_FAST; peer=("$P/bin/perk_1-fast_aes_aes" "$n"); tempo_set=perk-1-fast-aes_aes ;;
    perk-1-short) n=$N_SHORT; peer=("$P/bin/perk_1-short_aes_aes" "$n"); tempo_set=perk-1-short-aes_aes ;;
    faest-128f) n=$N_FAST; peer=(env N="$n" "$P/bin/faest_128f_avx2"); tempo_set=faest-128f ;;
    faest-128s) n=$N_SHORT; peer=(env N="$n" "$P/bin/faest_128s_avx2"); tempo_set=faest-128s ;;
    *) log "unknown set $set"; status=1; return ;;
  esac
  if ((r % 2)); then
    run "$set" peer $T "${peer[@]}"
    run "$set" tempo env N="$n" $T "$B/sig_peer" "$tempo_set"
  else
    run "$set" tempo env N="$n" $T "$B/sig_peer" "$tempo_set"
    run "$set" peer $T "${peer[@]}"
  fi
}

log "$ROUNDS rounds, sets: $SETS, pinned: '$T'"
for ((r = 1; r <= ROUNDS; r++)); do
  for s in $SETS; do pair "$s"; done
done

if command -v python3 > /dev/null; then
  python3 bench/sig_peer/peer_ratios.py "$O/raw.txt" --json-prefix "$O/bench_peers" --meta "rounds=$ROUNDS" \
    --meta "taskset=$T" --meta "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')" \
    > "$O/ratios.md" 2>&1
  rc=$?; ((rc == 0)) || status=1
  log "ratios rc=$rc"; cat "$O/ratios.md" >> "$O/log.txt"
else
  log "no python3: ratios.md not written (run bench/sig_peer/peer_ratios.py on raw.txt)"
fi
exit $status
