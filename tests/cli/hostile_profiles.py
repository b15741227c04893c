#!/usr/bin/env python3
"""hostile_profiles.py GRAPHPROF PROFILE.json: hand-edited profile reports read by `report` (the
console summary again, and the page) end in exit 0 or exit 3 naming the file and the field, within
a minute: never a signal, never exit 6, never a launch number wrapped around past zero.
- node_sampling.traced_ordinals runs of other shapes than [first, last] (a run with one number or
  none read past its end and crashed).
- timeline.bin_ns so large that the page's time axis spans more than a double holds (its tick loop
  never ended).
- fields the summary reads left out: the headline's read tolerantly (exit 0), a process's coverage
  is exit 3 naming the file (both read freed memory before: a const operator[] on a missing key).
"""
import copy
import json
import os
import subprocess
import sys
import tempfile

gp, source = sys.argv[1], sys.argv[2]
with open(source, encoding="utf-8") as f:
    good = json.load(f)
failures = 0


def processes(report):
    return report["results"][0]["sections"]["profile"]["processes"]


def sampled_graph(report):
    for p in processes(report):
        for g in p.get("graphs", []):
            if isinstance(g.get("node_sampling"), dict):
                return g
    raise SystemExit("FAIL: the fixture has no graph with node_sampling")


def run(args):
    try:
        r = subprocess.run([gp] + args, capture_output=True, timeout=60)
        return r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return "timeout", "", ""


def check(name, mutate, want_rc, want_err=None, page_rc=None):
    global failures
    report = copy.deepcopy(good)
    mutate(report)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, name + ".json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(report, f)
        for args, want in ((["report", path], want_rc), (["report", path, "-o", os.path.join(d, "page.html")], page_rc)):
            if want is None:
                continue
            rc, out, err = run(args)
            bad = []
            if rc != want:
                bad.append(f"exit {rc}, expected {want}")
            if want == 3 and (path not in err or (want_err and want_err not in err)):
                bad.append(f"stderr does not name the file and {want_err}")
            if "18446744073709551" in out:
                bad.append("a launch number wrapped around")
            if want == 0 and len(args) == 4 and os.path.getsize(args[3]) > 50_000_000:
                bad.append("the page is larger than 50 MB")
            line = f"{name} {' '.join(args[:1] + args[2:3])}: {err.strip()[:160]}"
            if bad:
                failures += 1
                print(f"FAIL {line}: {'; '.join(bad)}")
            else:
                print(f"ok   {line}")


def set_ordinals(value):
    def mutate(report):
        sampled_graph(report)["node_sampling"]["traced_ordinals"] = value
    return mutate


def missing_ordinals(report):
    del sampled_graph(report)["node_sampling"]["traced_ordinals"]


field = "node_sampling.traced_ordinals"
check("as_written", lambda r: None, 0, page_rc=0)
check("one_number", set_ordinals([[3]]), 3, field, page_rc=0)
check("empty_run", set_ordinals([[]]), 3, field, page_rc=0)
check("not_runs", set_ordinals([5, 7]), 3, field, page_rc=0)
check("negative", set_ordinals([[-3, -1]]), 3, field, page_rc=0)
check("backwards", set_ordinals([[9, 2]]), 3, field, page_rc=0)
check("three_numbers", set_ordinals([[1, 2, 3]]), 3, field, page_rc=0)
check("a_string", set_ordinals("1-20"), 3, field, page_rc=0)
check("no_runs", set_ordinals([]), 0, page_rc=0)
check("missing", missing_ordinals, 0, page_rc=0)


def set_bin(value):
    def mutate(report):
        for p in processes(report):
            if isinstance(p.get("timeline"), dict):
                p["timeline"]["bin_ns"] = value
    return mutate


check("bin_ns_1e308", set_bin(1e308), 0, page_rc=0)
check("bin_ns_1e18", set_bin(1e18), 0, page_rc=0)
check("bin_ns_tiny", set_bin(1e-300), 0, page_rc=0)
check("bin_ns_negative", set_bin(-5.0), 0, page_rc=0)
def drop(*path):
    def mutate(report):
        o = report["results"][0]["sections"]["profile"]
        for k in path[:-1]:
            o = o[k]
        del o[path[-1]]
    return mutate


check("no_trace_level", drop("trace_level"), 0, page_rc=0)
check("no_exit", drop("exit"), 0, page_rc=0)
check("no_coverage", drop("processes", 0, "coverage"), 3, "malformed", page_rc=0)
sys.exit(1 if failures else 0)
