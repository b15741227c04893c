#!/usr/bin/env python3
"""What recording costs a program, within one process (the developer switch GRAPHPROF_DEV_PAUSE of
the interposer, src/inject/interpose/runtime_interpose.cpp): the program logs its own chunks of steps
(`START_NS END_NS STEPS` per line, CLOCK_MONOTONIC: tests/apps/python/serving_loop.py --chunk-log),
the interposer the times it paused and resumed recording (`NS recording|paused`). Each chunk that
lies wholly inside one window counts for that window, whose figure is the median time per step of
its chunks. Each recording window is held against the geometric mean of the paused windows on
either side of it, so a slow spell of the host that spans a few windows moves both sides alike.
The change is the median of those ratios, with a distribution-free 95 % interval (the order
statistics of the sign test): the host of the H200 has slow spells of a second or so at several
times the usual step time, whose ratios a mean would follow. Several processes: pass several pairs
of files; their ratios are pooled.

    tools/pause-stats.py CHUNKS SWITCHES [CHUNKS SWITCHES ...]
"""
import math
import statistics
import sys


def windows(path):
    marks = []
    for line in open(path):
        f = line.split()
        if len(f) == 2 and f[1] in ("recording", "paused"):
            marks.append((int(f[0]), f[1]))
    return [(a[0], b[0], a[1]) for a, b in zip(marks, marks[1:])]


def ratios_of(chunks_path, switches_path):
    ws = windows(switches_path)
    per_window = [[] for _ in ws]
    for line in open(chunks_path):
        f = line.split()
        if len(f) != 3:
            continue
        a, b, steps = int(f[0]), int(f[1]), int(f[2])
        for k, (lo, hi, _) in enumerate(ws):
            if lo <= a and b <= hi:
                per_window[k].append((b - a) / 1e3 / steps)
                break
    med = [(statistics.median(v) if v else None, ws[k][2]) for k, v in enumerate(per_window)]
    out = []
    for k in range(1, len(med) - 1):
        (p0, k0), (r, kr), (p1, k1) = med[k - 1], med[k], med[k + 1]
        if kr == "recording" and k0 == k1 == "paused" and p0 and r and p1:
            out.append((r, math.sqrt(p0 * p1)))
    return out, sum(len(v) for v in per_window)


def main():
    args = sys.argv[1:]
    if len(args) < 2 or len(args) % 2:
        sys.exit(__doc__)
    logs = []
    for i in range(0, len(args), 2):
        pairs, used = ratios_of(args[i], args[i + 1])
        if pairs:
            own = sorted(math.log(r / p) for r, p in pairs)
            print(f"{args[i]}: {len(pairs)} recording windows, {used} chunks; recording {statistics.median(r for r, _ in pairs):.2f} "
                  f"µs/step, paused {statistics.median(p for _, p in pairs):.2f} µs/step, "
                  f"change {100 * (math.exp(statistics.median(own)) - 1):+.2f} %")
            logs += own
    n = len(logs)
    if n < 6:
        sys.exit("pause-stats: fewer than six recording windows between paused ones")
    logs.sort()
    k = max(0, int((n - 1.96 * math.sqrt(n)) / 2))  # the sign test's 95 % interval for the median
    lo, mid, hi = (math.exp(x) - 1 for x in (logs[k], statistics.median(logs), logs[n - 1 - k]))
    noise = "inside the noise" if lo <= 0 <= hi else "outside the noise"
    print(f"recording vs paused: {100 * mid:+.2f} % [{100 * lo:+.2f}, {100 * hi:+.2f}] "
          f"(median, 95 % sign-test interval, {n} recording windows; {noise})")


if __name__ == "__main__":
    main()
