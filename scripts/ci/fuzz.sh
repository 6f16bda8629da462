#!/usr/bin/env bash
# Fuzzes tempo-fanout's parsers (S-expression requests, binary requests, daemon
# commands) with libFuzzer from Debian's clang-14, under ASan+UBSan, in its own
# build folder (build/fuzz). First every seed-corpus file is run once, then each
# target is fuzzed for FUZZ_SECONDS (default 60). Inputs the fuzzer finds go to
# build/fuzz/corpus-<target>/, never into the repository; a crash or a broken
# invariant leaves build/fuzz/<target>-crash-* and fails the script.
#   FUZZ_SECONDS=600 scripts/ci/fuzz.sh         # longer run
#   scripts/ci/fuzz.sh binary                   # one target
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${FUZZ_SECONDS:-60}
jobs=${FUZZ_JOBS:-$(nproc)}
dir=${FUZZ_BUILD_DIR:-build/fuzz}
cxx=${FUZZ_CXX:-clang++-14}
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(sexpr binary command)
command -v "$cxx" >/dev/null || { echo "fuzz.sh: $cxx not found (apt-get install clang-14 libclang-rt-14-dev)" >&2; exit 1; }

cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$cxx" \
  -DTEMPO_SANITIZE=address,undefined -DTEMPO_ASSERTIONS=ON -DTEMPO_BUILD_BENCH=OFF -DTEMPO_FUZZ=ON >/dev/null
cmake --build "$dir" -j "$jobs" --target "${targets[@]/#/fanout_fuzz_}"

export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
for t in "${targets[@]}"; do
  exe="$dir/tests/fuzz/fanout_fuzz_$t"
  seeds="tests/data/fanout/corpus/$t"
  echo "== $t: every corpus file once"
  "$exe" "$seeds"/* 2>&1 | tail -n 2
  echo "== $t: fuzzing for ${secs}s"
  work="$dir/corpus-$t"
  mkdir -p "$work"
  rm -f "$dir/$t-"*-*
  "$exe" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$dir/$t-" "$work" "$seeds" 2>&1 | grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss|==[0-9]+==|SUMMARY|INFO: a leak)" || true
  # grep hides libFuzzer's progress lines; the exit status below is what counts.
  if ls "$dir/$t-"crash-* "$dir/$t-"leak-* "$dir/$t-"timeout-* "$dir/$t-"oom-* >/dev/null 2>&1; then
    echo "fuzz.sh: $t found a failing input:" "$dir/$t-"*-* >&2
    exit 1
  fi
done
echo "== fuzzing passed: ${targets[*]} (${secs}s each)"
