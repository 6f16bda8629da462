#!/usr/bin/env bash
# Collects what bench/gpu/device_run.sh needs into one folder to carry to the device
# machine: the three binaries and the shared libraries they load that the device
# image lacks (Google Benchmark, OpenSSL's libcrypto; CUDA's runtime is linked statically).
#   bench/gpu/make_carry.sh BUILD_DIR DEST   (e.g. build-gpu .carry/gpu)
set -eu
B=${1:?BUILD_DIR}; D=${2:?DEST}
mkdir -p "$D/lib"
cp "$B/tests/gpu/tempo_gpu_tests" "$B/bench/gpu/tempo_gpu_bench" "$B/gpu/fanout/tempo-fanout" "$D/"
for exe in "$D/tempo_gpu_tests" "$D/tempo_gpu_bench" "$D/tempo-fanout"; do
  ldd "$exe" | awk '/=> \//{print $3}' | grep -E 'libbenchmark|libcrypto|libtbb|libgomp' | sort -u |
    while read -r lib; do cp -L "$lib" "$D/lib/"; done
done
du -sh "$D"
