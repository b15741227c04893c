#!/usr/bin/env python3
"""Trims a `graphprof profile` line file (proc-<pid>.jsonl) to what its memory and start-up ledgers
read, for a test fixture: drops the kernel, copy and memset records, the API records of eager
launches, copies and event queries, and the call sites (site, sc) of the calls dropped; keeps every
other line as it is (captures, instantiations, graph launches, allocations and their API records,
the sites of those, memory samples, the process and end lines). The dump paths of exec lines are
emptied (the dumps are not kept). Usage: trim-profile-records.py IN OUT
"""
import json
import sys

DROP_KINDS = {"k", "mc", "ms"}
DROP_APIS = ("LaunchKernel", "Memcpy", "Memset", "LaunchCooperativeKernel", "EventQuery")

src, dst = sys.argv[1], sys.argv[2]
# The correlation ids of the API records kept, and the sites their calls were made from.
calls = set()
for line in open(src):
    try:
        j = json.loads(line)
    except ValueError:
        continue
    if j.get("t") == "a" and not any(x in j.get("n", "") for x in DROP_APIS):
        calls.add(j.get("co"))
sites = set()
for line in open(src):
    try:
        j = json.loads(line)
    except ValueError:
        continue
    if j.get("t") == "sc" and any(c in calls for c in j["co"]):
        sites.add(j["s"])
kept = dropped = 0
with open(src) as f, open(dst, "w") as out:
    for line in f:
        try:
            j = json.loads(line)
        except ValueError:
            out.write(line)
            continue
        t = j.get("t")
        if t in DROP_KINDS or (t == "a" and any(x in j.get("n", "") for x in DROP_APIS)):
            dropped += 1
            continue
        if t == "site" and j.get("s") not in sites:
            dropped += 1
            continue
        if t == "sc":
            if j["s"] not in sites:
                dropped += 1
                continue
            j["co"] = [c for c in j["co"] if c in calls]
            line = json.dumps(j, separators=(",", ":")) + "\n"
        if t == "exec":
            j["dot"] = j["dot_verbose"] = ""
            line = json.dumps(j, separators=(",", ":")) + "\n"
        out.write(line)
        kept += 1
print(f"{dst}: kept {kept} lines, dropped {dropped}")
