#!/usr/bin/env bash
# One device call of the session's final measurements, from carried binaries in
# .carry/dev/{bin,lib} built by a Release (CUDA) build at BUILD_ROOT (the binaries'
# compiled-in data paths point there: it is linked to this checkout).
#   GROUP=a: the offload engine (+ auto grid) and tempo-fanout        (~8 min)
#   GROUP=b: NTT and the runtime                                       (~7 min)
#   GROUP=c: FAEST and TFHE                                            (~6 min)
# Each part's files are packed into $OUT/<part>.tgz (the device returns few files).
set -u
C=$PWD/.carry/dev
root=${BUILD_ROOT:?BUILD_ROOT: the source folder the binaries were built from}
[ -e "$root" ] || { mkdir -p "$(dirname "$root")"; ln -s "$PWD" "$root"; }
export LD_LIBRARY_PATH=$C/lib
FINAL=$OUT
pack() { :; }  # everything goes back in all.tgz (the device returns few files)
mkdir -p "$FINAL/work"
part() {  # name, command...
  local name=$1; shift
  echo "######## $name ($(date -u +%T))"
  OUT=$FINAL/work "$@" 2>&1 | tail -n 60
  pack "$name"
}
case ${GROUP:-a} in
  a)
    part engine env ENGINE_GRID=1 bash scripts/device/engine.sh "$C"
    part fanout bash scripts/device/fanout.sh "$C/bin"
    ;;
  b)
    part ntt bash scripts/device/ntt.sh "$C"
    part runtime bash scripts/device/runtime.sh "$C"
    ;;
  c)
    mkdir -p "$FINAL/work/faest"
    OUT=$FINAL/work/faest bash scripts/device/faest.sh "$C/bin" 2>&1 | tail -n 30; pack faest
    part tfhe env TFHE_FAILURES=20000 bash scripts/device/tfhe.sh "$C"
    ;;
esac
tar czf "$FINAL/all.tgz" -C "$FINAL" work && rm -rf "$FINAL/work"
echo "######## done ($(date -u +%T))"
