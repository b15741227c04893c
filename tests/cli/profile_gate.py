#!/usr/bin/env python3
"""Replays the app gate's verdicts on H200 profiles (tests/data/profile/gate/README.md).

    profile_gate.py GRAPHPROF DATA_DIR WORK_DIR

`graphprof compare --json` of sets of five profiles of the serving test application (merged single
profiles in gate/, `profile --repeat 5` in gate/repeat/):
  - as is against as is (A/A): exit 0, no row fails;
  - as is against "moved" (its last block runs eagerly after every replay): exit 1, failing on
    coverage and eager launches per step and on nothing else; no graph reads as faster;
  - as is against "slow" (one graph's kernel does 16x the work): exit 1, failing on the GPU time
    per step (naming that graph) and that one graph's GPU time per launch, and nothing else.
Also: Markdown and JUnit outputs say the same verdict, and two single profiles cannot pass; and the
rows by call site on edited copies of the --repeat set: a new eager site, more launches per step from
a site, more graph memory, a re-capture each fail naming the site; profiles without call sites or
ledgers (an older graphprof) compare with those rows not comparable.
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


def replay(gp, d, work, singles):
    """The verdicts on one set of fixtures in folder d; singles: the two single profiles (paths)."""
    asis, asis_b, moved, slow = (os.path.join(d, n + ".json") for n in ("asis", "asis_b", "moved", "slow"))
    tag = os.path.basename(d)

    rc, doc, _ = compare(gp, asis, asis_b, work, tag + "-aa")
    check(rc == 0, "%s A/A: exit %d, expected 0" % (tag, rc))
    check(failing(doc) == [], "%s A/A: failing rows %s" % (tag, failing(doc)))
    # Every row carries the threshold it was judged by, as run comparisons do (docs/compare.md).
    basis = {(row["metric"], row.get("params", {}).get("graph", "")[:2]): row["rule"]["threshold_basis"] for row in doc["rows"]}
    check(basis.get(("coverage_kernels", "")) == "absolute", "%s A/A: coverage threshold basis %s" %
          (tag, basis.get(("coverage_kernels", ""))))
    check(basis.get(("launches", "#1")) == "count", "%s A/A: launches threshold basis %s" % (tag, basis.get(("launches", "#1"))))
    check(basis.get(("gpu_time_per_launch", "#1")) in ("floor", "noise"), "%s A/A: GPU time threshold basis %s" %
          (tag, basis.get(("gpu_time_per_launch", "#1"))))
    r = subprocess.run([gp, "compare", asis, asis_b, "--all"], stdout=subprocess.PIPE, text=True)
    check("2 points" in r.stdout and "3% (count)" in r.stdout, "%s A/A: the console shows no per-row threshold:\n%s" %
          (tag, r.stdout))

    rc, doc, text = compare(gp, asis, moved, work, tag + "-moved")
    check(rc == 1, "%s moved: exit %d, expected 1" % (tag, rc))
    fails = failing(doc)
    metrics = {m for m, _ in fails}
    check(metrics & {"coverage_kernel_time", "coverage_kernels"}, "%s moved: no coverage row fails (%s)" % (tag, fails))
    check("eager_launches_per_step" in metrics, "%s moved: eager_launches_per_step does not fail (%s)" % (tag, fails))
    check(metrics <= {"coverage_kernel_time", "coverage_kernels", "eager_launches_per_step"},
          "%s moved: other rows fail too: %s" % (tag, fails))
    improved = [r["metric"] for r in doc["rows"] if r["verdict"] == "improvement"]
    check(improved == [], "%s moved: rows read as improvements: %s" % (tag, improved))

    rc, doc, _ = compare(gp, asis, slow, work, tag + "-slow")
    check(rc == 1, "%s slow: exit %d, expected 1" % (tag, rc))
    fails = failing(doc)
    check(sorted(f[0] for f in fails) == ["gpu_time_per_launch", "gpu_time_per_step"],
          "%s slow: failing rows %s, expected the step's and one graph's GPU time" % (tag, fails))
    step = [r for r in doc["rows"] if r["metric"] == "gpu_time_per_step"]
    check(step and "graphs slower per launch: #4/4" in step[0].get("reason", ""),
          "%s slow: the step's row does not name the slower graph: %s" % (tag, step))
    # A slower graph raises the share of kernel time inside graphs: that is no improvement.
    improved = [r["metric"] for r in doc["rows"] if r["verdict"] == "improvement"]
    check(improved == [], "%s slow: rows read as improvements: %s" % (tag, improved))

    md = os.path.join(work, tag + "-slow.md")
    junit = os.path.join(work, tag + "-slow.xml")
    subprocess.run([gp, "compare", asis, slow, "--markdown", md, "--junit", junit], stdout=subprocess.DEVNULL)
    with open(md) as f:
        check("FAIL" in f.read(), "%s slow: the Markdown does not say FAIL" % tag)
    with open(junit) as f:
        check("<failure" in f.read(), "%s slow: the JUnit has no failure" % tag)

    rc, doc, _ = compare(gp, singles[0], singles[1], work, tag + "-single")
    check(rc == 5, "%s one profile per side: exit %d, expected 5 (not enough runs)" % (tag, rc))


def profile_runs(doc):
    """Every run's process list of a profile report (sections.profile.runs[], and the section itself)."""
    for res in doc["results"]:
        prof = res.get("sections", {}).get("profile")
        if prof is None:
            continue
        yield prof
        for run in prof.get("runs", []):
            yield run


def edited(src, work, name, edit):
    """A copy of the report at src with edit(process) applied to every process of every run."""
    with open(src) as f:
        doc = json.load(f)
    doc["created_utc"] = "2026-12-01T12:00:00Z"
    for run in profile_runs(doc):
        for proc in run.get("processes", []):
            edit(proc)
    # Not NAME.json: that is where compare(..., NAME) writes its comparison, and an output may not
    # replace an input.
    out = os.path.join(work, name + ".profile.json")
    with open(out, "w") as f:
        json.dump(doc, f)
    return out


def by_site(gp, d, work):
    """The rows by call site (docs/compare.md, "By call site") on copies of the --repeat fixtures."""
    asis, asis_b = os.path.join(d, "asis.json"), os.path.join(d, "asis_b.json")
    rc, doc, text = compare(gp, asis, asis_b, work, "sites-aa")
    rows = [(r["metric"], r.get("params", {}).get("site", ""), r["verdict"]) for r in doc["rows"] if r.get("params", {}).get("site")]
    check(("eager_launches_per_step", "main in graphprof_serving_app", "same") in rows, "sites A/A: no eager row of main: %s" % rows)
    check(("graph_memory", "main in graphprof_serving_app", "same") in rows, "sites A/A: no graph memory row: %s" % rows)
    check(("graphs_made", "main in graphprof_serving_app", "same") in rows, "sites A/A: no graphs made row: %s" % rows)
    # The rules line describes the profile rule, not the run report's.
    check("two profiles, run by run" in text and "interval clears" not in text, "sites A/A: the rules line:\n" + text)

    def new_site(proc):
        site = dict(next(e for e in proc["eager_sites"] if e["kind"] == "kernel launch"))
        site["site"] = dict(site["site"], where="serving_app.cu:999 in new_eager_work",
                            function_where="new_eager_work in graphprof_serving_app")
        site["per_step"] = 2.0
        proc["eager_sites"].append(site)
    rc, doc, _ = compare(gp, asis, edited(asis_b, work, "sites-new", new_site), work, "sites-new")
    fails = [(r["metric"], r.get("params", {}).get("site", ""), r["reason"]) for r in doc["rows"] if r["effect"] == "fail"]
    check(rc == 1, "sites new eager site: exit %d, expected 1" % rc)
    check([f[:2] for f in fails] == [("eager_launches_per_step", "serving_app.cu:999 in new_eager_work")],
          "sites new eager site: failing rows %s" % fails)
    check(fails and fails[0][2].startswith("new eager call site"), "sites new eager site: reason %s" % fails)

    def more_per_step(proc):
        for e in proc["eager_sites"]:
            if e["kind"] == "kernel launch" and e["site"]["where"] == "main in graphprof_serving_app":
                e["per_step"] *= 3
    rc, doc, _ = compare(gp, asis, edited(asis_b, work, "sites-more", more_per_step), work, "sites-more")
    fails = [(r["metric"], r.get("params", {}).get("site", "")) for r in doc["rows"] if r["effect"] == "fail"]
    check(("eager_launches_per_step", "main in graphprof_serving_app") in fails, "sites more launches: failing rows %s" % fails)

    def more_memory(proc):
        proc["graphs"][0]["memory"]["capture_alloc_bytes"] += 64 << 20
    rc, doc, _ = compare(gp, asis, edited(asis_b, work, "sites-memory", more_memory), work, "sites-memory")
    fails = [(r["metric"], r.get("params", {}).get("site", "")) for r in doc["rows"] if r["effect"] == "fail"]
    check(rc == 1 and ("graph_memory", "main in graphprof_serving_app") in fails, "sites more memory: exit %d, failing %s" % (rc, fails))

    def recapture(proc):
        extra = json.loads(json.dumps(proc["graphs"][0]))
        extra["exec"] = extra["exec"] + 1000
        proc["graphs"].append(extra)
    rc, doc, _ = compare(gp, asis, edited(asis_b, work, "sites-recapture", recapture), work, "sites-recapture")
    fails = [(r["metric"], r.get("params", {}).get("site", "")) for r in doc["rows"] if r["effect"] == "fail"]
    check(rc == 1 and ("graphs_made", "main in graphprof_serving_app") in fails, "sites re-capture: exit %d, failing %s" % (rc, fails))

    # The same program built with debug information: every native site named by its line. Against
    # the profile without lines, sites and graphs are matched by their function: nothing is gone.
    def with_lines(proc):
        sites = [e["site"] for e in proc["eager_sites"]]
        sites += [g[k] for g in proc["graphs"] for k in ("capture_site", "instantiate_site") if g.get(k)]
        for n, site in enumerate(sites):
            if site.get("from") == "native":
                site["function_where"] = site["where"]
                site["where"] = "serving_app.cu:%d in %s" % (100 + n, site["where"].split(" in ")[0])
    rc, doc, _ = compare(gp, asis, edited(asis_b, work, "sites-lines", with_lines), work, "sites-lines")
    fails = [(r["metric"], r.get("params", {}).get("graph", ""), r["reason"]) for r in doc["rows"] if r["effect"] != "pass"]
    check(rc == 0 and fails == [], "sites with lines against without: exit %d, rows %s" % (rc, fails))
    rows = [(r["metric"], r.get("params", {}).get("site", "")) for r in doc["rows"] if r.get("params", {}).get("site")]
    check(("eager_launches_per_step", "serving_app.cu:100 in main") in rows, "sites with lines: rows %s" % rows)

    # Profiles of an older graphprof (no call sites, no ledger): they still compare, and the rows by
    # site say why they are not there.
    def old(proc):
        for k in ("call_sites_recorded", "ledgers_recorded", "eager_sites", "recaptures"):
            proc.pop(k, None)
        for g in proc["graphs"]:
            for k in ("capture_site", "instantiate_site", "memory"):
                g.pop(k, None)
    old_a, old_b = edited(asis, work, "sites-old-a", old), edited(asis_b, work, "sites-old-b", old)
    rc, doc, _ = compare(gp, old_a, old_b, work, "sites-old")
    nc = [r["metric"] for r in doc["rows"] if r["verdict"] == "not_comparable"]
    check(rc == 0 and "eager_launches_per_step" in nc, "sites old profiles: exit %d, not comparable %s" % (rc, nc))
    rc, doc, _ = compare(gp, old_a, asis_b, work, "sites-old-new")
    nc = [(r["metric"], r["reason"]) for r in doc["rows"] if r["verdict"] == "not_comparable"]
    check(rc == 0 and any(m == "eager_launches_per_step" and "baseline" in why for m, why in nc),
          "sites old against new: exit %d, not comparable %s" % (rc, nc))


def main():
    gp, data, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    d = os.path.join(data, "profile", "gate")
    # Five single profiles pooled with `merge` per set, of an older schema: the other side of one
    # profile is the same profile stamped at another time (compare refuses one file, or the same
    # bytes, on both sides).
    one = os.path.join(d, "single.json")
    other = os.path.join(work, "single_later.json")
    with open(one) as f:
        later = json.load(f)
    later["created_utc"] = "2026-12-01T12:00:00Z"
    with open(other, "w") as f:
        json.dump(later, f)
    replay(gp, d, work, (one, other))
    # `profile --repeat 5` sets, and two single profiles, of today's schema.
    r = os.path.join(d, "repeat")
    replay(gp, r, work, (os.path.join(r, "single_a.json"), os.path.join(r, "single_b.json")))
    by_site(gp, r, work)

    print("%d problem(s)" % len(problems) if problems else "ok")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
