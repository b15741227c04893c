#!/usr/bin/env python3
"""The kernel switches in one profile's records: ks lines (what each switching call took), GRAPH_TRACE
spans before / after the first switch off and those across a switch off, kernel records."""
import glob, json, statistics, sys

for f in sorted(glob.glob(sys.argv[1] + "/proc-*.jsonl")):
    ks, gt, k, fails = [], [], 0, []
    for line in open(f):
        if '"t":"ks_fail"' in line: fails.append(line.strip())
        elif '"t":"ks"' in line: ks.append(json.loads(line))
        elif '"t":"gt"' in line: gt.append(json.loads(line))
        elif line.startswith('{"t":"k"'): k += 1
    if fails: print(f"{f.split('/')[-1]}: failed switch calls: {fails}")
    if not gt and not ks: continue
    took = sorted(x.get('took', 0) for x in ks)
    print(f"{f.split('/')[-1]}: {len(ks)} ks lines (first {[(x['on'], x['ts'], x.get('done'), x.get('st')) for x in ks][:6]}), switching call took median "
          f"{statistics.median(took) if took else 0:.0f} ns max {took[-1] if took else 0} ns; {len(gt)} GRAPH_TRACE spans, {k} kernel records")
    if gt:
        med = statistics.median(g['e'] - g['s'] for g in gt)
        offs = [x['ts'] for x in ks if x['on'] == 0]
        across = [g for g in gt if any(g['s'] < t < g['e'] for t in offs)]
        print(f"  GRAPH_TRACE median {med:.0f} ns; spans across an off switch: {[(g['co'], g['e'] - g['s']) for g in across][:10]}")
        if offs:
            after = [g['e'] - g['s'] for g in gt if g['s'] >= min(offs)]
            before = [g['e'] - g['s'] for g in gt if g['e'] <= min(offs)]
            if before: print(f"  spans before the first off switch: median {statistics.median(before):.0f} ns, n={len(before)}")
            if after: print(f"  spans after it: median {statistics.median(after):.0f} ns, n={len(after)}")
