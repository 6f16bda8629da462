#!/usr/bin/env python3
"""End-to-end daemon benchmark against cuda-fanout's published figure
(1M x 32 B, binary wire, daemon: 47 ms on an RTX 3090; tempo's target: <= 8 ms median).

Generates the 1M x 32 B binary request, starts `tempo-fanout --daemon --report`, and
times `process-bin IN OUT` round trips (command written -> "done OUT" read), after
warm-up. The daemon's --report lines give each request's breakdown on its critical
path: load (read + parse), hash, write (output time not hidden behind hashing,
including commit = fsync + rename + folder fsync); medians are reported. Checks some
digests against hashlib.shake_256. Prints and writes JSON.

usage: fanout_daemon_bench.py TEMPO_FANOUT [--n 1000000] [--len 32] [--out-bytes 32]
         [--reps 10] [--warmup 2] [--backend auto] [--no-fsync] [--threads N]
         [--chunk-bytes B] [--no-stream] [--json FILE] [--dir DIR] [--label TEXT]
"""
import argparse, hashlib, json, os, random, re, statistics, struct, subprocess, sys, tempfile, time

REPORT = re.compile(
    r"load (?P<load>[\d.]+) ms \[read (?P<read>[\d.]+) parse (?P<parse>[\d.]+)\], "
    r"hash (?P<hash>[\d.]+) ms \[in (?P<copy_in>[\d.]+) kernel (?P<kernel>[\d.]+) out (?P<copy_out>[\d.]+) "
    r"cpu (?P<cpu>[\d.]+)\], write (?P<write>[\d.]+) ms \[commit (?P<commit>[\d.]+) writer (?P<writer>[\d.]+)\], "
    r"total (?P<total>[\d.]+) ms, (?P<chunks>\d+) chunks")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exe")
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--len", type=int, default=32)
    ap.add_argument("--out-bytes", type=int, default=32)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--no-fsync", action="store_true")
    ap.add_argument("--threads", type=int)
    ap.add_argument("--chunk-bytes", type=int)
    ap.add_argument("--no-stream", action="store_true", help="TEMPO_FANOUT_STREAM=0: read requests whole")
    ap.add_argument("--json")
    ap.add_argument("--dir")
    ap.add_argument("--label", default="")
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

    cmd = [a.exe, "--daemon", "--backend", a.backend, "--report"]
    if a.no_fsync:
        cmd.append("--no-fsync")
    if a.threads:
        cmd += ["--threads", str(a.threads)]
    env = dict(os.environ)
    if a.chunk_bytes:
        env["TEMPO_FANOUT_CHUNK_BYTES"] = str(a.chunk_bytes)
    if a.no_stream:
        env["TEMPO_FANOUT_STREAM"] = "0"
    err = tempfile.TemporaryFile(mode="w+")
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True, bufsize=1,
                         env=env)

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
    for _ in range(max(0, a.warmup - 1)):
        call(f"process-bin {inp} {outp}")
    times = []
    for _ in range(a.reps):
        ms, ans = call(f"process-bin {inp} {outp}")
        if ans != f"done {outp}":
            sys.exit(f"daemon answered {ans!r}")
        times.append(ms)
    _, bye = call("quit")
    p.wait()
    err.seek(0)
    reports = [l for l in err.read().splitlines() if l.strip()]
    timed = reports[-a.reps:] if len(reports) >= a.reps else reports
    parts = [m.groupdict() for m in (REPORT.search(l) for l in timed) if m]
    breakdown = {}
    for k in ("load", "read", "parse", "hash", "write", "commit", "writer", "total", "kernel", "cpu", "copy_in",
              "copy_out"):
        vals = [float(x[k]) for x in parts]
        if vals:
            breakdown[k + "_ms_median"] = statistics.median(vals)

    with open(outp, "rb") as f:
        n, ob = struct.unpack("<II", f.read(8))
        body = f.read()
    ok = n == a.n and ob == a.out_bytes and len(body) == n * ob
    for i in sorted({0, 1, a.n // 2, a.n - 1}):
        ok = ok and body[i * ob:(i + 1) * ob] == hashlib.shake_256(msgs[i]).digest(ob)

    fs = subprocess.run(["df", "-T", d], capture_output=True, text=True).stdout.strip().splitlines()
    res = {
        "label": a.label, "n": a.n, "len": a.len, "out_bytes": a.out_bytes, "backend": a.backend,
        "fsync": not a.no_fsync, "dir": d, "filesystem": fs[-1].split()[1] if len(fs) > 1 else "?",
        "threads": a.threads, "chunk_bytes": a.chunk_bytes,
        "first_call_ms_incl_startup": first_ms, "startup_to_first_done_ms": startup_ms,
        "round_trip_ms": times, "median_ms": statistics.median(times), "min_ms": min(times),
        "hashes_per_s": a.n / (statistics.median(times) / 1e3),
        "breakdown": breakdown, "streamed": bool(timed) and all(" streamed;" in l for l in timed), "target_ms": 8.0, "meets_target": statistics.median(times) <= 8.0,
        "cuda_fanout_published_ms": 47.0, "digests_ok": ok, "bye": bye,
        "daemon_reports": timed[-3:],
    }
    print(json.dumps(res, indent=2))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=2)
    return 0 if ok and bye == "bye" else 1


if __name__ == "__main__":
    sys.exit(main())
