#!/usr/bin/env bash
# tempo as a dependency, four ways, each from scratch (and, when built, the API reference
# installed under share/doc/tempo/html):
#  1. find_package(tempo CONFIG) of the runtime alone, with the CUDA toolkit made
#     unfindable: the runtime must not need it;
#  2. find_package(tempo CONFIG COMPONENTS keccak): loads gpu too, hashes;
#  3. pkg-config (tempo.pc) with a plain g++ command line;
#  4. FetchContent into a Debug project (build type kept, no tests added);
#  5. find_package(tempo CONFIG COMPONENTS mpi), when tempo::mpi was built: loads MPI
#     and its tempo dependencies; run as one rank (MPI singleton, no mpirun).
set -euo pipefail
build_dir=$1; source_dir=$2; tempo_source=$(cd "$source_dir/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cmake --install "$build_dir" --prefix "$scratch/prefix" >/dev/null
if grep -q '^TEMPO_BUILD_DOCS:BOOL=ON' "$build_dir/CMakeCache.txt"; then
  echo "== the API reference is installed"
  test -s "$scratch/prefix/share/doc/tempo/html/index.html"
fi
echo "== runtime only, no CUDA toolkit"
cmake -S "$source_dir/consumer" -B "$scratch/b1" -DCMAKE_PREFIX_PATH="$scratch/prefix" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON >/dev/null
cmake --build "$scratch/b1" >/dev/null
"$scratch/b1/consumer"
echo "== COMPONENTS keccak"
cmake -S "$source_dir/components" -B "$scratch/b2" -DCMAKE_PREFIX_PATH="$scratch/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$scratch/b2" >/dev/null
"$scratch/b2/consumer"
if command -v pkg-config >/dev/null; then
  echo "== pkg-config"
  export PKG_CONFIG_PATH="$scratch/prefix/lib/pkgconfig"
  # shellcheck disable=SC2046
  g++ -O1 "$source_dir/consumer/main.cpp" -o "$scratch/pc" $(pkg-config --cflags --libs tempo)
  "$scratch/pc"
fi
if [ -f "$scratch/prefix/lib/cmake/tempo/tempo-mpi-targets.cmake" ]; then
  echo "== COMPONENTS mpi"
  cmake -S "$source_dir/mpi" -B "$scratch/b5" -DCMAKE_PREFIX_PATH="$scratch/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$scratch/b5" >/dev/null
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "$scratch/b5/consumer"
fi
echo "== FetchContent, Debug parent"
cmake -S "$source_dir/fetch" -B "$scratch/b4" -DTEMPO_SOURCE_DIR="$tempo_source" -DCMAKE_BUILD_TYPE=Debug -G Ninja >/dev/null
cmake --build "$scratch/b4" --target consumer >/dev/null
"$scratch/b4/consumer"
