#!/usr/bin/env bash
# The runtime tests (Release) with a CPU hog on every core beside them: tests
# must not depend on getting a core when they want one.
#   bash scripts/ci/hog.sh      (HOG_BUILD_DIR picks the build folder)
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${HOG_BUILD_DIR:-build/release}
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$dir" --target tempo_runtime_tests -j "$(nproc)"

hogs=()
stop_hogs() { for p in "${hogs[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap stop_hogs EXIT
for ((i = 0; i < $(nproc); ++i)); do
  (while :; do :; done) &
  hogs+=($!)
done
echo "== runtime tests beside ${#hogs[@]} CPU hogs"
ctest --test-dir "$dir" --output-on-failure -j 1 -R '^runtime'
echo "== hog: all passed"
