# shellcheck shell=bash
# Sourced by scripts/device/runtime.sh: the environment of a runtime benchmark.
#   . "$(dirname "$0")/bench_env.sh"
# Clears every setting the runtime reads (a published figure is of the defaults), sets OUT
# (default ./out) and defines:
#   use_carry DIR             C=DIR (absolute) and LD_LIBRARY_PATH=DIR/lib first;
#   step NAME                 logs NAME and the time to $LOG;
#   rayon_uts_paired FILE [ROUNDS]
#                             $C/bin/rayon_bench's UTS T3 at 16 threads against its own
#                             serial walk in paired rounds (default 11) into FILE; nothing
#                             when no rayon_bench is carried.
unset TEMPO_THREADS TEMPO_HEARTBEAT_US TEMPO_IDLE_REQUESTS TEMPO_AGED_PROMOTION TEMPO_EAGER_LOOPS OMP_THREAD_LIMIT
OUT=${OUT:-$PWD/out}; mkdir -p "$OUT"
LOG=${LOG:-$OUT/log.txt}
base_ld_path=${LD_LIBRARY_PATH:-}
use_carry() {
  C=$(cd "$1" && pwd) || { echo "no carry folder $1" >&2; exit 1; }
  export LD_LIBRARY_PATH=$C/lib${base_ld_path:+:$base_ld_path}
}
step() { echo "== $* $(date -u +%T)" | tee -a "$LOG"; }
rayon_uts_paired() {
  [[ -x $C/bin/rayon_bench ]] || return 0
  step "rayon_bench UTS T3, paired rounds -> $(basename "$1")"
  timeout 120 "$C/bin/rayon_bench" --threads=16 --uts=T3 --uts_paired="${2:-11}" > "$1" 2>> "$LOG"
  echo "rc=$?" >> "$LOG"
}
