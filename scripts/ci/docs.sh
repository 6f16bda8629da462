#!/usr/bin/env bash
# Documentation check (CI): every code example of the user guide compiles against
# the current public headers, and the Doxygen reference of the public API builds
# with no documentation warning (the Doxyfile sets WARN_AS_ERROR; this script also
# fails if anything was printed as a warning).
#
#   bash scripts/ci/docs.sh            # reference in build/docs/html/index.html
#
# Needs g++ (C++20), python3 and doxygen (Debian's package; scripts/deps.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."

command -v doxygen >/dev/null || { echo "docs.sh: doxygen is not installed (apt-get install doxygen)" >&2; exit 1; }
CXX=${CXX:-g++}

includes=()
for d in runtime/include gpu/include workloads/*/include; do includes+=(-I "$d"); done

echo "== performance tables (README.md, docs/benchmarks.md) match bench/results"; python3 scripts/perf_table.py --check
echo "== guide examples (docs/guide/examples, -fsyntax-only)"
status=0
for f in docs/guide/examples/*.cpp; do
  if "$CXX" -std=c++20 -Wall -Wextra -Wshadow -Wconversion -Werror -fsyntax-only "${includes[@]}" "$f"; then
    echo "ok   $f"
  else
    echo "FAIL $f"
    status=1
  fi
done
[ "$status" -eq 0 ] || { echo "docs.sh: a guide example does not compile" >&2; exit 1; }

echo "== guide snippets (every cpp block of docs/guide/*.md is cut from an example)"
python3 - <<'PY'
import glob, re, sys
examples = {f: open(f).read() for f in glob.glob("docs/guide/examples/*.cpp")}
bad = 0
for md in sorted(glob.glob("docs/guide/*.md")):
    for k, block in enumerate(re.findall(r"```cpp\n(.*?)```", open(md).read(), re.S)):
        if not any(block in text for text in examples.values()):
            print(f"FAIL {md}: cpp block {k + 1} is not in any docs/guide/examples/*.cpp:\n{block}")
            bad += 1
print("ok   every snippet is in an example" if not bad else "")
sys.exit(1 if bad else 0)
PY

echo "== doxygen $(doxygen --version)"
mkdir -p build/docs
log=build/docs/doxygen.log
if ! doxygen Doxyfile >"$log" 2>&1; then
  cat "$log" >&2
  echo "docs.sh: doxygen failed (documentation error above)" >&2
  exit 1
fi
if grep -qiE 'warning|error' "$log"; then
  cat "$log" >&2
  echo "docs.sh: doxygen printed warnings" >&2
  exit 1
fi
echo "ok   build/docs/html/index.html"
