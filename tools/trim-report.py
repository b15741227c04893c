#!/usr/bin/env python3
"""Shrinks graphprof run reports into CPU test fixtures (tests/data/gate/README.md).

    tools/trim-report.py IN.json OUT.json

Each repetition's raw samples are replaced by 7 order statistics: p5, p25, p40, the exact
median, p60, p75 and p95 (repetitions with 7 samples or fewer are kept whole). The median of
the kept values equals the median of the original samples, so everything `graphprof compare`
decides from run medians replays exactly; within-run figures (n, CI of one repetition) do not.
Summaries are recomputed by the reader; the rest of the report is kept. Output is compact JSON.
"""
import json
import sys


def quantile(s, p):
    # Linear interpolation between order statistics (what src/core/stats.cpp uses).
    if len(s) == 1:
        return s[0]
    h = p * (len(s) - 1)
    lo = int(h)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (h - lo) * (s[hi] - s[lo])


def thin(rep):
    finite = sorted(v for v in rep if isinstance(v, (int, float)))
    if len(finite) <= 7 or len(finite) != len(rep):
        return rep
    keep = [quantile(finite, p) for p in (0.05, 0.25, 0.40)]
    keep.append(quantile(finite, 0.5))
    keep += [quantile(finite, p) for p in (0.60, 0.75, 0.95)]
    return [round(v, 3) if i != 3 else v for i, v in enumerate(keep)]


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: trim-report.py IN.json OUT.json")
    with open(sys.argv[1]) as f:
        r = json.load(f)
    for res in r.get("results", []):
        for m in res.get("metrics", {}).values():
            m["repetitions"] = [thin(rep) for rep in m.get("repetitions", [])]
            m.pop("summary", None)
    with open(sys.argv[2], "w") as f:
        json.dump(r, f, separators=(",", ":"), sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
