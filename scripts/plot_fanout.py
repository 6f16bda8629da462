#!/usr/bin/env python3
"""Plot fan-out throughput against N from tempo_gpu_bench's JSON (Google Benchmark).

One panel per message length (two per row), one legend below them; one line per variant (cpu_1t, cpu_all, dispatch_cpu,
openssl_1t, gpu_kernel, gpu_h2h_pinned, gpu_h2h_pageable, auto, auto_pinned); the
CPU/GPU crossover (first N where the GPU host-to-host beats all CPU cores) is marked.

usage: plot_fanout.py bench_fanout.json [more.json ...] -o fanout.png
"""
import argparse, json, re, sys
from collections import defaultdict


def load(paths):
    series = defaultdict(dict)  # (variant, len) -> {N: items/s}
    for p in paths:
        with open(p) as f:
            data = json.load(f)
        for b in data.get("benchmarks", []):
            if b.get("error_occurred") or b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
                continue
            m = re.match(r"BM_(\w+?)/len:(\d+)/N:(\d+)", b["name"])
            if not m or "items_per_second" not in b:
                continue
            series[(m.group(1), int(m.group(2)))][int(m.group(3))] = b["items_per_second"]
    return series


def crossover(series, length):
    cpu = series.get(("cpu_all", length), {})
    for gpu_name in ("gpu_h2h_pinned", "gpu_h2h_pageable"):
        gpu = series.get((gpu_name, length), {})
        for n in sorted(set(cpu) & set(gpu)):
            if gpu[n] > cpu[n]:
                return n, gpu_name
    return None, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("json", nargs="+")
    ap.add_argument("-o", "--out", default="fanout.png")
    a = ap.parse_args()
    series = load(a.json)
    if not series:
        sys.exit("no fan-out results in " + ", ".join(a.json))
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    lengths = sorted({l for (_, l) in series})
    cols = 2 if len(lengths) > 1 else 1
    rows = (len(lengths) + cols - 1) // cols
    fig, grid = plt.subplots(rows, cols, figsize=(5.6 * cols, 4.0 * rows + 1.0), squeeze=False)
    axes = [list(grid.flat)]
    for ax in axes[0][len(lengths):]:
        ax.set_visible(False)
    styles = {"cpu_1t": ":", "cpu_all": "-", "dispatch_cpu": "--", "openssl_1t": ":", "gpu_kernel": "-.",
              "gpu_h2h_pinned": "-", "gpu_h2h_pageable": "--", "auto": "-", "auto_pinned": "--"}
    for ax, length in zip(axes[0], lengths):
        for (variant, l), pts in sorted(series.items()):
            if l != length or not pts:
                continue
            ns = sorted(pts)
            ax.plot(ns, [pts[n] for n in ns], styles.get(variant, "-"), marker="o", ms=3, label=variant,
                    linewidth=2.5 if variant.startswith("auto") else 1.4)
        n, who = crossover(series, length)
        if n:
            ax.axvline(n, color="grey", alpha=0.5)
            ax.annotate(f"GPU wins from N={n:.0e}", (n, ax.get_ylim()[0]), rotation=90, fontsize=7, va="bottom")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"SHAKE256, {length} B messages -> 32 B")
        ax.set_xlabel("N (messages)")
        ax.set_ylabel("digests / s")
        ax.grid(True, which="both", alpha=0.3)
    # One legend for every panel, below them (same variants, same styles in each panel).
    handles, labels = {}, []
    for ax in axes[0][: len(lengths)]:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in handles:
                handles[lab] = h
                labels.append(lab)
    fig.legend([handles[l] for l in labels], labels, loc="lower center", ncol=min(5, len(labels)), fontsize=8,
               frameon=False)
    fig.tight_layout(rect=(0, 0.9 / (4.0 * rows + 1.0) + 0.03, 1, 1))
    fig.savefig(a.out, dpi=120)
    print("wrote", a.out)


if __name__ == "__main__":
    main()
