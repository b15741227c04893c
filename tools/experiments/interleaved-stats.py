#!/usr/bin/env python3
"""Tabulates interleaved measurements (evidence/overhead/): lines `GROUP SETTING ROUND VALUE` (lower is better). Per group,
the median of each setting and, for every setting against the group's first (plain), the paired
change over the rounds present in both: geometric mean of the ratios with a 95 % Student-t interval
over the log ratios. An interval that holds 0 is called inside the noise."""
import math
import statistics
import sys

T95 = [0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
       2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]

data, order = {}, {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) != 4:
        continue
    g, s, r, v = f[0], f[1], f[2], float(f[3])
    data.setdefault(g, {}).setdefault(s, {})[r] = v
    order.setdefault(g, [])
    if s not in order[g]:
        order[g].append(s)
for g, settings in data.items():
    base = order[g][0]
    print(f"== {g} (baseline {base})")
    for s in order[g]:
        vals = list(settings[s].values())
        line = f"  {s:18s} n={len(vals):2d} median {statistics.median(vals):12.3f}  runs " + \
               " ".join(f"{v:.3f}" for v in sorted(vals))
        if s != base:
            rounds = [r for r in settings[s] if r in settings[base] and settings[base][r] > 0 and settings[s][r] > 0]
            logs = [math.log(settings[s][r] / settings[base][r]) for r in rounds]
            if len(logs) >= 2:
                m = statistics.mean(logs)
                half = T95[min(len(logs) - 1, 30)] * statistics.stdev(logs) / math.sqrt(len(logs))
                lo, hi = math.exp(m - half) - 1, math.exp(m + half) - 1
                noise = "inside the noise" if lo <= 0 <= hi else "outside the noise"
                line += f"\n  {'':18s} vs {base}: {100 * (math.exp(m) - 1):+.1f} % [{100 * lo:+.1f}, {100 * hi:+.1f}] " \
                        f"(95 %, {len(logs)} pairs; {noise})"
        print(line)
