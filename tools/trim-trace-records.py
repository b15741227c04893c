#!/usr/bin/env python3
"""Trims a `graphprof run --trace-records` file to the measured replays, for a test fixture.

Keeps every API record and graph callback, the GPU records of the launches made inside the
iteration windows, and the records without a correlation id (conditional bodies) that ran after
the first of those launches began on the GPU. What the analysis reads of the measured replays is
unchanged; warm-up replays, which it skips anyway, are dropped. Usage: trim-trace-records.py IN OUT
"""
import json
import sys

src, dst = sys.argv[1], sys.argv[2]
d = json.load(open(src))
windows = d["windows"]
inside = {a["correlation"] for a in d["api"]
          if any(w["begin"] <= a["start"] and a["end"] <= w["end"] for w in windows)}
gpu = [r for kind in ("kernels", "memcpys", "memsets") for r in d[kind]]
first = min((r["start"] for r in gpu if r["correlation"] in inside), default=None)
for kind in ("kernels", "memcpys", "memsets"):
    d[kind] = [r for r in d[kind]
               if r["graph_id"] == 0 or r["correlation"] in inside
               or (r["correlation"] == 0 and first is not None and r["start"] >= first)]
with open(dst, "w") as f:
    json.dump(d, f, separators=(",", ":"), sort_keys=True)
    f.write("\n")
