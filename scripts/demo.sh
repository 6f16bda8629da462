#!/usr/bin/env bash
# Builds tempo (Release) and runs the main demo: the tree-sum comparison on
# this machine's cores. Extra arguments go to the demo (e.g. --nodes=1000).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DTEMPO_BUILD_BENCH=OFF >/dev/null
cmake --build build/release --target tree_sum_demo
./build/release/examples/tree_sum_demo "$@"
