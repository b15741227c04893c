#!/usr/bin/env python3
"""Shrinks `graphprof profile` reports into CPU test fixtures (tests/data/profile/app_gate/README.md).

    tools/trim-profile-report.py IN.json OUT.json

Every call site keeps its identity (`where`, `from`, `function_where`, `source`) and the first
three lines of its `stack`; its native `frames` go. The report's graph results keep their figures
and lose their per-node trace sections (the profile section carries each graph's kernel sequence).
Everything `graphprof compare` decides from is kept. Output is compact JSON.
"""
import json
import sys


def trim(x):
    if isinstance(x, dict):
        if "frames" in x and "where" in x:
            x["frames"] = []
            if isinstance(x.get("stack"), list):
                x["stack"] = x["stack"][:3]
        for v in x.values():
            trim(v)
    elif isinstance(x, list):
        for v in x:
            trim(v)


def main():
    src, dst = sys.argv[1], sys.argv[2]
    with open(src) as f:
        report = json.load(f)
    trim(report)
    for r in report.get("results", []):
        s = r.get("sections", {})
        if "profile" not in s and "trace" in s and isinstance(s["trace"], dict):
            s["trace"]["nodes"] = []
    with open(dst, "w") as f:
        json.dump(report, f, separators=(",", ":"))


if __name__ == "__main__":
    main()
