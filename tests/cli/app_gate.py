#!/usr/bin/env python3
"""Replays the app gate on H200 profiles of tests/apps/python/serving_gate.py at the default level
(tests/data/profile/app_gate/README.md), the way CI uses it: `graphprof compare BASE CAND`.

    app_gate.py GRAPHPROF DATA_DIR WORK_DIR

  - the same program twice passes: --repeat 5 against --repeat 5, 3 against 3, 3 against 5;
  - two comment lines added at the top of the program pass, each site saying where it moved to;
  - the serving function renamed passes, nothing added, nothing "no longer captured";
  - every graph ~10 % slower (same nodes, and one more node each) fails on the GPU time per step,
    naming the graphs, and on the graphs' GPU time per launch;
  - the last activation moved out of the graphs fails on the exact eager launches per step, naming
    the new site, and on the coverage by launches;
  - a capture that breaks fails on one run per side;
  - an exact count that moved decides from one run per side.
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


def compare(gp, base, cand, work, name):
    out = os.path.join(work, name + ".json")
    r = subprocess.run([gp, "compare", base, cand, "--json", out], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    print("== %s: exit %d\n%s%s" % (name, r.returncode, r.stdout, r.stderr))
    with open(out) as f:
        return r.returncode, json.load(f), r.stdout


def failing(doc):
    return sorted(set(row["metric"] for row in doc["rows"] if row["effect"] == "fail"))


def rows(doc, metric):
    return [row for row in doc["rows"] if row["metric"] == metric]


def first_run(src, dst):
    """The report with its first run only (one profile)."""
    with open(src) as f:
        r = json.load(f)
    p = r["results"][0]["sections"]["profile"]
    p["runs"] = p["runs"][:1]
    p["processes"] = p["runs"][0]["processes"]
    with open(dst, "w") as f:
        json.dump(r, f)
    return dst


def main():
    gp, data, work = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(work, exist_ok=True)
    d = os.path.join(data, "profile", "app_gate")
    f = lambda n: os.path.join(d, n + ".json")

    for base, cand in (("asis_a", "asis_b"), ("asis3_a", "asis3_b"), ("asis3_a", "asis_b")):
        rc, doc, _ = compare(gp, f(base), f(cand), work, base + "-" + cand)
        check(rc == 0, "A/A %s %s: exit %d, expected 0" % (base, cand, rc))
        check(failing(doc) == [], "A/A %s %s: failing rows %s" % (base, cand, failing(doc)))
        step = rows(doc, "gpu_time_per_step")
        check(step and step[0]["verdict"] == "same", "A/A %s %s: gpu_time_per_step %s" % (base, cand, step[:1]))

    rc, doc, _ = compare(gp, f("asis_a"), f("edited"), work, "edited")
    check(rc == 0, "edited: exit %d, expected 0" % rc)
    moved = [r for r in doc["rows"] if "moved: serving_gate.py:" in r.get("reason", "")]
    check(len(moved) > 0, "edited: no row says where its site moved")

    rc, doc, _ = compare(gp, f("asis_a"), f("renamed"), work, "renamed")
    check(rc == 0, "renamed: exit %d, expected 0" % rc)
    verdicts = [r["verdict"] for r in doc["rows"]]
    check("added" not in verdicts, "renamed: a graph or site reads as added")
    check(not any("no longer captured" in r.get("reason", "") for r in doc["rows"]), "renamed: a graph reads as gone")

    for variant in ("slow", "slow_nodes"):
        rc, doc, _ = compare(gp, f("asis_a"), f(variant), work, variant)
        check(rc == 1, "%s: exit %d, expected 1" % (variant, rc))
        step = rows(doc, "gpu_time_per_step")
        check(step and step[0]["verdict"] == "regression", "%s: gpu_time_per_step %s" % (variant, step[:1]))
        check(step and "graphs slower per launch: #" in step[0].get("reason", ""), "%s: the step row names no graph" % variant)
        check("gpu_time_per_launch" in failing(doc), "%s: no graph's GPU time per launch fails" % variant)
        if variant == "slow_nodes":
            changed = [r for r in rows(doc, "gpu_time_per_launch") if "the graph changed (9 -> 10 nodes)" in r.get("reason", "")]
            check(changed, "slow_nodes: no slower graph says it changed")

    rc, doc, _ = compare(gp, f("asis_a"), f("moved"), work, "moved")
    check(rc == 1, "moved: exit %d, expected 1" % rc)
    check(failing(doc) == ["coverage_launches", "eager_launches_per_step"], "moved: failing rows %s" % failing(doc))
    eager = [r for r in rows(doc, "eager_launches_per_step") if not r.get("params")]
    check(eager and "serving_gate.py:95 in serve (new" in eager[0].get("reason", ""), "moved: the eager row names no site: %s" % eager[:1])
    check(not any(r["verdict"] == "improvement" for r in doc["rows"] if r["metric"].startswith("gpu_time")),
          "moved: a smaller graph reads as a faster one")

    rc, doc, _ = compare(gp, f("one_a"), f("bad1"), work, "bad-capture")
    check(rc == 1, "bad capture: exit %d, expected 1" % rc)
    check("capture_failures" in failing(doc), "bad capture: capture_failures does not fail: %s" % failing(doc))

    one_base = first_run(f("asis_a"), os.path.join(work, "asis_a-1.json"))
    one_moved = first_run(f("moved"), os.path.join(work, "moved-1.json"))
    rc, doc, _ = compare(gp, one_base, one_moved, work, "moved-one-run")
    check(rc == 1, "moved, one run a side: exit %d, expected 1" % rc)
    check("eager_launches_per_step" in failing(doc), "moved, one run a side: failing rows %s" % failing(doc))

    print("%d problem(s)" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
