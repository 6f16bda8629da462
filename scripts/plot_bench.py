#!/usr/bin/env python3
"""Turns tempo_bench / rayon_bench JSON into PNG plots and Markdown tables.

    python3 scripts/plot_bench.py [RESULT_DIR ...] [--img docs/img] [--md FILE]

RESULT_DIR defaults to bench/results (searched recursively for *.json).
Reads Google Benchmark JSON (tempo_bench, and rayon_bench, which writes the
same shape) and the peak-RSS JSON of --rss_sweep. Writes:
  <img>/speedup_<workload>.png   speed-up over serial vs threads, per variant
  <img>/ns_per_task_1thread.png  ns per node/task at 1 thread, fine-grained workloads
                                 ("n/a" marks a variant a workload does not have)
  <img>/loops_1thread.png        loops measured at one thread only (saxpy, reduce):
                                 time relative to the plain loop, per variant
and prints Markdown tables (time and speed-up per thread count, peak RSS).

Names are <workload>/<variant>[/param:v...][/threads:k]/real_time; params other
than threads (e.g. nodes:1000) become part of the workload label. With
repetitions the median aggregate is used. Errors and skipped runs are shown
as such in the tables and left out of the plots. matplotlib is Debian's
python3-matplotlib or matplotlib from pip.
"""
import argparse
import glob
import json
import os
import re
import sys
from collections import defaultdict

FINE_GRAINED = ("tree_sum", "fib", "nqueens", "uts_", "skynet")


def load_json(path):
    """Loads a JSON file; repairs one that a timeout cut short."""
    with open(path) as f:
        text = f.read()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    # Keep everything up to the last complete benchmark object, then close.
    cut = text.rfind("\n    }")
    if cut < 0:
        return None
    repaired = text[: cut + len("\n    }")] + "\n  ]\n}\n"
    try:
        data = json.loads(repaired)
        data.setdefault("context", {})["repaired"] = "truncated file, cut at last complete run"
        print(f"note: {path} was truncated; used the runs that completed", file=sys.stderr)
        return data
    except json.JSONDecodeError:
        print(f"warning: {path} is not valid JSON, skipped", file=sys.stderr)
        return None


def parse_name(name):
    """-> (workload label, variant, threads or None)."""
    name = re.sub(r"_(median|mean|stddev|cv)$", "", name)
    parts = [p for p in name.split("/") if p != "real_time"]
    workload, variant = parts[0], parts[1] if len(parts) > 1 else "?"
    threads, params = None, []
    for p in parts[2:]:
        k, _, v = p.partition(":")
        if k == "threads":
            threads = int(v)
        else:
            params.append(p)
    label = workload + ("/" + "/".join(params) if params else "")
    return label, variant, threads


def counter_of(row):
    for k, v in row.items():
        if k.startswith("ns_per_"):
            return k, v
    return None, None


class Results:
    def __init__(self):
        # (workload, variant, threads) -> dict(time_ns, ns_per, counter, error, source)
        self.rows = {}
        self.contexts = {}
        self.rss = []  # (file, name, kib, status, baseline)

    def add_file(self, path):
        data = load_json(path)
        if not data:
            return
        ctx = data.get("context", {})
        if "peak_rss" in data:
            base = next((r["maxrss_kib"] for r in data["peak_rss"] if r["name"] == "baseline"), None)
            for r in data["peak_rss"]:
                if r["name"] != "baseline":
                    self.rss.append((os.path.basename(path), r["name"], r["maxrss_kib"], r["status"], base))
            return
        self.contexts[os.path.basename(path)] = ctx
        reps = defaultdict(list)
        for b in data.get("benchmarks", []):
            key = parse_name(b["name"])
            if b.get("run_type") == "aggregate":
                if b.get("aggregate_name") == "median":
                    reps[key] = [b]  # the median wins over single repetitions
                continue
            if key in reps and reps[key] and reps[key][0].get("run_type") == "aggregate":
                continue
            reps[key].append(b)
        for key, bs in reps.items():
            b = bs[0] if len(bs) == 1 else sorted(bs, key=lambda x: x.get("real_time", 0))[len(bs) // 2]
            cname, cval = counter_of(b)
            err = b.get("error_message") if b.get("error_occurred") else None
            is_median = b.get("run_type") == "aggregate" or len(bs) > 1
            old = self.rows.get(key)
            # The same benchmark in several files (e.g. the 1-thread loop phase
            # with repetitions and the sweep): a median beats a single run, and
            # a measured run beats an error.
            if old and ((old["median"] and not is_median) or (old["error"] is None and err)):
                continue
            self.rows[key] = dict(
                median=is_median,
                time_ns=None if err else b["real_time"] * unit_scale(b.get("time_unit", "ns")),
                ns_per=None if err else cval,
                counter=cname,
                error=err,
                source=os.path.basename(path),
            )

    def workloads(self):
        return sorted({k[0] for k in self.rows})

    def serial_time(self, wl):
        r = self.rows.get((wl, "serial", None))
        return r["time_ns"] if r else None

    def variants(self, wl):
        return sorted({k[1] for k in self.rows if k[0] == wl and k[2] is not None})

    def threads(self, wl):
        return sorted({k[2] for k in self.rows if k[0] == wl and k[2] is not None})


def unit_scale(u):
    return {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}.get(u, 1.0)


def fmt_time(ns):
    if ns is None:
        return "-"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def openmp_name(res):
    for ctx in res.contexts.values():
        if "openmp_runtime" in ctx:
            return ctx["openmp_runtime"]
    return "GCC libgomp"


def markdown(res):
    out = []
    omp = openmp_name(res)
    for wl in res.workloads():
        serial = res.serial_time(wl)
        variants, threads = res.variants(wl), res.threads(wl)
        counter = next((r["counter"] for k, r in res.rows.items() if k[0] == wl and r["counter"]), "time")
        out.append(f"\n### {wl}\n")
        out.append(f"Cells: {counter} (speed-up over serial). omp_* = OpenMP, runtime {omp}.")
        if serial:
            s = res.rows[(wl, "serial", None)]
            out.append(f"Serial: {fmt_time(serial)} per iteration, {counter} = {s['ns_per']:.4g}.\n")
        out.append("| threads | " + " | ".join(variants) + " |")
        out.append("|---" * (len(variants) + 1) + "|")
        for t in threads:
            cells = []
            for v in variants:
                r = res.rows.get((wl, v, t))
                if r is None:
                    cells.append("")
                elif r["error"]:
                    cells.append("skipped" if r["error"].startswith("skipped") else "ERROR")
                else:
                    sp = f" ({serial / r['time_ns']:.2f}x)" if serial and r["time_ns"] else ""
                    cells.append(f"{r['ns_per']:.4g}{sp}" if r["ns_per"] is not None else fmt_time(r["time_ns"]) + sp)
            out.append(f"| {t} | " + " | ".join(cells) + " |")
    if res.rss:
        out.append("\n### Peak RSS per variant (one child process each)\n")
        out.append("| benchmark | peak RSS (MiB) | over baseline (MiB) | status |")
        out.append("|---|---|---|---|")
        for f, name, kib, st, base in sorted(res.rss, key=lambda r: r[1]):
            delta = f"{(kib - base) / 1024:.1f}" if base else "-"
            out.append(f"| {name} | {kib / 1024:.1f} | {delta} | {'ok' if st == 0 else 'FAILED'} |")
    return "\n".join(out) + "\n"


def plots(res, img_dir):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(img_dir, exist_ok=True)
    omp = openmp_name(res)
    written = []
    one_thread = []  # workloads measured at one thread count only: bars, not curves
    for wl in res.workloads():
        serial = res.serial_time(wl)
        threads = res.threads(wl)
        if not serial or not threads:
            continue
        if len(threads) < 2:
            one_thread.append(wl)
            continue
        fig, ax = plt.subplots(figsize=(6.4, 4.4))
        for v in res.variants(wl):
            pts = [(t, serial / res.rows[(wl, v, t)]["time_ns"]) for t in threads
                   if (wl, v, t) in res.rows and res.rows[(wl, v, t)]["time_ns"]]
            if pts:
                xs, ys = zip(*pts)
                ax.plot(xs, ys, marker="o", label=v)
        ax.plot(threads, threads, linestyle=":", color="gray", label="ideal")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=2)  # variants span orders of magnitude; ideal stays a straight line
        ax.set_xticks(threads)
        ax.set_xticklabels([str(t) for t in threads])
        set_ratio_ticks(ax)
        ax.set_xlabel("threads")
        ax.set_ylabel("speed-up over serial")
        ax.set_title(f"{wl}  (serial {fmt_time(serial)}; omp = {omp})", fontsize=9)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        path = os.path.join(img_dir, "speedup_" + re.sub(r"[^A-Za-z0-9_]+", "_", wl) + ".png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

    # ns per node/task at one thread (and serial) for the fork/join workloads.
    bars = defaultdict(dict)
    for (wl, v, t), r in res.rows.items():
        if wl.startswith(FINE_GRAINED) and (t == 1 or v == "serial") and r["ns_per"]:
            bars[wl][v] = r["ns_per"]
    if bars:
        wls = sorted(bars)
        variants = sorted({v for d in bars.values() for v in d}, key=lambda v: (v != "serial", v))
        fig, ax = plt.subplots(figsize=(max(6.4, 1.3 * len(wls) + 2), 4.6))
        width = 0.8 / len(variants)
        present = [v for d in bars.values() for v in d.values()]
        floor = min(present) / 1.5  # where an "n/a" label sits on the log axis
        for i, v in enumerate(variants):
            xs = [j + i * width for j in range(len(wls))]
            bar = ax.bar(xs, [bars[w].get(v, float("nan")) for w in wls], width, label=v)
            for x, w in zip(xs, wls):
                if v not in bars[w]:  # the variant does not exist for this workload, or was not run
                    ax.text(x, floor, "n/a", rotation=90, ha="center", va="bottom", fontsize=6,
                            color=bar.patches[0].get_facecolor())
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(wls))])
        ax.set_xticklabels(wls, rotation=20, fontsize=8)
        ax.set_yscale("log")
        ax.set_ylim(bottom=floor / 1.2)
        ax.set_ylabel("ns per node / task, 1 thread")
        ax.set_title(f"Per-task cost at 1 thread (omp = {omp}); lower is better\n"
                     "n/a: no such variant for that workload (tempo_fork and tbb_invoke need binary forks) "
                     "or not in this run", fontsize=8)
        ax.legend(fontsize=7, ncol=2)
        ax.grid(True, axis="y", alpha=0.3)
        fig.tight_layout()
        path = os.path.join(img_dir, "ns_per_task_1thread.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

    # Loops measured at one thread only (saxpy, reduce): cost relative to the plain loop.
    if one_thread:
        variants = sorted({v for wl in one_thread for v in res.variants(wl) if v != "serial"})
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        width = 0.8 / max(1, len(variants))
        for i, v in enumerate(variants):
            xs, ys = [], []
            for j, wl in enumerate(one_thread):
                t = res.threads(wl)[0]
                r = res.rows.get((wl, v, t))
                if r and r["time_ns"]:
                    xs.append(j + i * width)
                    ys.append(r["time_ns"] / res.serial_time(wl))
            bar = ax.bar(xs, ys, width, label=v)
            for x, y in zip(xs, ys):
                ax.text(x, y, f"{y:.3f}", ha="center", va="bottom", fontsize=7)
        ax.axhline(1.0, color="gray", linestyle=":", label="plain loop")
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(one_thread))])
        ax.set_xticklabels(one_thread, fontsize=8)
        ax.set_ylim(0.9, None)
        ax.set_ylabel("time / plain serial loop (1 thread)")
        ax.set_title(f"Loop overhead at 1 thread; lower is better (omp = {omp})", fontsize=9)
        ax.legend(fontsize=7)
        ax.grid(True, axis="y", alpha=0.3)
        fig.tight_layout()
        path = os.path.join(img_dir, "loops_1thread.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


def set_ratio_ticks(ax):
    """Readable ticks on a log2 ratio axis: powers of two, or more when the range is narrow."""
    import math
    lo, hi = ax.get_ylim()
    ticks = [2.0 ** k for k in range(math.floor(math.log2(lo)), math.ceil(math.log2(hi)) + 1)]
    ticks = [t for t in ticks if lo <= t <= hi]
    if len(ticks) < 4:  # a narrow range: five ticks spread evenly on the log axis
        ticks = [lo * (hi / lo) ** (k / 4) for k in range(5)]
        ticks = [float(f"{t:.2g}") for t in ticks]
    ax.set_yticks(ticks)
    ax.set_yticklabels([f"{t:g}x" for t in ticks])
    ax.minorticks_off()


def main():
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="*", default=[os.path.join(repo, "bench", "results")])
    ap.add_argument("--img", default=os.path.join(repo, "docs", "img"))
    ap.add_argument("--md", help="write the Markdown tables to this file (default: stdout)")
    ap.add_argument("--no-plots", action="store_true")
    args = ap.parse_args()

    res = Results()
    files = []
    for d in args.dirs:
        files += [d] if d.endswith(".json") else sorted(glob.glob(os.path.join(d, "**", "*.json"), recursive=True))
    if not files:
        sys.exit(f"plot_bench: no JSON files under {', '.join(args.dirs)}")
    for f in files:
        res.add_file(f)
    if not res.rows and not res.rss:
        sys.exit("plot_bench: no benchmark results found")

    md = markdown(res)
    if args.md:
        with open(args.md, "w") as f:
            f.write(md)
    else:
        print(md)
    if not args.no_plots:
        for p in plots(res, args.img):
            print("wrote", p, file=sys.stderr)


if __name__ == "__main__":
    main()
