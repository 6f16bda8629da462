#!/usr/bin/env python3
"""End-to-end daemon benchmark against cuda-fanout's published figure
(1M x 32 B, binary wire, daemon: 47 ms on an RTX 3090).

Generates the 1M x 32 B binary request, starts `tempo-fanout --daemon`, and times
`process-bin IN OUT` round trips (command written -> "done OUT" read), after one
warm-up. Checks some digests against hashlib.shake_256. Prints and writes JSON.

usage: fanout_daemon_bench.py TEMPO_FANOUT [--n 1000000] [--len 32] [--out-bytes 32]
                              [--reps 10] [--backend auto] [--json FILE] [--dir DIR]
"""
import argparse, hashlib, json, os, random, statistics, struct, subprocess, sys, tempfile, time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exe")
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--len", type=int, default=32)
    ap.add_argument("--out-bytes", type=int, default=32)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--json")
    ap.add_argument("--dir")
    a = ap.parse_args()

    d = a.dir or tempfile.mkdtemp(prefix="tempo-fanout-bench.")
    os.makedirs(d, exist_ok=True)
    inp, outp = os.path.join(d, "in.bin"), os.path.join(d, "out.bin")
    rng = random.Random(1)
    msgs = [rng.randbytes(a.len) for _ in range(a.n)]
    with open(inp, "wb") as f:
        f.write(struct.pack("<II", a.out_bytes, a.n))
        rec = struct.pack("<I", a.len)
        f.write(b"".join(rec + m for m in msgs))

    t0 = time.perf_counter()
    p = subprocess.Popen([a.exe, "--daemon", "--backend", a.backend, "--report"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)

    def call(line):
        t = time.perf_counter()
        p.stdin.write(line + "\n")
        p.stdin.flush()
        ans = p.stdout.readline().strip()
        return (time.perf_counter() - t) * 1e3, ans

    first_ms, ans = call(f"process-bin {inp} {outp}")
    startup_ms = (time.perf_counter() - t0) * 1e3
    if ans != f"done {outp}":
        sys.exit(f"daemon answered {ans!r}")
    times = []
    for _ in range(a.reps):
        ms, ans = call(f"process-bin {inp} {outp}")
        if ans != f"done {outp}":
            sys.exit(f"daemon answered {ans!r}")
        times.append(ms)
    _, bye = call("quit")
    reports = p.stderr.read().strip().splitlines()
    p.wait()

    with open(outp, "rb") as f:
        n, ob = struct.unpack("<II", f.read(8))
        body = f.read()
    ok = n == a.n and ob == a.out_bytes and len(body) == n * ob
    for i in [0, 1, a.n // 2, a.n - 1]:
        ok = ok and body[i * ob:(i + 1) * ob] == hashlib.shake_256(msgs[i]).digest(ob)

    res = {
        "n": a.n, "len": a.len, "out_bytes": a.out_bytes, "backend": a.backend,
        "first_call_ms_incl_startup": first_ms, "startup_to_first_done_ms": startup_ms,
        "round_trip_ms": times, "median_ms": statistics.median(times), "min_ms": min(times),
        "hashes_per_s": a.n / (statistics.median(times) / 1e3),
        "cuda_fanout_published_ms": 47.0, "digests_ok": ok, "bye": bye,
        "daemon_reports": reports[-3:],
    }
    print(json.dumps(res, indent=2))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=2)
    return 0 if ok and bye == "bye" else 1


if __name__ == "__main__":
    sys.exit(main())
