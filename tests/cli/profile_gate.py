#!/usr/bin/env python3
"""Replays the app gate's verdicts on H200 profiles (tests/data/profile/gate/README.md).

    profile_gate.py GRAPHPROF DATA_DIR WORK_DIR

`graphprof compare --json` of `profile --repeat 5` sets of the serving test application:
  - as is against as is (A/A): exit 0, no row fails;
  - as is against "moved" (its last block runs eagerly after every replay): exit 1, failing on
    coverage and eager launches per step and on nothing else; no graph reads as faster;
  - as is against "slow" (one graph's kernel does 16x the work): exit 1, failing on that one
    graph's GPU time per launch and nothing else.
Also: Markdown and JUnit outputs say the same verdict, and two single profiles cannot pass.
"""
import json
import os
import subprocess
import sys

problems = []


def check(cond, what):
    if not cond:
        problems.append(what)
        print("FAIL: " + what)


def compare(gp, base, cand, work, name, extra=()):
    out = os.path.join(work, name + ".json")
    r = subprocess.run([gp, "compare", base, cand, "--json", out] + list(extra), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    print("== %s: exit %d\n%s" % (name, r.returncode, r.stdout))
    with open(out) as f:
        return r.returncode, json.load(f), r.stdout


def failing(doc):
    return [(row["metric"], row.get("params", {}).get("graph", "")) for row in doc["rows"] if row["effect"] == "fail"]


def main():
    gp, data, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    d = os.path.join(data, "profile", "gate")
    asis, asis_b, moved, slow = (os.path.join(d, n + ".json") for n in ("asis", "asis_b", "moved", "slow"))

    rc, doc, _ = compare(gp, asis, asis_b, work, "aa")
    check(rc == 0, "A/A: exit %d, expected 0" % rc)
    check(failing(doc) == [], "A/A: failing rows %s" % failing(doc))
    # Every row carries the threshold it was judged by, as run comparisons do (docs/compare.md).
    basis = {(row["metric"], row.get("params", {}).get("graph", "")[:2]): row["rule"]["threshold_basis"] for row in doc["rows"]}
    check(basis.get(("coverage_kernels", "")) == "absolute", "A/A: coverage threshold basis %s" % basis.get(("coverage_kernels", "")))
    check(basis.get(("launches", "#1")) == "count", "A/A: launches threshold basis %s" % basis.get(("launches", "#1")))
    check(basis.get(("gpu_time_per_launch", "#1")) in ("floor", "noise"), "A/A: GPU time threshold basis %s" %
          basis.get(("gpu_time_per_launch", "#1")))
    r = subprocess.run([gp, "compare", asis, asis_b, "--all"], stdout=subprocess.PIPE, text=True)
    check("2 points" in r.stdout and "3% (count)" in r.stdout, "A/A: the console shows no per-row threshold:\n" + r.stdout)

    rc, doc, text = compare(gp, asis, moved, work, "moved")
    check(rc == 1, "moved: exit %d, expected 1" % rc)
    fails = failing(doc)
    metrics = {m for m, _ in fails}
    check(metrics & {"coverage_kernel_time", "coverage_kernels"}, "moved: no coverage row fails (%s)" % fails)
    check("eager_launches_per_step" in metrics, "moved: eager_launches_per_step does not fail (%s)" % fails)
    check(metrics <= {"coverage_kernel_time", "coverage_kernels", "eager_launches_per_step"},
          "moved: other rows fail too: %s" % fails)
    improved = [r["metric"] for r in doc["rows"] if r["verdict"] == "improvement"]
    check(improved == [], "moved: rows read as improvements: %s" % improved)

    rc, doc, _ = compare(gp, asis, slow, work, "slow")
    check(rc == 1, "slow: exit %d, expected 1" % rc)
    fails = failing(doc)
    check(len(fails) == 1 and fails[0][0] == "gpu_time_per_launch", "slow: failing rows %s, expected one graph's "
          "gpu_time_per_launch" % fails)

    md = os.path.join(work, "slow.md")
    junit = os.path.join(work, "slow.xml")
    subprocess.run([gp, "compare", asis, slow, "--markdown", md, "--junit", junit], stdout=subprocess.DEVNULL)
    with open(md) as f:
        check("FAIL" in f.read(), "slow: the Markdown does not say FAIL")
    with open(junit) as f:
        check("<failure" in f.read(), "slow: the JUnit has no failure")

    # One profile a side: the other side is the same profile stamped at another time (compare
    # refuses one file, or the same bytes, on both sides).
    one = os.path.join(d, "single.json")
    other = os.path.join(work, "single_later.json")
    with open(one) as f:
        later = json.load(f)
    later["created_utc"] = "2026-12-01T12:00:00Z"
    with open(other, "w") as f:
        json.dump(later, f)
    rc, doc, _ = compare(gp, one, other, work, "single")
    check(rc == 5, "one profile per side: exit %d, expected 5 (not enough runs)" % rc)

    print("%d problem(s)" % len(problems) if problems else "ok")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
