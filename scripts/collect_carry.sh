#!/usr/bin/env bash
# Copies the built benchmark binaries and the shared libraries they need into
# .carry/bench (git-ignored) so the device run can take them along:
#   bin/tempo_bench, bin/rayon_bench (if built), lib/*.so.*
# The device host has none of our Debian packages (TBB, Google Benchmark),
# so every non-glibc library travels; LD_LIBRARY_PATH points at lib/ there.
#
# Usage: scripts/collect_carry.sh [BUILD_DIR]   (default /tmp/bench-build)
# Build first:
#   cmake -S . -B /tmp/bench-build -G Ninja -DCMAKE_BUILD_TYPE=Release
#   cmake --build /tmp/bench-build --target tempo_bench rayon_bench
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-/tmp/bench-build}
dest=$repo/.carry/bench

bench_bin=$build/bench/tempo_bench
if [[ ! -x $bench_bin ]]; then
  echo "collect_carry: $bench_bin not found; build it first (see the header of this script)" >&2
  exit 1
fi

rm -rf "$dest"
mkdir -p "$dest/bin" "$dest/lib"
cp "$bench_bin" "$dest/bin/"
if [[ -x $build/bench/rayon_bench ]]; then
  cp "$build/bench/rayon_bench" "$dest/bin/"
else
  echo "collect_carry: no $build/bench/rayon_bench (cmake --build $build --target rayon_bench); Rayon baseline will be skipped" >&2
fi

# Every library the binaries resolve outside glibc's own set, by soname, plus
# tbbmalloc (oneTBB loads it at run time when present).
libs=$( (ldd "$dest"/bin/* | awk '/=> \//{print $3}') | sort -u)
for lib in $libs; do
  case $(basename "$lib") in
    libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*) continue ;;
  esac
  cp -L "$lib" "$dest/lib/"
done
for extra in libtbbmalloc.so.2; do
  f=/usr/lib/x86_64-linux-gnu/$extra
  [[ -e $f ]] && cp -L "$f" "$dest/lib/"
done

# Provenance for the result files.
{
  echo "collected: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "git: $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo 'no commit') $(git -C "$repo" status --porcelain 2>/dev/null | wc -l) changed files"
  echo "compiler: $(c++ --version | head -1)"
  echo "tbb: $(dpkg-query -W -f='${Version}' libtbb12 2>/dev/null || echo '?')"
  echo "benchmark: $(dpkg-query -W -f='${Version}' libbenchmark1debian 2>/dev/null || echo '?')"
  echo "rayon: $(ls -d /usr/share/cargo/registry/rayon-1.* 2>/dev/null | xargs -n1 basename | tr '\n' ' ')"
} > "$dest/PROVENANCE.txt"

du -sh "$dest"
ls -la "$dest/bin" "$dest/lib"
