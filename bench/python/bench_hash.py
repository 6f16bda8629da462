#!/usr/bin/env python3
"""Batch hashing from Python: tempo.hash_batch against hashlib in a loop and against
hashlib spread over a concurrent.futures thread pool (hashlib releases the GIL for inputs
over 2 KiB only, so short messages do not scale with threads there).

Each row: the median of --reps timed runs after one warm-up, in messages/s and ns/message.
Writes JSON to bench/results/python/bench_hash.json (or --out).

    python bench/python/bench_hash.py [--count 200000] [--sizes 32,1024] [--threads 0]
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import pathlib
import platform
import statistics
import time

import numpy as np

import tempo


def timed(fn, reps):
    fn()  # warm-up (pool threads, engine state, caches)
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def hashlib_one(alg, out_bytes):
    if alg.startswith("shake"):
        return lambda m: hashlib.new(alg, m).digest(out_bytes)
    return lambda m: hashlib.new(alg, m).digest()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=200_000, help="messages per batch")
    ap.add_argument("--sizes", default="32,1024", help="message lengths in bytes")
    ap.add_argument("--algorithms", default="shake_256,sha3_256")
    ap.add_argument("--threads", type=int, default=0, help="tempo and executor threads (0: all cores)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--out", default=str(pathlib.Path(__file__).resolve().parents[1] / "results" / "python" /
                                         "bench_hash.json"))
    args = ap.parse_args()

    tempo.set_threads(args.threads)
    threads = tempo.get_threads()
    rows = []
    rng = np.random.default_rng(1)
    for alg in args.algorithms.split(","):
        out_bytes = {"sha3_224": 28, "sha3_256": 32, "sha3_384": 48, "sha3_512": 64}.get(alg, 32)
        one = hashlib_one(alg, out_bytes)
        for size in (int(s) for s in args.sizes.split(",")):
            arr = rng.integers(0, 256, size=(args.count, size), dtype=np.uint8)
            msgs = [bytes(r) for r in arr]  # what scripts usually hold: a list of bytes
            ref = [one(m) for m in msgs[:100]]
            assert [bytes(r) for r in tempo.hash_batch(alg, msgs[:100], out_bytes)] == ref
            variants = {
                "hashlib loop": lambda: [one(m) for m in msgs],
                f"hashlib ThreadPoolExecutor({threads})": lambda: list(ex.map(one, msgs, chunksize=1024)),
                "tempo.hash_batch(list of bytes)": lambda: tempo.hash_batch(alg, msgs, out_bytes,
                                                                           backend=args.backend),
                "tempo.hash_batch(2-D array, zero-copy)": lambda: tempo.hash_batch(alg, arr, out_bytes,
                                                                                  backend=args.backend),
            }
            with concurrent.futures.ThreadPoolExecutor(max_workers=threads) as ex:
                base = None
                for name, fn in variants.items():
                    sec = timed(fn, args.reps)
                    base = base or sec
                    row = {"algorithm": alg, "msg_bytes": size, "out_bytes": out_bytes, "count": args.count,
                           "variant": name, "threads": 1 if name == "hashlib loop" else threads,
                           "seconds": sec, "msgs_per_s": args.count / sec, "ns_per_msg": sec * 1e9 / args.count,
                           "speedup_vs_hashlib_loop": base / sec}
                    if name.startswith("tempo"):
                        row["ran_on"] = tempo.last_report().ran_on
                    rows.append(row)
                    print(f"{alg:10} {size:6} B  {name:40} {row['ns_per_msg']:9.1f} ns/msg "
                          f"{row['msgs_per_s'] / 1e6:8.3f} M/s  x{row['speedup_vs_hashlib_loop']:.2f}", flush=True)

    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    meta = {"python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count(),
            "tempo_threads": threads, "cuda_compiled": tempo.cuda_compiled(), "devices": tempo.device_count(),
            "backend": args.backend, "reps": args.reps, "numpy": np.__version__,
            "date": time.strftime("%Y-%m-%d %H:%M:%S %Z")}
    out.write_text(json.dumps({"context": meta, "rows": rows}, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
