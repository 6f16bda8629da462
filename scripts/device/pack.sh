#!/usr/bin/env bash
# Packs the binaries the device scripts need into .carry/dev (bin/ and lib/), from a
# Release build folder (default build/lead). Usage: scripts/device/pack.sh [BUILD] [TARGET...]
set -eu
B=${1:-build/lead}; shift || true
D=.carry/dev; rm -rf "$D"; mkdir -p "$D/bin" "$D/lib"
for exe in "$@"; do
  f=$(find "$B" -type f -name "$exe" -perm -u+x | head -1)
  [ -n "$f" ] || { echo "missing $exe" >&2; exit 1; }
  cp "$f" "$D/bin/"
  strip "$D/bin/$exe" 2>/dev/null || true
  ldd "$f" | awk '/=> \//{print $3}' | grep -E 'libbenchmark|libcrypto|libtbb|libgomp|libssl' | sort -u |
    while read -r l; do cp -L "$l" "$D/lib/"; done
done
du -sh "$D"
