#!/usr/bin/env python3
"""file:line of native call sites through `graphprof profile` itself (docs/profile.md, "file:line").

    profile_source_lines.py GRAPHPROF WORK_DIR RECORDS DEBUG_LIB NODEBUG_LIB FIXTURE_SOURCE

The "application" copies H200 records (RECORDS, an older library's, without call sites) into its
records folder with two call sites added: eager launches whose frame is a call in the fixture
library (tests/unit/source_lines/source_lines_fixture.cpp), once in its build with debug
information and once in its build without, each frame recorded as the injection library records it
(the module, the return address minus the module's load bias, the module's build ID, size and
mtime). graphprof, building the report after the run, must name the first site by the fixture's
MARKER line and keep function + offset for the second, saying why once.
"""
import ctypes
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


def frame_of(lib):
    """(module-relative return address of fixture_direct's call, build id, size, mtime) of lib."""
    handle = ctypes.CDLL(lib)
    fn = handle.fixture_direct
    fn.restype = ctypes.c_uint64
    pc = fn()
    real = os.path.realpath(lib)
    base = None
    with open("/proc/self/maps") as maps:
        for line in maps:
            parts = line.split()
            if len(parts) >= 6 and os.path.realpath(parts[5]) == real and int(parts[2], 16) == 0:
                base = int(parts[0].split("-")[0], 16)
                break
    out = subprocess.run(["readelf", "-n", lib], stdout=subprocess.PIPE, text=True).stdout
    m = re.search(r"Build ID: ([0-9a-f]+)", out)
    st = os.stat(lib)
    return pc - base, m.group(1) if m else "", st.st_size, int(st.st_mtime)


def main():
    gp, work, records, debug_lib, nodebug_lib, source = sys.argv[1:7]
    os.makedirs(work, exist_ok=True)
    with open(source) as f:
        marker = next(i for i, l in enumerate(f, 1) if "MARKER: direct call" in l)
    eager = []
    with open(records) as f:
        lines = f.read().splitlines()
    for l in lines:
        j = json.loads(l)
        if j.get("t") == "k" and j.get("g") == 0:
            eager.append(j["co"])
    check(len(eager) >= 2, "the records have %d eager kernels, expected 2 or more" % len(eager))
    extra = []
    for s, (lib, calls) in enumerate(((debug_lib, eager[:2]), (nodebug_lib, eager[2:] or eager[:1]))):
        offset, build_id, size, mtime = frame_of(lib)
        extra.append(json.dumps({"t": "site", "s": s, "api": "cudaLaunchKernel", "n": [[lib, "0x%x" % offset, "fixture_direct", 8]],
                                 "ni": 2, "mi": [[lib, build_id, size, mtime]]}))
        extra.append(json.dumps({"t": "sc", "s": s, "co": calls}))
    recs = os.path.join(work, "proc-2096.jsonl")
    with open(recs, "w") as f:
        f.write("\n".join(lines[:-1] + extra + lines[-1:]) + "\n")

    out = os.path.join(work, "p")
    env = dict(os.environ, GRAPHPROF_PROFILE_NO_GPU_CHECK="1")
    app = "cp '%s' \"$GRAPHPROF_PROFILE_DIR/proc-2096.jsonl\"" % recs
    r = subprocess.run([gp, "profile", "--verbose", "--out", out, "--", "sh", "-c", app], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, env=env, timeout=120)
    print(r.stdout)
    check(r.returncode == 0, "profile exit %d, expected 0" % r.returncode)
    with open(os.path.join(out, "report.json")) as f:
        rep = json.load(f)
    proc = next(res["sections"]["profile"] for res in rep["results"] if "profile" in res.get("sections", {}))["processes"][0]
    where = {e["site"]["where"]: e["site"] for e in proc["eager_sites"]}
    want = "source_lines_fixture.cpp:%d in fixture_direct" % marker
    check(want in where, "no eager site %r in %s" % (want, list(where)))
    if want in where:
        f0 = where[want]["frames"][0]
        check(f0["line"] == marker and f0["file"].endswith("source_lines_fixture.cpp") and not f0["inlined"],
              "the frame of %r: %s" % (want, f0))
        check(where[want]["function_where"] == "fixture_direct in " + os.path.basename(debug_lib),
              "function_where %r" % where[want]["function_where"])
    plain = "fixture_direct in " + os.path.basename(nodebug_lib)
    check(plain in where, "no eager site %r in %s" % (plain, list(where)))
    if plain in where:
        check(where[plain]["frames"][0]["line"] is None, "the site without debug information has a line")
    notes = proc.get("source_line_notes", [])
    check(len(notes) == 1 and os.path.basename(nodebug_lib) in notes[0] and "no debug information" in notes[0],
          "source_line_notes %s" % notes)
    check(want in r.stdout, "the console does not name %r" % want)
    check("no file:line for the sites in " + os.path.basename(nodebug_lib) in r.stdout, "the console does not say why once")
    check(r.stdout.count("no file:line for the sites in") == 1, "the console says it more than once")
    print("%d problem(s)" % len(problems) if problems else "ok")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
