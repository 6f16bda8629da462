#!/usr/bin/env bash
# The whole test suite, as CI runs it (.ci/run):
#   1. Release build (warnings are errors) and every ctest entry;
#   2. the same tests under ThreadSanitizer and under AddressSanitizer+UBSan;
#   3. the runtime's stress tests in a chaos build under TSan, and the runtime tests
#      beside a CPU hog on every core;
#   4. libFuzzer on tempo-fanout's parsers (60 s per target) and every corpus file;
#   5. the Python package (pip install ., pytest) and the Doxygen reference (warnings are
#      errors), each when its script exists.
# The MPI tests (1/2/4 ranks under mpirun, failing jobs) are ctest entries of stages 1 and 2:
# scripts/deps.sh installs Open MPI, and stage 1 fails if they are missing from the build.
# ctest runs two tests at a time: every test holds on a busy machine (stage 3 checks that).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
jobs=$(nproc)
start=$SECONDS
stage() { echo "== [$((SECONDS - start)) s] $*"; }

stage "Release build and tests"
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DTEMPO_WERROR=ON >/dev/null
cmake --build build/release -j "$jobs"
ctest --test-dir build/release -N -R '^mpi\.np2$' | grep -q 'Total Tests: 1' ||
  { echo "test.sh: the MPI tests are not in the build (is Open MPI installed?)" >&2; exit 1; }
ctest --test-dir build/release --output-on-failure -j "$jobs"

for san in thread address,undefined; do
  dir=build/san-${san%%,*}
  stage "$san sanitizer build and tests"
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -DNDEBUG" -DTEMPO_SANITIZE="$san" -DTEMPO_ASSERTIONS=ON \
    -DTEMPO_BUILD_BENCH=OFF -DTEMPO_WERROR=ON >/dev/null
  cmake --build "$dir" -j "$jobs"
  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
  ASAN_OPTIONS="detect_leaks=1:abort_on_error=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
    ctest --test-dir "$dir" --output-on-failure -j "$jobs" -LE bench
done

stage "chaos build (TSan) and the runtime beside CPU hogs"
bash scripts/ci/chaos.sh
HOG_BUILD_DIR=build/release bash scripts/ci/hog.sh

stage "fuzzing tempo-fanout's parsers"
FUZZ_SECONDS=${FUZZ_SECONDS:-30} bash scripts/ci/fuzz.sh

for extra in python docs; do
  if [ -f "scripts/ci/$extra.sh" ]; then
    stage "$extra"
    bash "scripts/ci/$extra.sh"
  fi
done
stage "all tests passed"
