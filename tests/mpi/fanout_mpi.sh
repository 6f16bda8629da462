#!/bin/bash
# Usage: fanout_mpi.sh MPIEXEC TEMPO_FANOUT
# tempo-fanout --mpi under mpirun with 1, 2 and 4 ranks gives the single-process result:
# binary outputs byte for byte, S-expression outputs byte for byte up to the
# (timing-ms ...) part (wall-clock times, which differ between any two runs), plain and
# in daemon mode (answers included), for empty, one-message, uniform and mixed-length
# requests, and a bad request fails the same way.
set -u
mpiexec=$1 fan=$2
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# Requests: n messages; uniform 32 B or mixed 0..300 B (deterministic bytes).
python3 - "$dir" <<'PY'
import struct, sys, os
d = sys.argv[1]
def msgs(n, mixed):
    out = []
    for i in range(n):
        ln = (i * 37) % 301 if mixed else 32
        out.append(bytes((i * 7 + j * 13) & 0xff for j in range(ln)))
    return out
for name, n, mixed in [("empty", 0, False), ("one", 1, False), ("uniform", 5000, False), ("mixed", 3000, True)]:
    m = msgs(n, mixed)
    with open(os.path.join(d, name + ".bin"), "wb") as f:
        f.write(struct.pack("<II", 48, n))
        for x in m: f.write(struct.pack("<I", len(x)) + x)
    with open(os.path.join(d, name + ".sx"), "w") as f:
        f.write("(cuda-shake-fanout (output-bytes 48) (inputs" + "".join(' "%s"' % x.hex() for x in m) + "))\n")
open(os.path.join(d, "bad.sx"), "w").write("(cuda-shake-fanout (output-bytes 48) (inputs \"abc\"))\n")
PY
[ $? -eq 0 ] || fail "python3 could not write the requests"
strip() { sed 's/(timing-ms.*//' "$1"; }
# Small chunks so that every request spans several distributed batches.
export TEMPO_FANOUT_CHUNK_BYTES=20000 TEMPO_BACKEND=cpu
for r in empty one uniform mixed; do
  "$fan" --binary "$dir/$r.bin" "$dir/$r.bin.ref" || fail "single process, $r.bin"
  "$fan" "$dir/$r.sx" "$dir/$r.sx.ref" || fail "single process, $r.sx"
done
"$fan" "$dir/bad.sx" "$dir/bad.out" 2> "$dir/bad.ref"; [ $? -eq 1 ] || fail "bad request: single process did not exit 1"
for np in 1 2 4; do
  run() { timeout 120 "$mpiexec" -n $np --oversubscribe "$fan" --mpi "$@"; }
  for r in empty one uniform mixed; do
    run --binary "$dir/$r.bin" "$dir/$r.bin.$np" || fail "np=$np $r.bin: exit $?"
    cmp "$dir/$r.bin.ref" "$dir/$r.bin.$np" || fail "np=$np $r.bin differs"
    run "$dir/$r.sx" "$dir/$r.sx.$np" || fail "np=$np $r.sx: exit $?"
    cmp <(strip "$dir/$r.sx.ref") <(strip "$dir/$r.sx.$np") || fail "np=$np $r.sx differs"
  done
  run "$dir/bad.sx" "$dir/bad.out" 2> "$dir/bad.$np"; rc=$?
  [ $rc -ne 0 ] || fail "np=$np bad request: exit 0"
  grep -qF "$(cat "$dir/bad.ref")" "$dir/bad.$np" || fail "np=$np bad request: another message: $(cat "$dir/bad.$np")"
  # Daemon: the same commands, the same answers, the same files.
  {
    for r in uniform mixed one; do echo "process-bin $dir/$r.bin $dir/$r.bin.d$np"; echo "process $dir/$r.sx $dir/$r.sx.d$np"; done
    echo "process $dir/bad.sx $dir/bad.d$np"; echo "frobnicate"; echo "quit"
  } > "$dir/cmds.$np"
  timeout 120 "$mpiexec" -n $np --oversubscribe "$fan" --mpi --daemon < "$dir/cmds.$np" > "$dir/answers.$np" || fail "np=$np daemon: exit $?"
  sed "s/\.d$np/.dref/g" "$dir/cmds.$np" | "$fan" --daemon > "$dir/answers.ref" || fail "daemon, single process"
  cmp <(sed "s/\.dref/.d$np/g" "$dir/answers.ref") "$dir/answers.$np" || { diff "$dir/answers.ref" "$dir/answers.$np"; fail "np=$np daemon answers differ"; }
  for r in uniform mixed one; do
    cmp "$dir/$r.bin.dref" "$dir/$r.bin.d$np" || fail "np=$np daemon $r.bin differs"
    cmp <(strip "$dir/$r.sx.dref") <(strip "$dir/$r.sx.d$np") || fail "np=$np daemon $r.sx differs"
  done
  echo "ok: $np ranks"
done
