#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, then configures, builds and
# runs a consumer project that uses find_package(tempo CONFIG).
set -euo pipefail
build_dir=$1; source_dir=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cmake --install "$build_dir" --prefix "$scratch/prefix" >/dev/null
cmake -S "$source_dir/consumer" -B "$scratch/build" -DCMAKE_PREFIX_PATH="$scratch/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$scratch/build" >/dev/null
"$scratch/build/consumer"
