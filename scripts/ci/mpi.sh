#!/usr/bin/env bash
# tempo::mpi in CI: builds the MPI tests in their own folder and runs them under Open
# MPI's mpirun on this machine (1, 2 and 4 ranks oversubscribed, plus the failing-job
# checks), through ctest. Installs nothing: Debian packages libopenmpi-dev openmpi-bin
# (scripts/deps.sh). As root, Open MPI needs OMPI_ALLOW_RUN_AS_ROOT=1 and
# OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; the ctest entries set them (tests/mpi/CMakeLists.txt).
#   scripts/ci/mpi.sh                  # Release build in build/ci-mpi
#   MPI_SANITIZE=address,undefined scripts/ci/mpi.sh   # the same under ASan+UBSan
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v mpiexec >/dev/null || { echo "mpi.sh: mpiexec not found (apt-get install libopenmpi-dev openmpi-bin)" >&2; exit 1; }
jobs=${MPI_JOBS:-2}
san=${MPI_SANITIZE:-}
dir=${MPI_BUILD_DIR:-build/ci-mpi${san:+-${san//,/-}}}
args=(-DCMAKE_BUILD_TYPE=Release -DTEMPO_WERROR=ON -DTEMPO_BUILD_BENCH=OFF)
[ -n "$san" ] && args=(-DCMAKE_BUILD_TYPE=Debug -DTEMPO_SANITIZE="$san" -DTEMPO_ASSERTIONS=ON -DTEMPO_BUILD_BENCH=OFF)
cmake -S . -B "$dir" -G Ninja "${args[@]}" >/dev/null
cmake --build "$dir" -j "$jobs" --target tempo_mpi_tests tempo_mpi_fail tempo-fanout
# Leak reports come from Open MPI's own allocations; UBSan stops at the first report.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
ctest --test-dir "$dir" -R '^mpi\.' --output-on-failure
