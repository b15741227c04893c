#!/usr/bin/env python3
"""Per-node GPU medians of two `graphprof profile` reports of the same program (e.g. sampled node
tracing against `--node-sample all`): nodes matched by graph and node index, the relative
difference of each node's median, and how many lie within a bound (default 3 %).

    tools/experiments/node-medians-compare.py SAMPLED.json ALL.json [BOUND_PCT]
"""
import json
import statistics
import sys


def node_medians(path):
    out = {}
    for res in json.load(open(path))["results"]:
        trace = res.get("sections", {}).get("trace")
        if not trace:
            continue
        graph = res.get("params", {}).get("graph", "?")
        for n in trace.get("nodes", []):
            if n.get("median_ns"):
                out[(graph, n["node_index"])] = (n["median_ns"], n.get("count", 0), n.get("name", ""))
    return out


def main():
    a, b = node_medians(sys.argv[1]), node_medians(sys.argv[2])
    bound = float(sys.argv[3]) if len(sys.argv) > 3 else 3.0
    keys = sorted(set(a) & set(b))
    print(f"nodes: sampled {len(a)}, all {len(b)}, matched {len(keys)}")
    if not keys:
        return 1
    diffs = [(abs(a[k][0] / b[k][0] - 1.0) * 100.0, k) for k in keys]
    vals = sorted(d for d, _ in diffs)
    within = sum(1 for d in vals if d <= bound)
    p90 = vals[min(len(vals) - 1, int(0.9 * len(vals)))]
    print(f"within {bound:g} %: {within} of {len(keys)}; median |diff| {statistics.median(vals):.2f} %, p90 {p90:.2f} %, max {vals[-1]:.2f} %")
    total_a = sum(a[k][0] for k in keys)
    total_b = sum(b[k][0] for k in keys)
    print(f"sum of node medians: sampled {total_a:.0f} ns, all {total_b:.0f} ns ({100.0 * (total_a / total_b - 1.0):+.2f} %)")
    for d, k in sorted(diffs, reverse=True)[:8]:
        print(f"   {k} {a[k][2]} sampled {a[k][0]:.0f} ns (n={a[k][1]}), all {b[k][0]:.0f} ns (n={b[k][1]}), {d:.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
