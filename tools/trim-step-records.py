#!/usr/bin/env python3
"""Shrinks a `graphprof profile` record file (profile-data/proc-<pid>.jsonl) into a CPU test fixture
that the step-kinds analysis reads as it read the original (tests/data/profile/h100/README.md).

    tools/trim-step-records.py IN.jsonl OUT.jsonl [--drop-api NAME,...] [--steps K]

- times become relative to a base 10 s before the process line's (the reader accepts any base);
- API lines lose the fields the reader defaults (cb, dr, p, r when 0) and the thread of the most
  calls (the reader's default, 0, stands for it; every other thread keeps its id);
- call sites keep their Python frames and lose their native frames and module identities;
- API lines named in --drop-api, and records of the kinds in --drop-kinds, go (say which in the
  fixture's README: their counts change);
- kernel records keep name, times, correlation, graph and grid (block, stream, registers go); a
  name longer than 48 characters becomes its first 40 and a number (one per name);
- --steps K: API, kernel, copy, memset and graph-span records after the K-th cudaStreamSynchronize
  after the first cudaGraphLaunch go, with the GPU records of the calls that went, and allocation
  records after it (the first K steps of a loop
  that synchronises once a step).
Output is one JSON object a line, as the injection library writes them.
"""
import argparse
import collections
import json

TIME_KEYS = ("ts", "s", "e", "first", "last", "settled")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--drop-api", default="")
    ap.add_argument("--steps", type=int, default=0)
    ap.add_argument("--drop-kinds", default="", help="record kinds (t) to leave out, e.g. mc,ms")
    a = ap.parse_args()
    drop = set(x for x in a.drop_api.split(",") if x)
    lines = [json.loads(l) for l in open(a.src) if l.strip()]
    begin = next(j["ts"] for j in lines if j.get("t") == "process")
    base = begin - 10_000_000_000
    threads = collections.Counter(j.get("th", 0) for j in lines if j.get("t") == "a")
    main_thread = threads.most_common(1)[0][0] if threads else 0
    cut = None
    if a.steps > 0:
        api = sorted((j for j in lines if j.get("t") == "a"), key=lambda j: j["s"])
        first = next(j["s"] for j in api if j["n"].startswith("cudaGraphLaunch"))
        syncs = [j["e"] for j in api if j["n"] == "cudaStreamSynchronize" and j["s"] > first]
        cut = syncs[a.steps - 1]
        kept = set(j["co"] for j in api if j["s"] <= cut)
    names = {}
    out = []
    for j in lines:
        t = j.get("t")
        if t == "a" and j.get("n") in drop or t in a.drop_kinds.split(","):
            continue
        if cut is not None and t == "a" and j.get("s", 0) > cut:
            continue
        if cut is not None and t in ("k", "mc", "ms", "gt") and j.get("co") not in kept:
            continue
        if cut is not None and t in ("mem_op", "vmm") and j.get("ts", 0) > cut:
            continue
        for k in TIME_KEYS:
            if isinstance(j.get(k), int) and j[k] > base:
                j[k] -= base
        if t == "a":
            for k in ("cb", "dr", "p", "r"):
                if j.get(k) == 0 or k == "p":
                    j.pop(k, None)
            if j.get("th") == main_thread:
                j.pop("th")
            elif j.get("th") == 0:
                j["th"] = main_thread  # keep it apart from the main thread's default
        elif t == "site":
            j.pop("n", None)
            j.pop("mi", None)
            j["ni"] = 0
        elif t == "k":
            for k in ("bl", "st", "sh", "rg", "c", "d", "gn"):
                j.pop(k, None)
            if len(j.get("n", "")) > 48:  # a long mangled name: its first 40 characters and a number keep it apart
                j["n"] = j["n"][:40] + "~" + str(names.setdefault(j["n"], len(names)))
        out.append(json.dumps(j, separators=(",", ":")))
    with open(a.dst, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
