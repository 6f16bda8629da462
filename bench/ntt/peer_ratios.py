#!/usr/bin/env python3
"""tempo::ntt against Intel HEXL: ratios from the lines of ntt_peer and HEXL's hexl_ntt.

usage: peer_ratios.py RAW.txt [--json OUT.json] [--meta KEY=VALUE]...

RAW.txt is what scripts/device/ntt_peers.sh writes: rounds of the two binaries' output,
each block after a marker line "## round=R run=hexl|hexl_dq|tempo" (hexl_dq: HEXL with
HEXL_DISABLE_AVX512IFMA=1). Without markers, each binary's '#' header starts a block
(run from the header, round = the count of that run's blocks so far), so the output of
the peers folder's run.sh parses too. Result lines:

    <hexl|tempo|tempo-unchecked> n=N bits=B q=Q path=P fwd_us=F inv_us=I correct=yes|NO

Prints Markdown: per config and op, each side's median over rounds and the ratio
tempo / HEXL taken inside each round (min / median / max), against the targets
(checked on the median ratio):
    q < 2^31 (n1024_q27, n2048_q27)  tempo / HEXL <= 0.7
    50 and 60 bits                   tempo / HEXL <= 1.0
    ML-DSA (n=256, q=8380417)        forward <= 0.4 us (HEXL has no row: absolute)
    every config                     tempo / tempo-unchecked <= 1.05 (the public call's cost)
n2048_q27 is set against HEXL's n2048_q50 row: HEXL does not time n=2048 with a 27-bit q,
and its IFMA path costs the same for any q < 2^50. HEXL's AVX512-DQ run (HEXL_DISABLE_
AVX512IFMA=1) is listed beside, without a target. --json writes the rounds and ratios flat.
Exit status 1 when a row says correct=NO or no pair of rows was found."""
import json
import re
import statistics
import sys

LINE = re.compile(r"^(hexl|tempo|tempo-unchecked) n=(\d+) bits=(\d+) q=(\d+) path=(\S+) "
                  r"fwd_us=([0-9.]+) inv_us=([0-9.]+) correct=(\S+)")
MARK = re.compile(r"^## round=(\d+) run=(\S+)")
MLDSA_Q = 8380417
ORDER = ["n1024_q27", "n2048_q27", "n1024_q50", "n2048_q50", "n1024_q60", "n2048_q60", "mldsa"]
PROXY = {"n2048_q27": "n2048_q50"}  # tempo config -> HEXL row when HEXL has none of its own


def config_name(n, bits, q):
    return "mldsa" if n == 256 and q == MLDSA_Q else f"n{n}_q{bits}"


def target(config):
    if config == "mldsa":
        return None
    bits = int(config.split("_q")[1])
    return 0.7 if bits < 31 else 1.0


def parse(path):
    """rows: list of dicts, one per result line."""
    rows, rnd, run, pending, blocks = [], None, None, False, {}
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = MARK.match(line)
            if m:  # the next header belongs to this marker's block
                rnd, run, pending = int(m.group(1)), m.group(2), True
                continue
            if line.startswith("# hexl ") or line.startswith("# tempo "):
                if line.startswith("# hexl "):
                    hdr_run = "hexl_dq" if "env_disable_ifma=1" in line or "env_disable_dq=1" in line else "hexl"
                else:
                    hdr_run = "tempo"
                if not pending:
                    run = hdr_run
                    blocks[run] = blocks.get(run, 0) + 1
                    rnd = blocks[run]
                pending = False
                continue
            m = LINE.match(line)
            if not m:
                continue
            impl, n, bits, q = m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4))
            if run is None:  # a result line before any header or marker
                run, rnd = ("tempo" if impl.startswith("tempo") else "hexl"), 1
            rows.append({"round": rnd, "run": run, "impl": impl, "config": config_name(n, bits, q),
                         "n": n, "bits": bits, "q": q, "path": m.group(5),
                         "fwd_us": float(m.group(6)), "inv_us": float(m.group(7)),
                         "correct": m.group(8) == "yes"})
    return rows


def index(rows):
    """(run, impl, config) -> {round: row}; the last row wins on a repeat."""
    ix = {}
    for r in rows:
        ix.setdefault((r["run"], r["impl"], r["config"]), {})[r["round"]] = r
    return ix


def paired(a, b, op):
    """Per-round ratios a/b over the rounds both have."""
    return [a[k][op + "_us"] / b[k][op + "_us"] for k in sorted(a) if k in b and b[k][op + "_us"] > 0]


def med(rows_by_round, op):
    v = [r[op + "_us"] for r in rows_by_round.values()]
    return round(statistics.median(v), 4) if v else None


def spread(v):
    return {"min": round(min(v), 4), "median": round(statistics.median(v), 4), "max": round(max(v), 4)} if v else None


def f3(x):
    return "-" if x is None else f"{x:.3f}"


def fr(s):
    return "-" if s is None else f"{s['min']:.2f} / **{s['median']:.2f}** / {s['max']:.2f}"


def main(argv):
    args, json_out, meta = [], None, {}
    it = iter(argv)
    for a in it:
        if a == "--json":
            json_out = next(it, None)
        elif a == "--meta":
            k, _, v = next(it, "=").partition("=")
            meta[k] = v
        elif a in ("-h", "--help"):
            print(__doc__)
            return 0
        else:
            args.append(a)
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    rows = parse(args[0])
    ix = index(rows)
    rounds = sorted({r["round"] for r in rows})
    configs = [c for c in ORDER if ("tempo", "tempo", c) in ix]
    configs += sorted({r["config"] for r in rows if r["impl"] == "tempo"} - set(configs))
    ratios, out = [], []

    def add(kind, config, op, against, per_round, a_rows, b_rows, tgt, unit="ratio"):
        s = spread(per_round)
        entry = {"kind": kind, "config": config, "op": op, "against": against,
                 "tempo_us": med(a_rows, op) if a_rows else None,
                 "against_us": med(b_rows, op) if b_rows else None,
                 "per_round": [round(x, 4) for x in per_round],
                 "min": s and s["min"], "median": s and s["median"], "max": s and s["max"],
                 "target": tgt, "target_unit": unit}
        if tgt is None:
            entry["met"] = None
        elif unit == "us":
            entry["met"] = entry["tempo_us"] is not None and entry["tempo_us"] <= tgt
        elif s is None:  # the other side has no row for this config
            entry["met"] = None
            entry["missing"] = True
        else:
            entry["met"] = s["median"] <= tgt
        ratios.append(entry)
        return entry

    def mark(e):
        return "-" if e["met"] is None else ("met" if e["met"] else "**not met**")

    out.append(f"# tempo::ntt against Intel HEXL, one pinned core ({len(rounds)} round(s))\n")
    if meta:
        out.append(", ".join(f"{k}: {v}" for k, v in meta.items()) + "\n")
    out.append("Each side's time is its median over rounds (each round's time is the median of REPS runs "
               "of 16 transforms); ratio = tempo / HEXL inside each round, min / **median** / max; "
               "targets are checked on the median ratio. tempo transforms in place through the public "
               "API (plan.forward / plan.inverse, values checked); HEXL out of place, unchecked.\n")
    out.append("## tempo against HEXL's default path (IFMA for q < 2^50)\n")
    out.append("| config | q | op | tempo path | tempo us | HEXL row | HEXL path | HEXL us | ratio | target | |")
    out.append("| --- | --- | --- | --- | ---: | --- | --- | ---: | --- | --- | --- |")
    for c in configs:
        t = ix[("tempo", "tempo", c)]
        any_t = next(iter(t.values()))
        hc = PROXY.get(c, c)
        h = ix.get(("hexl", "hexl", hc), {})
        any_h = next(iter(h.values()), None)
        for op in ("fwd", "inv"):
            if c == "mldsa":
                tgt = 0.4 if op == "fwd" else None
                e = add("tempo_us", c, op, None, [], t, None, tgt, "us")
                out.append(f"| {c} | {any_t['q']} | {op} | {any_t['path']} | {f3(e['tempo_us'])} | - | - | - | - | "
                           f"{'<= 0.4 us' if tgt else '-'} | {mark(e)} |")
                continue
            tgt = target(c)
            e = add("tempo/hexl", c, op, "hexl " + hc, paired(t, h, op), t, h, tgt)
            label = hc + (" (*)" if hc != c else "")
            out.append(f"| {c} | {any_t['q']} | {op} | {any_t['path']} | {f3(e['tempo_us'])} | {label} | "
                       f"{any_h['path'] if any_h else '-'} | {f3(e['against_us'])} | {fr(spread(e['per_round']))} | "
                       f"<= {tgt} | {mark(e) if any_h else 'no HEXL row'} |")
    if any(c in PROXY for c in configs):
        out.append("\n(*) HEXL does not time n=2048 with a 27-bit q; its IFMA path costs the same for any "
                   "q < 2^50, so its n=2048 bits=50 row stands in.\n")

    dq = [c for c in configs if any(k[0] == "hexl_dq" and k[2] == c for k in ix)]
    if dq:
        out.append("## tempo against HEXL's AVX512-DQ path (HEXL_DISABLE_AVX512IFMA=1), no target\n")
        out.append("| config | op | tempo path | tempo us | HEXL-DQ path | HEXL-DQ us | ratio |")
        out.append("| --- | --- | --- | ---: | --- | ---: | --- |")
        for c in dq:
            t, h = ix[("tempo", "tempo", c)], ix[("hexl_dq", "hexl", c)]
            for op in ("fwd", "inv"):
                e = add("tempo/hexl_dq", c, op, "hexl_dq " + c, paired(t, h, op), t, h, None)
                out.append(f"| {c} | {op} | {next(iter(t.values()))['path']} | {f3(e['tempo_us'])} | "
                           f"{next(iter(h.values()))['path']} | {f3(e['against_us'])} | {fr(spread(e['per_round']))} |")
        out.append("")

    out.append("## The public call's cost: tempo (checked) / tempo-unchecked (same kernel)\n")
    out.append("| config | op | checked us | unchecked us | ratio | target | |")
    out.append("| --- | --- | ---: | ---: | --- | --- | --- |")
    for c in configs:
        t, u = ix[("tempo", "tempo", c)], ix.get(("tempo", "tempo-unchecked", c), {})
        for op in ("fwd", "inv"):
            e = add("tempo/unchecked", c, op, "tempo-unchecked " + c, paired(t, u, op), t, u, 1.05)
            out.append(f"| {c} | {op} | {f3(e['tempo_us'])} | {f3(e['against_us'])} | "
                       f"{fr(spread(e['per_round']))} | <= 1.05 | {mark(e) if u else 'no unchecked row'} |")

    bad = [r for r in rows if not r["correct"]]
    with_target = [e for e in ratios if e["met"] is not None]
    met = sum(1 for e in with_target if e["met"])
    missing = sum(1 for e in ratios if e.get("missing"))
    out.append("")
    out.append(f"**{met} of {len(with_target)} targets met**"
               + (f" ({missing} not measured: a side without the row)." if missing else ".") + " "
               + ("Every row correct (inverse(forward(x)) == x, negacyclic check)." if not bad else
                  "**Rows with correct=NO:** " + ", ".join(f"round {r['round']} {r['run']} {r['impl']} {r['config']}"
                                                           for r in bad)))
    print("\n".join(out))
    if json_out:
        with open(json_out, "w") as f:
            json.dump({"meta": meta, "rounds": rounds, "all_correct": not bad,
                       "targets_met": met, "targets_total": len(with_target), "targets_not_measured": missing,
                       "runs": rows, "ratios": ratios}, f, indent=1)
            f.write("\n")
    return 1 if bad or not configs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
