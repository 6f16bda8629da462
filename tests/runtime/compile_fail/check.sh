#!/usr/bin/env bash
# Each snippet here must fail to compile with the message its first line
# names ("// expect: ..."): the API's requirements give readable errors.
# Usage: check.sh <c++ compiler> <tempo include dir> snippet.cpp...
set -u
cxx=$1 inc=$2; shift 2
fail=0
for f in "$@"; do
  want=$(sed -n '1s|^// expect: ||p' "$f")
  out=$("$cxx" -std=c++20 -fsyntax-only -I"$inc" "$f" 2>&1)
  if [[ $? -eq 0 ]]; then echo "FAIL $f: compiled, expected an error"; fail=1
  elif ! grep -qF -- "$want" <<<"$out"; then echo "FAIL $f: error without '$want':"; head -5 <<<"$out"; fail=1
  else echo "ok   $(basename "$f")"; fi
done
exit $fail
