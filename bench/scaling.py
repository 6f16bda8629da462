#!/usr/bin/env python3
"""The scaling targets' ratio from bench_perk or bench_tfhe JSON (Google Benchmark): for each
set, the median over rounds of (items/s on all threads) / (items/s on 1 thread), from the
cpu_scaling rows that run the same batch alternately on 1 thread and on all; and, from the
cpu_ceiling rows of the same rounds (plain threads, no shared pool), the pool's rate as a
share of that ceiling and the ceiling's own ratio to one thread. The rate is the row's
sigs_per_s (PERK) or gates_per_s (TFHE) counter.

usage: scaling.py BENCH.json"""
import json
import re
import statistics
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        rows = json.load(f).get("benchmarks", [])
    rate, ceiling = {}, {}  # (set, round, threads) -> items/s
    for b in rows:
        m = re.match(r"cpu_(scaling|ceiling)/([^/]+)/round:(\d+)/threads:(\d+)/count:(\d+)", b["name"])
        if m:
            into = rate if m.group(1) == "scaling" else ceiling
            into[(m.group(2), int(m.group(3)), int(m.group(4)))] = b.get("sigs_per_s", b.get("gates_per_s"))
    sets = sorted({k[0] for k in rate})
    if not sets:
        sys.exit("scaling.py: no cpu_scaling rows in " + sys.argv[1])
    for s in sets:
        ratios, top = [], 0
        for (name, rnd, threads) in sorted(rate):
            if name != s or threads == 1 or (name, rnd, 1) not in rate:
                continue
            top = threads
            ratios.append(rate[(name, rnd, threads)] / rate[(name, rnd, 1)])
        print("%s: %d threads / 1 thread = %.2fx (median of %d rounds; min %.2fx, max %.2fx)"
              % (s, top, statistics.median(ratios), len(ratios), min(ratios), max(ratios)))
        share = [rate[(s, r, t)] / ceiling[(s, r, t)] for (n, r, t) in sorted(ceiling) if n == s and (s, r, t) in rate]
        bound = [ceiling[(s, r, t)] / rate[(s, r, 1)] for (n, r, t) in sorted(ceiling) if n == s and (s, r, 1) in rate]
        if share:
            print("%s: the pool at %.0f%% of plain threads (median; min %.0f%%, max %.0f%%); plain threads / 1 "
                  "thread = %.2fx (min %.2fx, max %.2fx)"
                  % (s, 100 * statistics.median(share), 100 * min(share), 100 * max(share),
                     statistics.median(bound), min(bound), max(bound)))


if __name__ == "__main__":
    main()
