#!/usr/bin/env python3
"""tempo's signers against the peers': ratios from scripts/device/sig_peers.sh's raw.txt.

usage: peer_ratios.py RAW.txt [--json-prefix PREFIX] [--meta KEY=VALUE]...

RAW.txt holds blocks after marker lines "## round=R set=S run=peer|tempo"; in each block the
line with sign_ms= and verify_ms= is the result (the PERK team's driver, faest-avx's
faest_bench.c and tempo's sig_peer all print one). Prints Markdown: per set and operation,
each side's median over rounds and the ratio tempo / peer taken inside each round
(min / median / max), against the issues' targets, checked on the median:
    PERK level 1 (fast, short)   sign and verify: tempo / peer <= 0.7
    FAEST-128f                   sign <= 0.55 ms, verify <= 0.45 ms (tempo's median, absolute)
    FAEST-128s                   sign <= 3.5 ms
--json-prefix P writes P_perk.json and P_faest.json (the rounds, medians and ratios flat).
Exit status 1 when a block has no result line, or a line says verify_failures other than 0."""
import json
import re
import statistics
import sys

MARK = re.compile(r"^## round=(\d+) set=(\S+) run=(peer|tempo)")
NUM = re.compile(r"\b(sign_ms|verify_ms|keygen_ms|p99_sign_ms|p99_verify_ms)=([0-9.]+)")
FAIL = re.compile(r"verify_failures=(\d+)")
RATIO_TARGETS = {"perk-1-fast": {"sign": 0.7, "verify": 0.7}, "perk-1-short": {"sign": 0.7, "verify": 0.7}}
ABS_TARGETS = {"faest-128f": {"sign": 0.55, "verify": 0.45}, "faest-128s": {"sign": 3.5}}


def parse(path):
    """{(set, round, side): {sign_ms: .., verify_ms: ..}}, error count"""
    res, errors, cur = {}, 0, None
    with open(path, errors="replace") as f:
        for line in f:
            m = MARK.match(line)
            if m:
                if cur is not None and cur not in res:
                    print(f"no result line in round {cur[1]} {cur[0]} {cur[2]}", file=sys.stderr)
                    errors += 1
                cur = (m.group(2), int(m.group(1)), m.group(3))
                continue
            vals = dict((k, float(v)) for k, v in NUM.findall(line))
            if cur is not None and "sign_ms" in vals and "verify_ms" in vals:
                res[cur] = vals
                fm = FAIL.search(line)
                if fm and int(fm.group(1)) != 0:
                    print(f"verify failures in round {cur[1]} {cur[0]} {cur[2]}: {line.strip()}", file=sys.stderr)
                    errors += 1
    if cur is not None and cur not in res:
        errors += 1
    return res, errors


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    raw, prefix, meta = argv[1], None, {}
    i = 2
    while i < len(argv):
        if argv[i] == "--json-prefix":
            prefix = argv[i + 1]
            i += 2
        elif argv[i] == "--meta":
            k, _, v = argv[i + 1].partition("=")
            meta[k] = v
            i += 2
        else:
            print(f"unknown argument {argv[i]}", file=sys.stderr)
            return 2
    res, errors = parse(raw)
    sets = sorted({k[0] for k in res}, key=lambda s: (not s.startswith("perk"), s))
    out = {"perk": [], "faest": []}
    print("| set | op | peer median (ms) | tempo median (ms) | tempo / peer: min / median / max | rounds | target | met |")
    print("| --- | --- | ---: | ---: | --- | ---: | --- | --- |")
    for s in sets:
        rounds = sorted({k[1] for k in res if k[0] == s})
        for op in ("sign", "verify"):
            peer = {r: res[(s, r, "peer")][op + "_ms"] for r in rounds if (s, r, "peer") in res}
            tempo = {r: res[(s, r, "tempo")][op + "_ms"] for r in rounds if (s, r, "tempo") in res}
            both = [r for r in rounds if r in peer and r in tempo]
            if not both:
                continue
            ratios = [tempo[r] / peer[r] for r in both]
            row = {"set": s, "op": op, "rounds": both, "peer_ms": [peer[r] for r in both],
                   "tempo_ms": [tempo[r] for r in both], "ratios": ratios,
                   "peer_ms_median": statistics.median(peer[r] for r in both),
                   "tempo_ms_median": statistics.median(tempo[r] for r in both),
                   "ratio_min": min(ratios), "ratio_median": statistics.median(ratios), "ratio_max": max(ratios)}
            target, met = "", None
            if op in RATIO_TARGETS.get(s, {}):
                t = RATIO_TARGETS[s][op]
                target, met = f"tempo / peer <= {t}", row["ratio_median"] <= t
            elif op in ABS_TARGETS.get(s, {}):
                t = ABS_TARGETS[s][op]
                target, met = f"tempo <= {t} ms", row["tempo_ms_median"] <= t
            row["target"], row["met"] = target, met
            out["perk" if s.startswith("perk") else "faest"].append(row)
            print(f"| {s} | {op} | {row['peer_ms_median']:.3f} | {row['tempo_ms_median']:.3f} | "
                  f"{row['ratio_min']:.2f} / {row['ratio_median']:.2f} / {row['ratio_max']:.2f} | {len(both)} | "
                  f"{target} | {'' if met is None else ('yes' if met else 'no')} |")
    if prefix:
        for fam, rows in out.items():
            if rows:
                with open(f"{prefix}_{fam}.json", "w") as f:
                    json.dump({"meta": meta, "rows": rows}, f, indent=1)
    if not res:
        print("no result lines found", file=sys.stderr)
        return 1
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
