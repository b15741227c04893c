#!/usr/bin/env python3
"""Device time per node, graphprof against NVIDIA's cudaGraphsPerfScaling, one row per shape and mode.

    tools/experiments/parity-table.py SAMPLE_TRIALS.csv LABEL=REPORT.json [LABEL=REPORT.json ...] > table.md

SAMPLE_TRIALS.csv: the sample's per-trial CSV lines (OUTFMT 2) under its header, as
tools/experiments/parity-perfscaling.sh writes them (sample_trials.csv). Each REPORT is a graphprof run or
sweep report of the `scaling` workload (any modes; e.g. `sweep --isolate-modes` and the same sweep
in one process), shown side by side under its LABEL. Per shape and mode: the sample's
repeat_launch_device per node of every trial (trial 1 is the first printed one, after the sample's
unprinted warm-up trial: the fresh-process figure); per report graphprof's latched device time per
node (gpu_time_per_iter_latched / the graph's nodes: the same method as the sample's, one
replay after another behind one latch instead of one replay behind it), its ratio to the sample's
trial 1 and to the median of its trials, back to back / latched (graphprof's two methods), and the
level: graphprof's device probe (ns per kernel of a 256-kernel chain, back to back / latched) before
the GPU pass and after the latched pass, F = within 15 % of the fastest probe of all reports, S =
slower. A last line per report counts the rows within ±5 % of trial 1 and lists the others.
Written for this project; reads only the two formats named above.
"""
import csv
import json
import statistics
import sys


def fail(msg):
    print(f"parity-table.py: {msg}", file=sys.stderr)
    sys.exit(3)


def load_trials(path):
    trials = {}
    try:
        with open(path) as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    for n, row in enumerate(rows, start=2):
        try:
            key = (int(row["length"]), int(row["width"]), int(row["pattern"]))
            trials.setdefault(key, []).append(float(row["repeat_launch_device"]))
        except (KeyError, TypeError, ValueError):
            fail(f"{path}:{n}: expected length,width,pattern,...,repeat_launch_device (the sample's OUTFMT 2 CSV)")
    return trials


def median_of(result, key):
    m = (result.get("metrics") or {}).get(key) or {}
    s = m.get("summary") or {}
    v = s.get("median")
    return v if isinstance(v, (int, float)) else None


def probe_pair(point):
    if not isinstance(point, dict):
        return None
    b, l = point.get("back_to_back_ns"), point.get("latched_ns")
    if not isinstance(b, (int, float)):
        return None
    return (b, l if isinstance(l, (int, float)) else None)


def probes(result):
    """(before GPU pass, after latched pass) probe readings, each (b2b, latched) or None."""
    p = ((result.get("sections") or {}).get("device_probe")) or {}
    pts = {x.get("at"): x for x in p.get("points") or [] if isinstance(x, dict)}
    before = probe_pair(pts.get("before GPU pass"))
    if before is None and isinstance(p.get("ns_per_kernel"), (int, float)):
        before = (p["ns_per_kernel"], p.get("latched_ns_per_kernel"))
    after = probe_pair(pts.get("after latched pass"))
    if after is None and isinstance(p.get("ns_per_kernel_after"), (int, float)):
        after = (p["ns_per_kernel_after"], p.get("latched_ns_per_kernel_after"))
    return before, after


def load_report(label, path):
    try:
        with open(path) as f:
            report = json.load(f)
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    except json.JSONDecodeError as e:
        fail(f"{path}: not JSON ({e.msg} at line {e.lineno})")
    out = {}
    for r in report.get("results") or []:
        p = r.get("params") or {}
        try:
            key = (int(p["length"]), int(p["width"]), int(p.get("entry", 0)), r["mode"])
        except (KeyError, TypeError, ValueError):
            continue
        out[key] = r
    return label, report, out


def main(argv):
    if len(argv) < 3 or any("=" not in a for a in argv[2:]):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        sys.exit(2)
    trials = load_trials(argv[1])
    reports = [load_report(*a.split("=", 1)) for a in argv[2:]]
    all_probes = [v for _, _, res in reports for r in res.values() for pr in probes(r) if pr
                  for v in pr if isinstance(v, (int, float))]
    fastest = min(all_probes) if all_probes else None

    def level(pr):
        if pr is None or fastest is None:
            return "?"
        return "S" if max(v for v in pr if v is not None) > 1.15 * fastest else "F"

    def probe_text(r):
        before, after = probes(r)
        def one(pr):
            if pr is None:
                return "-"
            return "/".join("-" if v is None else f"{v:.0f}" for v in pr)
        lv = level(before) + ("" if level(after) == level(before) else "→" + level(after))
        return f"{lv} {one(before)}→{one(after)}"

    modes = sorted({k[3] for _, _, res in reports for k in res}) or ["capture"]
    keys = sorted({k for _, _, res in reports for k in res} | {t + (m,) for t in trials for m in modes},
                  key=lambda k: (k[2], k[1], k[0], k[3]))  # entry, width, length, mode
    head = ["shape L×W, entry", "mode", "sample ns/node: trials (1st first)"]
    for label, _, _ in reports:
        head += [f"{label}: latched ns/node", "÷ trial 1", "÷ median", "b2b ÷ latched", "level (probe before → after)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    tally = {label: [0, 0, []] for label, _, _ in reports}
    for length, width, entry, mode in keys:
        t = trials.get((length, width, entry), [])
        nodes = length * width + entry
        t_node = [v * 1000.0 / nodes for v in t]  # µs per replay -> ns per node
        row = [f"{length}×{width}, {entry}", mode, " ".join(f"{v:.0f}" for v in t_node) or "-"]
        for label, _, res in reports:
            r = res.get((length, width, entry, mode))
            if r is None or r.get("status") != "ok":
                row += [("-" if r is None else str(r.get("status"))), "", "", "", ""]
                continue
            g_nodes = ((r.get("sections") or {}).get("graph") or {}).get("nodes") or nodes
            lat, b2b = median_of(r, "gpu_time_per_iter_latched"), median_of(r, "gpu_time_per_iter")
            lat_node = lat / g_nodes if lat else None
            q1 = lat_node / t_node[0] if lat_node and t_node else None
            qm = lat_node / statistics.median(t_node) if lat_node and t_node else None
            if q1 is not None:
                tally[label][0] += 1
                if abs(q1 - 1) <= 0.05:
                    tally[label][1] += 1
                else:
                    tally[label][2].append(f"{length}×{width} e{entry} {mode} {q1:.3f}")
            row += [f"{lat_node:.0f}" + ("" if g_nodes == nodes else f" ({g_nodes} nodes)") if lat_node else "-",
                    f"{q1:.3f}" if q1 else "-", f"{qm:.3f}" if qm else "-",
                    f"{b2b / lat:.3f}" if lat and b2b else "-", probe_text(r)]
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    for label, report, _ in reports:
        n, k, out = tally[label]
        cmd = report.get("command_line") or ""
        if isinstance(cmd, list):
            cmd = " ".join(cmd)
        lines.append(f"{label}: latched within ±5 % of the sample's trial 1 in {k} of {n} rows"
                     + (f"; outside: {', '.join(out)}" if out else "") + (f" ({cmd})" if cmd else ""))
    for label, _, res in reports:
        # Capture against explicit construction of the same shape, by each of graphprof's methods.
        worst, off = {}, []
        for (length, width, entry, mode), r in sorted(res.items()):
            g = res.get((length, width, entry, "graph"))
            if mode != "capture" or g is None or r.get("status") != "ok" or g.get("status") != "ok":
                continue
            for key, name in (("gpu_time_per_iter_latched", "latched"), ("gpu_time_per_iter", "b2b")):
                a, b = median_of(r, key), median_of(g, key)
                if not a or not b:
                    continue
                q = b / a
                if abs(q - 1) > abs(worst.get(name, 1.0) - 1):
                    worst[name] = q
                if abs(q - 1) > 0.02:
                    off.append(f"{length}×{width} e{entry} {name} {q:.3f}")
        if worst:
            lines.append(f"{label}: graph ÷ capture, largest: " + ", ".join(f"{k} {v:.3f}" for k, v in sorted(worst.items()))
                         + (f"; outside ±2 %: {', '.join(off)}" if off else "; every shape within ±2 % by both methods"))
    if fastest is not None:
        lines.append(f"Level: F = probe within 15 % of the fastest probe of these reports ({fastest:.0f} ns per kernel), S = slower.")
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv)
