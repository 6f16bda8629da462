#!/usr/bin/env bash
# tempo-fanout on the device machine: its tests (GPU paths included), then the daemon
# benchmark (a binary request of 1M x 32-byte messages read, hashed and written, median of
# the end-to-end time with the load/hash/write breakdown) in the settings that matter:
# files on tmpfs (in the page cache) and on disk, with and without fsync, streamed or whole
# reads, backends auto, cuda and cpu, three chunk sizes. About 1-2 minutes; the benchmark
# needs python3 (skipped without it).
#
#   bash scripts/device/fanout.sh [CARRY]     CARRY: default .carry/dev (pack.sh BUILD fanout)
#
# Results in $OUT/fanout: device.txt, tests.log, daemon_<setting>.json, summary.txt.
set -uo pipefail
carry=$(cd "${1:-.carry/dev}" && pwd) || exit 1
bin=$carry/bin
here=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$here/out}/fanout
mkdir -p "$out"
export LD_LIBRARY_PATH="$carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
shm=/dev/shm/tempo-fanout-bench.$$
disk=$here/build/tempo-fanout-bench.$$
mkdir -p "$shm" "$disk"
trap 'rm -rf "$shm" "$disk"' EXIT

{
  nvidia-smi -L 2>&1
  echo "cpus: $(nproc)"
  uname -r
  df -T /dev/shm "$disk" 2>&1
} > "$out/device.txt"

echo "== fanout tests"
TEMPO_FANOUT_EXE="$bin/tempo-fanout" timeout 400 "$bin/tempo_fanout_tests" -r compact > "$out/tests.log" 2>&1
echo "tests rc=$?: $(grep -v "^\s*$" "$out/tests.log" | tail -n 1)" | tee "$out/summary.txt"

if ! command -v python3 >/dev/null; then
  echo "no python3: daemon benchmark skipped" | tee -a "$out/summary.txt"
  exit 0
fi
bench() {
  local label=$1
  shift
  timeout 150 python3 "$here/bench/apps/fanout_daemon_bench.py" "$bin/tempo-fanout" --label "$label" \
    --json "$out/daemon_$label.json" "$@" > "$out/daemon_$label.log" 2>&1
  local rc=$?
  python3 - "$out/daemon_$label.json" "$label" "$rc" <<'PY' | tee -a "$out/summary.txt"
import json, sys
path, label, rc = sys.argv[1:]
try:
    r = json.load(open(path))
except Exception as e:
    print(f"{label:22s} rc={rc} no result ({e})"); sys.exit()
b = r["breakdown"]
print(f"{label:22s} median {r['median_ms']:7.2f} ms (min {r['min_ms']:6.2f})  load {b.get('load_ms_median', -1):6.2f} "
      f"[read {b.get('read_ms_median', -1):5.2f} parse {b.get('parse_ms_median', -1):5.2f}]  "
      f"hash {b.get('hash_ms_median', -1):6.2f}  write {b.get('write_ms_median', -1):6.2f} "
      f"[commit {b.get('commit_ms_median', -1):5.2f} writer {b.get('writer_ms_median', -1):6.2f}]  "
      f"{r['filesystem']} fsync={r['fsync']} streamed={r.get('streamed')} ok={r['digests_ok']} rc={rc}")
PY
}
echo "== daemon benchmark (1M x 32 B)"
bench auto_shm --dir "$shm"
bench auto_shm_whole --dir "$shm" --no-stream
bench auto_disk_nofsync --dir "$disk" --no-fsync
bench auto_disk_fsync --dir "$disk"
bench cuda_shm --dir "$shm" --backend cuda
bench auto_shm_chunk1M --dir "$shm" --chunk-bytes 1048576
bench auto_shm_chunk16M --dir "$shm" --chunk-bytes 16777216
bench auto_shm_chunk64M --dir "$shm" --chunk-bytes 67108864
bench cpu_shm --dir "$shm" --backend cpu --reps 5
echo "results in $out"
