#!/usr/bin/env bash
# Runs a device script with a deadline and always packs what it wrote, so that a run cut
# short by the device's 10-minute limit still brings its partial results back.
#   OUT=... scripts/device/deadline.sh SECONDS NAME command...
# Results: $OUT/NAME.tgz (everything the command wrote under $OUT/work) and $OUT/NAME.log.
set -u
secs=${1:?usage: deadline.sh SECONDS NAME command...}; name=${2:?}; shift 2
final=$OUT; mkdir -p "$final/work"
( export OUT=$final/work; exec setsid "$@" ) > "$final/$name.log" 2>&1 &
pid=$!
end=$((SECONDS + secs))
while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $end ]; do sleep 1; done
if kill -0 "$pid" 2>/dev/null; then
  echo "deadline.sh: $name cut at ${secs} s" >> "$final/$name.log"
  kill -TERM -- "-$pid" 2>/dev/null; sleep 2; kill -KILL -- "-$pid" 2>/dev/null
fi
wait "$pid" 2>/dev/null; echo "deadline.sh: $name rc=$? after $SECONDS s" >> "$final/$name.log"
tar czf "$final/$name.tgz" -C "$final/work" . && rm -rf "$final/work"
tail -n 40 "$final/$name.log"
