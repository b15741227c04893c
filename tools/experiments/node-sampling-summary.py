#!/usr/bin/env python3
"""Node sampling figures of one profile report: per process the kernel activity, per graph the traced launches."""
import json, sys

r = json.load(open(sys.argv[1]))
for res in r["results"]:
    prof = res.get("sections", {}).get("profile")
    if not prof or "processes" not in prof: continue
    for x in prof["processes"]:
        print(sys.argv[2], "pid", x.get("pid"), "node_sampling", x.get("node_sampling"), "kernel_activity", x.get("kernel_activity"),
              "coverage", {k: x["coverage"].get(k) for k in ("estimated", "graph_kernels", "eager_kernels", "eager_launches", "kernel_time_in_graphs")})
        for g in x.get("graphs", []):
            s = g.get("node_sampling")
            if s: print("  graph", g["graph"], "launches", g["launches"], {k: s.get(k) for k in ("traced_launches", "traced_ordinals", "perturbation", "set_aside", "set_aside_switched")})
