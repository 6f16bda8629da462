#!/usr/bin/env bash
# The runtime's stress and exception tests in a chaos build (TEMPO_CHAOS=ON:
# random yields and short sleeps at every step of the protocol: push, pop,
# promotion, hand-off, wake-up, sleep) under ThreadSanitizer, assertions on.
#   bash scripts/ci/chaos.sh            (CHAOS_REPEAT=3 runs the tests 3 times)
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${CHAOS_BUILD_DIR:-build/chaos}
repeat=${CHAOS_REPEAT:-1}
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTEMPO_SANITIZE=thread -DTEMPO_CHAOS=ON \
  -DTEMPO_ASSERTIONS=ON -DTEMPO_BUILD_BENCH=OFF -DTEMPO_WERROR=ON >/dev/null
cmake --build "$dir" --target tempo_runtime_tests -j "$(nproc)"
exe=$(find "$dir/tests" -name tempo_runtime_tests -type f -perm -u+x | head -1)
[[ -n $exe ]] || { echo "chaos.sh: tempo_runtime_tests not found under $dir/tests" >&2; exit 1; }
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1"
for ((i = 1; i <= repeat; ++i)); do
  echo "== chaos run $i/$repeat"
  # Catch2: a comma is "or". The groups that exercise every protocol path.
  "$exe" "[stress],[exceptions],[signal],[nested],[loops]"
done
echo "== chaos: all passed"
