# shellcheck shell=bash disable=SC2034  # C, B, P, T, O, status: the caller's
# Sourced by the peer scripts (ntt_peers.sh, tfhe_peers.sh, sig_peers.sh): tempo against a
# peer's binary on one pinned core, in paired rounds. Defines:
#   peer_setup NAME CARRY   C=CARRY (absolute) and B=$C/bin, P=the peers folder ($PEERS,
#                           default ../shared/peers), T=the pinning prefix of every run
#                           ($TASKSET, default "taskset -c 2"; empty: none), O=$OUT/NAME
#                           (OUT default ./out; created), LD_LIBRARY_PATH with $C/lib first.
#                           Exits 1 where CARRY or the peers folder is missing.
#   log TEXT...             "== TEXT" to stdout and $O/log.txt.
#   peer_require HINT FILE...
#                           exits 1, logging "missing FILE (HINT)", unless every FILE runs.
#   peer_start FLAGS        $O/cpu.txt (the CPU's model, its cores, the /proc/cpuinfo flags
#                           matching the grep pattern FLAGS unless empty, the pinning, the
#                           load), the carry's PROVENANCE.txt, an empty $O/raw.txt, status=0.
#   peer_run LIMIT TAG CMD...
#                           one run of CMD (killed after LIMIT seconds), its lines into
#                           raw.txt after the marker line "## round=R TAG" (TAG: key=value
#                           words, e.g. "run=tempo"); logs "round R <TAG's values> rc=N";
#                           status=1 where the run fails.
#   peer_rounds CMD...      CMD once per round R = 1 .. $ROUNDS (R: $r, as peer_run reads it).
#   peer_pair PEER TEMPO    the functions PEER then TEMPO in odd rounds, TEMPO then PEER in
#                           even ones, so the host's drift falls on both sides; every ratio
#                           is taken inside one round.
#   cpu_model               the CPU's model name.
#   peer_ratios SCRIPT ARGS...
#                           python3 SCRIPT $O/raw.txt ARGS... --meta taskset=$T --meta
#                           cpu=<model> into $O/ratios.md, appended to log.txt; status=1
#                           where it fails; without python3 a log line says so.
# The caller sets ROUNDS and its own settings, calls peer_setup, peer_require, peer_start,
# then peer_rounds with its runs (peer_run inside peer_pair), and exits with $status.

peer_setup() {
  local name=$1 carry=$2
  C=$(cd "$carry" && pwd) || exit 1
  P=$(cd "${PEERS:-../shared/peers}" 2> /dev/null && pwd) || {
    echo "$name.sh: no peers folder ${PEERS:-../shared/peers} (set PEERS)" >&2
    exit 1
  }
  O=${OUT:-$PWD/out}/$name
  mkdir -p "$O"
  export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  B=$C/bin
  T=${TASKSET-taskset -c 2}
}

log() { echo "== $*" | tee -a "$O/log.txt"; }

peer_require() {
  local hint=$1 f
  shift
  for f in "$@"; do
    [ -x "$f" ] || { log "missing $f ($hint)"; exit 1; }
  done
}

cpu_model() { grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'; }

peer_start() {
  local flags=$1
  {
    grep -m1 "model name" /proc/cpuinfo
    nproc
    [ -z "$flags" ] || grep -o -w "$flags" /proc/cpuinfo | sort -u
    echo "taskset: $T"
    echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
  } > "$O/cpu.txt"
  [ ! -f "$C/PROVENANCE.txt" ] || cp "$C/PROVENANCE.txt" "$O/"
  : > "$O/raw.txt"
  status=0
}

peer_run() {
  local limit=$1 tag=$2 word values=""
  shift 2
  echo "## round=$r $tag" >> "$O/raw.txt"
  timeout "$limit" "$@" >> "$O/raw.txt" 2>&1
  local rc=$?
  ((rc == 0)) || status=1
  for word in $tag; do values+=" ${word#*=}"; done
  log "round $r$values rc=$rc"
}

peer_rounds() {
  for ((r = 1; r <= ROUNDS; r++)); do "$@"; done
}

peer_pair() {
  if ((r % 2)); then "$1"; "$2"; else "$2"; "$1"; fi
}

peer_ratios() {
  local script=$1
  shift
  if command -v python3 > /dev/null; then
    python3 "$script" "$O/raw.txt" "$@" --meta "taskset=$T" --meta "cpu=$(cpu_model)" > "$O/ratios.md" 2>&1
    local rc=$?
    ((rc == 0)) || status=1
    log "ratios rc=$rc"
    cat "$O/ratios.md" >> "$O/log.txt"
  else
    log "no python3: ratios.md not written (run $script on raw.txt)"
  fi
}
