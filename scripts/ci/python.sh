#!/usr/bin/env bash
# The Python package: `pip install .` into a virtual environment under build/, then pytest
# (which also runs `mypy --strict` on tests/python/typed_user.py against the installed stubs).
#   PYTHON=python3       the interpreter to build for
#   TEMPO_PY_CUDA=auto   build the CUDA kernels only when a CUDA device is visible (on/off force)
#   TEMPO_PY_VENV=build/python-ci-venv
# pip fetches scikit-build-core, nanobind, numpy, pytest and mypy from PyPI on the first run; the
# build folder (build/python-ci-cuda-*) is kept, so later runs rebuild only what changed.
set -euo pipefail
cd "$(dirname "$0")/../.."
start=$SECONDS
py=${PYTHON:-python3}
venv=${TEMPO_PY_VENV:-build/python-ci-venv}

if [ ! -x "$venv/bin/python" ]; then
  if ! "$py" -m venv "$venv" 2>/dev/null; then
    # Debian splits venv and pip out of python3.
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      apt-get install -y -q python3-venv python3-pip >/dev/null
    else
      echo "python.sh: '$py -m venv' failed; install python3-venv (sudo apt-get install python3-venv)" >&2
      exit 1
    fi
    rm -rf "$venv"
    "$py" -m venv "$venv"
  fi
fi
vpy=$(cd "$venv" && pwd)/bin/python  # absolute, not resolved: the venv's own python
"$vpy" -m pip install -q --disable-pip-version-check "scikit-build-core>=0.10" "nanobind>=2.0" "numpy>=1.21" "pytest>=7" "mypy>=1.5"

cuda=${TEMPO_PY_CUDA:-auto}
if [ "$cuda" = auto ]; then
  cuda=OFF
  if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then cuda=ON; fi
fi
echo "python.sh: building the module (CUDA kernels: $cuda)"
# --no-build-isolation: the build tools above, in a stable place, so the build folder stays
# valid between runs. A plain `pip install .` (what the README says) isolates the build.
# One build folder per CUDA choice (the CMake cache remembers it).
TEMPO_PY_CUDA=$cuda CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) \
  "$vpy" -m pip install -q --disable-pip-version-check --no-build-isolation \
  --config-settings=build-dir="build/python-ci-cuda-$cuda/{wheel_tag}" .
echo "python.sh: built in $((SECONDS - start)) s"
# From tests/python, so that `import tempo` is the installed package. TEMPO_PY_NEED_MYPY: the
# typing check fails rather than skips when mypy is missing.
(cd tests/python && TEMPO_PY_NEED_MYPY=1 "$vpy" -m pytest -q -p no:cacheprovider .)
echo "python.sh: done in $((SECONDS - start)) s"
