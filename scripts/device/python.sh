#!/usr/bin/env bash
# The Python package on the device machine (no network there): installs the wheels carried
# in $1 into a fresh venv, runs tests/python (CUDA tests included when a device is visible)
# and bench/python/bench_hash.py with backend auto and cuda. Results under $OUT/python/.
#
# Build the carried folder here first (CUDA kernels on; same Python minor version as the
# device machine's python3):
#   TEMPO_PY_CUDA=ON build/python-venv/bin/pip wheel . --no-deps -w build/python-dist
#   build/python-venv/bin/pip download numpy pytest -d build/python-dist
# then: bash scripts/device/python.sh build/python-dist   (about 2 minutes)
set -uo pipefail
cd "$(dirname "$0")/../.."
dist=$(realpath "${1:-build/python-dist}")
out=${OUT:-/tmp/out}/python
mkdir -p "$out"
venv=$(mktemp -d)/venv
python3 -m venv "$venv" || { echo "python.sh: python3 -m venv failed" | tee "$out/error.txt"; exit 1; }
"$venv/bin/pip" install -q --no-index --find-links "$dist" tempo numpy pytest 2>&1 | tee "$out/install.txt"
"$venv/bin/python" -c "import tempo; print('cuda_compiled', tempo.cuda_compiled(), 'devices', tempo.device_count())" \
  | tee "$out/context.txt"
(cd tests/python && "$venv/bin/python" -m pytest -q -p no:cacheprovider --junitxml="$out/pytest.xml" . ) 2>&1 \
  | tee "$out/pytest.txt"
for backend in auto cuda; do
  "$venv/bin/python" bench/python/bench_hash.py --count 1000000 --sizes 32,1024 --reps 5 --backend "$backend" \
    --out "$out/bench_hash_$backend.json" 2>&1 | tee "$out/bench_hash_$backend.txt"
done
