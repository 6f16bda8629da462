#!/usr/bin/env python3
"""Issue 11's runtime targets from the JSON that scripts/device/runtime.sh
writes: every ratio comes from one run of one binary. Prints JSON.
Usage: runtime_targets.py DIR"""
import json
import re
import statistics
import sys
from pathlib import Path


def load(path, counter=None):
    """name -> median over repetitions (aggregates ignored) of the real time in
    ns, or of `counter` (e.g. ns_per_task) when given."""
    times = {}
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):  # phase missing, failed or cut off by its time cap
        return {}
    for b in data.get("benchmarks", []):
        if b.get("run_type") == "aggregate" or b.get("error_occurred"):
            continue
        name = re.sub(r"/real_time$", "", b["run_name"] if "run_name" in b else b["name"])
        unit = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b.get("time_unit", "ns")]
        if counter is not None:
            if counter in b:
                times.setdefault(name, []).append(b[counter])
            continue
        times.setdefault(name, []).append(b["real_time"] * unit)
    return {k: statistics.median(v) for k, v in times.items()}


def ratio(t, num, den):
    return round(t[num] / t[den], 4) if num in t and den in t else None


def main(d):
    d = Path(d)
    out = {}
    # 1. 100M nodes: 1 thread vs the same code on SerialTask; 16 threads vs plain serial.
    t = load(d / "tree100m.json")
    n = "nodes:100000000"
    out["tree100m_1thread_vs_serial_task"] = {
        "target": "<= 1.05",
        "byval": ratio(t, f"tree_sum/tempo/{n}/threads:1", f"tree_sum/serial_task/{n}"),
        "byref": ratio(t, f"tree_sum/tempo_byref/{n}/threads:1", f"tree_sum/serial_task_byref/{n}"),
    }
    sp = lambda v: (round(t[f"tree_sum/serial/{n}"] / t[f"tree_sum/{v}/{n}/threads:16"], 2)
                    if f"tree_sum/{v}/{n}/threads:16" in t and f"tree_sum/serial/{n}" in t else None)
    out["tree100m_16threads_speedup_vs_serial"] = {"target": ">= 13", "byval": sp("tempo"), "byref": sp("tempo_byref")}
    # The memory floor: serial / (the nodes read once in order at 16 threads)
    # is the most any tree sum can reach here; tempo's time over the floor's.
    out["tree100m_16threads_memory_floor"] = {
        "floor_speedup_vs_serial": sp("stream_omp"),
        "byval_vs_floor": ratio(t, f"tree_sum/tempo/{n}/threads:16", f"tree_sum/stream_omp/{n}/threads:16"),
        "byref_vs_floor": ratio(t, f"tree_sum/tempo_byref/{n}/threads:16", f"tree_sum/stream_omp/{n}/threads:16"),
    }
    # 2. 1,023 nodes, 1..16 threads, each vs the same code on SerialTask.
    t = load(d / "tree1023.json")
    n = "nodes:1023"
    rows = {}
    for k in (1, 2, 4, 8, 16):
        rows[k] = {
            "byval": ratio(t, f"tree_sum/tempo/{n}/threads:{k}", f"tree_sum/serial_task/{n}"),
            "byref": ratio(t, f"tree_sum/tempo_byref/{n}/threads:{k}", f"tree_sum/serial_task_byref/{n}"),
        }
    out["tree1023_vs_serial_task"] = {"target": "<= 1.15 at every thread count", "by_threads": rows}
    # 3. fib(32) at 1 thread: ns per call (the benchmark's own counter).
    t = load(d / "fib.json", "ns_per_task")
    ns = lambda k: round(t[k], 3) if k in t else None
    out["fib_1thread_ns_per_call"] = {
        "target": "<= 1.2",
        "byval": ns("fib/tempo/threads:1"), "byref": ns("fib/tempo_byref/threads:1"),
        "serial": ns("fib/serial"), "serial_task_byval": ns("fib/serial_task"),
        "serial_task_byref": ns("fib/serial_task_byref"),
    }
    # 4. UTS T3 at 16 threads: speed-up over each runtime's own serial.
    t = load(d / "uts.json")
    r = load(d / "uts_rayon.json")
    per_node = load(d / "uts.json", "ns_per_node")
    def speedup(tab, serial, par):
        return round(tab[serial] / tab[par], 2) if serial in tab and par in tab else None
    rayon_par = next((k for k in r if k.startswith("uts_T3/") and k.endswith("threads:16")), None)
    # rayon_bench's plain serial walk (uts_T3/serial_rust, since 2026-12-03's
    # eleventh session); older files have none, and their 1-thread run stands
    # in (it includes Rayon's own join cost, which flatters Rayon's speed-up).
    rayon_ser = (next((k for k in r if k.startswith("uts_T3/serial")), None)
                 or next((k for k in r if k.startswith("uts_T3/") and k.endswith("threads:1")), None))
    out["uts_T3_16threads"] = {
        "target": "speed-up >= Rayon's and >= oneTBB's",
        "tempo_speedup": speedup(t, "uts_T3/serial", "uts_T3/tempo/threads:16"),
        "tbb_speedup": speedup(t, "uts_T3/serial", "uts_T3/tbb_task_group/threads:16"),
        "rayon_speedup": speedup(r, rayon_ser, rayon_par) if rayon_par and rayon_ser else None,
        "rayon_ns_per_node": load(d / "uts_rayon.json", "ns_per_node").get(rayon_par) if rayon_par else None,
        "tempo_ns_per_node": per_node.get("uts_T3/tempo/threads:16"),
        "serial_ns_per_node": per_node.get("uts_T3/serial"),
    }
    # 5. Mandelbrot and matmul at 16 threads: tempo / best of oneTBB and libgomp.
    t = load(d / "loops.json")
    for w in ("mandelbrot", "matmul"):
        base = [t[k] for k in (f"{w}/tbb/threads:16", f"{w}/omp_for/threads:16") if k in t]
        tempo = t.get(f"{w}/tempo/threads:16")
        out[f"{w}_16threads_vs_best"] = {"target": "<= 1.02",
                                        "ratio": round(tempo / min(base), 4) if base and tempo else None}
    # The same rows with aging and idle requests off (TEMPO_AGED_PROMOTION=0
    # TEMPO_IDLE_REQUESTS=0, the defaults before 2026-12-02's fifth session;
    # tempo rows only; baselines come from the same run where present, else
    # from the default run above).
    t = load(d / "tree1023_old.json")
    n = "nodes:1023"
    out["old_promotion_tree1023_vs_serial_task"] = {k: {
        "byval": ratio(t, f"tree_sum/tempo/{n}/threads:{k}", f"tree_sum/serial_task/{n}"),
        "byref": ratio(t, f"tree_sum/tempo_byref/{n}/threads:{k}", f"tree_sum/serial_task_byref/{n}"),
    } for k in (1, 2, 4, 8, 16)}
    t = load(d / "tree100m_old.json")
    n = "nodes:100000000"
    out["old_promotion_tree100m_16threads_speedup_vs_serial"] = {
        v: (round(t[f"tree_sum/serial/{n}"] / t[f"tree_sum/{v}/{n}/threads:16"], 2)
            if f"tree_sum/serial/{n}" in t and f"tree_sum/{v}/{n}/threads:16" in t else None)
        for v in ("tempo", "tempo_byref")}
    t_aged = load(d / "uts_old.json")
    t = load(d / "uts.json")
    if "uts_T3/tempo/threads:16" in t_aged and "uts_T3/serial" in t:
        out["old_promotion_uts_T3_16threads"] = {
            "tempo_speedup": round(t["uts_T3/serial"] / t_aged["uts_T3/tempo/threads:16"], 2),
            "tempo_ns_per_node": load(d / "uts_old.json", "ns_per_node").get("uts_T3/tempo/threads:16")}
    idle = d / "idle_cpu.json"
    if idle.exists():
        out["idle_pool_percent_of_a_core"] = {"target": "<= 0.1", "value": json.loads(idle.read_text()).get("percent_of_a_core")}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main(sys.argv[1])
