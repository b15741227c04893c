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
  - an exact count that moved decides from one run per side;
  - allocation sites with Python lines (a profile since schema 1.13: each line carries its text),
    every line moved by 5: exit 0, no allocation site new or gone; the same with the function
    that allocates renamed; a genuinely new allocation site in capture among the moved ones:
    exit 1 on it, named whole in the console.
"""
import json
import os
import re
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


# The line the allocations in capture came from (the fixtures' profiles predate Python lines for
# them; the H100's name `x = layer(x)`, one line further down in its copy of the program).
CAPTURE_ALLOC_LINE = ("serving_gate.py:40 in Model.forward", "x = layer(x)")


def walk(x, visit):
    if isinstance(x, dict):
        visit(x)
        for v in x.values():
            walk(v, visit)
    elif isinstance(x, list):
        for v in x:
            walk(v, visit)


def allocation_lines(src, dst, shift=0, new_site=False, rename=None):
    """The report as a profile since schema 1.13 records it: each allocation's Python line carries
    what it is apart from its number (`source`: file, function, the line's text, the same text its
    eager call sites carry), and the allocations in capture have their Python line too. `shift`
    then moves every line of serving_gate.py by that many (lines added at the top of the file);
    `new_site` adds a site allocating 8 MiB in the first capture, at a line of its own; `rename`
    (old, new) renames a function of serving_gate.py everywhere it is named."""
    with open(src) as f:
        r = json.load(f)
    texts = {CAPTURE_ALLOC_LINE[0]: CAPTURE_ALLOC_LINE[1]}

    def texts_of(d):
        if isinstance(d.get("where"), str) and isinstance(d.get("source"), dict):
            texts[d["where"]] = d["source"]["text"]

    walk(r, texts_of)

    def python_of(where, frm="same call"):
        m = re.match(r"(.*):\d+ in (.*)", where)
        return {"where": where, "from": frm, "stack": ["/tmp/w/orig/" + where],
                "source": {"file": m.group(1), "function": m.group(2), "text": texts[where]}}

    def with_python(d):
        for key in ("capture_alloc_sites", "before_capture_alloc_sites"):
            for a in d.get(key) or []:
                if a.get("python"):
                    a["python"]["source"] = python_of(a["python"]["where"])["source"]
                elif key == "capture_alloc_sites":
                    a["python"] = python_of(CAPTURE_ALLOC_LINE[0])

    walk(r, with_python)
    if new_site:
        texts["serving_gate.py:41 in Model.forward"] = "self.cache = torch.empty(8 << 20, device=\"cuda\", dtype=torch.uint8)"

        def add(d):
            sites = d.get("capture_alloc_sites")
            if sites:
                extra = json.loads(json.dumps(sites[-1]))
                extra["site"]["where"] = extra["site"]["function_where"] = "at::detail::empty_cuda in libtorch_cuda.so"
                extra["python"] = python_of("serving_gate.py:41 in Model.forward")
                extra["bytes"], extra["allocations"] = 8 << 20, 1
                sites.append(extra)

        walk(r, add)
    text = json.dumps(r)
    if shift:
        text = re.sub(r"(serving_gate\.py:)(\d+)", lambda m: m.group(1) + str(int(m.group(2)) + shift), text)
    if rename:
        text = text.replace(rename[0], rename[1])
    with open(dst, "w") as f:
        f.write(text)
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

    # Allocation sites keyed by what their Python line is, not by its number.
    lines_a = allocation_lines(f("asis3_a"), os.path.join(work, "alloc_a.json"))
    lines_b = allocation_lines(f("asis3_b"), os.path.join(work, "alloc_b.json"))
    shifted = allocation_lines(f("asis3_b"), os.path.join(work, "alloc_shifted.json"), shift=5)
    grown = allocation_lines(f("asis3_b"), os.path.join(work, "alloc_new.json"), shift=5, new_site=True)
    alloc_metrics = ("capture_alloc_bytes", "before_capture_alloc_bytes")
    rc, same_doc, _ = compare(gp, lines_a, lines_b, work, "alloc-lines-aa")
    check(rc == 0, "allocation lines, A/A: exit %d, expected 0" % rc)
    rc, doc, out = compare(gp, lines_a, shifted, work, "alloc-lines-shifted")
    check(rc == 0, "allocation lines moved by 5: exit %d, expected 0" % rc)
    alloc = [r for r in doc["rows"] if r["metric"] in alloc_metrics]
    check(len(alloc) == len([r for r in same_doc["rows"] if r["metric"] in alloc_metrics]) and alloc,
          "allocation lines moved by 5: %d allocation rows, as many as A/A expected" % len(alloc))
    check(all(r["verdict"] == "same" for r in alloc), "allocation lines moved by 5: %s" % [(r["params"], r["verdict"]) for r in alloc if r["verdict"] != "same"])
    check(any("moved: serving_gate.py:40 in Model.forward (at::cuda::setWorkspaceForHandle in libtorch_cuda.so) -> serving_gate.py:45 in Model.forward"
              in r.get("reason", "") for r in alloc), "allocation lines moved by 5: no allocation row says where it moved")
    # A renamed function (and its lines moved): the same allocation sites, by file and line text.
    renamed = allocation_lines(f("asis3_b"), os.path.join(work, "alloc_renamed.json"), shift=5,
                               rename=("Model.forward", "Model.run_forward"))
    rc, doc, _ = compare(gp, lines_a, renamed, work, "alloc-lines-renamed")
    alloc = [r for r in doc["rows"] if r["metric"] in alloc_metrics]
    check(all(r["verdict"] == "same" for r in alloc) and alloc,
          "allocation sites in a renamed function: %s" % [(r["params"], r["verdict"]) for r in alloc if r["verdict"] != "same"])
    check(not [r for r in doc["rows"] if r["metric"] in alloc_metrics and r["verdict"] in ("regression", "added", "missing")],
          "allocation sites in a renamed function read as new or gone")
    rc, doc, out = compare(gp, lines_a, grown, work, "alloc-lines-new-site")
    check(rc == 1, "a new allocation site in capture, lines moved by 5: exit %d, expected 1" % rc)
    fresh = [r for r in rows(doc, "capture_alloc_bytes") if r["verdict"] == "regression"]
    check(len(fresh) == 1 and fresh[0]["reason"].startswith("new allocation site in capture: ")
          and fresh[0]["params"].get("site", "").startswith("serving_gate.py:46 in Model.forward ("),
          "a new allocation site in capture: %s" % [(r["params"], r["reason"]) for r in fresh])
    check("serving_gate.py:46 in Model.forward (at::detail::empty_cuda in libtorch_cuda.so)" in out,
          "a new allocation site in capture: the console does not name it whole")
    vanished = [r for r in doc["rows"] if r["metric"] in alloc_metrics and r["verdict"] == "improvement"]
    check(vanished == [], "a new allocation site in capture: sites read as gone: %s" % [r["params"] for r in vanished])

    print("%d problem(s)" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
