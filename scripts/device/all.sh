#!/usr/bin/env bash
# Runs the device scripts of the named families in turn, on the device machine, and packs
# each family's results, with its log, into $OUT/<family>.tgz, also when the family was cut
# short: whatever it wrote comes back.
#
#   bash scripts/device/all.sh [FAMILY...]      (default: every family, in this order)
#
# Families and their scripts (each documents its steps and files in its header):
#   runtime  runtime.sh   the runtime's paired figures           ~3 min
#   engine   engine.sh    the offload engine and Keccak on it      ~5 min
#   fanout   fanout.sh    tempo-fanout's tests and daemon          ~2 min
#   ntt      ntt.sh       NTT tests, CPU = GPU gate, benchmarks    ~3 min
#   ntt_peers ntt_peers.sh tempo::ntt against Intel HEXL, one core ~1 min
#   faest    faest.sh     FAEST known answers, gate, benchmarks    ~4 min
#   perk     perk.sh      PERK known answers, gate, benchmarks     ~4 min
#   sig_peers sig_peers.sh FAEST and PERK against the peers, one core ~2 min
#   tfhe     tfhe.sh      TFHE tests, gates, benchmarks            ~8 min
#   tfhe_peers tfhe_peers.sh tempo::tfhe against the TFHE library, one core ~1 min
#   mpi      mpi.sh       tempo::mpi under mpirun, scaling         ~3 min
#   python   python.sh    the wheel's tests and hashing benchmark  ~2 min
# A device command runs for at most 10 minutes, so every family does not fit in one call:
# run them in groups, e.g. "runtime engine fanout", "ntt ntt_peers faest", "perk sig_peers
# tfhe_peers", "tfhe", "mpi python". The *_peers families also read the peers folder (PEERS,
# default ../shared/peers).
# The comparison suite (runtime.sh --suite) takes a call of its own.
#
# Carries: CARRY (default .carry/dev: scripts/device/pack.sh BUILD all) for every family
# but mpi (MPI_CARRY, default .carry/mpi: mpi.sh --pack) and python (PY_CARRY, default
# .carry/python: python.sh's header). A family whose carry is missing is skipped.
# ALL_DEADLINE_S (default 570) bounds the whole call: each family may use what is left,
# a family that starts with less than a minute left is skipped, and one still running at
# the deadline is stopped (its process group), then packed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/out}; mkdir -p "$OUT"
(($#)) || set -- runtime engine fanout ntt ntt_peers faest perk sig_peers tfhe tfhe_peers mpi python
deadline=$((SECONDS + ${ALL_DEADLINE_S:-570}))
summary=$OUT/all.txt

for family in "$@"; do
  case $family in
    runtime|engine|fanout|ntt|ntt_peers|faest|perk|sig_peers|tfhe|tfhe_peers) carry=${CARRY:-.carry/dev} ;;
    mpi) carry=${MPI_CARRY:-.carry/mpi} ;;
    python) carry=${PY_CARRY:-.carry/python} ;;
    *) echo "all.sh: unknown family '$family' (runtime engine fanout ntt ntt_peers faest perk sig_peers tfhe" \
         "tfhe_peers mpi python)" >&2; exit 2 ;;
  esac
  left=$((deadline - SECONDS))
  if [ ! -d "$carry" ]; then echo "$family: skipped (no carry $carry)" | tee -a "$summary"; continue; fi
  if ((left < 60)); then echo "$family: skipped (${left} s left)" | tee -a "$summary"; continue; fi
  work=$OUT/.work-$family; rm -rf "$work"; mkdir -p "$work"
  log=$OUT/$family.log
  echo "== $family ($(date -u +%T), ${left} s left)" | tee -a "$summary"
  ( export OUT=$work; exec setsid bash "$here/$family.sh" "$carry" ) > "$log" 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 1; done
  if kill -0 "$pid" 2>/dev/null; then
    echo "all.sh: $family stopped at the deadline" >> "$log"
    kill -TERM -- "-$pid" 2>/dev/null; sleep 2; kill -KILL -- "-$pid" 2>/dev/null
  fi
  wait "$pid" 2>/dev/null
  rc=$?
  cp "$log" "$work/"
  tar czf "$OUT/$family.tgz" -C "$work" . && rm -rf "$work"
  echo "$family: rc=$rc, $(du -h "$OUT/$family.tgz" | cut -f1) in $family.tgz" | tee -a "$summary"
  tail -n 15 "$log"
done
