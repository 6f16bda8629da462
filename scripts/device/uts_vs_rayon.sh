#!/usr/bin/env bash
# UTS T3 at 16 threads: tempo and oneTBB (tempo_paired) against Rayon
# (rayon_bench --uts_paired), each over its own serial walk in paired rounds,
# alternating the binaries: rayon, tempo_paired from each CARRY in turn, rayon.
# Give a GCC build and a clang build to see tempo at two per-node costs (GCC 12's
# SHA-1 costs 1.2-1.4x LLVM's per node; clang's matches Rust's).
#   bash scripts/device/uts_vs_rayon.sh RAYON_CARRY CARRY...
# RAYON_CARRY holds bin/rayon_bench; each CARRY bin/tempo_paired and lib/.
# ROUNDS (default 11). Results: $OUT/rayon_paired{1,2}.json,
# $OUT/uts_<carry name>.json, $OUT/log.txt. About 20 s per step.
set -u
. "$(dirname "$0")/bench_env.sh" uts_vs_rayon "${1:?usage: uts_vs_rayon.sh RAYON_CARRY CARRY...}"; shift
[[ -x $C/bin/rayon_bench ]] || { echo "uts_vs_rayon.sh: no bin/rayon_bench in $C" >&2; exit 2; }
n=${ROUNDS:-11}
rayon_uts_paired 1 "$n"
for c in "$@"; do
  c=$(cd "$c" && pwd); name=$(basename "$c")
  echo "== tempo_paired $name $(date -u +%T)" >> "$OUT/log.txt"
  LD_LIBRARY_PATH=$c/lib timeout 200 "$c/bin/tempo_paired" --threads=16 --rounds="$n" --uts=T3 --cases=uts \
    > "$OUT/uts_$name.json" 2>> "$OUT/log.txt"
  echo "rc=$?" >> "$OUT/log.txt"
done
rayon_uts_paired 2 "$n"
