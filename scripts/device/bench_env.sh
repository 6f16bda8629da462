# Sourced by the device benchmark scripts (loops.sh, promotion.sh):
#   . "$(dirname "$0")/bench_env.sh" NAME [CARRY]
# sets C (the carried folder, default .carry/dev as pack.sh makes it), OUT, a
# fresh work folder W=/tmp/tempo-NAME, LD_LIBRARY_PATH and TB (tempo_bench);
# clears the tempo environment; defines run NAME ARGS...: one tempo_bench run
# (60 s cap) with its JSON in $W/NAME.json and its log in $W/NAME.txt; and
# rayon_uts_paired (at the end).
C=$(cd "${2:-$PWD/.carry/dev}" && pwd)
OUT=${OUT:-$PWD/out}; mkdir -p "$OUT"
W=/tmp/tempo-$1; rm -rf "$W"; mkdir -p "$W"
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
TB=$C/bin/tempo_bench
unset TEMPO_THREADS TEMPO_HEARTBEAT_US TEMPO_IDLE_REQUESTS TEMPO_AGED_PROMOTION TEMPO_EAGER_LOOPS OMP_THREAD_LIMIT
run() {
  local name=$1; shift
  echo "== $name ($(date -u +%T))"
  timeout --signal=INT 60 "$TB" "$@" --benchmark_out="$W/$name.json" --benchmark_out_format=json > "$W/$name.txt" 2>&1
  echo "rc=$?"
}
# rayon_uts_paired K [ROUNDS]: $C/bin/rayon_bench's UTS T3 at 16 threads against
# its own serial walk in paired rounds (default 11), into $OUT/rayon_paired$K.json,
# logged to $OUT/log.txt; nothing when no rayon_bench is carried.
rayon_uts_paired() {
  [[ -x $C/bin/rayon_bench ]] || return 0
  echo "== rayon $1 $(date -u +%T)" >> "$OUT/log.txt"
  timeout 120 "$C/bin/rayon_bench" --threads=16 --uts=T3 --uts_paired="${2:-11}" > "$OUT/rayon_paired$1.json" 2>> "$OUT/log.txt"
  echo "rc=$?" >> "$OUT/log.txt"
}
