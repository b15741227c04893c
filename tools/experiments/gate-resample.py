#!/usr/bin/env python3
"""False-alarm and detection rates of `graphprof compare` from real runs, by resampling.

    tools/experiments/gate-resample.py GRAPHPROF [DATA]      (DATA: tests/data/gate)

DATA holds A/ and B/ (the same build, 7 processes each) and S5/, S10/ (the chain workload's
kernels slowed so that its graph-mode GPU time grows ~5 % / ~10 %), made interleaved on the H200.
Sides are drawn from these runs (fixed seed), pooled into folders of symlinks and compared with
--ignore-param spin_cycles. A "false alarm" is a comparison that exits 1 with nothing changed,
or a gating regression outside the chain workload; "detected" counts the chain capture/graph
device series flagged. docs/compare.md quotes the output.
"""
import itertools
import json
import os
import random
import subprocess
import sys
import tempfile


def compare(graphprof, base, cand, tmp):
    sides = []
    for name, files in (("base", base), ("cand", cand)):
        d = tempfile.mkdtemp(dir=tmp, prefix=name)
        for i, f in enumerate(files):
            os.symlink(os.path.abspath(f), os.path.join(d, "%02d.json" % i))
        sides.append(d if len(files) > 1 else os.path.join(d, "00.json"))
    p = subprocess.run([graphprof, "compare", "-q", "--json", "-", "--ignore-param", "spin_cycles"] + sides,
                       capture_output=True, text=True)
    j = json.loads(p.stdout)
    flagged = [(r["workload"], r["mode"], r["metric"]) for r in j["rows"]
               if r["verdict"] == "regression" and r["gating"]]
    return p.returncode, flagged


def study(graphprof, label, pairs, tmp, slowed=False):
    codes = {0: 0, 1: 0, 5: 0}
    false_alarm = caught = expected = 0
    for base, cand in pairs:
        rc, flagged = compare(graphprof, base, cand, tmp)
        codes[rc] = codes.get(rc, 0) + 1
        elsewhere = [f for f in flagged if f[0] != "chain" or f[1] == "eager"]
        if slowed:
            false_alarm += bool(elsewhere)
            expected += 4
            caught += len([f for f in flagged if f[0] == "chain" and f[1] != "eager"])
        else:
            false_alarm += bool(flagged)
    n = len(pairs)
    row = "| %s | %d | %.0f %% | %.0f %% | %.0f %% | %.1f %% |" % (
        label, n, 100.0 * codes.get(0, 0) / n, 100.0 * codes.get(1, 0) / n, 100.0 * codes.get(5, 0) / n,
        100.0 * false_alarm / n)
    row += (" %.0f %% |" % (100.0 * caught / expected)) if slowed else " – |"
    print(row, flush=True)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    graphprof = os.path.abspath(sys.argv[1])
    data = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "gate")
    runs = {s: [os.path.join(data, s, "run%d.json" % i) for i in range(1, 8)] for s in ("A", "B", "S5", "S10")}
    same = runs["A"] + runs["B"]
    rng = random.Random(10)
    print("| comparison (real H200 runs, resampled) | comparisons | exit 0 | exit 1 | exit 5 | false alarm | "
          "chain device series flagged |")
    print("|---|--:|--:|--:|--:|--:|--:|")
    with tempfile.TemporaryDirectory() as tmp:
        study(graphprof, "A/A, 7 vs 7 (A vs B as run)", [(runs["A"], runs["B"])], tmp)
        splits = []
        for _ in range(100):
            pick = rng.sample(same, 14)
            splits.append((pick[:7], pick[7:]))
        study(graphprof, "A/A, 7 vs 7 (random splits of the 14)", splits, tmp)
        splits = []
        for _ in range(100):
            pick = rng.sample(same, 10)
            splits.append((pick[:5], pick[5:]))
        study(graphprof, "A/A, 5 vs 5 (random splits)", splits, tmp)
        study(graphprof, "A/A, 1 vs 1 (every pair)", [([a], [b]) for a, b in itertools.combinations(same, 2)], tmp)
        for s in ("S5", "S10"):
            study(graphprof, "%s vs A, 7 vs 7" % s, [(runs["A"], runs[s])], tmp, True)
            study(graphprof, "%s vs A, 5 vs 5 (random draws)" % s,
                  [(rng.sample(same, 5), rng.sample(runs[s], 5)) for _ in range(50)], tmp, True)
            study(graphprof, "%s vs A, 3 vs 3 (random draws)" % s,
                  [(rng.sample(same, 3), rng.sample(runs[s], 3)) for _ in range(50)], tmp, True)
            study(graphprof, "%s vs A, 1 vs 1 (every pair)" % s, [([a], [b]) for a in same for b in runs[s]], tmp,
                  True)


if __name__ == "__main__":
    main()
