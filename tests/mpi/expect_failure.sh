#!/bin/bash
# Usage: expect_failure.sh MPIEXEC RANKS BINARY
# A rank that throws must end the job with a clear error on every rank: mpirun fails,
# and each rank printed "rank R: error: tempo::mpi: rank 1 failed on items [...]".
set -u
mpiexec=$1 ranks=$2 bin=$3
out=$(timeout 120 "$mpiexec" -n "$ranks" --oversubscribe "$bin" 2>&1)
rc=$?
echo "$out"
[ "$rc" -ne 0 ] || { echo "FAIL: mpirun exited 0"; exit 1; }
[ "$rc" -ne 124 ] || { echo "FAIL: the job hung"; exit 1; }
bad=$([ "$ranks" -gt 1 ] && echo 1 || echo 0)
for ((r = 0; r < ranks; r++)); do
  echo "$out" | grep -q "^rank $r: error: tempo::mpi: rank $bad failed on items \[.*disk on fire" ||
    { echo "FAIL: rank $r did not report the error"; exit 1; }
done
echo "ok: $ranks ranks, every rank reported rank $bad's error, mpirun exited $rc"
