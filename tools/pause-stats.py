#!/usr/bin/env python3
"""What recording costs a program, within one process (the developer switch GRAPHPROF_DEV_PAUSE of
the interposer, src/inject/runtime_interpose.cpp): the program logs its own chunks of steps
(`START_NS END_NS STEPS` per line, CLOCK_MONOTONIC: tests/apps/python/serving_loop.py --chunk-log),
the interposer the times it paused and resumed recording (`NS recording|paused`). Each chunk that
lies wholly inside one window counts for that window; per window the median time per step; each
recording window is paired with the paused window after it, and the change is the geometric mean
of the pairs' ratios with a 95 % Student-t interval. Several processes: pass several pairs of files.

    tools/pause-stats.py CHUNKS SWITCHES [CHUNKS SWITCHES ...]
"""
import math
import statistics
import sys

T95 = [0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
       2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def windows(path):
    marks = []
    for line in open(path):
        f = line.split()
        if len(f) == 2:
            marks.append((int(f[0]), f[1]))
    return [(a[0], b[0], a[1]) for a, b in zip(marks, marks[1:])]


def pairs_of(chunks_path, switches_path):
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
    for k in range(len(med) - 1):
        (r, kr), (p, kp) = med[k], med[k + 1]
        if kr == "recording" and kp == "paused" and r and p:
            out.append((r, p))
    return out, sum(len(v) for v in per_window)


def main():
    args = sys.argv[1:]
    if len(args) < 2 or len(args) % 2:
        sys.exit(__doc__)
    all_pairs = []
    for i in range(0, len(args), 2):
        pairs, used = pairs_of(args[i], args[i + 1])
        if pairs:
            rec = statistics.median(r for r, _ in pairs)
            pau = statistics.median(p for _, p in pairs)
            print(f"{args[i]}: {len(pairs)} window pairs, {used} chunks; recording {rec:.2f} µs/step, paused {pau:.2f} µs/step")
        all_pairs += pairs
    logs = [math.log(r / p) for r, p in all_pairs]
    if len(logs) < 2:
        sys.exit("pause-stats: fewer than two window pairs")
    m = statistics.mean(logs)
    half = T95[min(len(logs) - 1, 30)] * statistics.stdev(logs) / math.sqrt(len(logs))
    lo, hi = math.exp(m - half) - 1, math.exp(m + half) - 1
    noise = "inside the noise" if lo <= 0 <= hi else "outside the noise"
    print(f"recording vs paused: {100 * (math.exp(m) - 1):+.2f} % [{100 * lo:+.2f}, {100 * hi:+.2f}] (95 %, {len(logs)} window pairs; {noise})")


if __name__ == "__main__":
    main()
