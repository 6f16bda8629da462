#!/usr/bin/env bash
# The whole test suite: a Release build through ctest, then the same tests
# under ThreadSanitizer and under AddressSanitizer+UBSan (assertions on).
# This is what CI runs (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
jobs=$(nproc)

echo "== Release build and tests"
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j "$jobs"
ctest --test-dir build/release --output-on-failure -j 1

for san in thread address,undefined; do
  dir=build/san-${san%%,*}
  echo "== $san sanitizer build and tests"
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTEMPO_SANITIZE="$san" -DTEMPO_ASSERTIONS=ON \
    -DTEMPO_BUILD_BENCH=OFF >/dev/null
  cmake --build "$dir" -j "$jobs"
  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
  ASAN_OPTIONS="detect_leaks=1:abort_on_error=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
    ctest --test-dir "$dir" --output-on-failure -j 1 -LE bench
done
echo "== all tests passed"
