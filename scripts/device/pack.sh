#!/usr/bin/env bash
# Packs binaries from a Release build into a carry folder for the device machine:
# bin/ (the executables, stripped), lib/ (every shared library they resolve outside
# glibc's own set: the device host has none of our Debian packages) and PROVENANCE.txt.
#
#   scripts/device/pack.sh BUILD ITEM...        (DEST=.carry/dev by default)
#
# An ITEM is a family, which stands for the targets its device script runs, or a target:
#   runtime  tempo_overhead tempo_paired tempo_idle_cpu tempo_bench rayon_bench
#   engine   tempo_gpu_tests tempo_keccak_offload_tests tempo_engine_bench tempo_gpu_bench
#            tempo_offload_example bench_keccak
#   ntt      tempo_ntt_tests bench_ntt ntt_peer   (ntt.sh and ntt_peers.sh)
#   tfhe     tempo_tfhe_tests bench_tfhe tfhe_peer   (tfhe.sh and tfhe_peers.sh)
#   faest    tempo_faest_tests bench_faest sig_peer      (faest.sh and sig_peers.sh)
#   perk     tempo_perk_tests bench_perk sig_peer        (perk.sh and sig_peers.sh)
#   fanout   tempo-fanout tempo_fanout_tests
#   all      all of the above
# (mpi and python have packers of their own: scripts/device/mpi.sh --pack, and the wheels
# in scripts/device/python.sh's header.) A family's target that was not built is left out
# with a warning (its script then skips the rows that need it); a target named on its own
# must exist. Build first, e.g.:
#   cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90
#   cmake --build build/release                       # rayon_bench: --target rayon_bench
set -eu
B=${1:?usage: pack.sh BUILD ITEM... (see the header)}; shift
(($#)) || { echo "pack.sh: name at least one family or target" >&2; exit 2; }
D=${DEST:-.carry/dev}

family() {
  case $1 in
    runtime) echo tempo_overhead tempo_paired tempo_idle_cpu tempo_bench rayon_bench ;;
    engine) echo tempo_gpu_tests tempo_keccak_offload_tests tempo_engine_bench tempo_gpu_bench \
                 tempo_offload_example bench_keccak ;;
    ntt) echo tempo_ntt_tests bench_ntt ntt_peer ;;
    tfhe) echo tempo_tfhe_tests bench_tfhe tfhe_peer ;;
    faest) echo tempo_faest_tests bench_faest sig_peer ;;
    perk) echo tempo_perk_tests bench_perk sig_peer ;;
    fanout) echo tempo-fanout tempo_fanout_tests ;;
    all) for f in runtime engine ntt tfhe faest perk fanout; do family "$f"; done ;;
  esac
}

rm -rf "$D"; mkdir -p "$D/bin" "$D/lib"
missing=0
for item in "$@"; do
  targets=$(family "$item")
  optional=1
  [ -n "$targets" ] || { targets=$item; optional=0; }
  for exe in $targets; do
    f=$(find "$B" -type f -name "$exe" -perm -u+x | head -1)
    if [ -z "$f" ]; then
      if ((optional)); then echo "pack.sh: $exe not built in $B: left out" >&2; else missing=1; echo "pack.sh: missing $exe" >&2; fi
      continue
    fi
    cp "$f" "$D/bin/"
    strip "$D/bin/$exe" 2>/dev/null || true
  done
done
((missing == 0)) || exit 1

# Every library the binaries resolve outside glibc's own set, plus tbbmalloc (oneTBB
# loads it at run time when present).
for lib in $(ldd "$D"/bin/* 2>/dev/null | awk '/=> \//{print $3}' | sort -u); do
  case $(basename "$lib") in
    libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*) continue ;;
  esac
  cp -L "$lib" "$D/lib/"
done
f=/usr/lib/x86_64-linux-gnu/libtbbmalloc.so.2
[ ! -e "$f" ] || cp -L "$f" "$D/lib/"

{
  echo "packed: $(date -u +%Y-%m-%dT%H:%M:%SZ) from $B"
  echo "git: $(git rev-parse --short HEAD 2>/dev/null || echo '?') ($(git status --porcelain 2>/dev/null | wc -l) changed files)"
  echo "compiler: $(c++ --version | head -1)"
  echo "tbb: $(dpkg-query -W -f='${Version}' libtbb12 2>/dev/null || echo '?')"
  echo "benchmark: $(dpkg-query -W -f='${Version}' libbenchmark1debian 2>/dev/null || echo '?')"
} > "$D/PROVENANCE.txt"
du -sh "$D"
