#!/usr/bin/env bash
# The Python package on the device machine (no network there): installs the wheels carried
# in $1 into a fresh venv, runs tests/python (CUDA tests included when a device is visible)
# and bench/python/bench_hash.py with backend auto and cuda. Results under $OUT/python/.
#
# Build the carried folder here first (CUDA kernels on; same Python minor version as the
# device machine's python3):
#   TEMPO_PY_CUDA=ON build/python-venv/bin/pip wheel . --no-deps -w .carry/python
#   build/python-venv/bin/pip download numpy pytest -d .carry/python
# then: bash scripts/device/python.sh [.carry/python]   (about 2 minutes)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
dist=$(realpath "${1:-.carry/python}")
out=${OUT:-$PWD/out}/python
mkdir -p "$out"
count=${BENCH_COUNT:-1000000}
venv=$(mktemp -d)/venv
if python3 -m venv "$venv" 2>/dev/null; then
  "$venv/bin/pip" install -q --no-index --find-links "$dist" tempo numpy pytest 2>&1 | tee "$out/install.txt"
  py=$venv/bin/python
else  # no venv module there: install into a folder on PYTHONPATH
  python3 -m pip install -q --no-index --find-links "$dist" --target "$venv" tempo numpy pytest 2>&1 \
    | tee "$out/install.txt"
  export PYTHONPATH=$venv
  py=python3
fi
python3 --version | tee "$out/python_version.txt"  # the wheel in $1 must match it (cp311 when built here)
"$py" -c "import tempo; print('cuda_compiled', tempo.cuda_compiled(), 'devices', tempo.device_count())" \
  | tee "$out/context.txt"
(cd tests/python && "$py" -m pytest -q -p no:cacheprovider --junitxml="$out/pytest.xml" . ) 2>&1 \
  | tee "$out/pytest.txt"
backends="auto"
if "$py" -c "import tempo, sys; sys.exit(0 if tempo.device_count() > 0 else 1)"; then backends="auto cuda"; fi
for backend in $backends; do
  "$py" bench/python/bench_hash.py --count "$count" --sizes 32,1024 --reps 3 --backend "$backend" \
    --out "$out/bench_hash_$backend.json" 2>&1 | tee "$out/bench_hash_$backend.txt"
done
